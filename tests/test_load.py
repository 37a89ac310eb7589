"""Loading: positions of every key, multi-document files, safety limits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from archgen import load
from archgen.errors import LoadError, SpecError, UnreadableError
from archgen.load import find_files, load_paths, load_text
from archgen.model import KINDS
from tests.conftest import SPECS


def test_positions_of_block_and_flow_keys():
    doc = load_text("kind: Rack\nid: x\npower: {feeds: {count: 8}}\nslots:\n  - {at: 1, part: a}\n  - at: 5\n"
                    "    part: b\n", "x.yaml")[0]
    assert doc.locate(("id",)).line == 2
    assert (doc.locate(("power", "feeds", "count")).line, doc.locate(("power", "feeds", "count")).column) == (3, 24)
    assert doc.locate(("slots", 1, "part")).line == 7
    assert doc.locate(("slots", 1, "nope")).line == 6    # deepest existing prefix


def test_multi_document_files_and_yaml_12_scalars():
    docs = load_text("kind: A\nid: a\ncountry: NO\nwindow: 1:30\n---\nkind: B\nid: b\n", "x.yaml")
    assert [d.id for d in docs] == ["a", "b"]
    assert docs[0].data["country"] == "NO" and docs[0].data["window"] == "1:30"


def test_merge_keys_are_expanded():
    docs = load_text("base: &b {x: 1, y: 2}\nkind: A\nid: a\nz: {<<: *b, y: 3}\n", "x.yaml")
    assert docs[0].data["z"] == {"x": 1, "y": 3}


def test_non_mapping_document():
    with pytest.raises(SpecError, match="a document must be a mapping"):
        load_text("- 1\n- 2\n", "x.yaml")


@pytest.mark.slow
def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(SpecError):
        load_text("a: " + "[" * 5000 + "]" * 5000 + "\n", "x.yaml")


def test_find_files_sorted_and_hidden_skipped(tmp_path):
    (tmp_path / "b.yaml").write_text("kind: A\nid: b\n", encoding="utf-8")
    (tmp_path / "a.yml").write_text("kind: A\nid: a\n", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.yaml").write_text("kind: A\nid: c\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    assert [p.name for p in find_files([tmp_path])] == ["a.yml", "b.yaml"]
    assert [d.id for d in load_paths([tmp_path])] == ["a", "b"]
    with pytest.raises(LoadError, match="no such file"):
        find_files([tmp_path / "missing"])


def test_all_file_problems_collected(tmp_path):
    (tmp_path / "a.yaml").write_text("a: [\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("", encoding="utf-8")
    with pytest.raises(SpecError) as err:
        load_paths([tmp_path])
    assert [p.location.file.rsplit("/", 1)[-1] for p in err.value.problems] == ["a.yaml", "b.yaml"]


def test_merged_keys_are_located_at_the_merging_mapping():
    doc = load_text("base: &b {x: 1}\nkind: A\nid: a\nz:\n  <<: *b\n  y: 3\n", "x.yaml")[0]
    assert doc.locate(("z", "x")).line in (4, 5)
    assert doc.locate(("z", "y")).line == 6


def test_parsed_files_are_cached_by_content(tmp_path, monkeypatch):
    from archgen.load import LOADED, load_file
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    f = tmp_path / "a.yaml"
    f.write_text("kind: A\nid: a\nx: {y: 1}\n", encoding="utf-8")
    first = load_file(f)
    assert list((tmp_path / "cache" / "archgen" / "yaml").glob("*.json"))
    LOADED.clear()                                      # not this process's memo: the cache directory
    assert load_file(f) == first                        # served from the cache, same data and positions
    f.write_text("kind: A\nid: a\nx: {y: 2}\n", encoding="utf-8")
    assert load_file(f)[0].data["x"] == {"y": 2}        # new content, new key
    LOADED.clear()
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/not-writable")
    assert load_file(f)[0].data["x"] == {"y": 2}        # no cache: still loads


def test_a_file_read_again_unchanged_gives_the_same_documents_and_models(tmp_path):
    """`load.LOADED`, `validate.VALIDATED` and `validate.NAMES`: the second run of a file neither parses nor validates
    it again, a changed file is read anew, and a run changes no document, model or set of names it shares with the
    next (they equal a fresh parse, validation and walk after a whole pipeline run of the shipped specs)."""
    from archgen.load import LOADED, load_file, shared
    from archgen.pipeline import run
    from archgen.validate import NAMES, VALIDATED, _strings, validate
    f = tmp_path / "m.yaml"
    text = (SPECS / "catalog" / "models" / "llama3-405b.yaml").read_text(encoding="utf-8")
    f.write_text(text, encoding="utf-8")
    docs = load_file(f)
    assert load_file(f)[0] is docs[0] and shared(docs[0]) and not shared(load_text(text, str(f))[0])
    assert validate(load_file(f)).items["llama3-405b"] is validate(docs).items["llama3-405b"]
    f.write_text(text.replace("layers: 126", "layers: 12"), encoding="utf-8")
    assert load_file(f)[0] is not docs[0] and validate(load_file(f)).items["llama3-405b"].layers == 12
    assert validate(docs).items["llama3-405b"].layers == 126
    assert len(run([SPECS]).findings) == len(run([SPECS]).findings)
    seen = named = 0
    fresh_of: dict[int, tuple] = {}
    for (name, key), kept in list(LOADED._items.items()):
        text = Path(name).read_text(encoding="utf-8") if Path(name).is_file() else ""
        if load.parse_key(text) != key:
            continue                                    # since changed or removed (the first m.yaml above)
        fresh = load_text(text, name)
        assert [(d.data, dict(d.positions)) for d in kept] == [(d.data, dict(d.positions)) for d in fresh], name
        for k, d in zip(kept, fresh, strict=True):
            model = VALIDATED.get((KINDS.get(d.kind), id(k)))
            if model is not None:
                assert model[1].model_dump() == KINDS[d.kind].model_validate(d.data).model_dump(), name
                seen += 1
            fresh_of[id(k)] = (k, d)
    for docs, names in NAMES._items.values():           # groups of loaded documents, by the documents (fuzzpipe37)
        if all(fresh_of.get(id(k), (None,))[0] is k for k in docs):
            assert names == frozenset().union(*(_strings(fresh_of[id(k)][1].data) for k in docs))
            named += len(docs)
    assert seen >= 90 and named >= 90                   # the shipped catalog's documents, at least


def _problem(text: str) -> str:
    with pytest.raises(UnreadableError) as err:
        load_text(text, "x.yaml")
    return str(err.value)


def test_a_long_list_is_refused_while_parsing_in_well_under_a_second():
    """Issue 11 item 14: a 5 MiB `x: [0,0,...]` (2.6 M items) took ~125 s and 3.2 GB before it was refused."""
    text = "x: [" + "0," * (5 * 2**20 // 2 - 4) + "0]\n"
    start = time.process_time()
    message = _problem(text)
    assert time.process_time() - start < 2.0   # about 0.25 s of CPU: libyaml counts, ruamel never starts
    assert "x.yaml:1:400003: error: the file has more than 200,000 nodes" in message  # item 200,001


def test_the_node_limit_counts_every_document_of_a_file(monkeypatch):
    monkeypatch.setattr(load, "MAX_NODES", 1_000)  # the rule, at a size ruamel parses in milliseconds
    doc = "kind: A\nid: a\nx: [" + "0," * 489 + "0]\n"   # 3 keys + 490 items
    assert "more than 1,000 nodes" in _problem(doc + "---\n" + doc + "---\n" + doc)
    assert load_text(doc + "---\n" + doc, "x.yaml")[1].data["x"][-1] == 0   # 986 entries: fits


def test_the_node_limit_holds_without_libyaml(monkeypatch):
    """The composer counts too: a PyYAML without its C parser still stops at the limit."""
    import yaml
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    monkeypatch.setattr(load, "MAX_NODES", 1_000)
    # entry 1,001 is item 999 (the key x is the first), as libyaml counts it: column 5 + 2 x 999
    assert "x.yaml:1:2003: error: the file has more than 1,000 nodes" in _problem("x: [" + "0," * 2_000 + "0]")


@pytest.mark.parametrize("raw, shown", [
    ("\x00", "control character U+0000 (NUL)"), ("\x07", "control character U+0007 (BEL)"),
    ("\x1b", "control character U+001B (ESC)"), ("\x7f", "control character U+007F (DEL)"),
    ("\ufffe", "character U+FFFE"),
])
def test_control_characters_in_a_file_are_located(raw, shown):
    """Issue 11 item 15: ruamel's ReaderError was an internal-error traceback."""
    assert _problem(f"kind: A\nid: a\nname: ab{raw}c\n") == (
        f"x.yaml:3:9: error: {shown} in the file: expected printable text (YAML allows no control characters)")


