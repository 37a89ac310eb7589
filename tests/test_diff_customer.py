"""`archgen diff --audience customer`: the change list an ODM receives, with nothing of ours in it.

newuser87's trial (an ODM's program manager quoting revision B of a GB300 SU against A): the only change list archgen
wrote was the pull-request comment, titled by two of our folders, its findings by check ID (NET017, COST002) and
file:line (`revB/clusters/gb300-nvl72-su.yaml:64:18`), its waivers with our owners and reasons, its BOM by our part
ids with no part number, and each line's cost change (a unit price, which every customer edition withholds).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
SWITCH = (SPECS / "catalog" / "switches" / "sn2201.yaml").read_text(encoding="utf-8")
NAME = "name: DGX H100 rack (4 systems, air cooled)\n"
SLOT = "  - {at: 40, part: sn2201, face: rear}\n"
REQS = "requirements:\n"
#: A SHOULD requirement the rack misses (40.9 kW): a new warning, located at its line in the internal report.
SHOULD = "  - {id: REQ-PWR-011, statement: Rack IT load goal, metric: it_power, target: '<= 30 kW', level: should}\n"
REASON = "      Open finding, not a pass: the floor load is not provided"
#: A check ID (`checks.registry`): what a partner's change list must not carry.
CHECK_ID = re.compile(r"\b[A-Z]{2,4}[0-9]{3}\b")


def _tree(root: Path, revision: str, part: str = "sn2201", target: str = "<= 45 kW", reason: str = "",
          goal: bool = False) -> Path:
    """The DGX H100 rack at `revision`, its OOB switch `part`, its IT load target, its waiver's reason, and a goal."""
    assert NAME in RACK and SLOT in RACK and REASON in RACK and 'target: "<= 45 kW"' in RACK and REQS in RACK
    rack = (RACK.replace(NAME, NAME + f"document: {{number: AG-DGX-4, revision: {revision}}}\n", 1)
            .replace(REQS, REQS + SHOULD * goal, 1)
            .replace(SLOT, SLOT.replace("sn2201", part)).replace('target: "<= 45 kW"', f'target: "{target}"', 1)
            .replace(REASON, REASON + reason, 1))
    own = SWITCH.replace("id: sn2201", "id: oob-sw", 1).replace("part_number: 920-9N110-00F1-0C0", "part_number: ''", 1)
    return write_tree(root, {"racks/rack.yaml": rack, "parts/oob-sw.yaml": own})


def _sides(tmp_path: Path) -> tuple[Path, Path]:
    return (_tree(tmp_path / "rev-a-internal", "A"),
            _tree(tmp_path / "rev-b-internal", "B", part="oob-sw", target="<= 42 kW", reason=" (reworded)",
                  goal=True))


def test_the_change_list_is_titled_by_the_revision_pair_and_names_nothing_of_ours(tmp_path):
    base, head = _sides(tmp_path)
    internal = run_cli("diff", base, head)
    r = run_cli("diff", base, head, "--audience", "customer")
    assert r.code == internal.code == 0, r.err
    # the internal comment carries what the partner's list must not: folders, file:line, check IDs, reasons
    assert "rev-a-internal" in internal.out and ".yaml:" in internal.out and "Open finding" in internal.out
    assert CHECK_ID.search(internal.out)
    lines = r.out.split("\n")
    assert lines[0] == "## Change list: AG-DGX-4 revision A → B"
    assert lines[4] == "**Revisions:** `rack/dgx-h100-4` (AG-DGX-4) A → B."
    for ours in ("rev-a-internal", "rev-b-internal", ".yaml", "Open finding", "### Waivers", "cost change"):
        assert ours not in r.out, ours
    assert not CHECK_ID.search(r.out), CHECK_ID.search(r.out)


