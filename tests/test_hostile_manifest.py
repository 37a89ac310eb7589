"""A pull request's committed `out/` against `archgen render` (newuser39): the manifest of files render wrote is read
only where render could have written it. The test fails without the fix.

`OUT/<target>/.archgen-files` lists the files an earlier render wrote, so that the next removes those it no longer
writes; every line that names no such file is kept in the new manifest. A committed
``out/dgx-h100-4/.archgen-files -> /proc/self/environ`` (or ``~/.git-credentials``, any absolute path) had
`archgen render specs --out out` copy the runner's environment, its secrets included, into
``out/dgx-h100-4/.archgen-files``, a file a job uploads with the documents; ``-> /dev/zero`` read until memory ran
out (with a 3 GB limit a `MemoryError` traceback, exit 2, after some files were written). A link, a device or a
file over 1 MiB is now read as no manifest, and the new one replaces it.
"""

from __future__ import annotations

import shutil

from tests.conftest import SPECS

SECRET = "https://x-access-token:ghs_0123456789@github.com\nAWS_SECRET_ACCESS_KEY=abc123\n"


def test_a_linked_manifest_is_not_read(tmp_path, cli, monkeypatch):
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    creds = tmp_path / "creds"                       # outside the repository: the runner's home, /proc/self/environ
    creds.write_text(SECRET, encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.move(tmp_path / "specs", repo / "specs")
    manifest = repo / "out" / "dgx-h100-4" / ".archgen-files"
    manifest.parent.mkdir(parents=True)
    manifest.symlink_to(creds)
    monkeypatch.chdir(repo)
    r = cli("render", "specs", "--target", "dgx-h100-4", "--out", "out", "--formats", "csv")
    assert r.code == 0, r.err
    assert not manifest.is_symlink()
    assert manifest.read_text(encoding="utf-8") == "bom.csv\ndocument.csv\nrequirements.csv\n"   # before: the secret's lines too
    assert creds.read_text(encoding="utf-8") == SECRET
