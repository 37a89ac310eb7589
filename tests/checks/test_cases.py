"""sqlfluff-style case files: every check ID has `cases/<ID>.yml` with passing and failing specs.

Format::

    check: PWR001
    cases:
      - name: pass_...                  # or fail_...
        files: {racks/r.yaml: <YAML text, or a mapping written out as YAML>}
        expect: [{subject: rack/r, line: 12}]   # findings of this check; line optional

The shipped catalog is always available, so a case only writes the specs it is about.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.conftest import write_tree

CASES = Path(__file__).parent / "cases"


def _load(path: Path) -> dict:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def _dump(value) -> str:
    if isinstance(value, str):
        return value
    buf = io.StringIO()
    YAML(typ="safe", pure=True).dump(value, buf)
    return buf.getvalue()


def _all_cases():
    for path in sorted(CASES.glob("*.yml")):
        doc = _load(path)
        for case in doc["cases"]:
            yield pytest.param(doc["check"], case, id=f"{doc['check']}-{case['name']}")


@pytest.mark.parametrize(("check_id", "case"), list(_all_cases()))
def test_case(check_id, case, tmp_path):
    root = write_tree(tmp_path / "specs", {name: _dump(body) for name, body in case["files"].items()})
    result = run([root])
    got = [f for f in result.findings if f.id == check_id and not f.waived]
    expected = case.get("expect") or []
    assert sorted(f.object for f in got) == sorted(e["subject"] for e in expected), [f.message for f in got]
    for exp in expected:
        if "line" in exp:
            assert exp["line"] in [f.location.line for f in got if f.object == exp["subject"]]
    if case["name"].startswith("pass"):
        assert not expected
