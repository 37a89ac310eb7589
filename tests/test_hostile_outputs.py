"""A hostile pull request against the files archgen writes and the text it prints in CI (newuser20's open list):
each test starts from the input that showed the defect, and fails without the fix.

- A pull request committing `out -> ../victim` had `archgen render specs --out out` write `../victim/dgx-h100-4/*`,
  outside the checkout; `--output d/x.sarif` through a linked `d` likewise.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SPECS


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=t", *args], cwd=repo, check=True,
                   capture_output=True)


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git work tree `repo` holding the shipped racks, beside a folder `victim` outside it; cwd `repo`."""
    repo = tmp_path / "repo"
    shutil.copytree(SPECS / "racks", repo / "specs" / "racks")
    (tmp_path / "victim").mkdir()
    _git(repo, "init", "-q", "-b", "main")
    monkeypatch.chdir(repo)
    return repo


LEAVES = ("outside the git work tree (the working directory); archgen writes no file through a link that leaves it")


def test_an_out_folder_linked_out_of_the_checkout_is_refused(checkout, cli):
    (checkout / "out").symlink_to("../victim")
    r = cli("render", "specs", "--out", "out", "--formats", "csv")
    assert (r.code, r.err) == (2, f"error: --out out: out is a link to ../victim, {LEAVES}\n")
    assert list((checkout.parent / "victim").iterdir()) == []


def test_a_target_folder_linked_out_of_the_checkout_is_refused(checkout, cli):
    """The link one level down, where render writes OUT/<target>/: each file written is judged."""
    (checkout / "out").mkdir()
    (checkout / "out" / "dgx-h100-4").symlink_to("../../victim")
    r = cli("render", "specs", "--out", "out", "--formats", "csv", "--target", "dgx-h100-4")
    assert r.code == 2
    assert r.err.startswith("error: out/dgx-h100-4/") and f"out/dgx-h100-4 is a link to ../../victim, {LEAVES}" in r.err
    assert list((checkout.parent / "victim").iterdir()) == []


@pytest.mark.parametrize("output", ["d/x.sarif", "d/../x.sarif"])
def test_an_output_file_through_a_link_out_of_the_checkout_is_refused(checkout, cli, output):
    (checkout / "d").symlink_to("../victim")
    r = cli("check", "specs", "--format", "sarif", "--output", output)
    assert (r.code, r.err) == (2, f"error: --output {output}: d is a link to ../victim, {LEAVES}\n")
    assert list((checkout.parent / "victim").iterdir()) == [] and not (checkout.parent / "x.sarif").exists()


def test_links_inside_the_checkout_and_paths_given_outside_it_are_written(checkout, cli, tmp_path):
    (checkout / "reports").mkdir()
    (checkout / "d").symlink_to("reports")
    assert cli("check", "specs", "--format", "sarif", "--output", "d/x.sarif").code == 0
    assert (checkout / "reports" / "x.sarif").is_file()
    assert cli("check", "specs", "--format", "sarif", "--output", tmp_path / "victim" / "y.sarif").code == 0
    (checkout / "z.sarif").symlink_to("../victim/z.sarif")          # a linked file is replaced, not written through
    assert cli("check", "specs", "--format", "sarif", "--output", "z.sarif").code == 0
    assert not (checkout / "z.sarif").is_symlink() and not (tmp_path / "victim" / "z.sarif").exists()