def test_the_bill_of_materials_gives_part_numbers_and_no_cost(tmp_path):
    r = run_cli("diff", *_sides(tmp_path), "--audience", "customer")
    assert "| object | part | part number | name | kind | previous | new | change | power change |" in r.out
    [row] = [line for line in r.out.split("\n") if "`sn2201` → `oob-sw` (1)" in line]
    cells = [c.strip() for c in row.split("|")[1:-1]]
    # a part stating no number says why, in the BOM's words (parts31; diffpolish: was "—")
    assert cells[0] == "`rack/dgx-h100-4`" and cells[2] == "920-9N110-00F1-0C0 → not provided"
    assert cells[4:8] == ["Switch", "1", "1", "swapped"]
    # the SHOULD HEAD adds is missed at once: newly missed, as a SHALL would be newly failing (newuser101)
    assert "requirement(s): 1 newly missed (SHOULD or MAY), 1 redefined (1 tightened)" in r.out.split("\n")[2]


def test_the_json_change_list_has_no_locations_waivers_or_prices(tmp_path):
    base, head = _sides(tmp_path)
    doc = json.loads(run_cli("diff", base, head, "--audience", "customer", "--format", "json").out)
    internal = json.loads(run_cli("diff", base, head, "--format", "json").out)
    assert internal["waivers"] and "base" in internal and "cost_change" in internal["bom"][0]
    assert doc["audience"] == "customer"
    for ours in ("base", "head", "waivers", "prices", "refused"):
        assert ours not in doc, ours
    text = json.dumps(doc)
    for key in ('"file"', '"column"', '"cost_change"', "rev-a-internal", "Open finding"):
        assert key not in text, key
    found = [*doc["findings"]["new"], *doc["findings"]["resolved"]]
    assert found and not any("line" in f or "location" in f for f in found)
    [swap] = doc["swaps"]
    assert (swap["from"], swap["to"], swap["from_part_number"], swap["to_part_number"]) == (
        "sn2201", "oob-sw", "920-9N110-00F1-0C0", "not provided")   # the shipped SN2201's number; the copy: why none
    assert {row["part"]: row["part_number"] for row in doc["bom"]} == {"sn2201": "920-9N110-00F1-0C0",
                                                                       "oob-sw": "not provided"}
    assert not any(k.startswith("waivers_") for k in doc["summary"])
    assert doc["summary"]["requirements_tightened"] == internal["summary"]["requirements_tightened"] == 1


def test_without_a_new_revision_the_list_says_so(tmp_path):
    base = _tree(tmp_path / "a", "A")
    head = _tree(tmp_path / "b", "A", target="<= 42 kW")
    out = run_cli("diff", base, head, "--audience", "customer").out
    assert out.split("\n")[0] == "## Change list"
    assert "**No new revision:** no rack or cluster document states a revision other than the previous release's" \
        in out


def test_the_revision_line_says_whether_the_new_revision_is_approved(tmp_path):
    """A revision B copied from A keeps A's approval in its spec: the change list says B is not approved."""
    approved = "  approvals: [{name: C. Manager, role: release manager, date: 2026-12-01, revision: A}]\n"
    base = _tree(tmp_path / "a", "A")
    head = _tree(tmp_path / "b", "B", target="<= 42 kW")
    rack = head / "racks" / "rack.yaml"
    rack.write_text(rack.read_text(encoding="utf-8").replace(
        "document: {number: AG-DGX-4, revision: B}\n", "document:\n  number: AG-DGX-4\n  revision: B\n" + approved,
        1), encoding="utf-8")
    out = run_cli("diff", base, head, "--audience", "customer").out
    assert ("**Revisions:** `rack/dgx-h100-4` (AG-DGX-4) A → B (not approved: no approval names revision B)."
            in out)
    rack.write_text(rack.read_text(encoding="utf-8").replace("revision: A}]", "revision: B}]"), encoding="utf-8")
    doc = json.loads(run_cli("diff", base, head, "--audience", "customer", "--format", "json").out)
    assert doc["revisions"][0]["approval"] == "C. Manager (release manager, 2026-12-01)"
    assert "A → B (approved by C. Manager (release manager, 2026-12-01))." in run_cli("diff", base, head).out


