"""A hostile pull request against the files archgen writes and the text it prints in CI (newuser20's open list):
each test starts from the input that showed the defect, and fails without the fix.

- A pull request committing `out -> ../victim` had `archgen render specs --out out` write `../victim/dgx-h100-4/*`,
  outside the checkout; `--output d/x.sarif` through a linked `d` likewise.
- A file `specs/::error title=forged::by PR.yaml` had `cd specs && archgen check .` print a line starting
  `::error title=forged::`, which GitHub's runner runs as a workflow command (a forged annotation); from the root
  the line starts `specs/`. `##[` anywhere in a line is a command too (the runner's v1 syntax).
- A large pull request made a diff.md of 132,320 characters; GitHub refuses a comment over 65,536 ("Body is too
  long", telia-oss/github-pr-resource#259), so the README's comment step failed and the PR read nothing.
- A requirement's `statement: "@org/team ..."` kept a live mention in the diff comment (`md()` escapes `<|[#`, not
  `@`): the team was pinged on every pull request that listed it. Renovate (renovatebot/renovate#1083) and Dependabot
  (dependabot/dependabot-core#3157) insert U+200B after every `@` of a PR body.
- `archgen diff BASE HEAD > diff.md` printed nothing when a side could not be analysed (only `--output` got the
  'not compared' report), so the comment step posted an empty comment.
- A pull request adding `archgen/catalog -> ../specs` to any repository had `archgen diff` take that repository for
  archgen's own and its specs for the library: HEAD lost the shipped catalog (new errors on every rack using it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from archgen.output.diff import COMMENT_LIMIT, comment
from archgen.spec_files import inert
from tests.conftest import SPECS, git


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git work tree `repo` holding the shipped racks, beside a folder `victim` outside it; cwd `repo`."""
    repo = tmp_path / "repo"
    shutil.copytree(SPECS / "racks", repo / "specs" / "racks")
    (tmp_path / "victim").mkdir()
    git(repo, "init", "-q", "-b", "main")
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
    r = cli("render", "specs", "--out", "out", "--formats", "csv")
    assert (r.code, r.err) == (2, f"error: out/dgx-h100-4: out/dgx-h100-4 is a link to ../../victim, {LEAVES}\n")
    assert list((checkout.parent / "victim").iterdir()) == [] and list((checkout / "out").iterdir()) == [
        checkout / "out" / "dgx-h100-4"]                                    # judged before any target is written


@pytest.mark.parametrize("output", ["d/x.sarif", "d/../x.sarif"])
def test_an_output_file_through_a_link_out_of_the_checkout_is_refused(checkout, cli, output):
    (checkout / "d").symlink_to("../victim")
    r = cli("check", "specs", "--format", "sarif", "--output", output)
    assert (r.code, r.err) == (2, f"error: --output {output}: d is a link to ../victim, {LEAVES}\n")
    assert list((checkout.parent / "victim").iterdir()) == [] and not (checkout.parent / "x.sarif").exists()


def test_a_loop_of_links_is_a_message_not_a_traceback(checkout, cli):
    (checkout / "out").symlink_to("loop")
    (checkout / "loop").symlink_to("out")
    r = cli("render", "specs", "--out", "out", "--formats", "csv", "--target", "dgx-h100-4")
    assert (r.code, r.err) == (2, "error: out/dgx-h100-4/bom.csv: cannot write it: Too many levels of symbolic links\n")


def test_links_inside_the_checkout_and_paths_given_outside_it_are_written(checkout, cli, tmp_path):
    (checkout / "reports").mkdir()
    (checkout / "d").symlink_to("reports")
    assert cli("check", "specs", "--format", "sarif", "--output", "d/x.sarif").code == 0
    assert (checkout / "reports" / "x.sarif").is_file()
    assert cli("check", "specs", "--format", "sarif", "--output", tmp_path / "victim" / "y.sarif").code == 0
    (checkout / "z.sarif").symlink_to("../victim/z.sarif")          # a linked file is replaced, not written through
    assert cli("check", "specs", "--format", "sarif", "--output", "z.sarif").code == 0
    assert not (checkout / "z.sarif").is_symlink() and not (tmp_path / "victim" / "z.sarif").exists()