@pytest.mark.parametrize("escape, shown", [
    ("\\e", "control character U+001B (ESC)"), ("\\0", "control character U+0000 (NUL)"),
    ("\\ud800", "lone surrogate U+D800"), ("\\x9b", "control character U+009B"),
])
def test_control_characters_written_as_escapes_are_located(escape, shown):
    """Issue 11 items 15 and 16: escapes ("\\e", "\\0") crashed the XLSX writer and made SVG and JUnit invalid XML;
    a lone surrogate crashed every UTF-8 writer."""
    message = _problem(f'kind: A\nid: a\nname: "x{escape}y"\n')
    assert message.startswith(f"x.yaml:3:7: error: {shown} in a string: expected printable text, got 'x\\u")


def test_escaped_surrogate_pairs_are_joined_and_keys_are_checked():
    assert load_text('kind: A\nid: a\nname: "\\ud83d\\ude00 \\u00e9"\n', "x.yaml")[0].data["name"] == "\U0001F600 \u00e9"
    assert "x.yaml:3:8: error: control character U+0007 (BEL) in a string" in _problem('kind: A\nid: a\n"k\\a": 1\n')


@pytest.mark.parametrize("text, message", [
    ("x: !!float notafloat", "x.yaml:3:4: error: 'notafloat' is not a valid !!float: expected a YAML float after !!float"),
    ("x: !!int 1.5", "x.yaml:3:4: error: '1.5' is not a valid !!int"),
    ("x: !!bool yes", "x.yaml:3:4: error: 'yes' is not a valid !!bool"),
    ("x: !!python/object/apply:os.system [true]", "x.yaml:3:4: error: tag '!!python/object/apply:os.system' is not"),
    ("x: !!binary aGVsbG8=", "x.yaml:3:4: error: tag '!!binary' is not allowed"),
    ("x: !custom {a: 1}", "x.yaml:3:4: error: tag '!custom' is not allowed"),
])
def test_tags_outside_the_core_schema_and_bad_tagged_values_are_located(text, message):
    """Issue 11 item 15: `!!float notafloat` was a ValueError traceback; other tags were silently dropped."""
    assert _problem(f"kind: A\nid: a\n{text}\n").startswith(message)


