"""`archgen gap PROPOSAL --against REQUIREMENTS --reference DESIGN [--pair REF_ID=PROPOSAL_ID]`: the reference's value.

newuser84: a deviation from the reference design showed only as headroom to the limit (the ODM's 97.5 % power shelf,
rack input 142.0 → 141.3 kW, read "+5.8 %" on 150 kW), never beside the reference's figure. Given `--reference`, the
reference design is judged against the same requirements and each row gives its value for the same requirement and
object (paired by id, `--pair` where the vendor renamed it).

Here the reference is ACME's proposal as shipped in tests/data/gap (rack/acme-r4: 4 x 10.5 kW = 42 kW IT load) and
the proposal a copy that renames the rack odm-r4 and fits 3 servers (3 x 10.5 = 31.5 kW).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from archgen.commands.gap import gap
from archgen.output.gap import markdown, to_json
from tests.conftest import run_cli
from tests.test_gap import PROPOSAL, REQUIREMENTS, rows_by


def _renamed(root: Path) -> Path:
    shutil.copytree(PROPOSAL, root)
    for f in root.rglob("*.yaml"):
        text = f.read_text(encoding="utf-8").replace("acme-r4", "odm-r4")
        f.write_text(text.replace("part: acme-hgx-h100, count: 4", "part: acme-hgx-h100, count: 3"), encoding="utf-8")
    return root


def test_the_reference_value_beside_the_proposals(tmp_path):
    g = gap([_renamed(tmp_path / "p")], [REQUIREMENTS], reference=[PROPOSAL], pairs=(("acme-r4", "odm-r4"),))
    it = rows_by(g)[("REQ-HALL-PWR-001", "rack/odm-r4")]
    assert it.value.m_as("kW") == pytest.approx(31.5) and it.reference.m_as("kW") == pytest.approx(42)
    assert rows_by(g)[("REQ-HALL-PWR-001", "rack/acme-net")].reference is not None   # same id on both sides
    assert g.reference == (str(PROPOSAL),)


def test_without_a_pair_a_renamed_object_has_no_reference_value(tmp_path):
    g = gap([_renamed(tmp_path / "p")], [REQUIREMENTS], reference=[PROPOSAL])
    assert rows_by(g)[("REQ-HALL-PWR-001", "rack/odm-r4")].reference is None


def test_the_reports_give_the_column(tmp_path):
    p = _renamed(tmp_path / "p")
    args = ("gap", p, "--against", REQUIREMENTS, "--reference", PROPOSAL, "--pair", "acme-r4=odm-r4")
    md = run_cli(*args).out
    assert "| proposal | reference | deviation | status |" in md
    assert "| REQ-HALL-PWR-001 | SHALL | `rack/odm-r4` |" in md and "| 31.5 kW | 42 kW |" in md
    doc = json.loads(run_cli(*args, "--format", "json").out)
    row = next(r for r in doc["rows"] if (r["requirement"], r["subject"]) == ("REQ-HALL-PWR-001", "rack/odm-r4"))
    assert row["reference"] == {"value": 42_000.0, "unit": "W"}
    plain = run_cli("gap", p, "--against", REQUIREMENTS).out
    assert "| reference |" not in plain                    # no reference given: the table as before


def test_an_unknown_pair_id_is_a_usage_error(tmp_path):
    r = run_cli("gap", _renamed(tmp_path / "p"), "--against", REQUIREMENTS, "--reference", PROPOSAL,
                "--pair", "acme-r9=odm-r4")
    assert r.code == 2 and "--pair acme-r9=odm-r4: BASE has no object 'acme-r9'" not in r.err
    assert "REFERENCE has no object 'acme-r9'" in r.err and "acme-r4" in r.err
    r = run_cli("gap", _renamed(tmp_path / "q"), "--against", REQUIREMENTS, "--pair", "acme-r4=odm-r4")
    assert r.code == 2 and "--pair needs --reference" in r.err


def test_a_library_rack_of_the_reference_pairs():
    """The reference's rack from the shipped catalog (gb300-nvl72) is judged, not held: its row's subject names it."""
    from archgen.commands.gap import with_reference
    from archgen.compare.gap import Gap, GapRow
    from archgen.model.requirements import Requirement
    from archgen.units import Q_
    req = Requirement(id="REQ-PWR-1", statement="Rack input power", metric="input_power", target="<= 150 kW")
    ref = Gap(("ref",), ("rfq",), (GapRow(req, "rack/gb300-nvl72", "met", Q_(142.0, "kW"), "rack/*"),), (), ())
    odm = Gap(("odm",), ("rfq",), (GapRow(req, "rack/odm-gb300-nvl72", "met", Q_(141.3, "kW"), "rack/*"),), (),
              ("rack/odm-gb300-nvl72",))
    [row] = with_reference(odm, ref, (("gb300-nvl72", "odm-gb300-nvl72"),)).rows
    assert row.reference == Q_(142.0, "kW")


def test_each_row_gives_the_deviation_signed_and_judged(tmp_path):
    """Proposal less reference, in the target's unit and relative to the reference, with better or worse by the target.

    odm-r4 fits 3 servers where the reference's acme-r4 fits 4: IT power 31.5 - 42 = -10.5 kW (-25.0 %), better
    under '<= 45 kW'; free space 24 - 18 = +6 U (+33.3 %), better under '>= 20 U'; the cluster's accelerators
    96 - 128 = -32 (-25.0 %), worse under '>= 128'.
    """
    g = gap([_renamed(tmp_path / "p")], [REQUIREMENTS], reference=[PROPOSAL], pairs=(("acme-r4", "odm-r4"),))
    rows = rows_by(g)
    power, space = rows[("REQ-HALL-PWR-001", "rack/odm-r4")], rows[("REQ-HALL-MECH-002", "rack/odm-r4")]
    assert power.deviation.m_as("kW") == pytest.approx(-10.5) and power.deviation_ratio == pytest.approx(-0.25)
    assert power.better == "better" and space.better == "better" and space.deviation_ratio == pytest.approx(1 / 3)
    [cluster] = [r for (req, _), r in rows.items() if req == "REQ-HALL-CL-001"]
    assert cluster.better == "worse" and cluster.deviation_ratio == pytest.approx(-0.25)
    same = rows[("REQ-HALL-MECH-002", "rack/acme-net")]
    assert same.better == "same"
    md = markdown(g)
    assert "| reference | deviation | status |" in md
    assert "| 31.5 kW | 42 kW | -10.5 kW (-25.0 %), better | ✅ met |" in md
    assert "| 24 U | 18 U | +6 U (+33.3 %), better |" in md and "| 39 U | 39 U | 0 U, same |" in md
    j = {(r["requirement"], r["subject"]): r for r in json.loads(to_json(g))["rows"]}[("REQ-HALL-PWR-001",
                                                                                       "rack/odm-r4")]
    assert j["deviation"] == {"value": pytest.approx(-10_500.0), "unit": "W"}
    assert j["deviation_ratio"] == pytest.approx(-0.25) and j["deviation_is"] == "better"
    assert "deviation" not in json.loads(to_json(gap([_renamed(tmp_path / "q")], [REQUIREMENTS])))["rows"][0]


def test_a_temperature_deviation_is_in_kelvin_with_no_percentage():
    """newuser84's D3: the ODM's trays take 35 degC against the reference's 40 degC under '>= 40 degC': -5 K, worse."""
    from archgen.compare.gap import GapRow
    from archgen.model.requirements import Requirement, Status
    from archgen.output.gap import deviation_text
    from archgen.units import Q_
    req = Requirement(id="REQ-COOL-001", statement="s", metric="coolant_supply", target=">= 40 degC")
    row = GapRow(req, "rack/odm", Status.NOT_MET, Q_(35, "degC"), reference=Q_(40, "degC"))
    assert row.deviation.m_as("K") == pytest.approx(-5) and row.deviation_ratio is None and row.better == "worse"
    assert deviation_text(row) == "-5 K, worse"


def test_a_deviation_across_zero_has_no_percentage():
    """newuser102's rule for `diff` holds in `gap`: a headroom of -5 GB against the reference's +20 GB is -25 GB, worse,
    not "-125.0 %" of the reference; one of 15 GB against 20 GB keeps its -25.0 %."""
    from archgen.compare.gap import GapRow
    from archgen.model.requirements import Requirement, Status
    from archgen.output.gap import deviation_text
    from archgen.units import Q_
    req = Requirement(id="REQ-MEM-001", statement="s", metric="memory_headroom", target=">= 0 GB")
    row = GapRow(req, "workload/w", Status.NOT_MET, Q_(-5, "GB"), reference=Q_(20, "GB"))
    assert row.deviation_ratio is None and deviation_text(row) == "-25 GB, worse"
    row = GapRow(req, "workload/w", Status.MET, Q_(15, "GB"), reference=Q_(20, "GB"))
    assert row.deviation_ratio == pytest.approx(-0.25) and deviation_text(row) == "-5 GB (-25.0 %), worse"