#: A rack with one error of its own (an unknown key): its file's name leads the error line.
BROKEN_RACK = "kind: Rack\nid: zz\nfoo: 1\n"


def _commands(text: str) -> list[str]:
    """The lines of `text` GitHub's runner would run: `::` after leading white space, or `##[` anywhere
    (actions/runner 079cdb1, src/Runner.Common/ActionCommand.cs, TryParseV2 and TryParse)."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line]


@pytest.mark.parametrize("name", ["::error title=forged::by PR.yaml", "::stop-commands::tok.yaml",
                                  "x ##[error]forged.yaml"])
@pytest.mark.parametrize("args", [("check", "."), ("check", ".", "--format", "json"), ("validate", ".")])
def test_a_file_name_cannot_print_a_workflow_command_from_inside_its_folder(checkout, cli, monkeypatch, name, args):
    (checkout / "specs" / name).write_text(BROKEN_RACK, encoding="utf-8")
    monkeypatch.chdir(checkout / "specs")
    r = cli(*args)
    assert r.code == 1 and "foo: unknown key 'foo'" in r.out + r.err
    assert _commands(r.out + r.err) == []
    if name.startswith("::") and "json" not in args:             # the same file, named from where it is
        assert f"./{name}:3:6: error: foo: unknown key 'foo'" in r.err.splitlines()


@pytest.mark.parametrize(("text", "shown"), [
    ("::error title=x::y.yaml:3:6: error: e\n", "./::error title=x::y.yaml:3:6: error: e\n"),
    ("  ::stop-commands::t\n", "  ./::stop-commands::t\n"),              # the indent kept (YAML on stdout)
    ("\u200b::error::x", "./\u200b::error::x"),    # .NET's culture-aware StartsWith may skip a zero-width space
    ("a ##[error]b\n", "a \\u0023#[error]b\n"),
    ("specs/a.yaml:1:1: error: x::y\n", "specs/a.yaml:1:1: error: x::y\n"),  # `::` inside a line is no command
])
def test_a_line_the_runner_would_run_is_printed_inert(text, shown):
    assert inert(text) == shown and _commands(inert(text)) == []
    assert json.loads(inert(json.dumps({"s": text}))) == {"s": text}        # JSON on stdout reads as written


def test_github_annotations_still_are_commands(checkout, cli, monkeypatch):
    """`--format github` prints workflow commands on purpose: each its own, with the file name escaped in it."""
    (checkout / "specs" / "::error title=forged::by PR.yaml").write_text(BROKEN_RACK, encoding="utf-8")
    monkeypatch.chdir(checkout / "specs")
    r = cli("check", ".", "--format", "github")
    assert r.code == 1 and r.out.startswith("::error file=specs/%3A%3Aerror title=forged%3A%3Aby PR.yaml,")


def test_a_diff_too_long_for_a_comment_is_cut_and_kept_whole_beside_it(checkout, cli):
    """3,000 unknown keys in HEAD: one error line each, some 600,000 characters of report."""
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "base")
    (checkout / "specs" / "racks" / "zz.yaml").write_text(
        "kind: Rack\nid: zz\n" + "".join(f"foo{i}: 1\n" for i in range(3000)), encoding="utf-8")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "big")
    r = cli("diff", "HEAD~1", "HEAD", "--output", "diff.md")
    assert r.code == 1
    cut = (checkout / "diff.md").read_text(encoding="utf-8")
    full = (checkout / "diff.full.md").read_text(encoding="utf-8")
    assert len(cut.encode("utf-16-le")) // 2 <= COMMENT_LIMIT < len(full)
    assert full.startswith("## archgen diff: not compared") and "foo2999: unknown key 'foo2999'" in full
    note = f"✂️ **Truncated:** this comment shows part of a report of {len(full):,} characters (GitHub takes at most " \
           "65,536); the full report is diff.full.md, kept as the job's artifact."
    assert cut.split("\n")[4] == note and cut.endswith(f"\n---\n{note}\n")
    assert full.split("\n")[4:8] == cut.split("\n")[6:10]                # whole lines from the top
    r = cli("diff", "HEAD~1", "HEAD", "--output", "diff.json", "--format", "json")   # JSON is never cut
    errors = json.loads((checkout / "diff.json").read_text(encoding="utf-8"))["errors"]
    assert "foo2999: unknown key 'foo2999'" in " ".join(errors)
    assert not (checkout / "diff.full.json").exists()


def test_a_committed_diff_full_md_is_replaced_by_the_report(checkout, cli):
    """newuser39's open item 7: archgen wrote diff.full.md only when it cut diff.md, so a pull request's own
    committed diff.full.md went into the README's artifact (`diff*.md`) as archgen's full report."""
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "base")
    (checkout / "diff.full.md").write_text("## archgen diff: ✅ No differences (forged)\n", encoding="utf-8")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "forged")
    r = cli("diff", "HEAD~1", "HEAD", "--output", "diff.md")
    assert r.code == 0
    written = (checkout / "diff.md").read_text(encoding="utf-8")
    assert (checkout / "diff.full.md").read_text(encoding="utf-8") == written and "forged" not in written
    (checkout / "diff.full.md").write_text("forged\n", encoding="utf-8")   # also where a side cannot be compared
    r = cli("diff", "HEAD~1", "no-such-revision", "--output", "diff.md")
    assert r.code == 2
    assert (checkout / "diff.full.md").read_text(encoding="utf-8") == (checkout / "diff.md").read_text(
        encoding="utf-8")


def test_a_cut_inside_a_folded_table_closes_it():
    text = "\n".join(["## h", "", "s", "", "<details><summary>n</summary>", "", *["| x |"] * 20_000, "</details>", ""])
    cut = comment(text, "diff.full.md")
    assert cut is not None and len(cut) <= COMMENT_LIMIT
    assert cut.count("<details>") == cut.count("</details>") == 1
    assert comment("## h\n\ns\n", "diff.full.md") is None                     # a report that fits is kept as it is


MENTION = """kind: Requirements
id: team-reqs
requirements:
  - id: REQ-TEAM-001
    statement: "@org/infra-team signs off on rack power"
    subject: rack/dgx-h100-4
    metric: it_power
    target: "<= 1 kW"
    source: a test's target, met by no rack
