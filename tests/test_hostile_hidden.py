"""Hostile input, newuser39's open list item 4: a link into a hidden folder was read; errors quoted a file whole.

`archgen check .` at a repository's root followed `t4/y.yaml -> ../.git/evil` (the target is inside the tree named)
and quoted the file in its report: "kind: unknown document kind ... got 'AUTHORIZATION-basic-c2VjcmV0'". Hidden files
are not read (README, "What a spec directory holds"), so neither is a link to one: every command that walks spec
folders refuses it, with its location, unread. And where a file is read, an error quotes at most an excerpt of its
text (`errors.EXCERPT` characters): a key, tag, alias or duplicate key went whole into the report, and a reused
anchor into a Python warning on stderr.
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
    ("diff", ".", "."), ("gap", ".", "--against", "specs/requirements"),
    ("estimate", "--workload", "llama3-70b-serve-gb200", "--path", "."),
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


LONG = "S" * 1000
QUOTING = {  # each quoted its text whole into the report (1,000 to 3,000 characters on one line) before the excerpt
    "key": f"kind: Rack\nid: r\n{LONG}: 1\n",
    "duplicate key": f"kind: Rack\nid: r\n{LONG}: 1\n{LONG}: 2\n",
    "tag": f"kind: Rack\nid: r\nx: !{LONG} 1\n",
    "core tag value": f"kind: Rack\nid: r\nx: !!bool {LONG}\n",
    "alias": f"kind: Rack\nid: r\nx: *{LONG}\n",
    "anchor defined twice": f"kind: Rack\nid: r\nx: &{LONG} 1\ny: &{LONG} 2\n",   # was a Python warning on stderr
}


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit"])
@pytest.mark.parametrize("what", list(QUOTING))
def test_errors_quote_a_files_text_as_an_excerpt_only(tmp_path, cli, monkeypatch, what, fmt):
    from archgen.errors import EXCERPT

    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "r.yaml").write_text(QUOTING[what], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = cli("check", "specs", "--format", fmt)
    assert r.code in (1, 2) and "Traceback" not in r.err and "Warning" not in r.err
    assert ("S" * 70 in r.out + r.err) == (what != "anchor defined twice")   # the excerpt is shown where quoted ...
    assert "S" * EXCERPT not in r.out + r.err                      # ... never the whole text
