"""An accelerator's measured idle draw (`Accelerator.idle`) bounds its system's idle hours (issue 22 part 1, idle40).

No catalog system states `power.idle`, so a cluster's idle hours drew each system's average draw: for the DGX B200 and
the MI355X platform their maximum. Where the catalog holds a sourced idle reading of the accelerator (B200 137-181.7 W,
MI355X 238 W: ROCm/legacy-rocm-build#5219 and, cost41, 8bitai/gpu-parking-tax, which gives the H100's 71.7-74.7 W
too), the system's maximum with each accelerator at that reading instead of its TDP is a lower upper bound: the host
is still taken at its maximum, so it stays an upper bound (COST003 says so).
"""

from __future__ import annotations

import pytest

from archgen.analyse.cost_load import accelerator_idle_bound
from archgen.errors import ValidateError
from tests.conftest import run_specs

GPU = """\
kind: Accelerator
id: gpu
vendor: Nexa Silicon
source: design target
memory: 256 GiB
memory_bandwidth: 8 TB/s
peak: {bf16: 2250 TFLOPS}
tdp: 1000 W
"""


def test_the_bound_is_the_maximum_with_the_accelerators_idle(tmp_path):
    """DGX B200: 14.3 kW - 8 x (1,000 - 181.7) W = 7.7536 kW (cost41: the high end of its 137-181.7 W readings; 7.396
    kW on the 137 W one alone); MI355X platform: 15.2 kW - 8 x (1,400 - 238) W = 5.904 kW; DGX H100 (cost41: the H100
    idle readings with no CUDA context, 71.7-74.7 W, 8bitai/gpu-parking-tax): 10.2 kW - 8 x (700 - 74.7) W = 5.1976 kW.
    The MI325X platform takes none (its 1,000 W TDP is unconfirmed: an overstated TDP would make the bound too low)."""
    specs = run_specs(tmp_path, {"gpu.yaml": GPU}).specs
    bounds = {p: accelerator_idle_bound(specs, specs.get(p)) for p in
              ("dgx-b200", "amd-mi355x-platform", "amd-mi325x-platform", "dgx-h100")}
    assert bounds["dgx-b200"] is not None and bounds["dgx-b200"].m_as("kW") == pytest.approx(7.7536)
    assert bounds["amd-mi355x-platform"] is not None
    assert bounds["amd-mi355x-platform"].m_as("kW") == pytest.approx(5.904)
    assert bounds["dgx-h100"] is not None and bounds["dgx-h100"].m_as("kW") == pytest.approx(5.1976)
    assert bounds["amd-mi325x-platform"] is None


def test_a_system_stating_its_idle_draw_or_a_maximum_below_its_accelerators_takes_no_bound(tmp_path):
    """A stated `power.idle` is the figure (no bound replaces it); a maximum below the accelerators' TDPs does not hold
    them at their TDP, so nothing is subtracted from it."""
    system = ("kind: System\nid: {id}\nsource: test\naccelerator: gpu\naccelerators: 8\n"
              "mechanical: {{height: 8 U, weight: 130 kg}}\npower: {{max: {max}{idle}}}\n")
    files = {"gpu.yaml": GPU + "idle: [100 W, 150 W]\n",
             "a.yaml": system.format(id="stated", max="14 kW", idle=", idle: 3 kW"),
             "b.yaml": system.format(id="short", max="7 kW", idle=""),
             "c.yaml": system.format(id="open", max="14 kW", idle="")}
    specs = run_specs(tmp_path, files).specs
    assert accelerator_idle_bound(specs, specs.get("stated")) is None
    assert accelerator_idle_bound(specs, specs.get("short")) is None
    bound = accelerator_idle_bound(specs, specs.get("open"))
    assert bound is not None and bound.m_as("kW") == pytest.approx(14 - 8 * (1 - 0.15))


def test_idle_readings_are_given_lowest_first(tmp_path):
    with pytest.raises(ValidateError, match=r"the lowest reading, 150 W, is above the highest, 100 W"):
        run_specs(tmp_path, {"gpu.yaml": GPU + "idle: [150 W, 100 W]\n"})
