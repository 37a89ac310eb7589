"""A UALink pod's switches in a rack of their own, not written as a pod: refused naming `switch_rack` (newuser59).

The UALink 200G 1.0 specification (UALink Consortium, April 2025) joins up to 1,024 accelerators through UALink
switches, one switch port per accelerator link, over x1/x2/x4 ports of 200G lanes with cables of under 4 m
(consortium press release and spec overview webinar, 2025-04-22). An architect wrote such a pod as four MI355X
compute racks (32 GPUs each, the catalog's `mi355x-compute`) cabled to a switch rack. archgen models a scale-up
domain's switches in its own racks (an NVL72's trays; over several racks each rack's share joined by trunk links,
`analyse.scale_up_racks`), or, written with `switch_rack`, as a pod (ualink30, tests/analyse/test_scale_up_pod.py);
without that key the design is refused naming it;
before, it was told "mi355x-compute places 0 ual-switch ... make 2", beside trunk links to switches that stand
nowhere, and a 128 domain on racks of 32 only "holds 32 accelerators, not 128". The switch and cable are test
inputs (no UALink switch or cable datasheet is published): 128 ports of x4 (800G), a 3 m DAC.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from tests.conftest import run_specs

PARTS = """kind: Switch
id: ual-switch
name: test UALink switch, 128 x4 ports
vendor: test
source: ["test input"]
technology: ualink
ports: {count: 128, speed: 800 Gbit/s, cage: OSFP, per_cage: 1, lanes: 4}
mechanical: {height: 2 U, weight: 25 kg}
power: {max: 3 kW}
cooling: {type: air}
---
kind: Link
id: ual-dac
name: test UALink x4 DAC
vendor: test
source: ["test input"]
media: dac
rate: 800 Gbit/s
reach: 3 m
power_per_end: 0 W
lanes: 4
form_factor: OSFP
cages: [OSFP]
---
kind: Rack
id: ual-sw-rack
form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1000 kg, weight: 150 kg}
slots:
  - {at: 5, part: ual-switch, count: 8}
  - {at: 1, part: pdu-415v-60a-3ph, count: 2}
power:
  feeds: {count: 2, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  air: {class: A2, delta_t: 20 K}
---
kind: Cluster
id: ualpod
layout: [{rack: mi355x-compute, count: 4}, {rack: ual-sw-rack, count: 1}]
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 m}
scale_up: {domain: rack, SPAN size: 128, technology: ualink, topology: switched, bandwidth: 1.6 TB/s,
           switch: ual-switch, switches: 8, link: ual-dac}
"""


def _net010(tmp_path, span: str) -> list[str]:
    r = run_specs(tmp_path, {"c.yaml": PARTS.replace("SPAN ", span)})
    return [f.message for f in r.findings if f.id == "NET010"]


def test_switches_only_in_a_switch_rack_are_refused_naming_the_shape(tmp_path) -> None:
    found = _net010(tmp_path, "racks: 4, trunk_link: ual-dac, ")
    assert ("mi355x-compute places no ual-switch; ual-sw-rack, without accelerators, place(s) them: accelerators "
            "cabled to one stage of switches in racks of their own (a UALink pod) are written with `switch_rack: "
            "ual-sw-rack` (docs/clusters.md; a second switch tier is not modelled). Else a scale-up domain's switches "
            "stand in its own racks: expected 2 ual-switch in mi355x-compute (8 per domain over its 4 racks, joined "
            "by trunk_link)") in found   # ualink30: the pod is modelled (tests/analyse/test_scale_up_pod.py)
    assert not [m for m in found if "places 0" in m]


def test_a_one_rack_domain_of_four_racks_accelerators_names_racks(tmp_path) -> None:
    found = _net010(tmp_path, "")
    assert ("a rack domain of mi355x-compute holds 32 accelerators, not 128: a domain over 4 racks of 32 is "
            "`racks: 4` (docs/clusters.md)") in found


def test_a_multi_rack_domain_without_trunks_says_which_shape_is_modelled(tmp_path) -> None:
    with pytest.raises(ValidateError) as err:
        run_specs(tmp_path, {"c.yaml": PARTS.replace("SPAN ", "racks: 4, ")})
    assert ("scale_up.trunk_link: a domain over 4 racks is modelled as switches in each of its racks joined rack to "
            "rack (a GB200 NVL36x2): give trunk_link, the Link part of one switch-to-switch link between racks; "
            "or, for accelerators cabled to switches in racks of their own (a UALink pod's one switch stage), give "
            "switch_rack") in str(err.value)
