"""A hostile pull request against `archgen diff` in CI (newuser20): each test starts from the input that showed the
defect, and fails without the fix.

- A pull request adding `.gitattributes` with `specs/racks/zz.yaml export-ignore` hid that file from `archgen diff`:
  `git archive` honours the archived tree's attributes, so HEAD's export lacked the broken rack and the comment read
  "HEAD has no error findings" (exit 0) while `archgen check` failed on it (exit 1); `export-subst` rewrote an id
  `$Format:%h$` that `check` refuses into the commit's short hash, a valid one.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SPECS

#: The shipped DGX H100 rack under an id no spec may have; `export-subst` turns it into the commit's short hash.
HIDDEN = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8").replace("id: dgx-h100-4", 'id: "$Format:%h$"')


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=t", *args], cwd=repo, check=True,
                   capture_output=True)


@pytest.fixture
def pr_repo(tmp_path, monkeypatch):
    """A git repository whose main commit holds the shipped racks; cwd inside it."""
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("attribute", ["export-ignore", "export-subst"])
def test_a_pull_requests_gitattributes_do_not_change_what_diff_reads(pr_repo, cli, attribute):
    (pr_repo / "specs" / "racks" / "zz.yaml").write_text(HIDDEN, encoding="utf-8")
    (pr_repo / ".gitattributes").write_text(f"specs/racks/zz.yaml {attribute}\n", encoding="utf-8")
    _git(pr_repo, "add", "-A")
    _git(pr_repo, "commit", "-qm", "hide a broken rack")
    assert cli("check", "specs").code == 1
    r = cli("diff", "HEAD~1", "HEAD")
    assert r.code == 1
    assert "specs/racks/zz.yaml:5:5: error: id: expected a string matching ^[a-z0-9][a-z0-9._-]*$, got '$Format:%h$'" \
        in r.err                                 # the file as committed, not as `export-subst` rewrote it


def test_a_link_inside_the_tree_is_exported_as_a_link(pr_repo, cli):
    """A link to a file of the same revision still reads as it did through `git archive` (the same rack twice)."""
    (pr_repo / "specs" / "alias.yaml").symlink_to("racks/dgx-h100-4.yaml")
    _git(pr_repo, "add", "-A")
    _git(pr_repo, "commit", "-qm", "link")
    assert cli("diff", "HEAD~1", "HEAD").err == cli("diff", "main", "specs").err


@pytest.mark.parametrize("links", [
    {"evil.yaml": "/etc/passwd"},
    {"a": "z/../..", "z": "."},            # inside read link by link in order; `a` leaves the tree once `z` exists
])
def test_a_link_out_of_the_export_is_refused_unread(pr_repo, cli, links):
    for name, target in links.items():
        (pr_repo / "specs" / name).symlink_to(target)
    _git(pr_repo, "add", "-A")
    _git(pr_repo, "commit", "-qm", "links")
    r = cli("diff", "HEAD~1", "HEAD")
    name, target = next(iter(links.items()))
    assert (r.code, r.err) == (2, f"error: revision HEAD: specs/{name} -> {target} points outside the specs; archgen "
                                  "reads no file outside the exported tree\n")
