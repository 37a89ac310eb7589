"""`archgen.yaml_fast`, libyaml's reading of the plain subset, against ruamel's (the reference): the same values and
positions, or no reading at all (yaml37)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archgen import load, yaml_fast
from archgen.errors import SpecError
from archgen.yaml_guard import NOT_YAML
from tests.fuzz_mutate import DIRECTIVES, NUMBERS, TEXT_BREAKS

REPO = Path(__file__).resolve().parents[1]
#: Every YAML file of the checkout: the shipped specs and catalog, the examples, the tests' data and error cases
#: (tests/data holds the copies of ../shared/data's validation files).
CORPUS = sorted(p for top in ("specs", "examples", "tests", "archgen") for pattern in ("*.yaml", "*.yml")
                for p in (REPO / top).rglob(pattern))
#: Scalars whose YAML 1.1 and 1.2 readings differ, or that ruamel builds in its own way, and YAML's corners.
SCALARS = ["0o17", "1_000", "1e3", ".5", "yes", "on", "~", "0x1F", "+1", "-.inf", "2025-01", "12:30", "", "null",
           "NULL", "Null", "nULL", "True", "TRUE", "tRue", "false", "012", "-0", "0.", "1.", "-.5", "+.5", "1e+3",
           "1E3", "1.5e-3", "0b101", "0x_1", "1__0", "1_", ".nan", "-.nan", ".NaN", ".Inf", "+.inf", "2025-01-01",
           "2025-01-01 12:00:00", "2026-02-30", "=", "<<", "'q'", "'it''s'", '"d\\tq"', '"\\u263a"', '"\\/"',
           '"\\x41"', '"\\N\\_"', '"\\ud83d\\ude00"', '"\\e"', "9223372036854775807", "9223372036854775808",
           "-9223372036854775807", "12345678901234567890", "0x7FFFFFFFFFFFFFFF", "a: b", "- x", "x #c", "x#c",
           "[1, 2]", "{a: 1}", "{a}", "[a, ]", "{a: }", ":x", "-x", "?x", "%x", "@x", "`x", "!x", "!!str 1",
           "!!int 1", "&a x", "*a", "1 W", "1.5 kW", "é", "a\tb", "|\n  two\n  lines\n", ">\n  folded\n  text\n\n",
           "|-\n  kept\n", ">+\n  x\n\n", "'multi\n  line'", "plain\n  continued", "\u2028", "\x85"]


def _ruamel(text: str):
    """ruamel's reading (values and positions, in order), or the error it gives."""
    try:
        return [(d.data, list(d.positions.items())) for d in load.ruamel_documents(text, "f.yaml", "k")]
    except SpecError as exc:
        return exc


def _agrees(text: str) -> bool:
    """Whether libyaml's reading of `text` is ruamel's (then True) or none (False); anything else fails the test."""
    if NOT_YAML.search(text) or re.search(r"^%YAML", text, re.MULTILINE):
        return False   # refused by `load_text` before either reads it (tests/test_load.py)
    fast = yaml_fast.documents(text, load.MAX_NODES, load.MAX_EXPANDED_CHARS)
    if fast is None:
        return False
    ref = _ruamel(text)
    assert not isinstance(ref, Exception), f"libyaml read what ruamel refuses ({ref}):\n{text}"
    got = [(data, list(positions.items())) for data, positions in fast]
    assert repr(got) == repr(ref), f"libyaml read otherwise than ruamel:\n{text}"   # repr: 1 is not 1.0 nor True
    return True


