"""The README's pull-request workflows work for a pull request from a fork (newuser32's trial, item 2).

The README's one job commented with `gh pr comment` and uploaded SARIF from a `pull_request` run: a fork's run gets a
read-only GITHUB_TOKEN whatever `permissions:` say (GitHub docs, "Events that trigger workflows", pull_request), so
both got 403 and the job went red. It also ran `pip install .`, which installs the repository under check. Now a
`pull_request` workflow writes nothing to the pull request and keeps the report as an artifact, and a
`workflow_run` workflow posts it without checking out or running anything of the pull request.
"""

from __future__ import annotations

import re

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
