"""Loading: positions of every key, multi-document files, safety limits."""

from __future__ import annotations

import pytest

from archgen.errors import SpecError, UsageError
from archgen.load import find_files, load_paths, load_text


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
    (tmp_path / "b.yaml").write_text("kind: A\nid: b\n")
    (tmp_path / "a.yml").write_text("kind: A\nid: a\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.yaml").write_text("kind: A\nid: c\n")
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in find_files([tmp_path])] == ["a.yml", "b.yaml"]
    assert [d.id for d in load_paths([tmp_path])] == ["a", "b"]
    with pytest.raises(UsageError, match="no such file"):
        find_files([tmp_path / "missing"])


def test_all_file_problems_collected(tmp_path):
    (tmp_path / "a.yaml").write_text("a: [\n")
    (tmp_path / "b.yaml").write_text("")
    with pytest.raises(SpecError) as err:
        load_paths([tmp_path])
    assert [p.location.file.rsplit("/", 1)[-1] for p in err.value.problems] == ["a.yaml", "b.yaml"]


def test_merged_keys_are_located_at_the_merging_mapping():
    doc = load_text("base: &b {x: 1}\nkind: A\nid: a\nz:\n  <<: *b\n  y: 3\n", "x.yaml")[0]
    assert doc.locate(("z", "x")).line in (4, 5)
    assert doc.locate(("z", "y")).line == 6


def test_parsed_files_are_cached_by_content(tmp_path, monkeypatch):
    from archgen.load import load_file
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    f = tmp_path / "a.yaml"
    f.write_text("kind: A\nid: a\nx: {y: 1}\n")
    first = load_file(f)
    assert list((tmp_path / "cache" / "archgen" / "yaml").glob("*.pickle"))
    assert load_file(f) == first                        # served from the cache, same data and positions
    f.write_text("kind: A\nid: a\nx: {y: 2}\n")
    assert load_file(f)[0].data["x"] == {"y": 2}        # new content, new key
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/not-writable")
    assert load_file(f)[0].data["x"] == {"y": 2}        # no cache: still loads
