"""A BOM power built on a figure its part lists unconfirmed says so where it is shown (newuser101, PR1).

Celestica DS5000's `power.max` is a placeholder listed under `unconfirmed:`, yet the BOM, its CSV and `diff` showed
"3.00 kW" and "+36 kW" as plainly as a datasheet's figure; only PWR012, an info, said otherwise. The document's cell
now reads "3.000 (unconfirmed)", the data files keep the number with "unconfirmed" in a Power status column, the
BOM's reconciliation names the parts, and the diff's power change reads "+36 kW (unconfirmed)".
"""

from __future__ import annotations

import csv
import io

from archgen.analyse.rack_power_inputs import BOM_DRAWS, draw_unconfirmed, rack_power_parts, unconfirmed_draws
from archgen.compare.bom import PartChange
from archgen.output.diff_bom import bom_json, bom_section, by_object, power_cell
from archgen.pipeline import run
from archgen.render import fmt
from archgen.render.blocks import Column, Para, _plain
from archgen.render.cluster import cluster_scope
from archgen.render.cluster_bom import appendices, unconfirmed_note
from archgen.render.rack import abstract
from archgen.render.tables import bom_data, bom_table, csv_bytes, unconfirmed_parts, unconfirmed_power
from archgen.render.target import rack_scope
from archgen.units import Q_
from tests.conftest import SPECS
from tests.data.clusters.small import files


def test_a_part_with_its_power_unconfirmed_is_marked(shipped):
    specs = shipped.design.specs
    ds5000, dgx = specs.get("celestica-ds5000"), specs.get("dgx-h100")
    assert ds5000.is_unconfirmed("power.max") and not dgx.is_unconfirmed("power.max")
    kw = Q_(3, "kW")
    assert unconfirmed_power(kw, (ds5000,), specs) == fmt.Noted(kw, "unconfirmed")
    assert unconfirmed_power(kw, (dgx,), specs) is kw and unconfirmed_power(None, (ds5000,), specs) is None
    assert unconfirmed_power(kw, (None,), specs) is kw          # no part of the catalog: a rack, a cord's length bin
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


def test_a_figure_that_sums_marked_parts_is_marked(shipped):
    """infeas41: a cluster BOM's rack line and a rack's own IT power add up their placed parts' draws; they are marked
    where one of those is, as the parts' own lines are (one rule, `unconfirmed_power`), and the note names them."""
    specs = shipped.design.specs
    ds5000, dgx = specs.get("celestica-ds5000"), specs.get("dgx-h100")
    kw = Q_(40, "kW")
    assert unconfirmed_power(kw, (None, dgx, ds5000), specs) == fmt.Noted(kw, "unconfirmed")
    assert unconfirmed_power(kw, (dgx, dgx), specs) is kw and unconfirmed_power(None, (ds5000,), specs) is None
    assert unconfirmed_parts((ds5000, dgx, ds5000), specs) == ("celestica-ds5000 maximum power",)
    assert unconfirmed_parts((), specs) == ()
    rack = ("r1", "", "", "Rack", "", 1, fmt.Noted(kw, "unconfirmed"), fmt.Noted(kw, "unconfirmed"), "")
    part = ("celestica-ds5000", "", "", "Switch", "", 12, fmt.Noted(Q_(3, "kW"), "unconfirmed"),
            fmt.Noted(Q_(36, "kW"), "unconfirmed"), "")
    note = unconfirmed_note([rack, part])
    assert "celestica-ds5000 (36.0 kW) of the total power); a rack line marked so (r1) adds up such parts" in note
    assert "r1 (" not in note and "rack line" not in unconfirmed_note([part])


def _key(r, path):
    """A rack document's abstract and its IT power (maximum) cell."""
    a = r.racks[path]
    section = abstract(rack_scope(r, a, "r", "2026-01-01")[0], a)
    rows = dict(next(b for b in section.blocks if getattr(b, "id", "") == "key-metrics").rows)
    return section, rows["IT power at the equipment (maximum)"]


