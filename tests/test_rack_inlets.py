"""A rack's inlet temperatures are metrics, so a vendor's deviation on them is a `gap` row (newuser84's trial).

An ODM answered a GB300 NVL72 RFQ with trays that accept a secondary coolant supply of at most 35 °C, where the
reference rack states 40 °C: no requirement could name that figure (no metric held it), so `archgen gap` showed the
proposal as meeting everything it was asked and the worse deviation was missed. `coolant_supply` (the loop's
`cooling.liquid.supply`) and `air_inlet_max` (the top of the rack's ASHRAE air class, TC 9.9 Thermal Guidelines, 5th
ed., 2021: A2 10-35 °C, derated 1 K per 300 m above 900 m) now are rack metrics; a `rack/*` glob on the coolant supply
is not applicable to an air-cooled rack, whose loop does not exist, and a subject naming one exactly is REQ002.
"""

from __future__ import annotations

from pathlib import Path

from archgen.commands.gap import gap
from archgen.units import Q_
from tests.conftest import REPO, run_cli, run_specs, write_tree

RFQ = """kind: Requirements
id: rfq
requirements:
  - {id: RFQ-COOL-001, statement: Warm-water cooling, subject: "rack/*", metric: coolant_supply,
     target: ">= 40 degC"}
  - {id: RFQ-COOL-002, statement: A2 inlet air, subject: "rack/*", metric: air_inlet_max, target: ">= 35 degC",
     level: should}
"""


def odm_rack(supply: str) -> str:
    """The shipped GB300 NVL72 rack as an ODM renames it, its trays accepting `supply`, without our requirements."""
    text = (REPO / "specs/catalog/racks/gb300-nvl72.yaml").read_text(encoding="utf-8")
    text = text[:text.index("\nrequirements:")] + "\n"
    return text.replace("id: gb300-nvl72\n", "id: odm-nvl72\n").replace("supply: 40 degC", f"supply: {supply}")


def proposal(tmp: Path, supply: str = "35 degC") -> Path:
    return write_tree(tmp / "odm", files(supply))


def files(supply: str = "40 degC") -> dict[str, str]:
    network = (REPO / "examples/gb300-nvl72-su/racks/gb300-network.yaml").read_text(encoding="utf-8")
    return {"racks/odm.yaml": odm_rack(supply), "racks/network.yaml": network}


def test_the_metrics_are_the_stated_supply_and_the_air_class_top(tmp_path):
    metrics = run_specs(tmp_path, files()).metrics
    assert metrics["rack/odm-nvl72"]["coolant_supply"] == Q_(40, "degC")   # its cooling.liquid.supply
    assert metrics["rack/odm-nvl72"]["air_inlet_max"] == Q_(35, "degC")    # class A2 at hall-liquid (no altitude)
    assert "coolant_supply" not in metrics["rack/gb300-su-ib"]             # air-cooled: no loop, no figure


def test_air_class_top_derates_with_the_halls_altitude(tmp_path):
    hall = (REPO / "specs/catalog/facilities/hall-liquid.yaml").read_text(encoding="utf-8")
    hall = hall.replace("id: hall-liquid\n", "id: hall-liquid\naltitude: 1500 m\n")
    metrics = run_specs(tmp_path, files() | {"hall.yaml": hall}).metrics
    # ASHRAE TC 9.9: A2's 35 °C less 1 K per 300 m above 900 m: 35 - 600 / 300 = 33 °C
    assert metrics["rack/odm-nvl72"]["air_inlet_max"].m_as("degC") == 33


def test_gap_shows_the_odms_colder_supply_as_not_met(tmp_path):
    g = gap([proposal(tmp_path)], [write_tree(tmp_path / "rfq", {"rfq.yaml": RFQ})])
    rows = {(r.requirement.id, r.subject): r for r in g.rows}
    odm = rows["RFQ-COOL-001", "rack/odm-nvl72"]
    assert (odm.status, odm.value, odm.failing) == ("not met", Q_(35, "degC"), True)
    assert odm.requirement.target.headroom(odm.value) == Q_(-5, "K")   # 35 °C against >= 40 °C
    for air in ("rack/gb300-su-ib", "rack/gb300-su-eth"):
        row = rows["RFQ-COOL-001", air]
        assert (row.status, row.failing) == ("not applicable", False)
        assert row.note == f"{air} has no liquid loop (cooling.liquid): 'coolant_supply' is a liquid-cooled rack's"
        assert rows["RFQ-COOL-002", air].status == "met"
    assert g.failing


def test_warmer_water_meets_it(tmp_path):
    g = gap([proposal(tmp_path, "45 degC")], [write_tree(tmp_path / "rfq", {"rfq.yaml": RFQ})])
    (row,) = [r for r in g.rows if r.requirement.id == "RFQ-COOL-001" and r.subject == "rack/odm-nvl72"]
    assert (row.status, row.requirement.target.headroom(row.value)) == ("met", Q_(5, "K"))
    assert row.assumed == ("odm-nvl72 cooling.liquid.supply (unconfirmed)",)   # met on the loop's assumed figure
    assert not g.failing


def test_an_exact_subject_on_an_air_cooled_rack_is_not_provided(tmp_path):
    exact = RFQ.replace('subject: "rack/*", metric: coolant_supply',
                        "subject: rack/gb300-su-ib, metric: coolant_supply")
    g = gap([proposal(tmp_path)], [write_tree(tmp_path / "rfq", {"rfq.yaml": exact})])
    (row,) = [r for r in g.rows if r.requirement.id == "RFQ-COOL-001"]
    assert (row.status, row.failing) == ("not provided", True)


def test_diff_shows_a_supply_change_in_kelvin_as_better(tmp_path):
    """`diff` took a relative change of every metric: on °C pint could not take 40 °C − 35 °C back to °C (a crash on
    any rack with a loop); a temperature's change is a difference, +5 K, with no percentage (its zero is arbitrary)."""
    r = run_cli("diff", proposal(tmp_path / "base"), proposal(tmp_path / "head", "40 degC"))
    assert r.code == 0, r.err
    assert "| `rack/odm-nvl72` | coolant\\_supply | 35 °C | 40 °C | +5 K | — | better ▲ |" in r.out
