"""A hostile pull request against `archgen diff` in CI (newuser20): each test starts from the input that showed the
defect, and fails without the fix.

- A pull request adding `.gitattributes` with `specs/racks/zz.yaml export-ignore` hid that file from `archgen diff`:
  `git archive` honours the archived tree's attributes, so HEAD's export lacked the broken rack and the comment read
  "HEAD has no error findings" (exit 0) while `archgen check` failed on it (exit 1); `export-subst` rewrote an id
  `$Format:%h$` that `check` refuses into the commit's short hash, a valid one.
- A spec file named `x<LF>::error file=README.md,line=1::forged<LF>.yaml` (git allows line ends in a name) had
  `check`'s text and `diff`'s errors print a line GitHub runs as a workflow command (a forged annotation; with
  `::stop-commands::` the real ones hidden); one whose name is not UTF-8 made `check --format sarif` crash with a
  traceback (exit 2, no SARIF written).
"""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import SPECS, git, racks_repo

#: The shipped DGX H100 rack under an id no spec may have; `export-subst` turns it into the commit's short hash.
HIDDEN = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8").replace("id: dgx-h100-4", 'id: "$Format:%h$"')


#: A rack with one error of its own (an unknown key), for a file that must be refused before it is read.
BROKEN_RACK = "kind: Rack\nid: zz\nfoo: 1\n"


@pytest.fixture
def pr_repo(tmp_path, monkeypatch):
    """A git repository whose main commit holds the shipped racks; cwd inside it."""
    monkeypatch.chdir(racks_repo(tmp_path))
    return tmp_path


@pytest.mark.parametrize("attribute", ["export-ignore", "export-subst"])
def test_a_pull_requests_gitattributes_do_not_change_what_diff_reads(pr_repo, cli, attribute):
    (pr_repo / "specs" / "racks" / "zz.yaml").write_text(HIDDEN, encoding="utf-8")
    (pr_repo / ".gitattributes").write_text(f"specs/racks/zz.yaml {attribute}\n", encoding="utf-8")
    git(pr_repo, "add", "-A")
    git(pr_repo, "commit", "-qm", "hide a broken rack")
    assert cli("check", "specs").code == 1
    r = cli("diff", "HEAD~1", "HEAD")
    assert r.code == 1
    assert "specs/racks/zz.yaml:5:5: error: id: expected a string matching ^[a-z0-9][a-z0-9._-]*$, got '$Format:%h$'" \
        in r.err                                 # the file as committed, not as `export-subst` rewrote it


def test_a_link_inside_the_tree_is_exported_as_a_link(pr_repo, cli):
    """A link to a file of the same revision still reads as it did through `git archive` (the same rack twice)."""
    (pr_repo / "specs" / "alias.yaml").symlink_to("racks/dgx-h100-4.yaml")
    git(pr_repo, "add", "-A")
    git(pr_repo, "commit", "-qm", "link")
    assert cli("diff", "HEAD~1", "HEAD").err == cli("diff", "main", "specs").err


@pytest.mark.parametrize("links", [
    {"evil.yaml": "/etc/passwd"},
    {"a": "z/../..", "z": "."},            # inside read link by link in order; `a` leaves the tree once `z` exists
])
def test_a_link_out_of_the_export_is_refused_unread(pr_repo, cli, links):
    for name, target in links.items():
        (pr_repo / "specs" / name).symlink_to(target)
    git(pr_repo, "add", "-A")
    git(pr_repo, "commit", "-qm", "links")
    r = cli("diff", "HEAD~1", "HEAD")
    name = next(iter(links))
    assert r.code == 2 and "root:" not in r.out             # /etc/passwd's first line
    assert f"specs/{name}: error: revision HEAD: a symbolic link leading out of the specs, left out unread" in r.err


FORGED = "x\n::error file=README.md,line=1::forged\n.yaml"


def test_a_file_name_with_a_line_end_cannot_write_a_line_of_its_own(pr_repo, cli):
    (pr_repo / "specs" / FORGED).write_text(BROKEN_RACK, encoding="utf-8")
    expected = ("specs/x\\u000a::error file=README.md,line=1::forged\\u000a.yaml: error: the path holds control "
                "character U+000A, which a report cannot show on its line, so this file is not read")
    r = cli("check", "specs")
    assert r.code == 2 and expected in r.err
    assert not any(line.startswith("::") for line in (r.out + r.err).splitlines())
    git(pr_repo, "add", "-A")
    git(pr_repo, "commit", "-qm", "forge")
    r = cli("diff", "HEAD~1", "HEAD")
    assert r.code == 2 and expected in r.err
    assert not any(line.startswith("::") for line in (r.out + r.err).splitlines())


@pytest.mark.skipif(os.name != "posix", reason="a file name of bytes that are not UTF-8 needs a POSIX file system")
def test_a_file_name_that_is_not_utf8_is_refused_in_sarif_not_a_traceback(pr_repo, cli):
    try:
        (pr_repo / "specs" / os.fsdecode(b"bad\xff.yaml")).write_text(BROKEN_RACK, encoding="utf-8")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    r = cli("check", "specs", "--format", "sarif")
    assert r.code == 2
    result = json.loads(r.out)["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "specs/bad%5Cxff.yaml"
    assert result["message"]["text"].startswith("the path holds byte 0xFF that is not UTF-8")


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_a_head_that_cannot_be_analysed_still_writes_the_report(pr_repo, cli, fmt):
    """The README's job posts `diff.md`: a PR with a schema error left none, and the comment step failed on it."""
    (pr_repo / "specs" / "racks" / "zz.yaml").write_text(BROKEN_RACK, encoding="utf-8")
    git(pr_repo, "add", "-A")
    git(pr_repo, "commit", "-qm", "broken rack")
    report = pr_repo / f"diff.{fmt}"
    r = cli("diff", "HEAD~1", "HEAD", "--format", fmt, "--output", report)
    assert r.code == 1 and "specs/racks/zz.yaml:3:6: error: foo: unknown key 'foo'" in r.err   # stderr as before
    text = report.read_text(encoding="utf-8")
    if fmt == "json":
        doc = json.loads(text)
        assert (doc["compared"], doc["exit_code"]) == (False, 1)
        assert "specs/racks/zz.yaml:3:6: error: foo: unknown key 'foo'" in doc["errors"]
    else:
        assert text.startswith("## archgen diff: not compared\n\n❌ BASE or HEAD cannot be analysed (exit 1)")
        assert "- specs/racks/zz.yaml:3:6: error: foo: unknown key 'foo'\n" in text
