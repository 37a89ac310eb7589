"""A validation-case file among the spec paths is named as one, with the command that reads it (newuser104).

Before, `archgen check DIR` over a folder holding a case file said only "missing 'kind': expected a known kind" and
listed the spec kinds, as for any stray YAML; a case file states `schema: archgen-validation/1` instead of a kind.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

CASES = """\
schema: archgen-validation/1
cases:
- id: one
  source: a log
  status: confirmed
"""


def test_a_case_file_read_as_a_spec_says_how_to_score_it(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    r = run_cli("check", str(tmp_path))
    assert r.code == 1
    assert "cases.yaml:1:1: error: kind: missing 'kind'" in r.err
    assert "validation-case file (archgen-validation/1), not a spec" in r.err
    assert "archgen estimate --cases FILE" in r.err


def test_another_schema_keeps_the_list_of_kinds(tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text(CASES.replace("archgen-validation/1", "something/2"), encoding="utf-8")
    r = run_cli("check", str(tmp_path))
    assert r.code == 1 and "hint: one of: Accelerator" in r.err and "--cases" not in r.err
