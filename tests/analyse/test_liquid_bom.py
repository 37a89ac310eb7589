"""A liquid-cooled rack's manifolds, quick disconnects and CDU hoses in its bill of materials (rackbom).

The rack-integrator trial (notes/old15/newuser16.md, item 2) read the GB300 NVL72 rack's bom.csv as an ODM would and
found no manifold, no quick-disconnect pair for any of its 27 liquid-cooled trays and no hose to the CDU: a BOM that
omits them reads complete. Now a rack names them as catalog `Accessory` parts under `cooling.liquid`, the BOM counts
them (quick disconnects per liquid-cooled tray) and prices them like any part, and a liquid-cooled rack that names
none has lines that say "not provided", never a silent zero.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.analyse.cost import CAPEX_METRICS
from archgen.analyse.fittings import fitting_gaps
from archgen.pipeline import run
from tests.analyse.test_cost import CLUSTER, PRICES, _design, _overlay, _price
from tests.conftest import SPECS

#: Test parts (round figures, not quotes): a manifold pair, a coupling, a hose.
PARTS = """\
kind: Accessory
id: test-manifold
name: Rack manifold, supply or return
type: manifold
source: test part
---
kind: Accessory
id: test-uqd
name: Quick-disconnect coupling
type: quick-disconnect
source: test part
---
kind: Accessory
id: test-hose
name: TCS hose to the row CDU header
type: hose
source: test part
"""
FITTINGS = ("    manifold: {part: test-manifold, count: 2}\n    quick_disconnects: {part: test-uqd, per_tray: 2}\n"
            "    hoses: {part: test-hose, count: 2}\n")


def _with_fittings(root: Path, extra: dict[str, str] | None = None) -> Path:
    """The MI355X test design (16 compute racks of 4 liquid-cooled platforms) with its compute rack's liquid parts."""
    _design(root, {"parts.yaml": PARTS, **(extra or {})})
    racks = root / "mi355x.yaml"
    text = racks.read_text(encoding="utf-8")
    racks.write_text(text.replace("    cdu: in-row-cdu-1.3mw\n", "    cdu: in-row-cdu-1.3mw\n" + FITTINGS, 1),
                     encoding="utf-8")
    return root


def test_a_liquid_rack_that_names_no_parts_says_not_provided(shipped):
    rack = shipped.racks["rack/gb200-nvl72"]
    lines = {line.part: line for line in rack.bom if line.kind == "Accessory"}
    assert sorted(lines) == ["liquid-cdu-hose", "liquid-manifold", "liquid-quick-disconnect", "shelf-input-cord"]
    assert all(not line.provided for line in lines.values())
    assert "`cooling.liquid.quick_disconnects` (27 liquid-cooled trays per rack)" in \
        lines["liquid-quick-disconnect"].note
    gap, = fitting_gaps(rack.rack)
    assert ("`cooling.liquid.manifold`, `cooling.liquid.quick_disconnects`, `cooling.liquid.hoses`, "
            "`power.shelves.cords`") in gap
    assert lines["shelf-input-cord"].note == ("not provided: the rack states no `power.shelves.cords` (8 power shelves "
                                              "per rack)")
    air = shipped.racks["rack/dgx-h100-4"]   # no liquid path: nothing to provide
    assert not [line for line in air.bom if line.kind == "Accessory"] and not fitting_gaps(air.rack)


def test_named_parts_are_counted_from_the_rack(tmp_path):
    r = run([_with_fittings(tmp_path / "a")])
    bom = {line.part: line for line in r.racks["rack/mi355x-compute"].bom if line.kind == "Accessory"}
    assert {p: (line.quantity, line.provided) for p, line in bom.items()} == {
        "test-manifold": (2, True), "test-uqd": (4 * 2, True), "test-hose": (2, True)}
    assert bom["test-uqd"].note == "2 per liquid-cooled tray x 4 trays"
    assert not fitting_gaps(r.design.racks[[x.spec.id for x in r.design.racks].index("mi355x-compute")])
    cluster = {line.part: line.quantity for line in r.clusters[CLUSTER].cabling.bom}
    assert (cluster["test-manifold"], cluster["test-uqd"], cluster["test-hose"]) == (16 * 2, 16 * 8, 16 * 2)


def test_named_parts_are_priced_or_unpriced(tmp_path):
    unpriced = run([_with_fittings(tmp_path / "a", {"prices.yaml": _overlay()})])
    assert not set(CAPEX_METRICS) & set(unpriced.metrics[CLUSTER])
    warn, = [f for f in unpriced.findings if f.id == "COST002"]
    assert "test-manifold x32" in warn.message and "test-uqd x128" in warn.message and "test-hose x32" in warn.message
    quote = _overlay() + "".join(f"  {p}: {_price(v)}\n" for p, v in (("test-manifold", 5000), ("test-uqd", 100),
                                                                       ("test-hose", 400)))
    base = run([_design(tmp_path / "b", {"prices.yaml": _overlay()})]).metrics[CLUSTER]["capex"]
    priced = run([_with_fittings(tmp_path / "c", {"prices.yaml": quote})]).metrics[CLUSTER]["capex"]
    assert (priced - base).m_as("USD") == pytest.approx(32 * 5000 + 128 * 100 + 32 * 400)
    assert set(PRICES) < {line.part for line in unpriced.operations.cost[CLUSTER].lines}


def test_shelf_input_cords_are_counted_per_shelf(tmp_path):
    """The trial's second gap: no AC input cord (whip) for any of the GB200 rack's 8 power shelves."""
    root = tmp_path / "a"
    root.mkdir()
    rack = (SPECS / "catalog" / "racks" / "gb200-nvl72.yaml").read_text(encoding="utf-8")
    (root / "rack.yaml").write_text(rack.replace("  shelves: {redundancy: N+N}\n", "  shelves: {redundancy: N+N, "
                                                 "cords: {part: test-whip, per_shelf: 1}}\n", 1), encoding="utf-8")
    (root / "whip.yaml").write_text("kind: Accessory\nid: test-whip\nname: Shelf input whip\ntype: power-cord\n"
                                    "source: test part\n", encoding="utf-8")
    r = run([root])
    bom = {line.part: line for line in r.racks["rack/gb200-nvl72"].bom if line.kind == "Accessory"}
    assert (bom["test-whip"].quantity, bom["test-whip"].note) == (8, "1 per power shelf x 8 shelves")
    assert "shelf-input-cord" not in bom and not [f for f in r.findings if f.severity == "error" and not f.waived]


def test_a_part_of_another_type_in_a_fitting_field_is_refused(tmp_path):
    """rackbom's doubt: the hose named as the manifold passed (any Accessory resolved), so the BOM listed 2 hoses as
    the rack's manifolds. Now REF002 names the field, the part's type and the type the field takes."""
    root = _with_fittings(tmp_path / "a")
    racks = root / "mi355x.yaml"
    racks.write_text(racks.read_text(encoding="utf-8").replace("manifold: {part: test-manifold",
                                                               "manifold: {part: test-hose"), encoding="utf-8")
    r = run([root])
    ref, = [f for f in r.findings if f.id == "REF002"]
    assert ref.message == "'test-hose' is an Accessory of type 'hose', expected an Accessory of type 'manifold'"
    assert (ref.severity, ref.object, Path(ref.location.file).name) == ("error", "rack/mi355x-compute", "mi355x.yaml")
    bom = {line.part: line.quantity for line in r.racks["rack/mi355x-compute"].bom if line.kind == "Accessory"}
    assert bom["test-hose"] == 2   # the hoses field's 2, not the manifold's 2 on top