@pytest.mark.parametrize("f", CORPUS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_yaml_file_of_the_checkout_reads_as_ruamel_reads_it_or_not_at_all(f):
    try:
        text = f.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return
    _agrees(text)


def test_libyaml_reads_nearly_every_shipped_spec():
    """The point of it: the shipped specs are plain YAML, and all but a few (an anchor, a timestamp) read fast."""
    specs = [p for p in CORPUS if p.is_relative_to(REPO / "specs")]
    fast = [p for p in specs if yaml_fast.documents(p.read_text(encoding="utf-8"), 10**6, 10**9) is not None]
    assert len(specs) > 100 and len(fast) >= 0.95 * len(specs), sorted(set(specs) - set(fast))


def test_every_error_case_is_left_to_ruamel():
    """A file ruamel refuses is never read by libyaml: its message is ruamel's (tests/errors, the hostile cases)."""
    refused = 0
    for f in sorted((REPO / "tests" / "errors").glob("*.y*ml")):
        text = f.read_text(encoding="utf-8", errors="replace")
        if isinstance(_ruamel(text), Exception) and not NOT_YAML.search(text):
            refused += 1
            assert yaml_fast.documents(text, load.MAX_NODES, load.MAX_EXPANDED_CHARS) is None, f.name
    assert refused >= 5


@pytest.mark.parametrize(("written", "read"), [
    ("0o17", 15), ("1e3", 1000.0), (".5", 0.5), ("-.5", -0.5), ("yes", "yes"), ("on", "on"), ("~", None),
    ("null", None), ("0x1F", 31), ("0b101", 5), ("+1", 1), ("012", 12), ("-.inf", -math.inf), ("2025-01", "2025-01"),
    ("12:30", "12:30"), ("True", True), ("FALSE", False), ("tRue", "tRue"), ("1 W", "1 W"), ("'1'", "1"),
    ('"\\u263a"', "\u263a"), ("9223372036854775807", 2**63 - 1)])
def test_scalars_read_as_yaml_1_2_reads_them(written, read):
    text = f"kind: Rack\nv: {written}\n"
    assert _agrees(text)
    docs = yaml_fast.documents(text, 100, 10**6)
    assert docs is not None and repr(docs[0][0]["v"]) == repr(read)


@pytest.mark.parametrize("written", ["1_000", ".nan", "2025-01-01", "<<", "=", "&a x", "!!str 1", "a\tb",
                                     "9223372036854775808", "0x_1", '"\\e"', '"\\ud800"'])
def test_what_ruamel_builds_its_own_way_is_left_to_it(written):
    """Underscores (ruamel keeps them), NaN (its own NaN), timestamps, merge and value keys, anchors, tags, tabs,
    integers past int64 and refused characters: libyaml declines, ruamel reads or refuses."""
    assert yaml_fast.documents(f"kind: Rack\nv: {written}\n", 100, 10**6) is None


@pytest.mark.parametrize("text", [
    "a: 1\nb:\nc: 2\n",                        # an empty value: at its key
    "a: 1\nb: ~\n",
    "a:\n  - x\n  - {c: 2, d: [1, 2]}\n",
    "'quoted key': 1\n\"other\": 2\n",
    "a: |\n  one\n  two\nb: >\n  folded\n  text\nc: |-\n  kept\n",
    "# comment\na: 1  # trailing\n\n# more\nb:\n  c: 3\n",
    "a: 1\n---\nb: 2\n...\n---\n# empty\n---\nc: 3\n",
    "{a: 1, b: [x, y]}\n",
    "a: 'multi\n  line'\nb: plain\n  continued\n",
    "? a\n: 1\n",
    "k: \U0001f600\nb: {x: \U0001f600\U0001f600, y: 1}\n",   # columns count characters in both, not bytes
])
def test_block_flow_and_multi_document_files_read_the_same(text):
    assert _agrees(text)


@pytest.mark.parametrize("text", ["a: 1\na: 2\n", "a: &x 1\nb: *x\n", "%TAG !e! tag:e.com,2000:\n---\na: 1\n",
                                  "[1, 2]\n", "a: 1\n- b\n", "? [a]\n: 1\n", "1: x\n", "a: 1\r\nb: 2\r\n",
                                  "- \n- x\n", "{a: }\n", "a:",
                                  # a second `...` before any `---`: ruamel 0.19 refuses it, libyaml reads nothing
                                  "a: 1\n...\n...\n", "a: 1\n... # c\n\n...\n", "---\n...\n...\n---\na: 1\n",
                                  # a block scalar's first line spaces only, a later one indented more: ruamel 0.19
                                  # refuses it ("more indented follow up line than first"), libyaml reads it
                                  "a: |\n \n  x\n", "a: >+\n   \n      x\n", "a:\n  - |-  # c\n    \n      x\n"])
def test_duplicates_aliases_directives_and_what_ruamel_places_its_own_way_are_declined(text):
    assert yaml_fast.documents(text, 100, 10**6) is None


def test_without_libyaml_ruamel_reads_every_file(monkeypatch):
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    assert yaml_fast.documents("a: 1\n", 100, 10**6) is None
    assert load.load_text("kind: Rack\nid: r\n", "f.yaml")[0].positions[("id",)] == (2, 5)


def test_the_limits_send_the_file_to_ruamel():
    """Too many entries, too much text or too deep: declined, so that ruamel's reading gives the message."""
    assert yaml_fast.documents("a: [1, 2, 3]\n", 4, 10**6) is not None   # the key and three items
    assert yaml_fast.documents("a: [1, 2, 3]\n", 3, 10**6) is None
    assert yaml_fast.documents("a: xxxx\n", 10, 3) is None
    assert yaml_fast.documents("a: " + "[" * 70 + "]" * 70 + "\n", 100, 10**6) is None


def test_the_resolver_table_is_ruamels():
    """`yaml_fast.RESOLVERS` is ruamel's YAML 1.2 implicit resolver table, pattern for pattern, in its order."""
    from ruamel.yaml.resolver import implicit_resolvers

    theirs = [(t.split(":")[-1], r.pattern, r.flags, list(first)) for versions, t, r, first in implicit_resolvers
              if (1, 2) in versions]
    assert [(t, p, re.compile(p, f).flags, list(first)) for t, p, f, first in yaml_fast.RESOLVERS] == theirs


_SMALL = sorted((p for p in CORPUS if p.is_relative_to(REPO / "specs") and p.stat().st_size < 3000),
                key=lambda p: p.name)
_PIECES = SCALARS + NUMBERS + [t for t, _ in TEXT_BREAKS] + [d for d, _ in DIRECTIVES] + [
    "\n", " ", "  ", ":", "- ", "---\n", "...\n", "? ", ",", "[", "]", "{", "}", "&a", "*a", "<<: ", "~", "\r\n"]


@st.composite
def _mutated(draw: st.DrawFn) -> str:
    """A small shipped spec with a few pieces of YAML inserted, spans deleted or lines doubled."""
    text = draw(st.sampled_from(_SMALL)).read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["insert", "delete", "double", "indent"]))
        if how == "insert":
            text = text[:at] + draw(st.sampled_from(_PIECES)) + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 12)):]
        else:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at) + 1 or len(text)
            text = text[:end] + text[start:end] + text[end:] if how == "double" else \
                text[:start] + draw(st.sampled_from([" ", "  ", "- "])) + text[start:]
    return text


