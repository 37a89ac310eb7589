"""`diff` shows the waivers a pull request adds, renews or removes, and a finding it waives as waived, not resolved.

newuser65's trial: a pull request that renewed an expiring waiver (`expires: 2026-12-31` → `2027-06-30`) and waived a
COST002 showed, judged before the old expiry, the COST002 as *resolved* and nothing of the renewal (✅); judged after
it, the REQ004 the old waiver had let lapse as resolved too. A waiver is a decision the reviewer signs off on.
"""

from __future__ import annotations

import json
import subprocess

from tests.conftest import write_tree
from tests.test_waiver_expiry import TIGHT

WAIVER = ("waivers:\n  - check: REQ001\n    requirement: REQ-PWR-010\n    reason: accepted until the PDU swap\n"
          "    owner: dc-power-team\n    expires: {expires}\n")


def _sides(tmp_path, monkeypatch, base: str, head: str) -> None:
    write_tree(tmp_path / "base", {"rack.yaml": TIGHT + base})
    write_tree(tmp_path / "head", {"rack.yaml": TIGHT + head})
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)


def test_a_renewed_waiver_is_shown_as_renewed_while_both_sides_waive(tmp_path, cli, monkeypatch):
    _sides(tmp_path, monkeypatch, WAIVER.format(expires="2027-03-31"), WAIVER.format(expires="2027-09-30"))
    r = cli("diff", "base", "head", "--as-of", "2027-03-01")
    assert r.code == 0
    assert r.out.splitlines()[2].startswith("⚠️ ")          # a reviewer reads the renewal: not ✅ "No differences"
    assert "1 waiver(s) changed (1 renewed)" in r.out
    assert ("| renewed | REQ001 for rack/dgx-h100-4 about REQ-PWR-010 | `head/rack.yaml:"
            f"{len(TIGHT.splitlines()) + 2}:5` | expires 2027-03-31 → 2027-09-30 | accepted until the PDU swap |"
            ) in r.out


def test_a_waiver_renewed_after_it_lapsed_waives_the_finding_again_not_resolves_it(tmp_path, cli, monkeypatch):
    _sides(tmp_path, monkeypatch, WAIVER.format(expires="2027-03-31"), WAIVER.format(expires="2027-09-30"))
    r = cli("diff", "base", "head", "--as-of", "2027-04-01", "--format", "json")
    assert r.code == 0
    doc = json.loads(r.out)
    assert [f["id"] for f in doc["findings"]["resolved"]] == ["SPC004"]     # the expiry warning is gone
    assert doc["findings"]["newly_waived"] == []                           # not a first acceptance (pr27)
    [waived] = doc["findings"]["waived_again"]                             # the REQ001 it hid is waived again
    assert (waived["id"], waived["severity"], waived["renewal"], waived["expires"]) == \
        ("REQ001", "error", "renewed (expiry 2027-03-31 → 2027-09-30)", {"base": "2027-03-31", "head": "2027-09-30"})
    [w] = doc["waivers"]
    assert (w["change"], w["changes"], w["base"]["expired"], w["head"]["expired"]) == \
        ("renewed", ["expires 2027-03-31 → 2027-09-30"], True, False)
    summary = doc["summary"]
    assert (summary["findings_newly_waived"], summary["findings_waiver_renewed"], summary["waivers_renewed"]) == (0, 1, 1)
    assert (summary["requirements_newly_waived"], summary["requirements_waiver_renewed"]) == (0, 1)
    [req] = doc["requirements"]
    assert (req["newly_waived"], req["waiver_renewed"]) == (False, "renewed (expiry 2027-03-31 → 2027-09-30)")


def test_a_lapsed_waiver_renewed_reads_renewed_in_the_comment_not_newly_waived(tmp_path, cli, monkeypatch):
    """pr27: the summary, the requirement row and the findings all said "newly waived" of a renewal, in the comment
    file the README's sticky-comment job posts as in the report."""
    _sides(tmp_path, monkeypatch, WAIVER.format(expires="2027-03-31"), WAIVER.format(expires="2027-09-30"))
    r = cli("diff", "base", "head", "--as-of", "2027-04-01", "--output", "diff.md")
    comment = (tmp_path / "diff.md").read_text(encoding="utf-8")
    assert r.code == 0 and "newly waived" not in comment.lower()
    summary = comment.splitlines()[2]
    assert summary.startswith("⚠️ ")
    assert "1 resolved, 1 waived again: renewed (expiry 2027-03-31 → 2027-09-30);" in summary
    assert "0 newly met, 1 waived again (renewed);" in summary
    assert "| ❌ not met | ❌ not met (waived), renewed (expiry 2027-03-31 → 2027-09-30) |" in comment
    assert "### Findings waived again" in comment
    assert "| renewed (expiry 2027-03-31 → 2027-09-30): accepted until the PDU swap (owner dc-power-team;" in comment


