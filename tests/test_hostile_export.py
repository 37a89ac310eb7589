"""A hostile revision against `archgen diff`'s export (newuser39): each test starts from the input that showed the
defect, and fails without the fix.

- A tree naming `specs/d` twice, once a link out (``d -> <victim>``) and once a folder holding a link ``d/e`` (git
  builds it with `git mktree`; on a file system that ignores case, ``D`` and ``d/e`` do it without a duplicate), had
  `archgen diff main evil` make the link ``<victim>/e`` outside the temporary export before any link was judged:
  the run then refused ``specs/d`` (exit 2), but ``e`` stayed where the revision put it. A deeper ``d/x/y/e`` made
  the folders ``<victim>/x/y`` too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import git, racks_repo


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository whose main commit holds the shipped racks; cwd inside it."""
    top = racks_repo(tmp_path / "repo")
    monkeypatch.chdir(top)
    return top


def _blob(repo: Path, text: str) -> str:
    return git(repo, "hash-object", "-w", "--stdin", stdin=text)


def _tree(repo: Path, *entries: str) -> str:
    return git(repo, "mktree", stdin="".join(f"{e}\n" for e in entries))


@pytest.mark.parametrize("inner", [("e",), ("x", "y", "e")])
def test_a_link_under_a_link_out_is_not_made_outside_the_export(repo, tmp_path, cli, inner):
    victim = tmp_path / "victim"
    victim.mkdir()
    sub = _tree(repo, f"120000 blob {_blob(repo, 'pwned')}\t{inner[-1]}")
    for name in reversed(inner[:-1]):
        sub = _tree(repo, f"040000 tree {sub}\t{name}")
    specs = _tree(repo, f"040000 tree {git(repo, 'rev-parse', 'HEAD:specs/racks')}\tracks",
                  f"120000 blob {_blob(repo, str(victim))}\td", f"040000 tree {sub}\td")
    commit = git(repo, "commit-tree", _tree(repo, f"040000 tree {specs}\tspecs"), "-p", "HEAD", "-m", "evil")
    git(repo, "branch", "evil", commit)
    r = cli("diff", "main", "evil")
    assert list(victim.iterdir()) == []                         # before: victim/e, or victim/x/y/e
    link = "/".join(("specs", "d", *inner))
    assert r.code == 2
    for out in ("specs/d", link):                               # the link out, and the link made through it: none
        assert f"{out}: error: revision evil: a symbolic link leading out of the specs, left out unread" in r.err


def test_a_file_where_the_revision_also_has_a_folder_is_a_located_error(repo, cli):
    """A tree naming `a` as a file and as a folder of a file made `diff` end in a traceback (NotADirectoryError)."""
    rack = _blob(repo, "kind: Rack\nid: zz\n")
    folder = _tree(repo, f"100644 blob {rack}\tb.yaml")
    specs = _tree(repo, f"100644 blob {rack}\ta", f"040000 tree {folder}\ta")
    commit = git(repo, "commit-tree", _tree(repo, f"040000 tree {specs}\tspecs"), "-p", "HEAD", "-m", "twice")
    git(repo, "branch", "twice", commit)
    r = cli("diff", "main", "twice")
    assert (r.code, r.err) == (2, "error: revision twice: specs/a/b.yaml: a file where the revision also has a "
                                  "folder of that name\n")


def test_a_folder_named_like_the_head_revision_does_not_stand_for_it(repo, cli):
    """A pull request breaking a rack and committing `HEAD/` (the base's specs) and its own `diff.md`.

    Before: `archgen diff main HEAD --output diff.md` compared main with the folder, "✅ ... No differences", exit 0,
    over REQ-PWR-010 newly failing; refusing the name alone (a usage error wrote no `--output`) would have left the
    committed diff.md for the comment step to post.
    """
    shutil.copytree(repo / "specs", repo / "HEAD")
    rack = repo / "specs" / "racks" / "dgx-h100-4.yaml"
    rack.write_text(rack.read_text(encoding="utf-8").replace('target: "<= 45 kW"', 'target: "<= 1 kW"'),
                    encoding="utf-8")
    (repo / "diff.md").write_text("## archgen diff\n\n✅ No differences.\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "break a rack, hide it")
    message = ("error: HEAD: both a directory and a git revision of this repository; write ./HEAD for the "
               "directory, or remove or rename the directory to compare the revision\n")
    r = cli("diff", "main", "HEAD", "--output", "diff.md")
    assert (r.code, r.err) == (2, message)
    assert (repo / "diff.md").read_text(encoding="utf-8").startswith("## archgen diff: not compared\n\n❌")
    assert cli("diff", "main", "./HEAD").code == 0                 # the folder, named as one
    assert cli("diff", "main", "HEAD~0").code == 1                 # the revision: the rack's SHALL newly fails