def test_the_documents_mark_them(shipped, spec_tree):
    section, it = _key(shipped, "rack/gb200-nvl72")
    assert it.endswith(" kW (unconfirmed)") and " kW (unconfirmed) at maximum IT load" in section.blocks[0].text
    assert section.blocks[-1].text.startswith("Marked (unconfirmed): IT power at maximum and typical draw, input power, heat")
    assert (": gb200-compute-tray maximum power, mmf-100g-sr4 power per end, nvlink5-switch-tray maximum power, "
            "sn2201 maximum power, sn2201 typical power (their lines in a bill of materials are marked alike). A "
            "figure that rests on them in part says how much of it does") in section.blocks[-1].text   # tail42
    plain = run([spec_tree(files(switch="sw8"))])   # DGX H100s at NVIDIA's published 10.2 kW, a test switch
    assert plain.racks
    for path in plain.racks:
        section, it = _key(plain, path)
        assert it.endswith(" kW") and not any("Marked (unconfirmed)" in b.text for b in section.blocks
                                              if isinstance(b, Para))
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    bom = next(b for s in appendices(cluster_scope(shipped, a, "r", "2026-01-01")[0], a).sections
               if s.id == "bom" for b in s.blocks if getattr(b, "id", "") == "bom")
    racks = {row[0]: row[6:8] for row in bom.rows if row[3] == "Rack"}
    assert racks and all(isinstance(v, fmt.Noted) for cells in racks.values() for v in cells)
    a = plain.clusters["cluster/c"]
    bom = next(b for s in appendices(cluster_scope(plain, a, "r", "2026-01-01")[0], a).sections
               if s.id == "bom" for b in s.blocks if getattr(b, "id", "") == "bom")
    assert [row[6] for row in bom.rows if row[3] == "Rack"] == [line.unit_power for line in a.cabling.bom
                                                               if line.kind == "Rack"] != []


def _nics_added(spec_tree, added: bool):
    """The small DGX H100 cluster, its DGX H100 (a user copy) adding its compute NICs' power to its own or not.

    Its compute NICs are `nic-x`, a copy of the ConnectX-7 whose `power` the fixture lists unconfirmed (whatever the
    catalog lists), so that the DGX's own `power.max`, a datasheet figure, is the only other draw it sums.
    """
    catalog = SPECS / "catalog"
    nic = [line for line in (catalog / "nics" / "connectx-7.yaml").read_text(encoding="utf-8").splitlines()
           if not line.startswith(("id:", "unconfirmed:"))]
    dgx = (catalog / "systems" / "dgx-h100.yaml").read_text(encoding="utf-8").replace("part: connectx-7,",
                                                                                      "part: nic-x,")
    assert "part: nic-x," in dgx and "power.max" not in dgx.split("unconfirmed:")[-1].splitlines()[0]
    tree = {**files(switch="sw8"), "parts/nic-x.yaml": "\n".join(["id: nic-x", *nic, "unconfirmed: [power]", ""]),
            "parts/dgx-h100.yaml": dgx + ("power_includes_nics: false\n" if added else "")}
    return run([spec_tree(tree)])


def _draws(words):
    """The (part, field) of REQ005's assumed inputs that are a BOM line's draw ("nic-x power (unconfirmed)")."""
    return {tuple(w.split(" ")[:2]) for w in words if w.split(" ")[1] in BOM_DRAWS}


