"""A BOM power built on a figure its part lists unconfirmed says so where it is shown (newuser101, PR1).

Celestica DS5000's `power.max` is a placeholder listed under `unconfirmed:`, yet the BOM, its CSV and `diff` showed
"3.00 kW" and "+36 kW" as plainly as a datasheet's figure; only PWR012, an info, said otherwise. The document's cell
now reads "3.000 (unconfirmed)", the data files keep the number with "unconfirmed" in a Power status column, the
BOM's reconciliation names the parts, and the diff's power change reads "+36 kW (unconfirmed)".
"""

from __future__ import annotations

import csv
import io

from archgen.compare.bom import PartChange
from archgen.output.diff_bom import bom_json, bom_section, by_object, power_cell
from archgen.render import fmt
from archgen.render.blocks import Column, _plain
from archgen.render.cluster_bom import unconfirmed_note
from archgen.render.tables import bom_data, bom_table, csv_bytes, unconfirmed_power
from archgen.units import Q_


def test_a_part_with_its_power_unconfirmed_is_marked(shipped):
    specs = shipped.design.specs
    ds5000, dgx = specs.get("celestica-ds5000"), specs.get("dgx-h100")
    assert ds5000.is_unconfirmed("power.max") and not dgx.is_unconfirmed("power.max")
    kw = Q_(3, "kW")
    assert unconfirmed_power(ds5000, kw) == fmt.Noted(kw, "unconfirmed")
    assert unconfirmed_power(dgx, kw) is kw and unconfirmed_power(ds5000, None) is None
    assert unconfirmed_power(None, kw) is kw          # no part of the catalog: a rack, a cord's length bin
    col = Column("Unit power", "kW", 3, "right")
    assert fmt.cell(fmt.Noted(kw, "unconfirmed"), "kW", 3) == "3.000 kW (unconfirmed)"
    assert _plain(fmt.Noted(kw, "unconfirmed"), col) == "3.000 (unconfirmed)"   # the heading carries the unit


def test_the_data_files_keep_the_number_and_say_it_beside(shipped):
    specs = shipped.design.specs
    from archgen.analyse.bom_line import BomLine
    lines = [BomLine("celestica-ds5000", "Switch", 12, Q_(3, "kW")), BomLine("dgx-h100", "System", 2, Q_(10.2, "kW"))]
    table = bom_table(lines, specs)
    assert table.rows[0][6] == fmt.Noted(Q_(3, "kW"), "unconfirmed") and table.rows[1][6] == Q_(10.2, "kW")
    data = bom_data(table)
    assert [c.title for c in data.columns][-2:] == ["Qty status", "Power status"]
    assert [r[-1] for r in data.rows] == ["unconfirmed", "stated"]
    rows = list(csv.DictReader(io.StringIO(csv_bytes(data).decode())))
    assert (rows[0]["Unit power (kW)"], rows[0]["Total power (kW)"], rows[0]["Power status"]) == \
        ("3.00", "36.00", "unconfirmed")
    assert "(unconfirmed)" not in csv_bytes(data).decode()


def test_the_bom_note_names_the_parts():
    marked = ("celestica-ds5000", "", "", "Switch", "", 12, fmt.Noted(Q_(3, "kW"), "unconfirmed"),
              fmt.Noted(Q_(36, "kW"), "unconfirmed"), "")
    plain = ("dgx-h100", "", "", "System", "", 2, Q_(10.2, "kW"), Q_(20.4, "kW"), "")
    note = unconfirmed_note([marked, plain])
    assert "celestica-ds5000 (36.0 kW)" in note and "dgx-h100" not in note and "PWR012" in note
    assert unconfirmed_note([plain]) == ""


def test_the_diff_says_a_power_change_rests_on_it():
    ds = PartChange("cluster/c", "celestica-ds5000", "Switch", "", 0, 12, Q_(36, "kW"), None, unconfirmed=True)
    qm = PartChange("cluster/c", "qm9700", "Switch", "", 2, 0, Q_(-3.44, "kW"), None)
    assert power_cell(ds.power, unconfirmed=ds.unconfirmed) == "+36 kW (unconfirmed)"
    assert power_cell(qm.power, unconfirmed=qm.unconfirmed) == "-3.44 kW"
    assert power_cell(None, unconfirmed=True) == "—"
    total = by_object((ds, qm), lambda c: f"| {c.part} |", 8, 6)[-1]
    assert "(unconfirmed)" in total and "**+32.56 kW**" in total
    assert [j["power_unconfirmed"] for j in bom_json((ds, qm))] == [True, False]
    section = "\n".join(bom_section((ds, qm)))
    assert "(unconfirmed)\": the part's stated draw is an estimate it lists as unconfirmed (celestica-ds5000)" in section
    assert "lists as unconfirmed" not in "\n".join(bom_section((qm,)))
