"""The README's pull-request workflows work for a pull request from a fork (newuser32's trial, item 2).

The README's one job commented with `gh pr comment` and uploaded SARIF from a `pull_request` run: a fork's run gets a
read-only GITHUB_TOKEN whatever `permissions:` say (GitHub docs, "Events that trigger workflows", pull_request), so
both got 403 and the job went red. It also ran `pip install .`, which installs the repository under check. Now a
`pull_request` workflow writes nothing to the pull request and keeps the report as an artifact, and a
`workflow_run` workflow posts it without checking out or running anything of the pull request.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
import yaml

from tests.conftest import REPO


def _workflows() -> dict[str, dict]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(# \.github/workflows/(\S+?):.*?)```", text, re.S)
    return {name: yaml.safe_load(body) for body, name in blocks}


def _steps(workflow: dict) -> list[dict]:
    return [s for job in workflow["jobs"].values() for s in job["steps"]]


def test_the_pull_request_workflow_writes_nothing_a_forks_token_cannot():
    flows = _workflows()
    check = flows["specs.yml"]
    assert check[True] == "pull_request"                    # `on:` (YAML 1.1 reads the key as true)
    runs = "\n".join(s.get("run", "") for s in _steps(check))
    assert "gh pr comment" not in runs and "pip install ." not in runs and "pip install \"archgen @" in runs
    (sarif,) = [s for s in _steps(check) if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    assert "github.event.pull_request.head.repo.full_name == github.repository" in sarif["if"]
    # code scanning lists a suppressed (waived) result as an open alert (github/codeql-action#1230): filtered out
    assert sarif["with"]["sarif_file"] == "code-scanning.sarif" and "select(.suppressions == null)" in runs
    (artifact,) = [s for s in _steps(check) if s.get("uses", "").startswith("actions/upload-artifact")]
    assert {"diff.md", "diff.full.md", "pr-number.txt", "archgen.sarif"} <= set(artifact["with"]["path"].split())


def test_the_comment_workflow_runs_nothing_of_the_pull_request():
    comment = _workflows()["specs-comment.yml"]
    assert comment[True]["workflow_run"]["workflows"] == ["specs"]
    steps = _steps(comment)
    assert not [s for s in steps if s.get("uses", "").startswith("actions/checkout")]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "${{" not in runs                                # artifact data never spliced into a script
    assert "*[!0-9]*" in runs and "headRefOid" in runs and "gh pr comment" in runs
    assert comment["permissions"] == {"actions": "read", "pull-requests": "write"}


def _comment_script() -> str:
    (script,) = [s["run"] for s in _steps(_workflows()["specs-comment.yml"]) if "gh pr comment" in s.get("run", "")]
    return script


#: A stand-in for `gh` that logs each call and answers as GitHub would: the pull request's head, and the ids of the
#: comments the job's `--jq` filter keeps (the file `found`, empty before the first post).
_FAKE_GH = """#!/bin/bash
echo "gh $*" >> calls.log
case "$*" in
  "pr view"*) echo "$HEAD_SHA" ;;
  "api --paginate"*) head -n 1 found; sleep 0.3; tail -n +2 found ;;   # a page, then the next
  "api --method PATCH"*) cat > patched.json ;;
  "pr comment"*) echo 42 > found ;;
esac
"""


def _fake_runner(tmp_path, report: str, found: str) -> dict[str, str]:
    """A runner with the fake `gh` on PATH, the PR number, `report` as diff.md and `found` as the comments gh lists;
    the environment the comment job runs in. Skips where bash or jq is missing, as GitHub's runners have both."""
    if shutil.which("jq") is None or shutil.which("bash") is None:
        pytest.skip("needs bash and jq, as GitHub's runners have")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(_FAKE_GH, encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    (tmp_path / "pr-number.txt").write_text("7\n", encoding="utf-8")
    (tmp_path / "diff.md").write_text(report, encoding="utf-8")
    (tmp_path / "found").write_text(found, encoding="utf-8")
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HEAD_SHA": "abc",
            "GITHUB_REPOSITORY": "o/r", "GH_TOKEN": "x"}


def test_the_comment_job_edits_one_sticky_comment(tmp_path):
    """The first run posts the report; a later push edits that comment (newuser65: one comment per push before)."""
    env = _fake_runner(tmp_path, "## archgen diff: `main` → `HEAD`\n\nbody \"quoted\"\n", "")
    for _ in range(2):
        subprocess.run(["bash", "-e", "-c", _comment_script()], cwd=tmp_path, env=env, check=True)
    calls = (tmp_path / "calls.log").read_text(encoding="utf-8").splitlines()
    assert [c for c in calls if c.startswith("gh pr comment")] == ["gh pr comment 7 --repo o/r --body-file diff.md"]
    assert [c for c in calls if "PATCH" in c] == ["gh api --method PATCH repos/o/r/issues/comments/42 --input -"]
    assert json.loads((tmp_path / "patched.json").read_text(encoding="utf-8")) == {
        "body": (tmp_path / "diff.md").read_text(encoding="utf-8")}


def test_the_sticky_comment_is_the_jobs_own_report():
    """The `--jq` filter keeps the bot's comment that is an archgen report: not a person's, not another bot post."""
    if shutil.which("jq") is None:
        pytest.skip("needs jq")
    (jq_filter,) = re.findall(r"--jq '(.*?)'", _comment_script(), re.S)
    bot, person = {"login": "github-actions[bot]"}, {"login": "someone"}
    comments = [{"id": 1, "user": person, "body": "## archgen diff: copied by hand"},
                {"id": 2, "user": bot, "body": "Coverage report"},
                {"id": 3, "user": bot, "body": "## archgen diff: `main` → `HEAD`\n..."},
                {"id": 4, "user": bot, "body": "## archgen diff: not compared\n..."}]
    out = subprocess.run(["jq", jq_filter], input=json.dumps(comments), capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "4"]                  # the job edits the first, `sed -n 1p`


def test_a_second_page_of_matches_does_not_fail_the_step(tmp_path):
    """review32: with `head -n 1` the job's listing, its matches over two pages, failed under `pipefail` (a
    `shell: bash` step): head exits after the first id and `gh`, writing the next page, dies of SIGPIPE (141)."""
    env = _fake_runner(tmp_path, "## archgen diff: `main` → `HEAD`\n", "42\n" + "43\n" * 20000)   # > a pipe holds
    subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _comment_script()], cwd=tmp_path,
                   env=env, check=True)
    calls = (tmp_path / "calls.log").read_text(encoding="utf-8").splitlines()
    assert [c for c in calls if "PATCH" in c] == ["gh api --method PATCH repos/o/r/issues/comments/42 --input -"]