def test_a_system_adding_unconfirmed_nics_is_marked(spec_tree):
    """unconfmark42 item 1: a system whose maximum adds its NICs' power sums their figure; where that is unconfirmed
    its BOM line, the rack's IT power and the cluster BOM's rack line are marked, as REQ005 names the NICs."""
    r = _nics_added(spec_tree, added=True)
    specs = r.design.specs
    dgx = specs.get("dgx-h100")
    assert dgx.nic_power is not None and not dgx.is_unconfirmed("power.max")
    assert ("nic-x", "power") in unconfirmed_draws(dgx, specs) and draw_unconfirmed(dgx, specs)
    assert ("dgx-h100", "power.max") not in unconfirmed_draws(dgx, specs)
    rack = r.racks["rack/c4"]
    section, it = _key(r, "rack/c4")
    nics = sum(item.part.id == "dgx-h100" for item in rack.rack.items) * dgx.nic_power   # its sourced 10.2 kW aside
    assert nics.m > 0 and it.endswith(f" kW ({fmt.q(nics, 'kW', 1)} of it unconfirmed)"), it   # unconfband43
    assert "nic-x power" in section.blocks[-1].text
    line = next(row for row in bom_table(rack.bom, specs).rows if row[0] == "dgx-h100")
    assert isinstance(line[6], fmt.Noted) and isinstance(line[7], fmt.Noted)
    a = r.clusters["cluster/c"]
    bom = next(b for s in appendices(cluster_scope(r, a, "r", "2026-01-01")[0], a).sections
               if s.id == "bom" for b in s.blocks if getattr(b, "id", "") == "bom")
    assert {row[0] for row in bom.rows if isinstance(row[6], fmt.Noted)} >= {"dgx-h100", "c4"}
    plain = _nics_added(spec_tree, added=False)      # the NICs inside the DGX's own figure: nothing of theirs summed
    assert not draw_unconfirmed(plain.design.specs.get("dgx-h100"), plain.design.specs)
    assert _key(plain, "rack/c4")[1].endswith(" kW")


def test_the_markers_and_req005_name_the_same_draws(spec_tree):
    """One rule: the draws a rack's IT power is marked for are those REQ005 names for it (`rack_power_inputs`), and
    the cluster BOM's marked lines are those REQ005 names for the cluster's IT power, with the NICs added or not."""
    for added in (True, False):
        r = _nics_added(spec_tree, added)
        specs = r.design.specs
        for path, a in r.racks.items():
            marked = {d for item in a.rack.items for d in unconfirmed_draws(item.part, specs)}
            assert marked == _draws(r.operations.assumed.get(path, {}).get("it_power", ())), (added, path)
        a = r.clusters["cluster/c"]
        marked = {d for line in a.cabling.bom if line.kind != "Rack" and line.quantity > line.in_parent
                  and (part := specs.get(line.part)) is not None for d in unconfirmed_draws(part, specs)}
        assert marked == _draws(r.operations.assumed.get("cluster/c", {}).get("it_power", ())), added
        assert (("nic-x", "power") in marked) == added


def _documents(r, tmp_path, monkeypatch):
    """The Markdown of `r`'s rack c4 and cluster c documents (diagrams as placeholders: their words are not read)."""
    from archgen.render import diagrams, render_all
    from tests.render.golden_util import PLACEHOLDER
    monkeypatch.setattr(diagrams, "render", lambda name, draw, formats: {f: PLACEHOLDER[f] for f in formats})
    out = {}
    for target in ("c4", "c"):
        (md,) = [p for p in render_all(r, tmp_path / target, target=target, formats=("md",), progress=False)
                 if p.suffix == ".md" and p.stem == target]
        out[target] = md.read_text(encoding="utf-8")
    return out


