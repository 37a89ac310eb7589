"""CAB002 holds a scale-up domain's `link` and `trunk_link` lanes to its switch's port lanes (nu83fix).

newuser83's trial: an 800G module of 8 x 100G lanes (800G DR8) as the trunk of a UALink domain whose switch ports
run 4 x 200G lanes passed `check`; a fabric tier's modules are held to their ports' lane rate (CAB002,
`checks.media_ends.lanes_mismatch`), the scale-up domain's were not. A 200G-PAM4 port does not run 100G-PAM4
lanes (NVIDIA LinkX 200G-PAM4 list, the rule CAB002 cites); UALink 200G 1.0 ports run 200G lanes, x1, x2 or x4
(Tom's Hardware on the final specification, 2025-04-08).
"""

from __future__ import annotations

from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs
from tests.test_scale_up_cages import RACK

DR8 = """---
kind: Link
id: ual-dr8
name: test 800G DR8 module, 8 x 100G lanes
vendor: test
source: ["test input"]
media: singlemode
rate: 800 Gbit/s
reach: 500 m
power_per_end: 16 W
lanes: 8
form_factor: OSFP
cages: [OSFP]
"""


def _cab002(tmp_path, trunk: str) -> list[str]:
    parts = PARTS.split("---\nkind: Rack")[0] + DR8
    r = run_specs(tmp_path, {"c.yaml": parts + RACK.replace("trunk_link: ual-dac", f"trunk_link: {trunk}")})
    return [f.message for f in r.findings if f.id == "CAB002"]


def test_an_8_lane_100g_trunk_on_4_lane_200g_ports_is_refused(tmp_path) -> None:
    assert _cab002(tmp_path, "ual-dr8") == [
        "scale_up.trunk_link: ual-dr8 has 100G lanes, the ual-switch port group 'ports' runs 200G lanes: expected "
        "200G lanes (a port cannot run lanes faster than its SerDes, and XDR 200G-PAM4 ports do not downshift to "
        "100G-PAM4 (NVIDIA LinkX 200G-PAM4 list))"]


def test_a_4_lane_200g_trunk_passes(tmp_path) -> None:
    assert _cab002(tmp_path, "ual-dac") == []
