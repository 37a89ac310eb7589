"""Racks that place both power shelves and PDUs (issue 11 follow-up, item 1): every placed unit carries its load.

Catalog inputs (sources in the YAML files): gb200-compute-tray 5.4 kW max; sn2201 98 W, 48 ports;
orv3-power-shelf-33kw 33 kW, efficiency 0.97; pdu-2u-415v-60a-3ph 415 V x 60 A x sqrt(3) = 43.13 kVA (no
published capacity), which carries 80 % of it continuously as its feed does: 34.50 kW; feeds 415 V x 60 A x sqrt(3)
x 0.8 = 34.50 kW.
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.rack import analyse_rack
from archgen.pipeline import run
from archgen.units import Q_

PDU_KVA = 415 * 60 * math.sqrt(3) / 1000          # 43.13
FEED_KW = PDU_KVA * 0.8                            # 34.50
PDU_KW = FEED_KW                                   # a PDU's continuous capacity (analyse.power_chain.pdu_capacity)


def _rack(trays: int, power: str) -> str:
    return ("kind: Rack\nid: r\nform_factor: {standard: orv3, height: 48 U, width: 600 mm, depth: 1068 mm, "
            "max_payload: 1400 kg, weight: 150 kg}\nslots:\n- {at: 1, part: orv3-power-shelf-33kw, count: 4}\n"
            f"- {{at: 5, part: gb200-compute-tray, count: {trays}}}\n- {{at: 20, part: sn2201, count: 2}}\n"
            "- {at: 30, part: pdu-2u-415v-60a-3ph, count: 2}\npower:\n" + power +
            "cooling:\n  liquid: {cdu: in-row-cdu-1.3mw, supply: 40 degC, delta_t: 10 K, class: W32}\n"
            "  air: {class: A2, delta_t: 20 K}\n")


FEEDS = "  feeds: {{count: {n}, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}}\n"
SERIES = FEEDS.format(n=2) + "  shelves: {redundancy: N+N, fed_from: pdus}\n  pdus: {redundancy: N+N}\n"
BESIDE = FEEDS.format(n=4) + "  shelves: {redundancy: N+N}\n  pdus: {redundancy: N+N, serves: [sn2201]}\n"
AMBIGUOUS = FEEDS.format(n=4) + "  shelves: {redundancy: N+N}\n  pdus: {redundancy: N+N}\n"


def _analyse(spec_tree, text: str):
    result = run([spec_tree({"racks/r.yaml": text})])
    return result, result.racks["rack/r"]


def test_shelves_behind_pdus_load_the_pdus_with_the_shelves_input(spec_tree):
    result, a = _analyse(spec_tree, _rack(8, SERIES))
    p = a.power
    busbar = 8 * 5.4 + 2 * 0.098                                   # 43.396 kW on the busbar
    assert p.arrangement == "pdus-shelves"
    assert [s.kind for s in p.stages] == ["power shelves", "PDUs"]
    assert p.stages[0].load.m_as("kW") == pytest.approx(busbar)
    assert p.stages[1].load.m_as("kW") == pytest.approx(busbar / 0.97)   # 44.74 kW through the PDUs
    assert p.stages[1].usable.m_as("kW") == pytest.approx(PDU_KW)         # N+N of 2
    assert p.input_power.m_as("kW") == pytest.approx(busbar / 0.97)
    pwr001 = [f for f in result.findings if f.id == "PWR001"]
    # Before this change the PDUs were left out: only the shelves (66 kW usable) were budgeted and PWR001 passed.
    assert [(f.location.line, round(f.value.m_as("kW"), 2), round(f.limit.m_as("kW"), 2)) for f in pwr001] == \
        [(12, round(busbar / 0.97, 2), round(PDU_KW, 2))]


def test_pdus_beside_shelves_split_load_and_feeds(spec_tree):
    result, a = _analyse(spec_tree, _rack(4, BESIDE))
    p = a.power
    assert p.arrangement == "side-by-side"
    shelves, pdus = p.stages
    assert shelves.load.m_as("kW") == pytest.approx(4 * 5.4)             # the trays on the busbar
    assert pdus.load.m_as("kW") == pytest.approx(2 * 0.098)              # the two SN2201 on the PDUs
    assert p.input_power.m_as("kW") == pytest.approx(4 * 5.4 / 0.97 + 0.196)
    shelf_feeds, pdu_feeds = p.feed_groups                               # one feed per PDU, the rest to the shelves
    assert (shelf_feeds.count, pdu_feeds.count) == (2, 2)
    assert shelf_feeds.load.m_as("kW") == pytest.approx(4 * 5.4 / 0.97)
    assert shelf_feeds.usable.m_as("kW") == pytest.approx(FEED_KW)
    assert a.metrics["feed_capacity_usable"].m_as("kW") == pytest.approx(2 * FEED_KW)
    assert not [f for f in result.findings if f.id.startswith("PWR") and not f.waived
                and f.severity != "info"]   # PWR002's info: the feeds state no power factor (nu44power)


def test_ambiguous_rack_is_refused_with_how_to_write_it(spec_tree):
    result, _ = _analyse(spec_tree, _rack(4, AMBIGUOUS))
    [f] = [f for f in result.findings if f.id == "PWR009"]
    assert (f.severity, f.location.line) == ("error", 9)
    assert "power.shelves.fed_from: pdus" in f.message and "power.pdus.serves" in f.message


def test_switch_optics_follow_the_switch_ports_to_the_pdus(spec_tree):
    # The PDUs serve the SN2201s, which hold every switch port of the rack: all of the optics go to the PDUs.
    result, _ = _analyse(spec_tree, _rack(4, BESIDE))
    rack = next(r for r in result.design.racks if r.spec.id == "r")
    p = analyse_rack(rack, Q_(0.5, "kW")).power
    assert p.stages[1].load.m_as("kW") == pytest.approx(0.196 + 0.5)
    assert p.stages[0].load.m_as("kW") == pytest.approx(21.6)
    assert p.it_power.m_as("kW") == pytest.approx(21.6 + 0.196 + 0.5)


def test_shipped_racks_keep_one_path(shipped):
    # No shipped rack places both shelves and PDUs, so none of their numbers moved: the GB200 rack is on shelves,
    # every other on PDUs.
    arrangements = {p: a.power.arrangement for p, a in shipped.racks.items()}
    assert arrangements.pop("rack/gb200-nvl72") == "shelves"
    assert set(arrangements.values()) == {"pdus"}


def test_pwr009_applies_only_where_shelves_and_pdus_meet(spec_tree, shipped):
    from archgen.checks.scope import applies
    result, _ = _analyse(spec_tree, _rack(4, BESIDE))
    mixed = next(r for r in result.design.racks if r.spec.id == "r")
    h100 = next(r for r in shipped.design.racks if r.spec.id == "dgx-h100-4")
    assert applies("PWR009", ["rack/r"], [mixed])
    assert not applies("PWR009", ["rack/dgx-h100-4"], [h100])      # PDUs only: nothing to connect