def test_every_figure_that_sums_the_draws_is_marked(spec_tree, tmp_path, monkeypatch):
    """unconfmark42 item 2: the rack document's input power, heat and flows, its power and cooling budgets' loads,
    and the cluster document's power totals, rack-type rows and the hall's needs are marked, the word once per
    figure, with one note per document naming the draws; with the NICs inside the DGX's figure none is."""
    docs = _documents(_nics_added(spec_tree, added=True), tmp_path / "added", monkeypatch)
    rack, cluster = docs["c4"], docs["c"]
    for text in (rack, cluster):
        (note,) = [line for line in text.splitlines() if line.startswith("Marked (unconfirmed):")]
        assert "nic-x power" in note and "dgx-h100 maximum power" not in note and "(unconfirmed) (unconfirmed)" not in text
    for words in (" of it unconfirmed) at maximum IT load and ", " of it unconfirmed) from its feeds; 0.0 kW of its heat",
                  "| Input power (after conversion losses) | ", "| Heat to liquid / air | 0.0 kW / ",
                  "| Air flow required | ", "the feeds supply ", "| Feeds | normal operation |", "All ",
                  "| Air flow required by the systems stating one, for ", "At typical draw the IT equipment takes ",
                  "| IT power at the equipment (typical, for energy) | "):   # no typical stated: the maximum stands in
        line = next(line for line in rack.splitlines() if words in line)
        assert " of it unconfirmed)" in line, line   # the DGX's own 10.2 kW stays confirmed (unconfband43)
    budget = [line for line in rack.splitlines()   # each stage's load: budget, feed and failure-case rows
              if line.startswith(("| PDUs |", "| Feeds |", "| Feeds (after derating"))
              and " V " not in line and "| Case |" not in line]
    assert len(budget) == 8 and all(line.count("unconfirmed)") == 1 for line in budget), budget
    heat = [line for line in rack.splitlines() if line.startswith("| Air |")]
    assert heat and heat[0].count("unconfirmed)") == 2      # its heat and its flow (0.0 kW to liquid stays plain)
    lead = next(line for line in cluster.splitlines() if "IT power at the rack feeds" in line and "of which" in line)
    it, network = lead.split("IT power at the rack feeds ")[1].split(", of which network ")
    assert it.endswith(" kW of it unconfirmed)") and network.split(" and ")[0].endswith(" kW")   # sw8's 100 W is stated
    types = [line for table in ("Rack types*", "Power and heat by rack type*")
             for line in cluster.split(table)[1].split("*Table")[0].splitlines()
             if line.startswith(("| c4 |", "| net |", "| All racks |"))]
    assert len(types) == 5 and all(("unconfirmed)" in line) == (not line.startswith("| net |")) for line in types), types
    need = next(line for line in cluster.splitlines() if line.startswith("| IT power at the rack feeds (maximum) |"))
    assert need.endswith(" kW of it unconfirmed) |")
    plain = _documents(_nics_added(spec_tree, added=False), tmp_path / "plain", monkeypatch)
    for text in plain.values():
        assert "Marked (unconfirmed)" not in text and "unconfirmed)" not in text


def test_a_figure_at_typical_draw_sums_the_typical_figure_where_one_is_stated():
    """A figure at typical draw (`it_power_typical`) sums a part's `power.typical` where it states one, else its
    maximum: it is marked for the draws it sums, and the document's note names both kinds."""
    from archgen.analyse.unconfirmed_share import draws_of, share
    from archgen.model import Switch
    from archgen.render.tables import marked, unconfirmed_footnote

    def switch(unconfirmed, typical="60 W"):
        return Switch.model_validate({
            "kind": "Switch", "id": "sw", "name": "Test switch", "source": "test fixture", "technology": "ethernet",
            "ports": {"count": 8, "speed": "400 Gbit/s"}, "mechanical": {"height": "1 U", "weight": "5 kg"},
            "power": {"max": "100 W", **({"typical": typical} if typical else {})}, "unconfirmed": unconfirmed})
    kw = Q_(1, "kW")
    max_only, typical_only, none_stated = switch(["power.max"]), switch(["power.typical"]), switch(["power.max"], None)
    assert unconfirmed_draws(max_only, None) == (("sw", "power.max"),) and not unconfirmed_draws(max_only, None, True)
    assert unconfirmed_draws(typical_only, None, True) == (("sw", "power.typical"),)
    assert not unconfirmed_draws(typical_only, None)
    assert unconfirmed_draws(none_stated, None, True) == (("sw", "power.max"),)   # its maximum stands in
    def mark(part, typical=False):
        return marked(share(draws_of(part, None, typical)))
    assert mark(max_only)(kw) == fmt.Noted(kw, "unconfirmed") and mark(max_only, True)(kw) is kw
    assert mark(typical_only, True)(kw) == fmt.Noted(kw, "unconfirmed")
    assert mark(max_only)(Q_(0, "kW")) == Q_(0, "kW")   # no draw makes a zero: it stays plain
    assert ": sw typical power (their lines in a bill of materials are marked alike)." in \
        unconfirmed_footnote("IT power", [typical_only], None)
    assert unconfirmed_footnote("IT power", [switch([])], None) == ""


