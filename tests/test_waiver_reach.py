"""What a waiver may cover (newuser32's trial of archgen in pull-request CI): each test starts from the input that
passed a pull request it should have failed, and fails without the fix.

- A waiver of REF001 (`{check: REF001, subject: 'rack/*'}`) beside a misspelt part id (`dgx-h100-typo`) made `check`
  exit 0 with the rack's `it_power` at 40.9 kW: the three DGX H100 systems it resolves, without the one it does
  not. A reference that does not resolve leaves the part out of every figure; no reason makes those figures whole.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")


def _typo_waived(check: str) -> str:
    """The shipped DGX H100 rack with one more system under a misspelt id, and a waiver of `check` for it."""
    text = RACK.replace("slots:\n", "slots:\n  - {at: 20, part: dgx-h100-typo}\n", 1)
    assert text != RACK
    return text + f"waivers:\n  - {{check: {check}, subject: 'rack/*', reason: accepted for now}}\n"


def test_a_waiver_of_an_unresolved_reference_is_refused_at_its_line(tmp_path, cli, monkeypatch):
    write_tree(tmp_path / "specs", {"rack.yaml": _typo_waived("REF001")})
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs", "--format", "json")
    assert r.code == 1                                   # was 0: the waiver hid the REF001 error
    line = len(RACK.splitlines()) + 3                    # the waiver's `check:`, below the rack and the added slot
    [error] = [f for f in json.loads(r.out)["findings"] if f["severity"] == "error"]
    assert (error["id"], error["file"], error["line"], error["column"]) == ("SPC001", "specs/rack.yaml", line, 13)
    assert error["message"].startswith("waivers.0.check: REF001 cannot be waived (a reference that names no "
                                       "document): the objects that hold it are analysed without it")


def test_a_waiver_of_a_reference_to_the_wrong_kind_is_refused(tmp_path, cli, monkeypatch):
    write_tree(tmp_path / "specs", {"rack.yaml": _typo_waived("REF002")})
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs")
    assert r.code == 1
    assert "REF002 cannot be waived (a reference to a document of the wrong kind)" in r.err


def test_other_errors_can_still_be_waived(tmp_path, cli, monkeypatch):
    """The refusal names REF001 and REF002 only: a design finding is still the reviewer's call (README, waivers)."""
    text = RACK.replace('target: "<= 45 kW"', 'target: "<= 30 kW"', 1)
    write_tree(tmp_path / "specs", {"rack.yaml": text + "waivers: [{check: REQ001, reason: accepted for now}]\n"})
    monkeypatch.chdir(tmp_path)
    assert cli("check", "specs").code == 0
