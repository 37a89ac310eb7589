"""`spec_files.catalog_files`: the catalog a pipeline run loads is walked again only where a folder of it changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from archgen import spec_files
from archgen.spec_files import RACY_S, catalog_files, find_files


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
    real = spec_files.find_files
    monkeypatch.setattr(spec_files, "find_files", lambda paths: seen.append([str(p) for p in paths]) or real(paths))
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
