"""`catalog_walk.catalog_files`: the catalog a pipeline run loads is walked again only where a folder of it changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from archgen import catalog_walk
from archgen.catalog_walk import RACY_S, catalog_files
from archgen.spec_files import find_files


def _tree(root: Path, age_s: float) -> Path:
    """A catalog of two folders and three files, every folder's time `age_s` in the past."""
    for name in ("parts/a.yaml", "parts/b.yaml", "racks/r.yaml"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("kind: Part\n", encoding="utf-8")
    then = time.time() - age_s
    for folder in (root / "parts", root / "racks", root):
        os.utime(folder, (then, then))
    return root


@pytest.fixture
def walks(monkeypatch):
    """The folders `find_files` walked, one list per call."""
    seen: list[list[str]] = []
    real = catalog_walk.find_files
    monkeypatch.setattr(catalog_walk, "find_files", lambda paths: seen.append([str(p) for p in paths]) or real(paths))
    return seen


def test_an_unchanged_catalog_is_walked_once_and_a_file_added_is_seen(tmp_path, walks):
    top = _tree(tmp_path / "catalog", 10 * RACY_S)
    assert catalog_files(top) == find_files([top]) and len(walks) == 1
    assert catalog_files(top) == find_files([top]) and len(walks) == 1   # the memo
    (top / "parts" / "c.yaml").write_text("kind: Part\n", encoding="utf-8")   # the folder's time is now
    assert top / "parts" / "c.yaml" in catalog_files(top) and len(walks) == 2
    (top / "racks" / "r.yaml").unlink()
    assert top / "racks" / "r.yaml" not in catalog_files(top) and len(walks) == 3


def test_a_catalog_changed_just_before_its_walk_is_walked_every_time(tmp_path, walks):
    """A folder changed less than `RACY_S` before the walk may change again within the same tick of its clock."""
    top = _tree(tmp_path / "catalog", 0)
    catalog_files(top)
    catalog_files(top)
    assert len(walks) == 2


def test_a_catalog_holding_a_link_is_walked_every_time(tmp_path, walks):
    """A link's target can change while no folder of the tree does (here one inside it, which adds nothing)."""
    top = _tree(tmp_path / "catalog", 0)
    (top / "more").symlink_to(top / "parts")
    then = time.time() - 10 * RACY_S
    os.utime(top, (then, then))
    catalog_files(top)
    catalog_files(top)
    assert len(walks) == 2


def test_a_folder_added_or_moved_is_seen(tmp_path, walks):
    top = _tree(tmp_path / "catalog", 10 * RACY_S)
    catalog_files(top)
    (top / "new").mkdir()
    (top / "new" / "n.yaml").write_text("kind: Part\n", encoding="utf-8")
    assert top / "new" / "n.yaml" in catalog_files(top) and len(walks) == 2
    moved = tmp_path / "moved"
    (top / "parts").rename(moved)
    assert not any(f.is_relative_to(top / "parts") for f in catalog_files(top)) and len(walks) == 3


@pytest.fixture
def loads(monkeypatch):
    """The files `pipeline.load_paths` read, one list per call."""
    from archgen import pipeline
    seen: list[list[Path]] = []
    real = pipeline.load_paths
    monkeypatch.setattr(pipeline, "load_paths", lambda files, found=False: seen.append(list(files)) or real(files, found))
    return seen


def test_a_catalog_file_is_read_again_only_once_changed(tmp_path, loads):
    """`pipeline._catalog_documents`: files changed less than `RACY_S` ago (their ctime, which no one can set back)
    are read every time; files with the stats of a load long after their last write give the same documents
    unread; an edited file is read anew."""
    import archgen.pipeline as pipeline

    top = _tree(tmp_path / "catalog", 10 * RACY_S)
    files = find_files([top])
    first = pipeline._catalog_documents(files)
    assert pipeline._catalog_documents(files) == first and len(loads) == 2   # ctime is now: racy, read again
    key = tuple(files)
    stats = pipeline._file_stats(files)
    assert stats is not None
    old = [(i, s, m, c - int(10 * RACY_S * 1e9)) for i, s, m, c in stats]
    pipeline._LOADED_CATALOG.put(key, (old, first))   # what a load long after the last write keeps
    monkey = pipeline._file_stats
    try:
        pipeline._file_stats = lambda fs: old if fs == files else monkey(fs)  # type: ignore[assignment]
        again = pipeline._catalog_documents(files)
    finally:
        pipeline._file_stats = monkey  # type: ignore[assignment]
    assert again == first and all(a is b for a, b in zip(again, first, strict=True)) and len(loads) == 2
    (top / "parts" / "a.yaml").write_text("kind: Rack\n", encoding="utf-8")
    edited = pipeline._catalog_documents(files)   # its stats differ from those kept
    assert len(loads) == 3 and [d.kind for d in edited] == ["Rack", "Part", "Part"]


def test_a_catalog_holding_a_linked_file_is_read_every_time(tmp_path, loads):
    import archgen.pipeline as pipeline

    top = _tree(tmp_path / "catalog", 10 * RACY_S)
    (top / "racks" / "l.yaml").symlink_to(top / "parts" / "a.yaml")
    files = [top / "racks" / "l.yaml", top / "parts" / "b.yaml"]   # as `find_files` may name a linked file
    assert pipeline._file_stats(files) is None
    pipeline._catalog_documents(files)
    pipeline._catalog_documents(files)
    assert len(loads) == 2