def test_a_figure_both_unconfirmed_and_assumed_reads_one_bracket(shipped):
    """tail42: the GB200 NVL72 rack's coolant flow sums unconfirmed draws and rests on the loop's assumed ΔT; it read
    "168.0 L/min (unconfirmed) (assumed)". Both words now share one bracket (`fmt.noted`, which `tables.marked` and
    `rack_cooling.assumed` both use), in either order, and an air flow keeps its CFM before them."""
    from archgen.render.rack_cooling import air
    flow = Q_(168.0, "L/min")
    assert fmt.cell(fmt.noted(fmt.noted(flow, "unconfirmed"), "assumed"), "L/min", 1) == \
        "168.0 L/min (unconfirmed, assumed)"
    assert fmt.noted(flow, "assumed") == fmt.Noted(flow, "assumed")
    assert air(fmt.noted(fmt.noted(Q_(3564, "m**3/h"), "unconfirmed"), "assumed")) == \
        "3,564 m³/h (2,098 CFM) (unconfirmed, assumed)"
    a = shipped.racks["rack/gb200-nvl72"]
    section = abstract(rack_scope(shipped, a, "r", "2026-01-01")[0], a)
    rows = dict(next(b for b in section.blocks if getattr(b, "id", "") == "key-metrics").rows)
    assert rows["Coolant flow"] == "168.0 L/min (unconfirmed, assumed)"
    assert rows["Air flow required"].endswith(" CFM) (unconfirmed, assumed)"), rows["Air flow required"]


def _links_unconfirmed(spec_tree):
    """The small DGX H100 cluster on QM9700s, on optical links only: copies of the catalog's (`mmf-x`, `smf-x`)
    whose `power_per_end` the fixture lists unconfirmed, whatever the catalog lists."""
    tree = files()
    for src, new in (("mmf-800g-sr8", "mmf-x"), ("smf-800g-dr8", "smf-x")):
        body = [line for line in (SPECS / "catalog" / "links" / f"{src}.yaml").read_text(encoding="utf-8")
                .splitlines() if not line.startswith(("id:", "unconfirmed:"))]
        tree[f"parts/{new}.yaml"] = "\n".join([f"id: {new}", *body, "unconfirmed: [power_per_end]", ""])
        tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(src, new)
    # optical links only, so that the switches' ports hold modules (copper would take the short runs)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("dac-800g-osfp, acc-800g-osfp, ", "")
    return run([spec_tree(tree)])


def test_a_racks_power_names_the_unconfirmed_links_its_optics_hold_as_the_clusters_does(spec_tree):
    """tail42 (unconfmark42's finding): a rack's IT power holds the modules in its switches' ports, yet REQ005's
    rack inputs, and so its markers, named no link's unconfirmed `power_per_end`, where the cluster's did. Both
    levels now name the links whose ends add to the rack's optics (`analyse.optics.unconfirmed_optics`), and the
    rack's markers sum the same draws as REQ005 (`rack_power_parts`); the DGX rack, whose nodes' `power.max` holds
    their modules, names none."""
    from archgen.analyse.optics import unconfirmed_optics
    r = _links_unconfirmed(spec_tree)
    specs = r.design.specs
    held = unconfirmed_optics(r.clusters)
    assert r.racks["rack/net"].power.optics.m > 0 and {link.id for link in held["rack/net"]} <= {"mmf-x", "smf-x"}
    assert held["rack/net"] and "rack/c4" not in held
    net = _draws(r.operations.assumed["rack/net"]["it_power"])
    assert {d for d in net if d[1] == "power_per_end"} == {(link.id, "power_per_end") for link in held["rack/net"]}
    assert net <= _draws(r.operations.assumed["cluster/c"]["it_power"])   # the cluster names them too
    for path, a in r.racks.items():   # one rule: the markers' draws are REQ005's
        marked = {d for part in rack_power_parts(a, held) for d in unconfirmed_draws(part, specs)}
        assert marked == _draws(r.operations.assumed.get(path, {}).get("it_power", ())), path
    section, it = _key(r, "rack/net")   # its note names the links beside the switch's own maximum
    assert it.endswith(" kW (unconfirmed)") and all(link.id in section.blocks[-1].text for link in held["rack/net"])