"""


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_a_mention_in_a_spec_notifies_no_one_from_a_diff_comment(checkout, cli, fmt):
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "base")
    (checkout / "specs" / "reqs.yaml").write_text(MENTION, encoding="utf-8")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "mention")
    r = cli("diff", "HEAD~1", "HEAD", "--format", fmt)
    assert r.code == 1
    if fmt == "md":
        assert "@\u200borg/infra-team signs off" in r.out and "@org" not in r.out
    else:                                   # JSON is data, not a comment: the statement as written
        assert "@org/infra-team signs off" in r.out


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_a_side_that_cannot_be_analysed_still_prints_the_report(checkout, cli, fmt):
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "base")
    (checkout / "specs" / "racks" / "zz.yaml").write_text(BROKEN_RACK, encoding="utf-8")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "broken")
    r = cli("diff", "HEAD~1", "HEAD", "--format", fmt)
    assert r.code == 1 and "specs/racks/zz.yaml:3:6: error: foo: unknown key 'foo'" in r.err
    assert cli("diff", "HEAD~1", "HEAD", "--format", fmt, "--output", f"diff.{fmt}").code == 1
    assert r.out == (checkout / f"diff.{fmt}").read_text(encoding="utf-8")     # what --output writes, on stdout


def test_a_folder_named_like_archgens_catalog_link_does_not_replace_the_shipped_catalog(checkout, cli):
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "base")
    (checkout / "archgen").mkdir()
    (checkout / "archgen" / "catalog").symlink_to(Path("..", "specs"))
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "claim to be archgen")
    r = cli("diff", "HEAD~1", "HEAD", "--format", "json")
    doc = json.loads(r.out)
    assert (r.code, doc["findings"]["new"], doc["objects"]) == (0, [], {"added": [], "removed": []})
    assert json.loads(cli("diff", "HEAD~1", "specs", "--format", "json").out)["findings"]["new"] == []
