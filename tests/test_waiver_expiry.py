"""A waiver's `owner` and `expires` (newuser32's trial: `reason` needed only 3 characters, and a waiver waived for
ever). An expired waiver waives nothing: its finding counts again, and SPC004 names the waiver. The day judged on is
`--as-of`, else SOURCE_DATE_EPOCH, else today (`as_of`), named in the output only where a waiver states
`expires`, so that a run without one prints no date and reads no clock. `render` and `sweep` take the same option and
rule, so that a document or a sweep judges a waiver as `check` does on the same day.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
#: The shipped rack less its floor-load requirement and that requirement's waiver (weight67: the floor load is a lower
#: bound, so REQ-MECH-010 is not provided and the rack waives that), so that the waivers these tests write are its only.
BARE = RACK.replace(RACK[RACK.index("  - {id: REQ-MECH-010"):RACK.index("price:")], "", 1)
# The shipped rack's power requirement tightened below its IT power, as test_waiver_reach does: REQ001, an error.
TIGHT = BARE.replace('target: "<= 45 kW"', 'target: "<= 30 kW"', 1)
WAIVER = ("waivers:\n  - check: REQ001\n    requirement: REQ-PWR-010\n    reason: accepted until the PDU swap\n"
          "    owner: dc-power-team\n    expires: 2027-03-31\n")
EPOCH_2027_04_01 = "1806537600"   # 2027-04-01T00:00:00Z: (date(2027, 4, 1) - date(1970, 1, 1)).days * 86400


def _tree(tmp_path, monkeypatch, waiver: str = WAIVER) -> None:
    assert TIGHT != BARE and "waivers:" not in BARE
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
  - {check: REQ001, subject: "rack/dgx-h100-*", requirement: REQ-OURS-001, reason: accepted until the PDU swap,
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
    # our document's expired waiver is ours, listed apart from the proposal's findings (newuser61)
    assert "SPC004" in [f["id"] for f in after["requirement_findings"] if f["severity"] == "warning"]
    assert "SPC004" not in [f["id"] for f in after["findings"]] and after["summary"]["our_warnings"] == 1


def test_without_expires_diff_and_gap_name_no_date(tmp_path, cli, monkeypatch):
    write_tree(tmp_path / "vendor", {"rack.yaml": RACK})
    write_tree(tmp_path / "ours", {"reqs.yaml": OURS.replace(", expires: 2027-03-31", "")})
    monkeypatch.chdir(tmp_path)
    assert "judged as of" not in cli("gap", "vendor", "--against", "ours").out
    assert "judged as of" not in cli("diff", "vendor", "vendor").out


def test_estimate_honours_an_expired_waiver_of_an_input_check(monkeypatch):
    """`estimate` notes the network errors `check` gives (NET010 ...) unless waived; an expired waiver is not one."""
    import datetime

    from archgen.model import Cluster
    from archgen.model.spec import Waiver
    from archgen.perf.workload.job_on_cluster import input_errors

    waiver = Waiver(check="NET010", reason="accepted for the pilot", expires=datetime.date(2027, 3, 31))
    cluster = Cluster.model_construct(id="c", waivers=[waiver])
    problems = [("NET010", "the leaf has 64 ports, 72 are used")]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2027_04_01)
    assert input_errors(cluster, problems).startswith("cluster 'c' fails `archgen check` (1 error(s)")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(EPOCH_2027_04_01) - 86400))      # 2027-03-31: still waived
    assert input_errors(cluster, problems) == ""


def test_render_judges_waivers_as_check_does(tmp_path, cli, monkeypatch):
    """`render --as-of` shows the status `check --as-of` gives: waived to the last day, failing (REQ001 and SPC004,
    with check's own message) from the day after; without it, SOURCE_DATE_EPOCH, as `check` reads it."""
    _tree(tmp_path, monkeypatch)
    for day, status in (("2027-03-31", "waived"), ("2027-04-01", "fail")):
        checked = cli("check", "specs", "--format", "json", "--as-of", day)
        out = tmp_path / day
        rendered = cli("render", "specs", "--formats", "md", "--out", str(out), "--as-of", day)
        assert rendered.code == checked.code == (status == "fail")
        page = (out / "dgx-h100-4" / "dgx-h100-4.md").read_text(encoding="utf-8")
        assert f"| rack/dgx-h100-4 | {status} | 40.9 kW | 30 kW | specs/rack.yaml:22 |" in page
        for f in json.loads(checked.out)["findings"]:
            if f["id"] in ("REQ001", "SPC004"):
                assert f["message"].replace("<", "\\<").replace("_", "\\_") in page
        assert ("SPC004 |" in page) is (status == "fail")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2027_04_01)
    r = cli("render", "specs", "--formats", "md", "--out", str(tmp_path / "epoch"))
    assert r.code == 1
    assert "(waivers judged as of 2027-04-01 (SOURCE\\_DATE\\_EPOCH))" in \
        (tmp_path / "epoch" / "dgx-h100-4" / "dgx-h100-4.md").read_text(encoding="utf-8")
    assert cli("render", "specs", "--as-of", "31/03/2027").code == 2          # refused as check refuses it


def test_sweep_judges_waivers_as_check_does(tmp_path, cli, monkeypatch):
    """`sweep --as-of`: a cluster whose error (REQ001 on its 2:1 leaves, test_sweep_failing_cluster) a waiver covers
    to 2027-03-31 is feasible that day and not the day after, as `check --as-of` passes and fails the specs."""
    from tests.test_sweep_failing_cluster import SWEEP, _oversubscribed
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    waiver = ("  - {check: REQ001, subject: cluster/b200-2to1/fabric/compute, requirement: REQ-NET-001, reason: "
              "accepted until the spine upgrade, owner: net-team, expires: 2027-03-31}\n")
    write_tree(tmp_path, {"b200-2to1.yaml": _oversubscribed() + waiver, "sweep.yaml": SWEEP})
    paths = [str(SPECS / "clusters"), str(SPECS / "racks"), str(SPECS / "workloads"), str(tmp_path / "b200-2to1.yaml")]
    for day, feasible in (("2027-03-31", 2), ("2027-04-01", 1)):
        checked = cli("check", *paths, "--as-of", day)
        swept = cli("sweep", str(tmp_path / "sweep.yaml"), *(a for p in paths for a in ("--path", p)), "--out",
                    str(tmp_path / day), "--formats", "md", "--format", "json", "--as-of", day)
        assert swept.code == checked.code == (feasible == 1)
        [result] = json.loads(swept.out)["sweeps"]
        assert result["summary"]["feasible"] == feasible
        assert [r["reason"] for r in result["reasons"]] == ([] if feasible == 2 else [
            "cluster 'b200-2to1' fails `archgen check`: REQ001 REQ-NET-001 on cluster/b200-2to1/fabric/compute"])


def test_a_waiver_without_expiry_says_so():
    """newuser61 (open 2): a waiver that states no `expires` never expires, and its finding said only its reason; now
    its text says no expiry is stated, where a dated one says until when."""
    from archgen.model.spec import Waiver
    from archgen.waivers import waived_text
    undated = Waiver(check="REQ001", reason="agreed with the vendor")
    assert waived_text(undated, None) == "agreed with the vendor (no expiry stated)"
    owned = Waiver(check="REQ001", reason="agreed", owner="dc-power-team")
    assert waived_text(owned, None) == "agreed (owner dc-power-team; no expiry stated)"
