"""Hostile input, newuser39's open list items 1-2: findings multiplied into the CI log without a bound.

300 racks under 300 requirements on `rack/*` printed 90,603 lines (8.2 MB); one file of 150,000 unknown keys
300,004 lines (29 MB). Text and GitHub output now show the first `capped.PER_FILE` findings of a file and check,
then one line with the count of the rest; the summary and the exit code count every finding, JSON lists each, and
SARIF lists at most `capped.SARIF_RESULTS` (GitHub's limit per run) with the count left out in its properties.
Smaller copies of those inputs here: 30 x 30 and 3,000 keys.
"""

from __future__ import annotations

import json
import shutil

import pytest

from archgen.checks import Finding
from archgen.errors import Location
from archgen.output import findings as output
from archgen.output.capped import PER_FILE
from tests.conftest import SPECS

RACKS, REQUIREMENTS = 30, 30


@pytest.fixture(scope="module")
def many_tree(tmp_path_factory):
    """RACKS copies of a shipped rack, and REQUIREMENTS requirements on `rack/*` that each of them fails, written once
    for the module (the tests read it): `check` in each output format then shares one pipeline run of it."""
    tmp_path = tmp_path_factory.mktemp("many")
    text = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
    text = text[text.index("kind: Rack"):]
    (tmp_path / "s" / "racks").mkdir(parents=True)
    (tmp_path / "s" / "racks" / "many.yaml").write_text(
        "---\n".join(text.replace("id: dgx-h100-4", f"id: r{i}", 1) for i in range(RACKS)), encoding="utf-8")
    reqs = "".join(f'  - {{id: REQ-W-{j}, statement: w, subject: "rack/*", metric: weight, target: "<= 1 kg"}}\n'
                   for j in range(REQUIREMENTS))
    (tmp_path / "s" / "reqs.yaml").write_text(f"kind: Requirements\nid: many\nrequirements:\n{reqs}", encoding="utf-8")
    return tmp_path


@pytest.fixture
def many(many_tree, monkeypatch):
    """`many_tree`, the working directory in it."""
    monkeypatch.chdir(many_tree)
    return many_tree


def test_text_shows_the_first_findings_of_a_file_and_check_then_a_count(many, cli):
    r = cli("check", "s")
    req = [ln for ln in r.out.splitlines() if ln.startswith("s/reqs.yaml:") and ": REQ001 " in ln]
    assert r.code == 1 and len(req) == PER_FILE
    left = RACKS * REQUIREMENTS - PER_FILE
    assert f"s/reqs.yaml: note: ... and {left:,} more REQ001 finding(s) of this file, not shown" in r.out
    assert r.out.splitlines()[-1].startswith(f"{RACKS * REQUIREMENTS} error(s)")   # the summary counts them all


def test_github_annotations_are_capped_the_same_way(many, cli):
    r = cli("check", "s", "--format", "github")
    assert r.code == 1 and r.out.count("::error file=s/reqs.yaml,") == PER_FILE
    assert f"::notice file=s/reqs.yaml,title=REQ001::... and {RACKS * REQUIREMENTS - PER_FILE:,} more REQ001" in r.out


def test_json_lists_every_finding(many, cli):
    r = cli("check", "s", "--format", "json")
    doc = json.loads(r.out)
    assert r.code == 1 and sum(f["id"] == "REQ001" for f in doc["findings"]) == RACKS * REQUIREMENTS


def test_spec_errors_of_one_file_are_capped_in_text(tmp_path, cli, monkeypatch):
    keys = 3000
    (tmp_path / "s").mkdir()
    shutil.copy(SPECS / "racks" / "dgx-h100-4.yaml", tmp_path / "s" / "r.yaml")
    with (tmp_path / "s" / "r.yaml").open("a", encoding="utf-8") as fh:
        fh.write("".join(f"k{i}: 1\n" for i in range(keys)))
    monkeypatch.chdir(tmp_path)
    r = cli("check", "s")
    assert r.code == 1 and r.err.count(": error: ") == PER_FILE
    assert f"s/r.yaml: note: ... and {keys - PER_FILE:,} more error(s) of this file, not shown" in r.err
    assert len(json.loads(cli("check", "s", "--format", "json").out)["findings"]) == keys


def test_sarif_keeps_errors_first_and_states_what_it_leaves_out(monkeypatch):
    monkeypatch.setattr(output, "SARIF_RESULTS", 10)
    found = [Finding("REQ001", "info" if i % 2 else "error", f"rack/r{i}", Location("s/r.yaml", i + 1, 1), "m",
                     "s", "h")
             for i in range(30)]
    run = json.loads(output.sarif(found))["runs"][0]
    assert len(run["results"]) == 10 and {r["level"] for r in run["results"]} == {"error"}
    assert run["properties"]["resultsTotal"] == 30 and run["properties"]["resultsNotListed"] == 20
