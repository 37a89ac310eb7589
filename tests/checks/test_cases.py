"""sqlfluff-style case files: every check ID has `cases/<ID>.yml` with passing and failing specs.

Format::

    check: PWR001
    cases:
      - name: pass_...                  # or fail_...
        files: {racks/r.yaml: <YAML text, or a mapping written out as YAML>}
        expect:                         # findings of this check (`make golden` writes them for fail_ cases)
          - {subject: rack/r, line: 12, message: ..., value: {value: 141000.0, unit: W}, limit: {...}}
            # and `public: ...`, the customer's words, where the check gives them (`Violation.public`)

The shipped catalog is always available, so a case only writes the specs it is about.
"""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path

import pytest
import yaml
from ruamel.yaml import YAML

from archgen.quantity_json import to_json
from tests.conftest import run_specs
from tests.test_message_digits import FLOAT_NOISE

CASES = Path(__file__).parent / "cases"


#: libyaml's loader (PyYAML built with it, as its wheels are; its pure-Python loader otherwise).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.cache
def _load(path: Path) -> dict:
    """A case file, parsed once a process (collection here, `test_registry` and `test_public_messages` again): read
    only.

    Parsed by libyaml, not by ruamel's pure-Python parser (archgen's own): every collecting process (each `pytest -n`
    worker) read the 147 files at collection, 0.95 CPU-s of ruamel against 0.05 of libyaml, a sixth of a warm
    collection of the suite (speedsub34). libyaml resolves plain scalars by YAML 1.1 (`on` a boolean, `1e3` a
    string), ruamel by 1.2: `test_case_files_read_the_same_as_ruamel_reads_them` holds the two parses equal.
    """
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)


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


def findings_of(check_id: str, case: dict, tmp: Path) -> list:
    """The unwaived findings of `check_id` on a case's specs, in a stable order (run from `tmp`, so that a message
    quoting a location reads `specs/...` wherever the case runs).
    """
    findings = run_specs(tmp, {name: _dump(body) for name, body in case["files"].items()}).findings
    noisy = [f.message for f in findings if FLOAT_NOISE.search(f.message)]   # every check's, not only this one's
    assert not noisy, f"a float's noise in a message: {noisy}"
    got = [f for f in findings if f.id == check_id and not f.waived]
    return sorted(got, key=lambda f: (f.object, f.location.line if f.location else 0, f.message))


@pytest.mark.parametrize(("check_id", "case"), list(_all_cases()))
def test_case(check_id, case, tmp_path):
    got = findings_of(check_id, case, tmp_path)
    expected = case.get("expect") or []
    assert sorted(f.object for f in got) == sorted(e["subject"] for e in expected), [f.message for f in got]
    if case["name"].startswith("pass"):
        assert not expected
        return
    for f, exp in zip(got, sorted(expected, key=lambda e: (e["subject"], e.get("line", 0), e.get("message", ""))),
                      strict=True):
        assert f.object == exp["subject"]
        assert (f.location.line if f.location else 0) == exp["line"], (f.object, f.message)
        assert f.message == exp["message"]
        assert f.public == exp.get("public", ""), (f.object, f.message)
        for name in ("value", "limit"):
            q = getattr(f, name)
            if name not in exp:
                assert q is None, (name, q)
                continue
            want = exp[name]
            assert q is not None and to_json(q)["unit"] == want["unit"], (name, q, want)
            assert to_json(q)["value"] == pytest.approx(want["value"], rel=1e-9, abs=1e-12), (name, q, want)


def test_case_files_read_the_same_as_ruamel_reads_them():
    """`_load` (libyaml, YAML 1.1) gives every case file as ruamel's safe YAML 1.2 parse gives it: the same keys in
    the same order, the same types and values (a `yes` or `on` would be a boolean, `1e3` a string, `0o17` a string
    there), so a case's specs and expectations are what their file says (`update_cases` writes them with ruamel)."""
    def typed(value) -> str:
        return json.dumps(value, default=repr)   # `true` is not `1`, `1.0` not `1`; a date by its repr

    differ = [path.name for path in sorted(CASES.glob("*.yml"))
              if typed(_load(path)) != typed(YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8")))]
    assert differ == [], f"libyaml reads these case files otherwise than ruamel (quote the scalar): {differ}"


def test_every_failing_case_states_line_message_value_and_limit():
    """Case files pin what a check reports (its message, and the value and limit it compared), not only whom."""
    for path in sorted(CASES.glob("*.yml")):
        for case in _load(path)["cases"]:
            if case["name"].startswith("fail"):
                assert case.get("expect"), f"{path.name} {case['name']}: a failing case expects a finding"
                for exp in case["expect"]:
                    assert {"subject", "line", "message"} <= set(exp), f"{path.name} {case['name']}: {exp}"
