"""Mutation fuzz of every shipped spec (issue 11, the fuzz bar): no traceback, no exit 0 on invalid input, no partial
or non-strict output file.

Each example takes one shipped spec file, mutates it once (a value's type, a unit, a magnitude, a reference, the
YAML structure, or the raw text) and runs `archgen check FILE --format json --output OUT` in-process on the mutated
file with the files it references (a catalog part with a rack that places it), so the whole pipeline runs where
the input gets past validation. The unchanged documents are parsed once per session and handed to the pipeline
(`pipeline.load` is patched), and the parsed-YAML cache is off, so an example costs the parse of one file plus the
pipeline on a rack-sized design. `make test` runs 2,000 derandomised examples (the same ones on every machine);
`make fuzz` runs `ARCHGEN_FUZZ_EXAMPLES` (100,000) with a random seed.

A mutation is marked invalid only where the outcome is certain: a unit of another dimension where a quantity was,
a non-finite magnitude, an integer beyond 2^63, an unknown id at a reference, an unknown key at a document's root,
a control character, a tag outside the core schema, bytes that are not UTF-8. Those must not exit 0.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from tests.conftest import SPECS, run_cli

EXAMPLES = int(os.environ.get("ARCHGEN_FUZZ_EXAMPLES", "2000"))
FILES = sorted(p for p in SPECS.rglob("*.yaml") if p.is_file())
UNITS = ["W", "kW", "MW", "m", "mm", "kg", "g", "degC", "K", "delta_degC", "Gb/s", "GB/s", "GB", "TB", "s", "us",
         "A", "V", "L/min", "U", "TFLOPS", "dimensionless", "%", "kw", "bogus", "m**99", "W/W", "1/s"]
VALUES = [0, -1, 1, 1.5, -0.0, "", "x", "1", "1 W", True, False, None, [], {}, [1, 2], {"a": 1}, "\x1b[31m",
          "=HYPERLINK(\"http://x\")", "$\\frac{1}{$", "\ud800", "é" * 200]
NUMBERS = ["0", "-1", "1e-300", "1e300", "18446744073709551616", "0.5", "1e400", "nan", "inf", "-0"]
INTEGERS = [0, -1, 2**63, 2**64, 10**100, 10**6, 7]
FLOATS = [0.0, -1.0, math.inf, -math.inf, math.nan, 1e308, 1e-320]
TEXT_BREAKS = [("\x00", True), ("\x07", True), ("\x1b", True), ("\x7f", True), ("\ufffe", True), ("\n", False),
               (": ", False), ("- ", False), ("{", False), ("&a ", False), ("*a ", False), ("!!float x ", True),
               ("!!python/object/apply:os.system [true] ", True), ("!custom ", True), ("'", False), ('"', False),
               ("\t", False), ("#", False)]
_QTY = re.compile(r"^\s*(?P<num>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(?P<unit>\S.*?)\s*$")


@dataclass(frozen=True)
class Scenario:
    """A shipped file to mutate and the unchanged files it runs with."""

    file: Path
    docs: list          # its documents, parsed
    others: list        # documents of the files it references (or, for a catalog part, a rack that places it)


def _leaves(data: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(data, dict):
        return [path] + [p for k, v in data.items() for p in _leaves(v, path + (k,))]
    if isinstance(data, list):
        return [path] + [p for i, v in enumerate(data) for p in _leaves(v, path + (i,))]
    return [path]


def _strings(data: Any) -> set[str]:
    if isinstance(data, dict):
        return {s for v in data.values() for s in _strings(v)}
    if isinstance(data, list):
        return {s for v in data for s in _strings(v)}
    return {data} if isinstance(data, str) else set()


@pytest.fixture(scope="module")
def world():
    """Every shipped file parsed once, which file defines each id, and the files each one needs to run."""
    from archgen.load import load_file, shipped_catalog
    from archgen.pipeline import load
    parsed = {f: load_file(f) for f in FILES}
    owner = {d.id: f for f, docs in parsed.items() for d in docs}
    catalog = SPECS / "catalog"
    refs = {f: {owner[s] for d in docs for s in _strings(d.data) if s in owner} - {f} for f, docs in parsed.items()}

    def closure(f: Path) -> set[Path]:
        seen, todo = set(), [f]
        while todo:
            for g in refs[todo.pop()]:
                if g not in seen and not g.is_relative_to(catalog):
                    seen.add(g)
                    todo.append(g)
        return seen - {f}

    scenarios = []
    for f in FILES:
        need = closure(f)
        if f.is_relative_to(catalog):  # a part runs with the smallest rack that places it, if any
            racks = sorted((g for g in FILES if g.is_relative_to(SPECS / "racks") and f in refs[g]),
                           key=lambda g: g.stat().st_size)
            need = ({racks[0]} | closure(racks[0])) if racks else set()
        scenarios.append(Scenario(f, parsed[f], [d for g in sorted(need) for d in parsed[g]]))
    ref_keys = {next(k for k in reversed(p) if isinstance(k, str)) for docs in parsed.values() for d in docs
                for p in _leaves(d.data) if isinstance(_get(d.data, p), str) and _get(d.data, p) in owner
                and any(isinstance(k, str) for k in p)} - {"id", "name"}
    library = load([shipped_catalog()])[0]  # the shipped catalog, as `pipeline.load` gives it
    return World(scenarios, sorted(owner), ref_keys, library)


@dataclass(frozen=True, repr=False)
class World:
    """The parsed shipped specs (shown briefly in hypothesis's failure reports)."""

    scenarios: list[Scenario]
    ids: list[str]
    ref_keys: set[str]
    library: list

    def __repr__(self) -> str:
        return f"<{len(self.scenarios)} shipped spec files>"


def _get(data: Any, path: tuple) -> Any:
    for k in path:
        data = data[k]
    return data


def _set(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = _set(data[path[0]], path[1:], value)
    return copy


def _delete(data: Any, path: tuple) -> Any:
    parent = _get(data, path[:-1])
    copy = dict(parent) if isinstance(parent, dict) else list(parent)
    del copy[path[-1]]
    return _set(data, path[:-1], copy)


def _dimension(unit: str) -> Any:
    from archgen.units import ureg
    try:
        return ureg.parse_units(unit).dimensionality
    except Exception:
        return None


def mutate(draw: Any, scenario: Scenario, ids: list[str], ref_keys: set[str]) -> tuple[bytes, str, bool, int]:
    """One mutation of the scenario's file: (new bytes, what was done, whether the result is certainly invalid, the
    document written: the others of its file run as parsed; -1 for the whole file, mutated as text)."""
    kind = draw(st.sampled_from(["type", "unit", "magnitude", "reference", "structure", "text", "text"]))
    if kind == "text":
        text = scenario.file.read_text(encoding="utf-8")
        at = draw(st.integers(0, len(text)))
        if draw(st.integers(0, 9)) == 0:
            return text.encode()[: at] + b"\xff\xfe", f"non-UTF-8 bytes at {at}", True, -1
        if draw(st.integers(0, 9)) == 0:
            return text[:at].encode(), f"truncated at {at}", False, -1
        insert, invalid = draw(st.sampled_from(TEXT_BREAKS))
        # a break inside a comment or a quoted string is not certain to matter: only a control character is
        invalid = invalid and (insert[0] < " " and insert not in "\t\n" or insert in "\x7f\ufffe")
        return (text[:at] + insert + text[at:]).encode(), f"{insert!r} inserted at {at}", invalid, -1

    index = draw(st.integers(0, len(scenario.docs) - 1), label="document")
    data = scenario.docs[index].data
    paths = [p for p in _leaves(data) if p]
    path = draw(st.sampled_from(paths))
    old = _get(data, path)
    key = next((k for k in reversed(path) if isinstance(k, str)), "")
    invalid = False
    if kind == "type":
        new = draw(st.sampled_from(VALUES))
        invalid = isinstance(new, str) and bool(re.search("[\x00-\x1f\ud800-\udfff]", new))
    elif kind == "unit" and isinstance(old, str) and (m := _QTY.match(old)) and _dimension(m["unit"]) is not None:
        unit = draw(st.sampled_from(UNITS))
        new = f"{m['num']} {unit}"
        dim = _dimension(unit)
        invalid = dim is not None and dim != _dimension(m["unit"]) and key not in ("name", "description", "notes")
    elif kind == "magnitude" and isinstance(old, str) and (m := _QTY.match(old)):
        number = draw(st.sampled_from(NUMBERS))
        new = f"{number} {m['unit']}"
        invalid = number in ("nan", "inf", "1e400") and _dimension(m["unit"]) is not None
    elif kind == "magnitude" and isinstance(old, bool | int | float) and not isinstance(old, bool):
        new = draw(st.sampled_from(INTEGERS if isinstance(old, int) else FLOATS))
        invalid = isinstance(new, int) and abs(new) >= 2**63
    elif kind == "reference" and isinstance(old, str) and old in ids:
        new = draw(st.sampled_from([*ids, "no-such-part-xyz"]))
        invalid = new == "no-such-part-xyz" and key in ref_keys
    elif kind == "structure":
        how = draw(st.sampled_from(["delete", "unknown key", "duplicate", "wrap", "unwrap"]))
        if how == "delete":
            data2 = _delete(data, path)
        elif how == "unknown key":
            parent = path[:-1] if not isinstance(old, dict) else path
            node = _get(data, parent)
            data2 = _set(data, parent, {**node, "zz_unknown": 1}) if isinstance(node, dict) else data
            invalid = isinstance(node, dict) and parent == ()
        elif how == "duplicate" and isinstance(_get(data, path[:-1]), list):
            data2 = _set(data, path[:-1], [*_get(data, path[:-1]), old])
        elif how == "wrap":
            data2 = _set(data, path, [old])
        elif isinstance(old, dict | list) and old:
            data2 = _set(data, path, next(iter(old.values() if isinstance(old, dict) else old)))
        else:
            data2 = data
        return _file(scenario, index, data2), f"{how} at {'.'.join(map(str, path))}", invalid, index
    else:
        new = draw(st.sampled_from(VALUES))
    what = f"{kind}: {'.'.join(map(str, path))} = {new!r}"
    return _file(scenario, index, _set(data, path, new)), what, invalid, index


def _file(scenario: Scenario, index: int, data: Any) -> bytes:
    """The mutated document alone (its file's other documents run unchanged, as parsed): less YAML to parse."""
    return emit(data).encode("utf-8", "surrogatepass")


def emit(data: Any, indent: str = "") -> str:
    """Plain data as block YAML (one key per line, so errors have lines to point at); strings JSON-quoted."""
    if isinstance(data, dict) and data:
        return "".join(f"{indent}{_scalar(str(k))}:{_child(v, indent)}" for k, v in data.items())
    if isinstance(data, list) and data:
        return "".join(f"{indent}-{_child(v, indent)}" for v in data)
    return f"{indent}{_scalar(data)}\n"


def _child(value: Any, indent: str) -> str:
    if isinstance(value, dict | list) and value:
        return "\n" + emit(value, indent + "  ")
    return " " + _scalar(value) + "\n"


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict | list):
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(value)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 2000, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_specs_never_crash_pass_invalid_input_or_leave_partial_files(world, data, tmp_path_factory,
                                                                            monkeypatch):
    scenarios, ids, ref_keys, library = world.scenarios, world.ids, world.ref_keys, world.library
    scenario = scenarios[data.draw(st.integers(0, len(scenarios) - 1), label="file")]
    text, what, invalid, index = mutate(data.draw, scenario, ids, ref_keys)
    note(f"{scenario.file.relative_to(SPECS)}: {what}")
    if os.environ.get("ARCHGEN_FUZZ_LOG"):  # the example running when a fuzz run is killed (memory, time)
        with open(os.environ["ARCHGEN_FUZZ_LOG"], "a", encoding="utf-8") as log:
            log.write(f"{scenario.file.relative_to(SPECS)}: {what}\n")
    root = tmp_path_factory.getbasetemp() / "fuzz"
    spec, out = root / "specs" / scenario.file.name, root / "out" / "report.json"
    if root.exists():
        for folder in (spec.parent, out.parent):
            for p in folder.iterdir() if folder.exists() else ():
                p.unlink()
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_bytes(text)
    others = scenario.others + [d for i, d in enumerate(scenario.docs) if i != index]

    from archgen import cache, pipeline
    from archgen.load import load_paths
    monkeypatch.setattr(cache, "store", lambda *a: None)
    monkeypatch.setattr(cache, "load", lambda *a: None)
    monkeypatch.setattr(pipeline, "load", lambda paths: (load_paths(paths) + others, library))
    r = run_cli("check", spec, "--format", "json", "--output", out)

    event(f"exit {r.code}{' (invalid input)' if invalid else ''}")  # --hypothesis-show-statistics
    assert r.code in (0, 1, 2), r.err
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err
    if invalid:
        assert r.code != 0, f"invalid input passed: {what}"
    assert not [p for p in out.parent.glob("*") if p.name != out.name] if out.parent.exists() else True
    if out.exists():
        def refuse(constant: str) -> None:
            raise AssertionError(f"{constant} in the JSON report")
        report = json.loads(out.read_text(encoding="utf-8"), parse_constant=refuse)
        for f in report["findings"]:
            if f["id"] in ("SPC000", "SPC001"):
                assert f["file"] and f["line"], f
    else:
        assert r.code == 2 and r.err.strip(), r.err
