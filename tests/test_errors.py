"""Golden user-facing messages for bad input (netlab-style): `errors/<case>.yaml` → `errors/<case>.txt`.

Each `.txt` holds the exit code and exactly what `archgen check <case>.yaml` prints. Regenerate with
`make golden` (it sets ARCHGEN_UPDATE_GOLDEN=1) and review the diff; never edit a `.txt` by hand.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.data.clusters.small import files

ERRORS = Path(__file__).parent / "errors"
UPDATE = os.environ.get("ARCHGEN_UPDATE_GOLDEN") == "1"


def _transcript(case: Path) -> str:
    result = run_cli("check", case.name)
    return f"exit {result.code}\n{result.err}{result.out}"


@pytest.mark.parametrize("case", sorted(ERRORS.glob("*.yaml")), ids=lambda p: p.stem)
def test_golden_message(case, monkeypatch):
    monkeypatch.chdir(ERRORS)
    got = _transcript(case)
    golden = case.with_suffix(".txt")
    if UPDATE:
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")
    assert "Traceback" not in got


def test_every_case_has_a_golden_file():
    assert sorted(p.stem for p in ERRORS.glob("*.txt")) == sorted(p.stem for p in ERRORS.glob("*.yaml"))


def test_huge_file_refused_before_parsing(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("wb") as fh:
        fh.write(b"kind: Facility\nid: x\nname: '")
        fh.write(b"x" * (50 * 2**20))
        fh.write(b"'\n")
    t = time.process_time()  # CPU seconds: neither the disk nor a loaded machine's waits count
    result = run_cli("check", big)
    assert time.process_time() - t < 5
    assert result.code == 2
    assert result.err == f"{big}: error: file is 50.0 MiB: expected a spec file of at most 5 MiB\n"


def test_alias_bomb_rejected_quickly(monkeypatch):
    monkeypatch.chdir(ERRORS)
    t = time.process_time()
    assert run_cli("check", "alias_bomb.yaml").code == 2
    assert time.process_time() - t < 30     # a guard against a hang (it took minutes), not a benchmark: CPU seconds


def test_missing_path(tmp_path):
    result = run_cli("check", tmp_path / "nope")
    assert (result.code, result.err) == (2, f"error: {tmp_path / 'nope'}: no such file or directory\n")


def test_directory_where_a_file_is_expected(tmp_path):
    result = run_cli("check", ERRORS / "duplicate_id.yaml", "--output", tmp_path)
    assert (result.code, result.err) == (2, f"error: {tmp_path}: is a directory, expected a file\n")


def test_unreadable_file_in_json_mode_is_still_json(monkeypatch):
    monkeypatch.chdir(ERRORS)
    result = run_cli("check", "yaml_syntax.yaml", "--format", "json")
    doc = json.loads(result.out)
    assert result.code == 2
    assert doc["findings"][0]["id"] == "SPC000"
    assert (doc["findings"][0]["file"], doc["findings"][0]["line"]) == ("yaml_syntax.yaml", 4)


def test_schema_error_in_json_mode(monkeypatch):
    monkeypatch.chdir(ERRORS)
    result = run_cli("check", "wrong_dimension.yaml", "--format", "json")
    doc = json.loads(result.out)
    assert result.code == 1
    assert doc["summary"]["errors"] == 1
    f = doc["findings"][0]
    assert (f["id"], f["line"], f["column"]) == ("SPC001", 6, 8)
    assert f["message"] == "power.max: expected a power such as '12 W', got '5 m' which is a length"


@pytest.mark.parametrize("ratio", ["1:0", "100:1"])
def test_bad_oversubscription_says_what_was_expected(spec_tree, ratio):
    """A zero upper side or a ratio above 64:1 names the accepted range and echoes the value, at the value's line."""
    root = spec_tree(files(over=ratio))
    result = run_cli("check", root)
    assert result.code == 1
    assert result.err == (f"{root / 'clusters' / 'c.yaml'}:19:21: error: fabrics.0.oversubscription: "
                          f"expected a down:up ratio such as '3:1' (or a number), both sides above 0 and at most "
                          f"64:1, got '{ratio}'\n")


def test_unknown_key_in_a_fabric_is_located_and_suggested(spec_tree):
    """The fabric's topology tag stays out of the path, so the key's own line and 'did you mean' come back."""
    tree = files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("  planes: 1", "  plnes: 1")
    root = spec_tree(tree)
    result = run_cli("check", root)
    assert result.err == (f"{root / 'clusters' / 'c.yaml'}:17:10: error: fabrics.0.plnes: unknown key 'plnes'\n"
                          f"  hint: did you mean 'planes'?\n")


@pytest.mark.parametrize(("value", "shown"), [("48", "48"), ("'33-64'", "'33-64'")])
def test_a_bare_port_count_says_how_to_write_it(spec_tree, value, shown):
    """newuser26: docs/clusters.md gives a tier's `down` and `up` as "a group, a range or a count", and `up: 48` read
    "expected a mapping, got 48", naming neither the key it wants nor the form: the error now shows it."""
    tree = files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("  leaf: {rack: net}\n",
                                                              f"  leaf: {{rack: net, up: {value}}}\n")
    root = spec_tree(tree)
    result = run_cli("check", root)
    assert result.code == 1
    assert result.err == (f"{root / 'clusters' / 'c.yaml'}:20:25: error: fabrics.0.leaf.up: expected the role's "
                          f"ports as a mapping: {{ports: 32}} (a count), {{ports: '33-64'}} (a range) or "
                          f"{{group: <port group>}}, each with an optional breakout, got {shown}\n")
