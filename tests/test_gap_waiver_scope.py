"""A waiver in our requirements binds the design it was written for, and the gap report gives its reason once.

newuser84 (an ODM answering our GB300 NVL72 RFQ): the RFQ's `{check: REQ002, subject: "rack/*"}` on the rack
weight, written for our reference design's open item (no link part states a weight), also waived the vendor's
unanswered weight, and its ~400-character reason stood in every status cell of the internal table. A glob whose id
is `*` names no vendor's object (our requirements are written before the vendor picks ids): it binds our design (the
requirements lie under the PROPOSAL path: `gap specs/ --against specs/requirements/`), not another's proposal, whose
row stays not provided and fails. A waiver naming the vendor's ids (`rack/acme-r4`, `rack/acme-*`) binds them.
"""

from __future__ import annotations

from pathlib import Path

from archgen.commands.gap import gap
from archgen.output.gap import markdown
from tests.conftest import write_tree
from tests.test_gap import REQUIREMENTS, fixed_proposal, rows_by

REASON = ("Open finding, not a pass: each rack's weight is a lower bound (the enclosure and the placed parts that "
          "state a weight): no catalog link part states a weight. Not provided until they are stated.")
OURS = f'waivers:\n  - {{check: REQ002, subject: "rack/*", requirement: REQ-HALL-MECH-001, reason: "{REASON}"}}\n'


def _requirements(root: Path, waivers: str, edit: tuple[str, str] = ("", "")) -> Path:
    text = (REQUIREMENTS / "h100-hall.yaml").read_text(encoding="utf-8")
    assert edit[0] in text and "waivers:" not in text
    return write_tree(root, {"h100-hall.yaml": text.replace(*edit) + waivers})


def test_our_designs_waiver_leaves_the_vendors_unanswered_weight_not_provided(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", OURS)])
    net = rows_by(g)[("REQ-HALL-MECH-001", "rack/acme-net")]   # 214.4 kg, a lower bound: no link part's weight
    assert net.status == "not provided" and not net.waived and net.failing and g.failing
    [note] = [n for n in g.notes if "REQ002" in n]
    assert "`rack/*`" in note and "REQ-HALL-MECH-001" in note and "our own design" in note
    assert "rack/acme-net" in note and REASON not in note


def test_it_still_waives_our_own_design(tmp_path):
    """The requirements under the PROPOSAL path: the design they were written for, as `gap specs/ --against ...`."""
    root = fixed_proposal(tmp_path / "ours")
    _requirements(root / "requirements", OURS)
    g = gap([root], [root / "requirements"])
    net = rows_by(g)[("REQ-HALL-MECH-001", "rack/acme-net")]
    assert net.status == "not provided" and net.waived.startswith("Open finding") and not net.failing
    assert not [n for n in g.notes if "REQ002" in n]


def test_a_waiver_naming_the_vendors_ids_binds_them(tmp_path):
    named = OURS.replace('"rack/*"', '"rack/acme-*"')
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", named)])
    assert rows_by(g)[("REQ-HALL-MECH-001", "rack/acme-net")].waived.startswith("Open finding")


def test_the_reason_is_given_once(tmp_path):
    """Both racks over a 1 kW budget, waived by one glob naming ACME's racks: two cells point to one reason."""
    waiver = (f'waivers:\n  - {{check: REQ001, subject: "rack/acme-*", requirement: REQ-HALL-PWR-001, '
              f'reason: "{REASON}"}}\n')
    reqs = _requirements(tmp_path / "r", waiver, ('target: "<= 45 kW"', 'target: "<= 1 kW"'))
    g = gap([fixed_proposal(tmp_path / "p")], [reqs])
    assert sum(r.waived.startswith("Open finding") for r in g.rows) == 2
    text = markdown(g)
    assert text.count("each rack's weight is a lower bound") == 1
    assert text.count("❌ not met (waived: W1)") == 2
    assert ("- W1 (REQ-HALL-PWR-001 on `rack/acme-net`, `rack/acme-r4`; scope both (by default: its subject names ids)): "
            "Open finding, not a pass") in text
    assert text.count("❌ not met (waived)") == 0 and "each rack's" not in markdown(g, "customer")
    assert markdown(g, "customer").count("❌ not met (waived)") == 2


def test_a_waiver_of_our_design_alone_is_not_unused_in_a_vendors_gap(tmp_path):
    """newuser101: our GB200 rack's `scope: design` waiver, in a gap run of a vendor's rack, drew SPC002 "matches no
    finding ... name one as `subject`": by its scope it waives no proposal row, even one it would name. Judged on
    our own design it is still reported unused, and a waiver binding the vendor's rows (`both`) is too."""
    ours = ('waivers:\n  - {check: REQ001, subject: rack/our-rack, requirement: REQ-HALL-PWR-001, scope: design, '
            'reason: our rack open item}\n')
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", ours)])
    assert not [f for f in g.findings if f.id == "SPC002"]
    both = gap([fixed_proposal(tmp_path / "p2")], [_requirements(tmp_path / "r2", ours.replace("design", "both"))])
    assert [f.id for f in both.findings if f.id == "SPC002"] == ["SPC002"]
    root = fixed_proposal(tmp_path / "ours")
    _requirements(root / "requirements", ours)
    assert [f.id for f in gap([root], [root / "requirements"]).findings if f.id == "SPC002"] == ["SPC002"]
