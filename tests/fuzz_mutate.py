"""Mutation operators of the fuzz (issue 11; extended for issue 23): one mutation of one corpus file.

A value's type, a unit, a magnitude, a reference, an enum swapped for another value seen at the same key (a
topology, an OCS kind, a scale-up domain, a NIC transport, a training switch, a serving scenario, a waiver's
subject, an `expect:` tier), a value copied to another key, a key deleted, duplicated or unknown, a document
duplicated, a YAML directive, a symlink (out of the spec tree, dangling, a loop, or to another spec), or the raw
text. `Mutation.invalid` is set only where the outcome is certain, and such an input must not exit 0: a unit of
another dimension where a quantity was, a non-finite or beyond-any-hardware magnitude (1e300 of a dimensioned
quantity, a whole number over 10^9: archgen/units.py and the count bounds), an unknown id at a reference, an unknown
key at a document's root, a duplicated key or id, a control character, a tag outside the core schema, bytes that
are not UTF-8, a YAML version that does not exist, a link that leaves the spec tree.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tests.fuzz_corpus import Scenario, World, get, leaves

UNITS = ["W", "kW", "MW", "m", "mm", "kg", "g", "degC", "K", "delta_degC", "Gb/s", "GB/s", "GB", "TB", "s", "us",
         "A", "V", "L/min", "U", "TFLOPS", "dimensionless", "%", "kw", "bogus", "m**99", "W/W", "1/s", "USD", "h"]
VALUES = [0, -1, 1, 1.5, -0.0, "", "x", "1", "1 W", True, False, None, [], {}, [1, 2], {"a": 1}, "\x1b[31m",
          "=HYPERLINK(\"http://x\")", "$\\frac{1}{$", "\ud800", "é" * 200]
NUMBERS = ["0", "-1", "1e-300", "1e300", "18446744073709551616", "0.5", "1e400", "nan", "inf", "-0", "1e-9", "3e9"]
INTEGERS = [0, -1, 2**63, 2**63 - 1, 2**64, 10**100, 10**6, 10**9 + 1, 7, 1]
FLOATS = [0.0, -1.0, math.inf, -math.inf, math.nan, 1e308, 1e-320, -0.5, 1e-9]
TEXT_BREAKS = [("\x00", True), ("\x07", True), ("\x1b", True), ("\x7f", True), ("\ufffe", True), ("\n", False),
               (": ", False), ("- ", False), ("{", False), ("&a ", False), ("*a ", False), ("!!float x ", True),
               ("!!python/object/apply:os.system [true] ", True), ("!custom ", True), ("'", False), ('"', False),
               ("\t", False), ("#", False)]
DIRECTIVES = [("%YAML 1.2\n---\n", False), ("%YAML 1.1\n---\n", False), ("%YAML 2.0\n---\n", True),
              ("%YAML 1.2\n%YAML 1.2\n---\n", True), ("%TAG !e! tag:example.com,2000:\n---\n", False),
              ("%FOO bar\n---\n", False)]
LINKS = ["outside", "dangling", "loop", "inside"]
#: What a link out of the spec tree points at: it must never reach any output (issue 23 item 1).
SECRET = "archgen-fuzz-secret-7f3c1e"
_QTY = re.compile(r"^\s*(?P<num>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(?P<unit>\S.*?)\s*$")
_KEY_LINE = re.compile(r"^( *)([A-Za-z_][\w-]*): (?!\|)(?!>)\S.*$", re.M)


@dataclass(frozen=True)
class Draw:
    """Where a mutation's choices come from: hypothesis's `data.draw` or a seeded `random.Random`."""

    pick: Callable[[Sequence], Any]
    integer: Callable[[int, int], int]


@dataclass(frozen=True)
class Mutation:
    """The mutated file: its bytes (of document `index`, or of the whole file where -1), or a symlink (`link`)."""

    text: bytes
    what: str
    invalid: bool
    index: int
    link: str = ""


def _set(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = _set(data[path[0]], path[1:], value)
    return copy


def _delete(data: Any, path: tuple) -> Any:
    parent = get(data, path[:-1])
    copy = dict(parent) if isinstance(parent, dict) else list(parent)
    del copy[path[-1]]
    return _set(data, path[:-1], copy)


def _dimension(unit: str) -> Any:
    from archgen.units import ureg
    try:
        return ureg.parse_units(unit).dimensionality
    except Exception:
        return None


def mutate(draw: Draw, scenario: Scenario, world: World) -> Mutation:
    """One mutation of the scenario's file."""
    kind = draw.pick(["type", "unit", "magnitude", "magnitude", "reference", "enum", "enum", "copy", "structure",
                      "structure", "text", "text", "document", "directive", "link"])
    text = scenario.text
    if kind == "text":
        at = draw.integer(0, len(text))
        if draw.integer(0, 9) == 0:
            return Mutation(text.encode()[: at] + b"\xff\xfe", f"non-UTF-8 bytes at {at}", True, -1)
        if draw.integer(0, 9) == 0:
            return Mutation(text[:at].encode(), f"truncated at {at}", False, -1)
        insert, invalid = draw.pick(TEXT_BREAKS)
        # a break inside a comment or a quoted string is not certain to matter: only a control character is
        invalid = invalid and (insert[0] < " " and insert not in "\t\n" or insert in "\x7f\ufffe")
        return Mutation((text[:at] + insert + text[at:]).encode(), f"{insert!r} inserted at {at}", invalid, -1)
    if kind == "directive":
        directive, invalid = draw.pick(DIRECTIVES)
        docs = text.split("\n---\n")
        at = draw.integer(0, len(docs) - 1)
        docs[at] = directive + docs[at]  # before the first document or after a separator
        return Mutation("\n---\n".join(docs).encode(), f"{directive.splitlines()[0]!r} before document {at}",
                        invalid and at == 0, -1)
    if kind == "document":
        docs = text.split("\n---\n")
        at = draw.integer(0, len(docs) - 1)
        body = docs[at]
        has_id = bool(re.search(r"^id: \S", body, re.M))
        return Mutation((text + "\n---\n" + body + "\n").encode(), f"document {at} duplicated", has_id, -1)
    if kind == "link" and not scenario.cases:
        how = draw.pick(LINKS)
        return Mutation(b"", f"symlink {how}", how in ("outside", "dangling", "loop"), -1, how)
    if kind == "structure" and draw.integer(0, 3) == 0:  # a key written twice in one mapping
        lines = list(_KEY_LINE.finditer(text))
        if lines:
            m = draw.pick(lines)
            key_line = text.count("\n", 0, m.start()) in _key_lines(text)  # not a line of a block scalar
            return Mutation((text[:m.end()] + "\n" + m[0] + text[m.end():]).encode(), f"key {m[2]!r} duplicated",
                            key_line, -1)

    index = draw.integer(0, len(scenario.docs) - 1)
    data = scenario.docs[index].data
    paths = [p for p in leaves(data) if p]
    if not paths:
        return Mutation(text.encode(), "unchanged (an empty document)", False, -1)
    path = draw.pick(paths)
    old = get(data, path)
    key = next((k for k in reversed(path) if isinstance(k, str)), "")
    invalid = False
    if kind == "type":
        new = draw.pick(VALUES)
        invalid = isinstance(new, str) and bool(re.search("[\x00-\x1f\ud800-\udfff]", new))
    elif kind == "unit" and isinstance(old, str) and (m := _QTY.match(old)) and _dimension(m["unit"]) is not None:
        unit = draw.pick(UNITS)
        new = f"{m['num']} {unit}"
        dim = _dimension(unit)
        invalid = dim is not None and dim != _dimension(m["unit"]) and key not in ("name", "description", "notes")
    elif kind == "magnitude" and isinstance(old, str) and (m := _QTY.match(old)):
        number = draw.pick(NUMBERS)
        new = f"{number} {m['unit']}"
        dim = _dimension(m["unit"])
        invalid = dim is not None and (number in ("nan", "inf", "1e400")
                                       or number in ("1e300", "18446744073709551616") and bool(dim))
    elif kind == "magnitude" and isinstance(old, bool | int | float) and not isinstance(old, bool):
        new = draw.pick(INTEGERS if isinstance(old, int) else FLOATS)
        invalid = isinstance(new, int) and abs(new) > 10**9
    elif kind == "reference" and isinstance(old, str) and old in world.ids:
        new = draw.pick([*world.ids, "no-such-part-xyz"])
        invalid = new == "no-such-part-xyz" and key in world.ref_keys
    elif kind == "enum" and key in world.values and not isinstance(old, dict | list):
        new = draw.pick(world.values[key])
    elif kind == "copy":
        source = get(data, draw.pick(paths))
        new = source
    elif kind == "structure":
        how = draw.pick(["delete", "unknown key", "duplicate", "wrap", "unwrap"])
        if how == "delete":
            data2 = _delete(data, path)
        elif how == "unknown key":
            parent = path[:-1] if not isinstance(old, dict) else path
            node = get(data, parent)
            data2 = _set(data, parent, {**node, "zz_unknown": 1}) if isinstance(node, dict) else data
            invalid = isinstance(node, dict) and parent == () and not scenario.cases
        elif how == "duplicate" and isinstance(get(data, path[:-1]), list):
            data2 = _set(data, path[:-1], [*get(data, path[:-1]), old])
        elif how == "wrap":
            data2 = _set(data, path, [old])
        elif isinstance(old, dict | list) and old:
            data2 = _set(data, path, next(iter(old.values() if isinstance(old, dict) else old)))
        else:
            data2 = data
        return Mutation(emit(data2).encode("utf-8", "surrogatepass"), f"{how} at {'.'.join(map(str, path))}",
                        invalid, index)
    else:
        new = draw.pick(VALUES)
    what = f"{kind}: {'.'.join(map(str, path))} = {new!r}"[:300]
    return Mutation(emit(_set(data, path, new)).encode("utf-8", "surrogatepass"), what, invalid, index)


@functools.lru_cache(maxsize=1024)
def _key_lines(text: str) -> frozenset[int]:
    """The (0-based) lines where a mapping key of `text` starts.

    Once per file text: `text` is a corpus file's unchanged text, drawn again and again, and composing it with
    PyYAML's Python parser took 2 % of a fuzz shard (25 ms a time under cProfile).
    """
    import yaml
    lines: set[int] = set()
    try:
        todo = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return frozenset(lines)
    while todo:
        node = todo.pop()
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                lines.add(k.start_mark.line)
                todo.append(v)
        elif isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
    return frozenset(lines)


def whole_file(scenario: Scenario, mutation: Mutation) -> bytes:
    """The mutated file as written to disk: the mutated document among its file's others, emitted."""
    if mutation.index < 0:
        return mutation.text
    parts = [mutation.text if i == mutation.index else emit(d.data).encode("utf-8", "surrogatepass")
             for i, d in enumerate(scenario.docs)]
    return b"---\n".join(parts)


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
