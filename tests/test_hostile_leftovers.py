"""newuser77's ranked leftovers of the pull-request gate (docs/security.md), each test failing without its fix.

- Spec text quoted in a SARIF message (``[details](https://evil.example)``) was a link under SARIF 2.1.0 section
  3.11.6, which escapes ``\\``, ``[`` and ``]`` with a backslash: they are now escaped in every message.
- A bare URL a spec writes (``statement: "see https://evil.example"``) was a link in the bot's diff comment (GitHub's
  autolinks): the comment shows it as a code span.
- `sweep specs/x.yaml` through a linked-out `specs` said "no such file" (or read the file) before the link rule ran:
  an existence oracle for the runner's files. It is now refused as `check` refuses it.
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import SPECS, git

LEAD_OUT = "a symbolic link leading out of the git work tree (the working directory)"
REFUSAL = (f"specs: error: {LEAD_OUT}: expected a spec folder or file inside it\n  hint: archgen reads no file "
           "through a link that leaves the repository: name the folder it points at, or copy the files into the "
           "tree\n")


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git work tree `repo` with the shipped racks under `real/`, beside an empty `outside/`; cwd repo."""
    repo = tmp_path / "repo"
    shutil.copytree(SPECS / "racks", repo / "real" / "racks")
    (tmp_path / "outside").mkdir()
    git(repo, "init", "-q", "-b", "main")
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize("there", [False, True])
def test_a_sweep_file_under_a_folder_linked_out_is_refused_as_check_refuses_it(checkout, cli, there):
    """Whether or not `outside/x.yaml` exists, the same refusal, the link rule's, and nothing read."""
    (checkout / "specs").symlink_to("../outside")
    if there:
        (checkout.parent / "outside" / "x.yaml").write_text("kind: Sweep\nid: s\ntoken: SECRET\n", encoding="utf-8")
    r = cli("sweep", "specs/x.yaml", "real/racks", "--out", "out")
    assert r.code == 2 and "SECRET" not in r.out + r.err
    assert r.err == REFUSAL == cli("check", "specs/x.yaml").err


@pytest.mark.parametrize("command", [("check",), ("sweep", "--out", "out")])
def test_a_file_named_that_links_out_reads_the_same_whatever_its_target_is(checkout, cli, command):
    """``x.yaml -> ../outside/there.yaml`` said "a link to a file outside the spec tree", ``-> ../outside/nothing``
    "a link leading out of the git work tree", and ``-> ../outside`` (a folder) the latter too: an oracle."""
    (checkout.parent / "outside" / "there.yaml").write_text("kind: Rack\nid: r\ntoken: SECRET\n", encoding="utf-8")
    said = set()
    for name, target in (("a.yaml", "../outside/there.yaml"), ("b.yaml", "../outside/nothing.yaml"),
                         ("c.yaml", "../outside")):
        (checkout / name).symlink_to(target)
        r = cli(command[0], name, *command[1:])
        assert r.code == 2 and "SECRET" not in r.out + r.err
        said.add(r.err.replace(name, "NAME"))
    assert said == {REFUSAL.replace("specs", "NAME", 1)}


LINK = "[details](https://evil.example)"


def _shown(text: str) -> str | None:
    """A SARIF plain-text message as a viewer following section 3.11.6 shows it; None if it holds link syntax.

    A backslash escapes the next ``\\``, ``[`` or ``]`` (github/vscode-codeql's `unescapeSarifText`); a bracket not
    escaped is where a link could open or close.
    """
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1:i + 2] in ("\\", "[", "]"):
            out.append(text[i + 1])
            i += 2
            continue
        if text[i] in "[]":
            return None
        out.append(text[i])
        i += 1
    return "".join(out)


def test_spec_text_in_a_sarif_message_is_no_link_and_shows_as_written(spec_tree, cli):
    root = spec_tree({"r.yaml": f'kind: Rack\nid: r\n"{LINK} \\\\ x": 1\nform_factor: "{LINK}"\n'})
    results = json.loads(cli("check", root, "--format", "sarif").out)["runs"][0]["results"]
    texts = [r["message"]["text"] for r in results]
    assert all(_shown(t) is not None for t in texts), texts
    shown = [_shown(t) for t in texts]
    assert f"form_factor: expected a mapping, got '{LINK}'" in shown
    assert f"{LINK} \\ x: unknown key '{LINK} \\ x'" in [s.split("\n")[0] for s in shown if s]


URLS = """kind: Requirements
id: url-reqs
requirements:
  - id: REQ-URL-001
    statement: "sign-off at https://evil.example/login, or www.evil.example, or [here](https://evil.example)"
    subject: rack/dgx-h100-4
    metric: it_power
    target: "<= 1 kW"
    source: a test's target, met by no rack
"""


def test_a_bare_url_in_a_spec_is_no_link_in_the_diff_comment(checkout, cli):
    shutil.copytree(SPECS / "racks", checkout / "specs" / "racks")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "base")
    (checkout / "specs" / "reqs.yaml").write_text(URLS, encoding="utf-8")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "urls")
    r = cli("diff", "HEAD~1", "HEAD")
    assert r.code == 1
    line = next(x for x in r.out.splitlines() if "sign-off" in x)
    assert ("sign-off at `https://evil.example/login,` or `www.evil.example,` or \\[here\\](`https://evil.example)`"
            in line)
