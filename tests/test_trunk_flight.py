"""The second switch hop between a scale-up domain's racks takes the trunk cable's flight time too (nu83fix).

newuser83: the hop counted the switch's `latency` only. A send between racks also crosses a trunk run: the pod of
`tests.test_scale_up_fabric_latency` (two racks of 32 MI355X, neighbours in one row at 600 mm pitch, 0.5 m tray drop,
0.5 m slack) has trunk runs of 2 x 0.5 + 0.6 + 0.5 = 2.1 m over the trays (`analyse.cabling`). On its passive copper
DAC that is 2.1 m x 4.5 ns/m = 9.45 ns (NVIDIA's OSFP passive DAC specifications: "Time propagation delay" at most
4.5 ns/m, docs.nvidia.com/networking/display/mcp4y10nxxx2x400pub/specifications), so the 250 ns switch hop becomes
259.45 ns; on single-mode fibre 2.1 m x 1.4676 / c = 10.28 ns (`model.site.GROUP_INDEX`), and an optical module's
own latency, which no such part states, is named as not added rather than taken as zero.
"""

from __future__ import annotations

import re

import pytest

from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs
from tests.test_scale_up_cages import RACK
from tests.test_scale_up_fabric_latency import JOB

C = 299_792_458.0
FIBRE = """---
kind: Link
id: ual-fibre
name: test 800G 4-lane single-mode module
vendor: test
source: ["test input"]
media: singlemode
rate: 800 Gbit/s
reach: 500 m
power_per_end: 15 W
lanes: 4
form_factor: OSFP
cages: [OSFP]
LATENCY"""


def _estimate(tmp_path, trunk: str = "ual-dac", module: str = ""):
    parts = PARTS.split("---\nkind: Rack")[0].replace("power: {max: 3 kW}", "latency: 250 ns\npower: {max: 3 kW}", 1)
    parts += FIBRE.replace("LATENCY", f"latency_per_end: {module}\n" if module else "")
    rack = RACK.replace("trunk_link: ual-dac", f"trunk_link: {trunk}")
    run = run_specs(tmp_path, {"c.yaml": parts + rack + JOB.replace("GPUS", "64")})
    est = run.workloads["workload/w"].estimate
    (note,) = [n for n in est.notes if "(`scale_up.racks`)" in n]
    return est, note


def _hop(note: str) -> float:
    """The second hop the note states (ns)."""
    return float(re.search(r"the second hop, ([0-9.]+) ns", note).group(1))


def test_a_copper_trunk_adds_its_flight_time_to_the_hop(tmp_path) -> None:
    _, note = _estimate(tmp_path)
    hop = 250e-9 + 2.1 * 4.5e-9
    assert f"{(1.9e-6 + hop / 63) * 1e6:.4g} us per collective step" in note
    assert _hop(note) == pytest.approx(hop * 1e9, abs=0.06)   # 259.45 ns, said to 4 figures
    assert ("ns (250 ns, ual-switch's `latency`, and 9.45 ns of flight over the longest trunk run, 2.1 m of dac at up "
            "to 4.5 ns/m)") in note


def test_a_fibre_trunk_takes_fibre_flight_and_says_its_modules_latency_is_not_stated(tmp_path) -> None:
    _, note = _estimate(tmp_path, "ual-fibre")
    flight = 2.1 * 1.4676 / C
    assert _hop(note) == pytest.approx((250e-9 + flight) * 1e9, abs=0.06)
    assert f"{flight * 1e9:.3g} ns of flight over the longest trunk run, 2.1 m of singlemode" in note
    assert "ual-fibre states no `latency_per_end`: its modules' latency is not added" in note


def test_a_stated_module_latency_is_added_at_both_ends(tmp_path) -> None:
    est, note = _estimate(tmp_path, "ual-fibre", "50 ns")
    hop = 250e-9 + 2.1 * 1.4676 / C + 2 * 50e-9
    assert _hop(note) == pytest.approx(hop * 1e9, abs=0.06)
    assert "100 ns of ual-fibre's modules (`latency_per_end` at both ends)" in note
    base, _ = _estimate(tmp_path / "b", "ual-fibre")
    assert est.metrics["step_time"] > base.metrics["step_time"]
