"""A name with backticks stays inside its code span in the diff comment (newuser39).

A branch named ``x`y@team`` made the heading `` `x`y`@team (b7ac77c)` ``: the name's backtick closed the span and the
rest read as Markdown. `fmt.code` fences a span with one backtick more than the longest run in the text, and pads
one that starts or ends with a backtick (CommonMark 0.31.2, "Code spans"); markdown-it-py, a CommonMark parser,
reads the heading back.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from archgen.render.fmt import code
from tests.conftest import SPECS, run_cli

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
BRANCH = "x`y@team"


def _spans(markdown: str) -> list[str]:
    """The text of each code span in `markdown`, as a CommonMark parser reads it."""
    return [child.content for token in MarkdownIt("commonmark").parse(markdown) if token.type == "inline"
            for child in token.children or () if child.type == "code_inline"]


@pytest.mark.parametrize("text", ["plain", BRANCH, "`a", "a``b`", "``", " a ", "a ` b"])
def test_a_code_span_holds_its_text_whole(text):
    assert _spans(code(text)) == [text]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=archgen", "-c", "user.email=archgen@example.com", *args], cwd=repo,
                   check=True, capture_output=True)


def test_a_branch_with_a_backtick_stays_in_the_heading(tmp_path, monkeypatch):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "r.yaml").write_text(RACK, encoding="utf-8")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "specs")
    _git(tmp_path, "commit", "-q", "-m", "specs")
    _git(tmp_path, "branch", BRANCH)   # git takes a backtick in a ref name (git check-ref-format)
    monkeypatch.chdir(tmp_path)
    r = run_cli("diff", BRANCH, "specs")
    heading = r.out.splitlines()[0]
    [base, head] = _spans(heading.replace("\u200b", ""))   # no_mentions puts U+200B after the @
    assert base.startswith(f"{BRANCH} (") and head == "specs"   # before: the span closed at 'x`'
    assert heading.startswith("## archgen diff: ``x`y@\u200bteam (")


def test_a_gap_proposal_folder_with_a_backtick_stays_in_the_heading(tmp_path, monkeypatch):
    """`archgen gap`'s heading and findings' locations take the same spans (the fixture of tests/test_gap.py)."""
    import shutil

    data = Path(__file__).parent / "data" / "gap"
    shutil.copytree(data / "proposal", tmp_path / "v`A")
    monkeypatch.chdir(tmp_path)
    r = run_cli("gap", "v`A", "--against", data / "requirements")
    heading = r.out.splitlines()[0]
    assert heading.startswith("## archgen gap: ``v`A`` against ")
    assert _spans(heading)[0] == "v`A"
    assert "| ``v`A/" in r.out   # a finding's location, e.g. ``v`A/racks.yaml:3:1``
