"""`spec_files.find_real`: each spec file with the real path the snapshot's key names (`os.path.realpath` of it)."""

from __future__ import annotations

import os

from archgen.load import shipped_catalog
from archgen.spec_files import find_files, find_real
from tests.conftest import SPECS


def test_the_real_paths_are_realpath_s_and_the_files_find_files():
    for tree in (SPECS, shipped_catalog()):
        pairs = find_real([tree])
        assert [f for f, _ in pairs] == find_files([tree]) and len(pairs) > 50
        assert all(str(real) == os.path.realpath(f) for f, real in pairs)


def test_through_links_inside_the_tree(tmp_path):
    (tmp_path / "t" / "sub").mkdir(parents=True)
    (tmp_path / "t" / "sub" / "a.yaml").write_text("kind: x\n", encoding="utf-8")
    (tmp_path / "t" / "b.yaml").symlink_to(tmp_path / "t" / "sub" / "a.yaml")   # a file linked within the tree
    (tmp_path / "t" / "up").symlink_to(tmp_path / "t" / "sub")                    # a folder linked within it
    pairs = find_real([tmp_path / "t", tmp_path / "t" / "sub" / "a.yaml"])
    assert [real for _, real in pairs] == [(tmp_path / "t" / "sub" / "a.yaml").resolve()]  # once, by its real path
    assert all(str(real) == os.path.realpath(f) for f, real in pairs)
