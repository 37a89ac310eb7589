"""CAB005 judges a scale-up domain's cables against its switch's port cages (newuser59).

A UALink domain over two racks of 32 MI355X (the catalog's amd-mi355x-platform), each rack with two test UALink
switches of 128 OSFP x4 ports (`tests.analyse.test_scale_up_switch_rack`'s parts), took a DAC made for QSFP112 cages
as both its accelerator-to-switch `link` and its rack-to-rack `trunk_link` with no finding: a fabric tier's modules
are held to their ports' cages (CAB005), the scale-up domain's were not. QSFP and OSFP never mix (different widths:
`model.network.cage_fits`). A switch whose port groups name no such cage (an NVLink tray's backplane cartridge) is not
judged.
"""

from __future__ import annotations

import pytest

from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs

RACK = """---
kind: Rack
id: ualrack
facility: hall-liquid
form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1500 kg, weight: 150 kg}
slots:
  - {at: 9, part: amd-mi355x-platform, count: 4}
  - {at: 30, part: ual-switch, count: 2}
  - {at: 1, part: pdu-415v-60a-3ph, count: 4}
power:
  feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  liquid: {cdu: in-row-cdu-1.3mw, cdu_count: 2, cdu_redundancy: N+1, racks_per_cdu: 8, supply: 40 degC,
           delta_t: 10 K, coolant: pg25, class: W32}
  air: {class: A2, delta_t: 20 K}
---
kind: Cluster
id: ualpod
layout: [{rack: ualrack, count: 2}]
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 0.5 m, slack: 0.5 m}
scale_up: {domain: rack, racks: 2, size: 64, technology: ualink, topology: switched, bandwidth: 400 GB/s,
           switch: ual-switch, switches: 4, link: ual-dac, trunk_link: ual-dac}
"""


def _cab005(tmp_path, cage: str) -> list[str]:
    parts = PARTS.split("---\nkind: Rack")[0].replace("cages: [OSFP]", f"cages: [{cage}]")
    r = run_specs(tmp_path, {"c.yaml": parts + RACK})
    return [f.message for f in r.findings if f.id == "CAB005"]


def test_a_qsfp_cable_on_osfp_scale_up_switch_ports_is_refused(tmp_path) -> None:
    assert _cab005(tmp_path, "QSFP112") == [
        "scale_up.link: ual-dac (QSFP112) fits no port of ual-switch (OSFP): expected a cable or module for OSFP",
        "scale_up.trunk_link: ual-dac (QSFP112) fits no port of ual-switch (OSFP): expected a cable or module for "
        "OSFP"]


@pytest.mark.parametrize("cage", ["OSFP", "OSFP-RHS"])
def test_an_osfp_cable_fits(tmp_path, cage: str) -> None:
    assert _cab005(tmp_path, cage) == []


def test_a_cable_wider_than_the_switch_ports_is_refused(tmp_path) -> None:
    """cabfix35: an 8-lane OSFP cable fits the OSFP cage's shape, but the switch's x4 ports wire 4 lanes of it.

    The fabric tiers' width rule (`media_ends.too_wide`), applied to the domain's `link` and `trunk_link` alike.
    """
    parts = PARTS.split("---\nkind: Rack")[0].replace("lanes: 4\nform_factor: OSFP", "lanes: 8\nform_factor: OSFP")
    r = run_specs(tmp_path, {"c.yaml": parts + RACK})
    found = [f for f in r.findings if f.id == "CAB005"]
    assert [f.message for f in found] == [
        f"scale_up.{key}: ual-dac has 8 lanes, the OSFP cage of the ual-switch port group 'ports' wires 4: expected a "
        "module of at most 4 lanes (a cage drives only its ports' lanes; no source read states that ual-dac runs at "
        "half width)" for key in ("link", "trunk_link")]
    assert [(f.value.m, f.limit.m) for f in found] == [(8, 4), (8, 4)]
