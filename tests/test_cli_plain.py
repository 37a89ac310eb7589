"""A plain `archgen estimate` runs without typer's app (`archgen.cli.plain_estimate`), as typer would have run it.

Each argument list is parsed by `plain_estimate` and by typer's app (the command's body replaced by one that keeps
what it was given): either `plain_estimate` declines (typer parses it, as always) or both give the same values.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from archgen import cli, cli_app, cli_run
from tests.conftest import REPO
from tests.test_startup import ESTIMATE, exit_modules, quick_exit

#: Argument lists `plain_estimate` takes: the values are typer's.
TAKEN = [
    ["estimate", "--workload", "w"],
    ["estimate", "specs", "more/specs", "--workload", "w", "--cluster", "c", "--path", "p", "--path", "q"],
    ["--debug", "estimate", "--workload", "w"],
    ["estimate", "--workload", "w", "--debug", "-f", "json", "--explain"],
    ["estimate", "--workload", "a", "--workload", "b", "--format", "text", "--format", "json"],  # the last one
    ["estimate", "--workload", "w", "--what-if", "hbm_bandwidth=1.5", "--what-if", "nvlink_bandwidth=2"],
    ["estimate", "--workload", "w", "--search-plan", "--model-only", "--explain", "--explain"],
    ["estimate", "--cases", "cases.yaml", "--format", "json"],
    ["estimate", "--cases", "cases.yaml", "--workload", "w"],      # refused by the command, not the parser
    ["estimate", "--format", "yaml", "--workload", "w"],            # likewise
    ["estimate"],
    ["estimate", "specs=x", "w=1"],                                  # paths, however they look
]
#: Argument lists it leaves to typer's app: help, other spellings, anything typer refuses or reads its own way.
DECLINED = [
    [], ["--version"], ["--help"], ["validate"], ["check", "specs"], ["estimate", "--help"], ["estimate", "-h"],
    ["estimate", "--workload=w"], ["estimate", "-fjson", "--workload", "w"], ["estimate", "--", "--workload"],
    ["estimate", "--workload"], ["estimate", "--workload", "--explain"], ["estimate", "--workload", "-"],
    ["estimate", "--workload", ""], ["estimate", ""], ["estimate", "-"], ["estimate", "--work", "w"],
    ["estimate", "--no-explain"], ["estimate", "--unknown", "x"], ["--debug"], ["schema", "estimate"],
]


def typer_values(args: list[str], monkeypatch: pytest.MonkeyPatch) -> dict:
    """What typer's app hands `run_estimate` for `archgen ARGS` (and `--debug`)."""
    from typer.testing import CliRunner
    kept: dict = {}

    def keep(**values) -> None:
        kept.update(values, debug=cli_run.STATE["debug"])

    monkeypatch.setattr(cli_app, "run_estimate", lambda *a: keep(**dict(zip(PARAMETERS, a, strict=True))))
    monkeypatch.setitem(cli_run.STATE, "debug", False)
    result = CliRunner().invoke(cli_app.app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return kept


PARAMETERS = ("positional", "cases", "cluster", "workload", "paths", "fmt", "what_if", "explain", "search_plan",
              "model_only")


@pytest.mark.parametrize("args", TAKEN, ids=" ".join)
def test_a_plain_estimate_is_parsed_as_typer_parses_it(args, monkeypatch):
    assert cli.plain_estimate(args) == typer_values(args, monkeypatch)


@pytest.mark.parametrize("args", DECLINED, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_goes_to_typer(args):
    assert cli.plain_estimate(args) is None


def test_shell_completion_goes_to_typer(monkeypatch):
    monkeypatch.setenv("_ARCHGEN_COMPLETE", "bash_source")
    assert cli.plain_estimate(["estimate", "--workload", "w"]) is None


def test_the_console_script_estimates_without_typer():
    """Through `cli.main` in a fresh interpreter (`test_startup.quick_exit`): no typer, click or app imported."""
    r = quick_exit(*ESTIMATE)
    assert r.returncode == 0, r.stderr
    modules = exit_modules(r)
    assert "archgen.perf.train.training" in modules  # it did estimate
    assert not {"typer", "click", "archgen.cli_app", "archgen.cli_options"} & modules


@pytest.mark.parametrize("plain, through_typer", [
    (ESTIMATE, ("estimate", "--workload=llama3-70b-pretrain-b200", "--path", ESTIMATE[-1])),
    (("estimate", "--workload", "no-such-workload", "-f", "json"), ("estimate", "--workload=no-such-workload",
                                                                    "-fjson")),
])
def test_the_same_output_and_exit_code_either_way(plain, through_typer):
    """The plain parse and typer's app give the same text on stdout and stderr and the same exit code."""
    assert cli.plain_estimate(list(plain)) is not None and cli.plain_estimate(list(through_typer)) is None
    runs = [subprocess.run([sys.executable, "-c", "from archgen.cli import main; main()", *args],
                           cwd=REPO, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": str(REPO)})
            for args in (plain, through_typer)]
    assert [(r.returncode, r.stdout, r.stderr) for r in runs[1:]] == [(runs[0].returncode, runs[0].stdout,
                                                                        runs[0].stderr)]
