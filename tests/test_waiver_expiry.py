"""A waiver's `owner` and `expires` (newuser32's trial: `reason` needed only 3 characters, and a waiver waived for
ever). An expired waiver waives nothing: its finding counts again, and SPC004 names the waiver. The day judged on is
`--as-of`, else SOURCE_DATE_EPOCH, else today (`as_of`), named in the output only where a waiver states
`expires`, so that a run without one prints no date and reads no clock.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
# The shipped rack's power requirement tightened below its IT power, as test_waiver_reach does: REQ001, an error.
TIGHT = RACK.replace('target: "<= 45 kW"', 'target: "<= 30 kW"', 1)
WAIVER = ("waivers:\n  - check: REQ001\n    requirement: REQ-PWR-010\n    reason: accepted until the PDU swap\n"
          "    owner: dc-power-team\n    expires: 2027-03-31\n")
EPOCH_2027_04_01 = "1806537600"   # 2027-04-01T00:00:00Z: (date(2027, 4, 1) - date(1970, 1, 1)).days * 86400


def _tree(tmp_path, monkeypatch, waiver: str = WAIVER) -> None:
    assert TIGHT != RACK
    write_tree(tmp_path / "specs", {"rack.yaml": TIGHT + waiver})
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)


def test_an_expired_waiver_waives_nothing_and_is_named(tmp_path, cli, monkeypatch):
    _tree(tmp_path, monkeypatch)
    r = cli("check", "specs", "--format", "json", "--as-of", "2027-04-01")
    assert r.code == 1                                      # the REQ001 error is back
    found = json.loads(r.out)["findings"]
    [error] = [f for f in found if f["severity"] == "error"]
    assert (error["id"], error.get("waived", "")) == ("REQ001", "")
    [expired] = [f for f in found if f["id"] == "SPC004"]
    line = len(TIGHT.splitlines()) + 6                      # the waiver's `expires:` line
    assert (expired["severity"], expired["line"]) == ("warning", line)
    assert expired["message"] == ("waiver of REQ001 for rack/dgx-h100-4 about REQ-PWR-010 (owner dc-power-team) "
                                  "expired on 2027-03-31 (waivers judged as of 2027-04-01 (--as-of)): it no longer "
                                  "waives, so its findings count again")


def test_a_waiver_waives_to_its_last_day_and_says_on_what_date(tmp_path, cli, monkeypatch):
    _tree(tmp_path, monkeypatch)
    r = cli("check", "specs", "--as-of", "2027-03-31", "--show-waived")
    assert r.code == 0
    assert ("(waived: accepted until the PDU swap (owner dc-power-team; until 2027-03-31, judged as of 2027-03-31 "
            "(--as-of)))") in r.out
    assert r.out.splitlines()[-1].endswith("waived (waivers judged as of 2027-03-31 (--as-of))")


def test_source_date_epoch_stands_for_the_day_without_as_of(tmp_path, cli, monkeypatch):
    _tree(tmp_path, monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2027_04_01)
    r = cli("check", "specs")
    assert r.code == 1
    assert "expired on 2027-03-31 (waivers judged as of 2027-04-01 (SOURCE_DATE_EPOCH))" in r.out
    assert cli("check", "specs", "--as-of", "2027-03-01").code == 0   # --as-of wins over SOURCE_DATE_EPOCH


def test_without_expires_no_date_is_read_or_printed(tmp_path, cli, monkeypatch):
    _tree(tmp_path, monkeypatch, "waivers: [{check: REQ001, requirement: REQ-PWR-010, reason: accepted for now}]\n")
    first = cli("check", "specs", "--format", "sarif")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2027_04_01)
    again = cli("check", "specs", "--format", "sarif")
    assert (first.code, first.out) == (again.code, again.out)
    assert "judged as of" not in cli("check", "specs").out


def test_an_as_of_that_is_no_date_is_refused(tmp_path, cli, monkeypatch):
    _tree(tmp_path, monkeypatch)
    r = cli("check", "specs", "--as-of", "31/03/2027")
    assert r.code == 2
    assert "--as-of '31/03/2027' is not a date: give a day as YYYY-MM-DD" in r.err


def test_diff_takes_as_of_and_names_it(tmp_path, cli, monkeypatch):
    _tree(tmp_path, monkeypatch)
    before = cli("diff", "specs", "specs", "--as-of", "2027-03-31")
    after = cli("diff", "specs", "specs", "--as-of", "2027-04-01", "--format", "json")
    assert (before.code, after.code) == (0, 1)              # HEAD has an unwaived error once the waiver expires
    assert before.out.split("\n")[2].endswith(" Waivers judged as of 2027-03-31 (--as-of).")
    assert json.loads(after.out)["summary"]["waivers_as_of"] == "2027-04-01 (--as-of)"


OURS = """kind: Requirements
id: ours
requirements:
  - {id: REQ-OURS-001, statement: Rack IT load, subject: "rack/*", metric: it_power, target: "<= 30 kW"}
waivers:
  - {check: REQ001, subject: "rack/*", requirement: REQ-OURS-001, reason: accepted until the PDU swap,
     owner: dc-power-team, expires: 2027-03-31}
"""


def test_gap_takes_as_of_and_names_it(tmp_path, cli, monkeypatch):
    write_tree(tmp_path / "vendor", {"rack.yaml": RACK})
    write_tree(tmp_path / "ours", {"reqs.yaml": OURS})
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    before = cli("gap", "vendor", "--against", "ours", "--as-of", "2027-03-31")
    assert before.code == 0                                 # the 40.9 kW rack's miss of 30 kW is waived
    assert before.out.split("\n")[2].endswith("; 1 result(s) waived. Waivers judged as of 2027-03-31 (--as-of).")
    after = json.loads(cli("gap", "vendor", "--against", "ours", "--as-of", "2027-04-01", "--format", "json").out)
    assert (after["summary"]["failing"], after["summary"]["waived"]) == (True, 0)
    assert "SPC004" in [f["id"] for f in after["findings"] if f["severity"] == "warning"]


def test_without_expires_diff_and_gap_name_no_date(tmp_path, cli, monkeypatch):
    write_tree(tmp_path / "vendor", {"rack.yaml": RACK})
    write_tree(tmp_path / "ours", {"reqs.yaml": OURS.replace(", expires: 2027-03-31", "")})
    monkeypatch.chdir(tmp_path)
    assert "judged as of" not in cli("gap", "vendor", "--against", "ours").out
    assert "judged as of" not in cli("diff", "vendor", "vendor").out


def test_estimate_honours_an_expired_waiver_of_an_input_check(monkeypatch):
    """`estimate` notes the network errors `check` gives (NET010 ...) unless waived; an expired waiver is not one."""
    import datetime

    from archgen.commands.estimate import input_errors
    from archgen.model import Cluster
    from archgen.model.spec import Waiver

    waiver = Waiver(check="NET010", reason="accepted for the pilot", expires=datetime.date(2027, 3, 31))
    cluster = Cluster.model_construct(id="c", waivers=[waiver])
    problems = [("NET010", "the leaf has 64 ports, 72 are used")]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2027_04_01)
    assert input_errors(cluster, problems).startswith("cluster 'c' fails `archgen check` (1 error(s)")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(EPOCH_2027_04_01) - 86400))      # 2027-03-31: still waived
    assert input_errors(cluster, problems) == ""
