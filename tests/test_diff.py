"""`archgen diff BASE HEAD`: changed metrics, new and resolved findings, requirement status, git revisions."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from archgen.checks import Finding
from archgen.compare.diff import MetricChange, match_findings
from archgen.errors import Location
from archgen.output.diff import unanalysable
from archgen.output.diff_cells import metric_cells
from archgen.units import Q_
from tests.conftest import SPECS, run_cli

RACK = "racks/dgx-h100-4.yaml"
OBJ = "rack/dgx-h100-4"
# specs/racks/dgx-h100-4.yaml: 4 x dgx-h100 (power.max 10.2 kW, catalog) + 1 x sn2201 (98 W) = 40.898 kW IT load;
# 3 feeds of 415 V x 60 A three-phase with N+1, so 2 x 415 V x 60 A x sqrt(3) x 0.8 derating usable.
DGX_H100 = 10_200.0
IT_POWER = 4 * DGX_H100 + 98.0


def feed(volts: float, amps: float) -> float:
    """One three-phase feed (line-to-line) after the 0.8 continuous-load derating, in W."""
    return volts * amps * 3**0.5 * 0.8


def copy_specs(dest: Path, edit: tuple[str, str] | None = None) -> Path:
    """A copy of the shipped specs, with one text replacement in the DGX H100 rack.

    Not of the catalog: a project uses the shipped one (a copy of it would be the project's own, every library rack
    in it analysed, the GB300 NVL72 over the shipped hall's 132 kW budget).
    """
    shutil.copytree(SPECS, dest, ignore=shutil.ignore_patterns("catalog"))
    if edit:
        rack = dest / RACK
        text = rack.read_text(encoding="utf-8")
        assert edit[0] in text
        rack.write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    return dest


FIVE_SYSTEMS = ("part: dgx-h100, count: 4", "part: dgx-h100, count: 5")
HALF_CURRENT = ("current: 60 A, redundancy: N+1", "current: 30 A, redundancy: N+1")


def diff_json(*args) -> tuple[int, dict]:
    r = run_cli("diff", *args, "--format", "json")
    assert r.code in (0, 1), r.err
    return r.code, json.loads(r.out)


def metric(doc: dict, obj: str, name: str) -> dict:
    return next(m for m in doc["metrics"] if (m["object"], m["metric"]) == (obj, name))


@pytest.fixture(scope="module")
def shipped_base(tmp_path_factory) -> Path:
    """One unchanged copy of the shipped specs, the BASE of this module's diffs against an edited copy; tests only
    read it. Its pipeline run is then made once, not once a test (`tests/shared_runs.py` keys a run by the files'
    names, real paths and bytes, so a fresh copy per test ran it afresh each time)."""
    return copy_specs(tmp_path_factory.mktemp("shipped") / "base")


@pytest.fixture(scope="module")
def half_current(tmp_path_factory) -> Path:
    """One copy of the shipped specs whose DGX H100 rack's feeds carry half the current (`HALF_CURRENT`: PWR002,
    PWR003), read, not changed, by the diffs that take it as either side (its run made once, as `shipped_base`'s)."""
    return copy_specs(tmp_path_factory.mktemp("half") / "specs", HALF_CURRENT)


@pytest.fixture(scope="module")
def one_more_system(tmp_path_factory, shipped_base) -> tuple[int, dict]:
    """`diff --format json` of the shipped specs against them with a fifth DGX H100 in the rack (read, not changed)."""
    root = tmp_path_factory.mktemp("one-more")
    return diff_json(shipped_base, copy_specs(root / "head", FIVE_SYSTEMS))


def test_one_more_system(one_more_system):
    code, doc = one_more_system
    assert code == 1
    it = metric(doc, OBJ, "it_power")
    assert it["base"] == {"value": pytest.approx(IT_POWER), "unit": "W"}
    assert it["head"] == {"value": pytest.approx(IT_POWER + DGX_H100), "unit": "W"}
    assert it["change"] == {"value": pytest.approx(DGX_H100), "unit": "W"}
    assert it["relative"] == pytest.approx(DGX_H100 / IT_POWER)
    assert metric(doc, OBJ, "accelerators")["change"] == {"value": 8.0, "unit": ""}   # 8 H100 per system
    assert {m["object"] for m in doc["metrics"]} == {OBJ}
    # REQ-PWR-010 (it_power <= 45 kW) was met at 40.9 kW and fails at 51.1 kW
    [req] = doc["requirements"]
    assert (req["object"], req["requirement"], req["failing"]) == (OBJ, "REQ-PWR-010", True)
    assert (req["base"]["status"], req["head"]["status"]) == ("met", "not met")
    assert req["head"]["value"] == {"value": pytest.approx(IT_POWER + DGX_H100), "unit": "W"}
    new = {(f["id"], f["requirement"]) for f in doc["findings"]["new"]}
    assert ("REQ001", "REQ-PWR-010") in new
    assert ("MECH002", None) in new                      # the fifth system (U35-U42) runs into the switch at U40
    # met no longer, REQ-PWR-010 is no longer "met on the DGX H100's unconfirmed power" (REQ005, newuser46)
    assert [(f["id"], f["severity"], f["requirement"]) for f in doc["findings"]["resolved"]] == [
        ("REQ005", "info", "REQ-PWR-010")]
    assert doc["summary"]["failing"] and doc["summary"]["requirements_failing"] == 1


def test_markdown_comment(shipped_base, half_current):
    r = run_cli("diff", shipped_base, half_current)
    assert r.code == 1, r.err
    # usable capacity of 2 feeds halves: 69.0 kW -> 34.5 kW
    assert round(2 * feed(415, 60), -1) == 69_000 and round(2 * feed(415, 30), -2) == 34_500
    assert f"| `{OBJ}` | feed\\_capacity\\_usable | 69 kW | 34.5 kW | -34.5 kW | -50.0 % |" in r.out
    assert "| error | PWR002 | `rack/dgx-h100-4` |" in r.out
    assert r.out.startswith("## archgen diff: ")
    assert "❌ 1 metric(s) changed in 1 object(s); 2 new finding(s) (2 error(s)), 0 resolved" in r.out
    assert "### Requirements" not in r.out  # no requirement on the feed capacity


def test_fix_resolves_findings(tmp_path, half_current):
    code, doc = diff_json(half_current, copy_specs(tmp_path / "head"))
    assert code == 0
    assert doc["findings"]["new"] == []
    assert {f["id"] for f in doc["findings"]["resolved"]} == {"PWR002", "PWR003"}
    change = metric(doc, OBJ, "feed_capacity_usable")["change"]
    assert change == {"value": pytest.approx(2 * (feed(415, 60) - feed(415, 30))), "unit": "W"}


def test_identical_specs(tmp_path, shipped_base):
    base = shipped_base
    code, doc = diff_json(base, copy_specs(tmp_path / "head"))
    assert code == 0
    assert doc["metrics"] == [] and doc["requirements"] == []
    assert doc["findings"] == {"new": [], "resolved": [], "newly_waived": [], "waived_again": []}
    assert doc["objects"] == {"added": [], "removed": []}
    r = run_cli("diff", base, base, "--threshold", "0")   # 0: every change, and still none
    assert r.code == 0 and "No differences." in r.out and "✅" in r.out


def test_json_shape(one_more_system):
    doc = one_more_system[1]
    assert set(doc) == {"archgen", "base", "head", "summary", "metrics", "objects", "bom", "bom_totals", "findings",
                        "requirements", "not_costed", "waivers", "prices", "refused"}
    assert doc["archgen"] == "0.1.0"
    assert set(doc["summary"]) >= {"metrics_changed", "findings_new", "findings_resolved", "requirements_failing",
                                   "head_errors", "failing", "line"}
    for m in doc["metrics"]:
        assert set(m) == {"object", "metric", "base", "head", "change", "relative", "direction", "better", "presence",
                          "why", "hall", "band", "within_band", "not_comparable", "zeroed"}
        for key in ("base", "head", "change"):
            assert set(m[key]) == {"value", "unit"} and isinstance(m[key]["value"], float)
    for f in doc["findings"]["new"]:
        assert set(f) >= {"id", "severity", "object", "file", "line", "column", "message", "value", "limit",
                          "requirement"}
    assert [(m["object"], m["metric"]) for m in doc["metrics"]] == sorted((m["object"], m["metric"])
                                                                          for m in doc["metrics"])


def test_threshold_hides_float_noise(tmp_path, shipped_base):
    base = shipped_base
    head = copy_specs(tmp_path / "head", ("voltage: 415 V, basis", "voltage: 415.2 V, basis"))  # +0.048 %
    code, doc = diff_json(base, head)
    assert (code, doc["metrics"]) == (0, [])
    code, doc = diff_json(base, head, "--threshold", "0.01")
    [m] = doc["metrics"]
    assert m["metric"] == "feed_capacity_usable" and m["relative"] == pytest.approx(0.2 / 415)


def test_objects_added_and_removed(tmp_path, shipped_base):
    base = shipped_base
    head = copy_specs(tmp_path / "head")
    (head / RACK).unlink()
    code, doc = diff_json(base, head)
    assert doc["objects"] == {"added": [], "removed": [OBJ]} and code == 0
    gone = {r["requirement"] for r in doc["requirements"]}
    # its own two and the two of specs/requirements/ai-hall.yaml whose glob subject rack/* matched it
    assert gone == {"REQ-PWR-010", "REQ-MECH-010", "REQ-HALL-PWR-001", "REQ-HALL-MECH-001"}
    assert not any(r["failing"] for r in doc["requirements"])
    code, doc = diff_json(head, base)
    assert doc["objects"] == {"added": [OBJ], "removed": []}


def _finding(check: str, line: int, message: str = "m", requirement: str = "") -> Finding:
    return Finding(check, "error", "rack/r", Location("specs/racks/r.yaml", line, 1), message, "s", "", None, None,
                   requirement)


def test_findings_match_by_id_object_requirement_not_line():
    base = [_finding("PWR002", 10, "40 kW"), _finding("REQ001", 20, "a", "REQ-1"), _finding("REF001", 5, "x")]
    head = [_finding("PWR002", 14, "41 kW"), _finding("REQ001", 24, "a", "REQ-2"),
            _finding("REF001", 5, "y"), _finding("REF001", 9, "x")]
    new, resolved, _ = match_findings(base, head)
    assert [(f.id, f.requirement, f.message) for f in new] == [("REF001", "", "y"), ("REQ001", "REQ-2", "a")]
    assert [(f.id, f.requirement) for f in resolved] == [("REQ001", "REQ-1")]
    waived = Finding("PWR002", "error", "rack/r", None, "m", "s", "", waived="accepted")
    assert match_findings([], [waived]) == ((), (), ())


def test_display_units():
    cells = metric_cells(MetricChange("w", "memory_headroom", Q_(40e9, "B"), Q_(30e9, "B")))
    assert cells == ("40 GB", "30 GB", "-10 GB", "-25.0 %")
    cells = metric_cells(MetricChange("w", "tpot", Q_(0.07124, "s"), Q_(0.0801, "s")))
    assert cells == ("71.24 ms", "80.1 ms", "+8.86 ms", "+12.4 %")
    assert metric_cells(MetricChange("r", "it_power", None, Q_(5, "kW")))[:3] == ("—", "5 kW", "—")


@pytest.mark.parametrize(("base", "head", "change", "direction"), [(-214.4, 23, "+237.4 GB", "better"),
                                                                   (23, -214.4, "-237.4 GB", "worse")])
def test_a_change_across_zero_has_no_relative_change(base, head, change, direction):
    """newuser102: a headroom's high end -214.4 GB -> 23 GB read "+110.7 %, better". Across zero the change is shown
    alone, with its direction, in the table `diff` and the customer change list share (`metric_cells`) and in JSON."""
    c = MetricChange("workload/w", "memory_headroom_low", Q_(base * 1e9, "B"), Q_(head * 1e9, "B"))
    assert c.relative is None and c.direction == direction
    assert metric_cells(c) == (f"{base:g} GB", f"{head:g} GB", change, "—")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=archgen", "-c", "user.email=archgen@example.com", *args], cwd=repo,
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository with the shipped specs committed, then a commit adding a fifth DGX H100; cwd inside it."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    copy_specs(root / "specs")
    _git(root, "add", "specs")
    _git(root, "commit", "-q", "-m", "specs")
    rack = root / "specs" / RACK
    rack.write_text(rack.read_text(encoding="utf-8").replace(*FIVE_SYSTEMS), encoding="utf-8")
    _git(root, "commit", "-q", "-am", "a fifth system")
    monkeypatch.chdir(root)
    return root


@pytest.mark.slow
def test_git_revisions(repo):
    code, doc = diff_json("HEAD~1", "HEAD")
    assert code == 1
    assert metric(doc, OBJ, "it_power")["change"] == {"value": pytest.approx(DGX_H100), "unit": "W"}
    req = next(f for f in doc["findings"]["new"] if f["id"] == "REQ001")
    assert req["file"] == f"specs/{RACK}"          # the file in the checkout, not in the temporary export
    assert doc["base"].startswith("HEAD~1 (") and doc["head"].startswith("HEAD (")
    bom = {(r["object"], r["part"]): (r["base"], r["head"]) for r in doc["bom"]}
    assert bom[(OBJ, "dgx-h100")] == (4, 5)
    # a revision against the working tree: revert the change without committing
    rack = repo / "specs" / RACK
    rack.write_text(rack.read_text(encoding="utf-8").replace(FIVE_SYSTEMS[1], FIVE_SYSTEMS[0]), encoding="utf-8")
    code, doc = diff_json("HEAD", "specs")
    assert code == 0 and metric(doc, OBJ, "it_power")["change"]["value"] == pytest.approx(-DGX_H100)
    assert {f["id"] for f in doc["findings"]["resolved"]} >= {"REQ001", "MECH002"}


@pytest.mark.slow
def test_git_path_option(repo):
    _git(repo, "mv", "specs", "design")
    _git(repo, "commit", "-q", "-m", "move")
    code, doc = diff_json("HEAD~2", "HEAD~1", "--path", "specs")
    assert code == 1 and doc["metrics"]
    code, doc = diff_json("HEAD", "design", "--path", "design")
    assert (code, doc["metrics"], doc["bom"]) == (1, [], [])  # same specs; HEAD still has the failing requirement


@pytest.mark.parametrize(("args", "message"), [
    (("no-such-rev", "HEAD"), "error: no-such-rev: neither a directory nor a git revision\n"),
    (("HEAD", "HEAD~1", "--path", "nothing"), "error: nothing: not in revision HEAD\n"),
    (("HEAD", "HEAD~1", "--path", f"specs/{RACK}"), f"error: specs/{RACK}: not a directory in revision HEAD\n"),
    (("HEAD", "HEAD", "--format", "xml"), "error: unknown format 'xml'; expected md or json\n"),
    (("HEAD", "HEAD~1", "--path", "../outside"),
     "error: --path ../outside: outside the git repository (its top level: the working directory)\n"),
])
def test_usage_errors(repo, args, message):
    """A usage error prints no report; a side that cannot be read prints the 'not compared' one, as --output has it
    (newuser20 item 6: `archgen diff ... > diff.md` posted an empty comment)."""
    r = run_cli("diff", *args)
    assert (r.code, r.err) == (2, message)
    read = "not in revision" in message or "not a directory in revision" in message
    assert r.out == (unanalysable(message.rstrip("\n"), 2) if read else "")


def test_a_path_outside_the_repository_is_named_relative(repo, monkeypatch):
    """trialfix item 4: `--path ../../x` from `specs/` printed the repository's absolute path (`/tmp/.../repo`)."""
    monkeypatch.chdir(repo / "specs")
    r = run_cli("diff", "HEAD~1", "HEAD", "--path", "../../x")
    assert (r.code, r.err) == (2, "error: --path ../../x: outside the git repository (its top level: ..)\n")


def test_not_a_repository(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli("diff", "main", "HEAD")
    assert (r.code, r.err) == (2, "error: main: no such directory, and the working directory is not in a git "
                                  "repository\n")               # before: the working directory's absolute path


def test_head_does_not_validate(tmp_path, shipped_base):
    base = shipped_base
    head = copy_specs(tmp_path / "head", ("current: 60 A,", "current: 60,"))
    r = run_cli("diff", base, head)
    assert r.code == 1 and r.out == unanalysable(r.err.rstrip("\n"), 1)       # on stdout too (newuser20 item 6)
    first, second = r.err.splitlines()[:2]
    assert first == f"archgen diff: HEAD, {head}, cannot be analysed:"   # was "HEAD HEAD (3b4b9b7)" for a revision
    assert second.startswith(f"{head / RACK}:17:") and "number '60' has no unit" in second


def test_output_file(repo):
    r = run_cli("diff", "HEAD~1", "HEAD", "--output", repo / "diff.md")
    assert (r.code, r.out) == (1, "")
    text = (repo / "diff.md").read_text(encoding="utf-8")
    assert text.startswith("## archgen diff: `HEAD~1 (") and "| REQ-PWR-010 | `rack/dgx-h100-4` |" in text
    assert f"`specs/{RACK}:" in text


def test_moved_lines_are_not_new_findings(tmp_path, half_current):
    base = half_current
    head = copy_specs(tmp_path / "head", HALF_CURRENT)
    (head / RACK).write_text("# a comment\n# moves every line\n" + (head / RACK).read_text(encoding="utf-8"), encoding="utf-8")
    code, doc = diff_json(base, head)
    assert code == 1                                   # HEAD still has the PWR002/PWR003 errors
    assert doc["findings"] == {"new": [], "resolved": [], "newly_waived": [], "waived_again": []} and doc["metrics"] == []
    assert doc["summary"]["head_errors"] == 2


def test_absolute_directories_are_shown_relative(tmp_path, monkeypatch):
    """Issue 11, item 9: no machine paths in a pull-request comment; directories and files relative to cwd."""
    base, head = copy_specs(tmp_path / "base"), copy_specs(tmp_path / "head", FIVE_SYSTEMS)
    monkeypatch.chdir(tmp_path)
    code, doc = diff_json(base, head)
    assert (doc["base"], doc["head"]) == ("base", "head")
    assert {f["file"] for f in doc["findings"]["new"]} == {f"head/{RACK}"}
    text = run_cli("diff", base, head).out
    assert str(tmp_path) not in text and "## archgen diff: `base` → `head`" in text


@pytest.fixture
def own_repo(tmp_path, monkeypatch):
    """archgen's own layout: the shipped specs with `specs/catalog`, and `archgen/catalog` linking to it; cwd in it."""
    root = tmp_path / "own"
    shutil.copytree(SPECS, root / "specs")
    (root / "archgen").mkdir()
    (root / "archgen" / "catalog").symlink_to(Path("..", "specs", "catalog"))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "specs", "archgen")
    _git(root, "commit", "-q", "-m", "specs and catalog")
    monkeypatch.chdir(root)
    monkeypatch.setattr("archgen.commands.side_catalog.own_top", lambda: root)   # archgen run from this checkout
    return root


NO_CHANGE = {"metrics": [], "objects": {"added": [], "removed": []},
             "findings": {"new": [], "resolved": [], "newly_waived": [], "waived_again": []}, "requirements": []}
# specs/catalog/systems/dgx-h100.yaml: power.max 10.2 kW; the rack dgx-h100-4 holds 4 (RACK above)
HOTTER_DGX = ("max: 10.2 kW", "max: 10.7 kW")


def changes(doc: dict) -> dict:
    return {k: doc[k] for k in NO_CHANGE}


@pytest.mark.slow
def test_own_repository_catalog_is_the_library(own_repo):
    """In archgen's own repository a revision's specs/catalog is the library, as the checkout's is: no false change.

    Before, the export's catalog loaded as the user's parts: every library rack joined BASE, and the GB300 NVL72
    (then 142.4 kW) failed the hall's 132 kW budget there, shown as a resolved REQ001 and a removed rack.
    """
    for base, head in (("HEAD", "specs"), ("main", "main")):
        code, doc = diff_json(base, head)
        assert (code, changes(doc)) == (0, NO_CHANGE), (base, head)


@pytest.mark.slow
def test_own_repository_catalog_edit_is_a_change(own_repo):
    """A part's power edited in the catalog moves the racks that use it, by count x change, and adds no rack."""
    part = own_repo / "specs" / "catalog" / "systems" / "dgx-h100.yaml"
    assert HOTTER_DGX[0] in part.read_text(encoding="utf-8")
    part.write_text(part.read_text(encoding="utf-8").replace(*HOTTER_DGX), encoding="utf-8")
    _git(own_repo, "commit", "-q", "-am", "hotter DGX H100")
    for base, head in (("HEAD~1", "HEAD"), ("HEAD~1", "specs")):
        code, doc = diff_json(base, head)
        assert metric(doc, OBJ, "it_power")["change"] == {"value": pytest.approx(4 * 500.0), "unit": "W"}
        assert metric(doc, OBJ, "it_power")["head"]["value"] == pytest.approx(IT_POWER + 4 * 500.0)
        assert doc["objects"] == {"added": [], "removed": []}
        assert [m for m in doc["metrics"] if m["object"].startswith("rack/") and m["object"] != OBJ] == []


def test_catalog_sources(own_repo, repo):
    """Which catalog stands for the shipped one on each side: the repository's own where `archgen/catalog` leads
    into the specs; the shipped one (None) in a repository without it, and for a folder outside the catalog."""
    from archgen.commands.diff import spec_source
    with spec_source("HEAD", cwd=own_repo) as rev, spec_source("specs", cwd=own_repo) as tree:
        assert rev.catalog == rev.directory / "catalog" and tree.catalog == (own_repo / "specs" / "catalog").resolve()
    with spec_source("HEAD", "specs/racks", cwd=own_repo) as racks:
        assert racks.catalog is None              # the catalog is not exported with specs/racks
    with spec_source("HEAD", cwd=repo) as rev, spec_source("specs", cwd=repo) as tree:
        assert (rev.catalog, tree.catalog) == (None, None)


def test_a_smaller_batch_reads_as_worse_where_the_registry_says_which_way_is_better(tmp_path, shipped_base):
    """newuser10 item 4: batch 512 -> 256 cut MFU and throughput 5.4 %, and the comment said ✅ with no direction;
    MFU's change read "-3.23 %" beside "relative -5.4 %" (its change is in percentage points)."""
    base, head = shipped_base, copy_specs(tmp_path / "head")
    workload = head / "workloads" / "llama3-70b.yaml"
    workload.write_text(workload.read_text(encoding="utf-8").replace("global_batch: 512", "global_batch: 256"),
                        encoding="utf-8")
    r = run_cli("diff", base, head)
    assert r.code == 0
    obj = "`workload/llama3-70b-pretrain-b200`"
    # 14 worse: goodput tokens/s's ends (nu41cost) fall with the throughput too, and the energy per million tokens
    # rises with it (newuser48: the same load over fewer tokens/s), as do the cost per token's and per million tokens'
    # ends (newuser107: 10 before, those four ends read "—" beside their "worse ▲" figures); 3 better: the memory
    # headroom and the two ends of its range over the allocator's waste (memband41)
    assert r.out.split("\n")[2].startswith("⚠️ ") and " (14 worse, 3 better; 14 within the model's band);" in r.out
    # 0.2528 kWh x 2,881 / 2,771 tokens/s per GPU = 0.2628 (the shown figures rounded; 0.2522 -> 0.2623 before rope40
    # charged Llama 3.1's rotary embedding; 0.2613 -> 0.2792 before
    # gradreduce's bf16 gradient reduction and lo23cat's HBM capacities moved the layout)
    assert (f"| {obj} | facility\\_energy\\_per\\_million\\_tokens | 0.2528 kWh (band 0.2275 to 0.4062 kWh) | 0.2629 kWh "
            "(band 0.2366 to 0.4225 kWh) | +0.0101 kWh | +4.0 % | worse ▲, within band |") in r.out
    assert "| object | metric | base | head | change | relative | direction |" in r.out
    # 61.81, 59.43 before rope40; diffhonest41: each side's model band beside it, and a move inside both read so
    assert (f"| {obj} | mfu | 61.65 % (band 38.37 to 68.51 %) | 59.29 % (band 36.89 to 65.88 %) | -2.37 points | "
            "-3.8 % | worse ▼, within band |") in r.out
    # base: tp 4, pp 1, micro-batch 4 since nu38model's runtime reserve (was pp 2, v 20 with 0.67 GB free, 2.928 s);
    # the BF16 gradient reduction under nemo-2025 (gradreduce) moved both ends: mfu 59.64 -> 61.81 % and 55.81 ->
    # 59.43 %, headroom 2.4 -> 0.04 GB and 94.42 -> 95 GB, step 2.939 -> 2.836 s and 1.57 -> 1.475 s
    assert f"| {obj} | memory\\_headroom | 0.04 GB | 95 GB | +94.97 GB | +270138.5 % | better ▲ |" in r.out
    # per batch (2.836, 1.475 s before rope40)
    assert (f"| {obj} | step\\_time | 2.843 s (band 2.559 to 4.569 s) | 1.478 s (band 1.33 to 2.376 s) | -1.365 s | "
            "-48.0 % | — |") in r.out
    _, doc = diff_json(base, head)
    mfu = metric(doc, "workload/llama3-70b-pretrain-b200", "mfu")
    assert (mfu["direction"], mfu["better"]) == ("worse", "higher")
    cost = metric(doc, "workload/llama3-70b-pretrain-b200", "cost_per_token")
    assert (cost["direction"], cost["better"]) == ("worse", "lower")
    power = metric(doc, "workload/llama3-70b-pretrain-b200", "memory_per_gpu")
    assert (power["direction"], power["better"]) == (None, None)
    assert (doc["summary"]["metrics_worse"], doc["summary"]["metrics_better"]) == (14, 3)   # the headroom's ends; the cost ends


def test_a_change_with_no_better_direction_reads_as_neither():
    up = MetricChange("rack/r", "it_power", Q_(40, "kW"), Q_(50, "kW"))
    assert up.direction is None and metric_cells(up)[2] == "+10 kW"
    assert MetricChange("workload/w", "ttft", Q_(0.2, "s"), Q_(0.1, "s")).direction == "better"
    assert MetricChange("workload/w", "ttft", Q_(0.2, "s"), None).direction is None



def test_a_fabric_tapered_reads_as_worse(tmp_path, shipped_base):
    """newuser26: a 2:1 leaf tier on the shipped B200 SuperPOD cuts the compute fabric's bisection, and the comment
    listed it with no direction, counting only the failure shares as worse. Bandwidth a fabric carries is better
    higher, as throughput is. At 2:1 a 64-port QM9700 leaf splits 43 down / 21 up (docs/clusters.md Formulas,
    u = ⌊k / (1 + o)⌋), a 32-node SU still takes 8 rail leaves, so the bisection is the 32 leaves' uplinks:
    32 x 21 x 400 Gb/s / 2 over 1,016 GPUs = 132.3 Gb/s, against half the 400G injection (200 Gb/s) at 1:1."""
    base = shipped_base
    head = copy_specs(tmp_path / "head")
    cluster = head / "clusters" / "dgx-b200-superpod.yaml"
    text = cluster.read_text(encoding="utf-8")
    old = '    group: su\n    oversubscription: "1:1"\n    max_oversubscription: "1:1"\n'
    assert old in text
    cluster.write_text(text.replace(old, '    group: su\n    oversubscription: "2:1"\n'), encoding="utf-8")
    _, doc = diff_json(base, head)
    obj = "cluster/dgx-b200-superpod/fabric/compute"
    bisection = metric(doc, obj, "bisection_per_accelerator")
    assert (bisection["base"]["value"], bisection["head"]["value"]) == pytest.approx(
        (400e9 / 2 / 8, 32 * 21 * 400e9 / 2 / 1016 / 8))
    assert (bisection["direction"], bisection["better"]) == ("worse", "higher")
    assert metric(doc, obj, "bisection_bandwidth")["direction"] == "worse"
    assert MetricChange(obj, "injection_per_accelerator", Q_(800, "Gb/s"), Q_(400, "Gb/s")).direction == "worse"
    # the taper itself, better lower (newuser101: the spines halved read "—" on 1 → 1.9 beside a bisection "worse")
    ratio = metric(doc, obj, "leaf.oversubscription")
    assert (ratio["base"]["value"], ratio["direction"], ratio["better"]) == (1, "worse", "lower")
    assert MetricChange(obj, "north_south_oversubscription", Q_(1.0, "dimensionless"),
                        Q_(3.0, "dimensionless")).direction == "worse"


def test_path_between_two_directories_is_refused(tmp_path, monkeypatch):
    """newuser95: `diff a/ b/ --path specs` (meant to add the shipped clusters to both sides) was passed over, each
    side failed its references alone and the report read "No differences"; --path names a folder of a revision."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path)
    r = run_cli("diff", "a", "b", "--path", "specs")
    assert (r.code, r.out) == (2, "")
    assert r.err.startswith("error: --path specs: BASE and HEAD are both spec directories, so no git revision is "
                            "read and --path names nothing"), r.err


def test_concurrency_has_no_better_direction(tmp_path, shipped_base):
    """offtpot37: a falling `concurrency` read "worse ▼" (the registry maximised it), yet under an arrival rate more
    in flight is more requests waiting. Halving the shipped offline job's batch (2,048 -> 1,024 in flight) shortens
    its requests' gaps between tokens (TPOT, better) and their decode step; concurrency has no direction."""
    base, head = shipped_base, copy_specs(tmp_path / "head")
    workload = head / "workloads" / "llama3-70b.yaml"
    text = workload.read_text(encoding="utf-8")
    assert text.count("  output_len: 256\n") == 1
    workload.write_text(text.replace("  output_len: 256\n", "  output_len: 256\n  batch: 1024\n"), encoding="utf-8")
    r = run_cli("diff", base, head)
    assert r.code == 0, r.err
    obj = "`workload/llama3-70b-serve-b200`"
    assert f"| {obj} | concurrency | 2,048 | 1,024 | -1,024 | -50.0 % | — |" in r.out
    assert f"| {obj} | tpot | 295.6 ms (band 45.4 to 422.6 ms) | 151.1 ms (band 25.8 to 216 ms) |" in r.out
    assert "| decode\\_step\\_time | 49.37 ms | 28.07 ms |" in r.out
    tpot = next(line for line in r.out.splitlines() if line.startswith(f"| {obj} | tpot |"))
    assert tpot.endswith("better ▼ |")


def test_a_hint_under_an_error_that_stops_the_diff_stays_under_it():
    """newuser101: the comment of a diff not compared listed an unknown key's `hint:` as an error of its own."""
    err = ("archgen diff: HEAD, k1, cannot be analysed:\nk1/w.yaml:32:16: error: inference.concurrency: unknown key "
           "'concurrency'\n  hint: allowed keys: batch, scenario\n")
    assert unanalysable(err, 1).split("\n")[4:8] == [
        "- archgen diff: HEAD, k1, cannot be analysed:",
        "- k1/w.yaml:32:16: error: inference.concurrency: unknown key 'concurrency'",
        "  - hint: allowed keys: batch, scenario", ""]