def test_an_unknown_audience_is_a_usage_error(tmp_path):
    base, head = _sides(tmp_path)
    r = run_cli("diff", base, head, "--audience", "odm")
    assert r.code == 2 and "unknown audience 'odm'; expected internal or customer" in r.err


def test_the_change_list_gives_no_figure_that_rests_on_our_part_prices(tmp_path):
    """review48: one SN4600C more moved the capex by +15,010 USD in the partner's change list, its unit price to the
    dollar (a cost change over a count change), which its BOM table withholds. The figures that rest on the capex
    (`capex_bounds.BOUNDED`: capex, capital, TCO, costs per hour and per token) and the capex shares are withheld,
    in Markdown and JSON; power and energy stay.
    """
    cluster = (SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8")
    hall = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
    slot = "  - {at: 17, part: sn4600c, count: 2}\n"
    assert slot in cluster
    base = write_tree(tmp_path / "a", {"c.yaml": cluster, "hall.yaml": hall})
    head = write_tree(tmp_path / "b", {"c.yaml": cluster.replace(slot, slot.replace("2}", "3}")), "hall.yaml": hall})
    internal = run_cli("diff", base, head, "--threshold", "0")
    assert "| capex | 27,725,410 USD | 27,740,420 USD | +15,010 USD |" in internal.out   # ours: the price shows
    r = run_cli("diff", base, head, "--threshold", "0", "--audience", "customer")
    assert r.code == 0, r.err
    for ours in ("Capex", "TCO per", "Capital cost", "share of capex", "15,010"):
        assert ours not in r.out, ours
    assert "| `cluster/gb200-nvl72-su` | Facility energy per year |" in r.out   # no part price in it
    assert "figure(s) resting on part prices withheld" in r.out
    j = json.loads(run_cli("diff", base, head, "--threshold", "0", "--audience", "customer", "-f", "json").out)
    names = {m["metric"] for m in j["metrics"]}
    assert "facility_energy_per_year" in names and not {"capex", "tco_per_year", "network_capex_share"} & names


def test_where_both_customer_editions_show_prices_the_change_list_shows_the_capex(tmp_path):
    """diffpolish (review48's rank 3): `document.show_prices: true` lets the rendered customer edition show unit prices
    and capex by part; the change list withheld the capex even so. It now shows the figures resting on part prices
    of an object whose document shows prices in both revisions (the previous edition's prices were shown too); where
    one revision withholds them, so does the change list.
    """
    cluster = (SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8")
    hall = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
    slot, doc = "  - {at: 17, part: sn4600c, count: 2}\n", "  number: AG-SU-GB200-0001\n"
    assert slot in cluster and cluster.count(doc) == 1
    shown = cluster.replace(doc, doc + "  show_prices: true\n", 1)
    base = write_tree(tmp_path / "a", {"c.yaml": shown, "hall.yaml": hall})
    head = write_tree(tmp_path / "b", {"c.yaml": shown.replace(slot, slot.replace("2}", "3}")), "hall.yaml": hall})
    r = run_cli("diff", base, head, "--threshold", "0", "--audience", "customer")
    assert r.code == 0, r.err
    assert "| `cluster/gb200-nvl72-su` | Capex | 27,725,410 USD | 27,740,420 USD | +15,010 USD |" in r.out
    assert "withheld" not in r.out
    j = json.loads(run_cli("diff", base, head, "--threshold", "0", "--audience", "customer", "-f", "json").out)
    assert "capex" in {m["metric"] for m in j["metrics"]}
    once = write_tree(tmp_path / "a1", {"c.yaml": cluster, "hall.yaml": hall})    # the previous edition withheld them
    r = run_cli("diff", once, head, "--threshold", "0", "--audience", "customer")
    assert "15,010" not in r.out and "figure(s) resting on part prices withheld" in r.out
