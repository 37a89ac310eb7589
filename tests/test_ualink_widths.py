"""A UALink domain's port width, its lane count, against what UALink 200G 1.0 allows: x1, x2 or x4 (ualink30).

"UALinks can be configured as x1, x2, or x4, with a four-lane link achieving up to 800 GT/s in both transmit and
receive directions" (Tom's Hardware on the final specification, 2025-04-08, tomshardware.com/tech-industry/ualink-
has-nvidias-nvlink-in-the-crosshairs-final-specs-support-up-to-1-024-gpus-with-200-gt-s-bandwidth). nu83fix held a
UALink cable's lane *rate* to the switch ports' (CAB002); its lane *count* passed whatever it was: an 8-lane
accelerator-to-switch link, which no UALink port is, gave a domain of half the links with no word. The pod is
`tests.test_scale_up_cages`' two racks of 32 MI355X on the test UALink switch and DAC (test inputs, no datasheet).
"""

from __future__ import annotations

import pytest

from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs
from tests.test_scale_up_cages import RACK


def _net010(tmp_path, lanes: int, rate: str, switch_lanes: int = 4):
    parts = PARTS.split("---\nkind: Rack")[0].replace("lanes: 4\n", f"lanes: {lanes}\n").replace(
        "rate: 800 Gbit/s", f"rate: {rate}").replace("lanes: 4}", f"lanes: {switch_lanes}}}")
    r = run_specs(tmp_path, {"c.yaml": parts + RACK})
    return [f for f in r.findings if f.id == "NET010" and "UALink 200G 1.0" in f.message]


def test_an_eight_lane_ualink_link_is_refused_at_its_key(tmp_path) -> None:
    (f,) = _net010(tmp_path, 8, "1600 Gbit/s")
    assert f.message == ("ual-dac has 8 lanes, but a UALink 200G 1.0 port is x1, x2 or x4 (1, 2 or "
                         "4 lanes): expected a link part of 1, 2 or 4 lanes, one per accelerator port")
    line = (tmp_path / f.location.file).read_text(encoding="utf-8").splitlines()[f.location.line - 1]
    assert "link: ual-dac" in line   # file:line of the domain's `link`


def test_a_switch_of_eight_lane_ports_is_refused(tmp_path) -> None:
    found = [f.message for f in _net010(tmp_path, 4, "800 Gbit/s", switch_lanes=8)]
    assert found == ["ual-switch's port group 'ports' has 8 lanes a port, but a UALink 200G 1.0 "
                     "port is x1, x2 or x4 (1, 2 or 4 lanes): expected ports of 1, 2 or 4 lanes (a cage of 8 lanes "
                     "carries 2 x4 ports: count each)"]


@pytest.mark.parametrize(("lanes", "rate"), [(1, "200 Gbit/s"), (2, "400 Gbit/s"), (4, "800 Gbit/s")])
def test_x1_x2_x4_pass(tmp_path, lanes: int, rate: str) -> None:
    assert _net010(tmp_path, lanes, rate) == []
