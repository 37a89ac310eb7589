"""Hostile input, newuser39's open list item 4: a link into a hidden folder was read.

`archgen check .` at a repository's root followed `t4/y.yaml -> ../.git/evil` (the target is inside the tree named)
and quoted the file in its report: "kind: unknown document kind ... got 'AUTHORIZATION-basic-c2VjcmV0'". Hidden files
are not read (README, "What a spec directory holds"), so neither is a link to one: every command that walks spec
folders refuses it, with its location, unread.
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import SPECS

TOKEN = "AUTHORIZATION-basic-c2VjcmV0"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository root with real specs, a `.git/evil` holding a token, and a link into `.git` from a spec folder."""
    shutil.copytree(SPECS, tmp_path / "specs")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "evil").write_text(f"kind: {TOKEN}\nid: x\n", encoding="utf-8")
    (tmp_path / "t4").mkdir()
    (tmp_path / "t4" / "y.yaml").symlink_to("../.git/evil")
    monkeypatch.chdir(tmp_path)
    return tmp_path


REFUSED = "t4/y.yaml: error: a symbolic link to a file in a hidden folder (or hidden itself)"


@pytest.mark.parametrize("args", [
    ("check", "."), ("check", ".", "--format", "sarif"), ("validate", "."), ("render", ".", "--out", "o"),
    ("gap", ".", "--against", "specs/requirements"), ("estimate", "--workload", "llama3-70b-serve-gb200", "--path", "."),
    ("sweep", "specs/sweeps/llama3-70b.yaml", "--path", "."),
], ids=lambda a: "-".join(a[:2]))
def test_a_link_into_a_hidden_folder_is_refused_unread_by_every_command(repo, cli, args):
    r = cli(*args)
    assert r.code == 2 and "Traceback" not in r.err
    assert TOKEN not in r.out + r.err
    assert "t4/y.yaml" in r.out + r.err


def test_the_refusal_says_where_and_why(repo, cli):
    r = cli("check", ".")
    assert REFUSED + ": expected a spec file that is not hidden" in r.err


def test_a_hidden_link_target_is_refused_and_a_link_to_a_hidden_folder_too(repo, cli):
    (repo / "t4" / "y.yaml").unlink()
    (repo / "t4" / "z.yaml").symlink_to("../specs/.env.yaml")
    (repo / "specs" / ".env.yaml").write_text(f"kind: {TOKEN}\n", encoding="utf-8")
    (repo / "t4" / "g").symlink_to("../.git")
    r = cli("check", ".")
    assert r.code == 2 and TOKEN not in r.out + r.err
    assert "t4/z.yaml: error: a symbolic link to a file in a hidden folder" in r.err
    assert "t4/g: error: a symbolic link to a folder in a hidden folder" in r.err


def test_a_link_to_a_visible_file_in_the_tree_still_loads(repo, cli):
    (repo / "t4" / "y.yaml").unlink()
    (repo / "t4" / "y.yaml").symlink_to("../specs/racks/" + sorted(p.name for p in (SPECS / "racks").iterdir())[0])
    assert cli("validate", ".").code == 0