@st.composite
def _generated(draw: st.DrawFn, depth: int = 0) -> str:
    """A small mapping of keys and values drawn from `SCALARS`, nested in block or flow style."""
    lines = []
    for i in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(["k", f"k{i}", "'q k'", '"d"', "1", "true", "a b", "x:y", "é"]))
        kind = draw(st.sampled_from(["scalar", "scalar", "map", "list", "flow"])) if depth < 2 else "scalar"
        if kind == "scalar":
            lines.append(f"{key}: {draw(st.sampled_from(SCALARS))}")
        elif kind == "map":
            inner = draw(_generated(depth + 1))
            lines.append(f"{key}:\n" + "".join(f"  {ln}\n" for ln in inner.splitlines()).rstrip("\n"))
        elif kind == "list":
            items = draw(st.lists(st.sampled_from(SCALARS), min_size=1, max_size=3))
            lines.append(f"{key}:\n" + "\n".join(f"  - {v}" for v in items))
        else:
            items = draw(st.lists(st.sampled_from(["1", "x", "'q'", "1.5", "~", "{a: 1}", "[b]"]), max_size=3))
            lines.append(f"{key}: [{', '.join(items)}]")
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n", "\n# end\n"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_mutated(), _generated()))
def test_mutated_and_generated_yaml_reads_as_ruamel_reads_it_or_not_at_all(text):
    _agrees(text)