def test_core_schema_tags_still_read():
    data = load_text("kind: A\nid: a\na: !!float 5\nb: !!str 4\nc: !!null ~\nd: !!int 0x10\ne: ! x\n", "x.yaml")[0].data
    assert (data["a"], data["b"], data["c"], data["d"], data["e"]) == (5.0, "4", None, 16, "x")


def test_the_cache_never_unpickles(tmp_path, monkeypatch):
    """Issue 11 item 17: a poisoned shared cache ran code. A pickle under an entry's name is not read, nor is JSON
    that is not an entry of ours."""
    import pickle

    from archgen import cache
    from archgen.load import load_file
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    f = tmp_path / "a.yaml"
    f.write_text("kind: A\nid: a\n", encoding="utf-8")
    load_file(f)
    (entry,) = (tmp_path / "cache" / "archgen" / "yaml").glob("*.json")

    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('pickle ran')",))

    entry.with_suffix(".pickle").write_bytes(pickle.dumps(Boom()))
    assert load_file(f)[0].data == {"kind": "A", "id": "a"}
    entry.write_bytes(pickle.dumps(Boom()))
    assert load_file(f)[0].data == {"kind": "A", "id": "a"}   # not JSON: parsed again
    entry.write_text('[[["not", "a", "mapping"], []]]', encoding="utf-8")
    assert load_file(f)[0].data == {"kind": "A", "id": "a"}
    assert cache.load("yaml", "missing") is None


def test_pint_cache_files_without_this_machines_seal_are_deleted(tmp_path, monkeypatch):
    """pint keeps its parsed definitions as pickles in our cache folder: only files sealed here are left for it."""
    import pickle

    from archgen import cache
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "pint"
    folder.mkdir()
    (folder / "mine.pickle").write_bytes(pickle.dumps(1))
    assert cache.unsealed_removed(folder)
    assert not (folder / "mine.pickle").exists()          # written before a seal existed: not trusted
    (folder / "mine.pickle").write_bytes(pickle.dumps(1))
    cache.seal(folder)
    (folder / "planted.pickle").write_bytes(b"cos\nsystem\n(S'true'\ntR.")
    (folder / "forged.pickle").write_bytes(b"x")
    (folder / "forged.pickle.mac").write_text("0" * 64, encoding="utf-8")
    assert cache.unsealed_removed(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["mine.pickle", "mine.pickle.mac"]
    assert (tmp_path / "config" / "archgen" / "cache.key").stat().st_mode & 0o077 == 0
    monkeypatch.setenv("XDG_CONFIG_HOME", "/proc/not-writable")
    assert not cache.unsealed_removed(folder)             # no key: the caller builds pint's registry in memory


def test_the_characters_yaml_refuses_are_those_outside_c_printable():
    """`yaml_guard.NOT_YAML` lists the ranges between YAML 1.2's c-printable (section 5.1), as the negated class did."""
    import re

    from archgen.yaml_guard import NOT_YAML
    printable = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
    every = "".join(map(chr, range(0x110000)))
    assert NOT_YAML.findall(every) == printable.findall(every)
    assert len(NOT_YAML.findall(every)) == 9 + 2 + 18 + 6 + 26 + 2048 + 2