def test_a_lapsed_waiver_renewed_with_a_new_reason_is_still_a_renewal(tmp_path, cli, monkeypatch):
    """Its reason edited too: waived again, and the waiver row says both."""
    _sides(tmp_path, monkeypatch, WAIVER.format(expires="2027-03-31"),
           WAIVER.format(expires="2027-09-30").replace("until the PDU swap", "until the Q3 PDU swap"))
    doc = json.loads(cli("diff", "base", "head", "--as-of", "2027-04-01", "--format", "json").out)
    assert [f["renewal"] for f in doc["findings"]["waived_again"]] == ["renewed (expiry 2027-03-31 → 2027-09-30)"]
    assert doc["waivers"][0]["changes"] == ["expires 2027-03-31 → 2027-09-30", "reason edited"]


def test_a_second_waiver_that_covers_a_lapsed_finding_is_newly_waived(tmp_path, cli, monkeypatch):
    """HEAD keeps the lapsed waiver and adds another for the same finding (a glob subject): a new acceptance."""
    other = WAIVER.format(expires="2027-09-30").replace("waivers:\n", "").replace("check: REQ001",
                                                                                   "check: REQ001\n    subject: rack/*")
    _sides(tmp_path, monkeypatch, WAIVER.format(expires="2027-03-31"), WAIVER.format(expires="2027-03-31") + other)
    doc = json.loads(cli("diff", "base", "head", "--as-of", "2027-04-01", "--format", "json").out)
    assert [f["id"] for f in doc["findings"]["newly_waived"]] == ["REQ001"] and doc["findings"]["waived_again"] == []


def test_a_new_waiver_is_listed_and_its_finding_is_newly_waived(tmp_path, cli, monkeypatch):
    _sides(tmp_path, monkeypatch, "", WAIVER.format(expires="2027-03-31"))
    r = cli("diff", "base", "head", "--as-of", "2027-03-01")
    assert r.code == 0
    assert "### Resolved findings" not in r.out
    assert "0 resolved, 1 newly waived" in r.out and "1 waiver(s) changed (1 added)" in r.out
    assert "| added | REQ001 for rack/dgx-h100-4 about REQ-PWR-010 |" in r.out
    assert "owner dc-power-team; expires 2027-03-31" in r.out


def test_a_removed_waiver_alone_asks_no_review(tmp_path, cli, monkeypatch):
    """Removing a waiver brings its findings back as new ones (❌ for an error), which say what to read."""
    _sides(tmp_path, monkeypatch, WAIVER.format(expires="2027-03-31"), "")
    r = cli("diff", "base", "head", "--as-of", "2027-03-01", "--format", "json")
    doc = json.loads(r.out)
    assert r.code == 1 and [w["change"] for w in doc["waivers"]] == ["removed"]
    assert [f["id"] for f in doc["findings"]["new"]] == ["REQ001"]


def test_a_waiver_of_a_revision_is_located_in_the_checkout(tmp_path, cli, monkeypatch):
    """Its location was the temporary export's, `../../archgen-diff-khsslxos/specs/...`: a path of the runner."""
    repo = tmp_path / "repo"
    write_tree(repo / "specs", {"rack.yaml": TIGHT + WAIVER.format(expires="2027-03-31")})

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, check=True,
                       capture_output=True)
    git("init", "-q", "-b", "main")
    git("add", "specs")
    git("commit", "-q", "-m", "base")
    (repo / "specs" / "rack.yaml").write_text(TIGHT + WAIVER.format(expires="2027-09-30"), encoding="utf-8")
    git("commit", "-q", "-am", "renew")
    monkeypatch.chdir(repo)
    r = cli("diff", "HEAD~1", "HEAD", "--as-of", "2027-03-01", "--format", "json")
    [w] = json.loads(r.out)["waivers"]
    assert (w["base"]["file"], w["head"]["file"]) == ("specs/rack.yaml", "specs/rack.yaml")
    assert "archgen-diff-" not in r.out
