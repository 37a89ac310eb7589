"""`diff` of a revision with several links leading out of its specs (newuser65's open item 7, pr27).

It stopped at the first such link (exit 2, one line on stderr, no comparison), so a pull request with three learned
of one per push, and its reviewers saw nothing of the rest of the change. Now every link is named at its path, on
stderr and in the report, the rest is compared without them, and the job still fails with exit 2 (unreadable input).
No link is followed: the outside file's text is in no output, Markdown, JSON, the `--output` file or stderr.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SECRET, SPECS, git, racks_repo

#: The links a pull request adds, each leading out another way: to an absolute path, up through `..`, to a path of
#: the runner that may not exist, and through a link whose folder is itself a link out.
LINKS = ("specs/evil.yaml", "specs/racks/up.yaml", "specs/probe.yaml")


@pytest.fixture
def pr(tmp_path, monkeypatch):
    """A repository whose HEAD adds the `LINKS` and drops one DGX from the shipped rack; cwd inside it."""
    top = racks_repo(tmp_path / "repo")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".git-credentials").write_text(SECRET + "\n", encoding="utf-8")
    (top / LINKS[0]).symlink_to(tmp_path / "home" / ".git-credentials")
    (top / LINKS[1]).symlink_to("../../../home/.git-credentials")
    (top / LINKS[2]).symlink_to("/home/runner/.ssh/id_rsa")
    rack = top / "specs" / "racks" / "dgx-h100-4.yaml"
    text = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
    assert "count: 4" in text
    rack.write_text(text.replace("count: 4", "count: 3", 1), encoding="utf-8")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "links out, one tray fewer")
    monkeypatch.chdir(top)
    return top


def test_every_link_out_is_named_and_everything_else_is_compared(pr, cli):
    r = cli("diff", "HEAD~1", "HEAD")
    assert r.code == 2                                         # unreadable input, as documented in `diff --help`
    for link in LINKS:
        assert f"{link}: error: revision HEAD: a symbolic link leading out of the specs, left out unread" in r.err
        assert f"| HEAD | `{link}` |" in r.out
    assert r.out.startswith("## archgen diff: `HEAD~1 (")
    assert "3 link(s) out of the specs left out unread (exit 2)" in r.out.splitlines()[2]
    assert r.out.splitlines()[2].startswith("❌ ")
    assert "| `rack/dgx-h100-4` | it\\_power | 40.9 kW | 30.7 kW |" in r.out   # the rest was compared


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_no_output_holds_an_outside_files_text(pr, cli, fmt):
    report = pr / f"diff.{fmt}"
    r = cli("diff", "HEAD~1", "HEAD", "--format", fmt, "--output", report)
    text = report.read_text(encoding="utf-8")
    assert r.code == 2
    for shown in (r.out, r.err, text):
        assert "octocat" not in shown and "SECRET" not in shown and "id_rsa" not in shown   # nor the runner's path
    if fmt == "json":
        doc = json.loads(text)
        assert doc["refused"] == [{"side": "HEAD", "file": link} for link in sorted(LINKS)]
        assert doc["summary"]["links_refused"] == 3
        assert any(m["metric"] == "it_power" for m in doc["metrics"])
    else:
        assert "### Links left out" in text and (pr / "diff.full.md").read_text(encoding="utf-8") == text


def test_a_side_that_cannot_be_analysed_names_its_links_out_too(pr, cli):
    """A HEAD whose only other change is a broken rack: its errors and every link out, in one run."""
    (pr / "specs" / "racks" / "zz.yaml").write_text("kind: Rack\nid: zz\nfoo: 1\n", encoding="utf-8")
    git(pr, "add", "-A")
    git(pr, "commit", "-qm", "broken rack")
    r = cli("diff", "HEAD~2", "HEAD")
    assert r.code == 2
    assert "specs/racks/zz.yaml:3:6: error: foo: unknown key 'foo'" in r.err
    assert all(f"{link}: error: revision HEAD: a symbolic link leading out" in r.err for link in LINKS)


def test_check_names_every_link_out_in_sarif_and_reads_none(pr, cli):
    r = cli("check", "specs", "--format", "sarif")
    assert r.code == 2 and "octocat" not in r.out + r.err and "SECRET" not in r.out + r.err
    uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for x in json.loads(r.out)["runs"][0]["results"]}
    assert set(LINKS) <= uris


def test_a_loop_of_links_in_a_revision_is_named_as_check_names_it_not_a_traceback(tmp_path, monkeypatch, cli):
    """`specs/a.yaml -> b.yaml -> a.yaml`: resolving it to judge whether it leads out raised RuntimeError ("internal
    error: this is a bug in archgen", review33). It leads nowhere, so it stays in the export and the load names each
    link as `check` does (tests/test_hostile_links.py), exit 2."""
    top = racks_repo(tmp_path / "repo")
    (top / "specs" / "a.yaml").symlink_to("b.yaml")
    (top / "specs" / "b.yaml").symlink_to("a.yaml")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "a loop of links")
    monkeypatch.chdir(top)
    r = cli("diff", "HEAD~1", "HEAD")
    assert r.code == 2 and "Traceback" not in r.err and "internal error" not in r.err
    for link in ("specs/a.yaml", "specs/b.yaml"):
        assert f"{link}: error: a symbolic link to no file" in r.err
