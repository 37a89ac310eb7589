"""A plain `archgen estimate`, `validate` or `check` runs without typer's app (`archgen.cli.plain_command`), as typer
would have run it.

Each argument list is parsed by `plain_command` and by typer's app (the command's body replaced by one that keeps
what it was given): either `plain_command` declines (typer parses it, as always) or both give the same values.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from archgen import cli, cli_app, cli_run
from tests.conftest import REPO, SPECS
from tests.test_startup import ESTIMATE, exit_modules, quick_exit

ERRORS = "tests/errors"

#: Argument lists `plain_command` takes: the values are typer's.
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
    ["validate"],
    ["validate", "specs", "more/specs.yaml", "--debug"],
    ["check"],
    ["check", "specs", "-f", "json", "--output", "out.json", "--select", "PWR,NET004", "--ignore", "NET001"],
    ["--debug", "check", "--strict", "--show-waived", "--as-of", "2026-01-01", "specs", "-o", "a", "-o", "b"],
    ["check", "--strict", "--no-strict", "--show-waived", "--no-show-waived", "--format", "github"],
    ["check", "a", "--format", "sarif", "b", "--no-show-waived", "--select", "x", "--select", "y"],
]
#: Argument lists it leaves to typer's app: help, other spellings, anything typer refuses or reads its own way.
DECLINED = [
    [], ["--version"], ["--help"], ["render", "specs"], ["checks"], ["estimate", "--help"], ["estimate", "-h"],
    ["estimate", "--workload=w"], ["estimate", "-fjson", "--workload", "w"], ["estimate", "--", "--workload"],
    ["estimate", "--workload"], ["estimate", "--workload", "--explain"], ["estimate", "--workload", "-"],
    ["estimate", "--workload", ""], ["estimate", ""], ["estimate", "-"], ["estimate", "--work", "w"],
    ["estimate", "--no-explain"], ["estimate", "--unknown", "x"], ["--debug"], ["schema", "estimate"],
    ["validate", "--help"], ["validate", "--format", "json"], ["validate", "--"], ["validate", "-"],
    ["check", "-h"], ["check", "--select="], ["check", "--select", ""], ["check", "--output", "-"],
    ["check", "--strict=true"], ["check", "--workload", "w"], ["check", "-fjson"], ["check", "--as-of"],
    ["check", "--path", "specs"], ["validate", "--debug", "--strict"],
]


def typer_values(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict]:
    """The command typer's app runs for `archgen ARGS` and what it hands that command's `cli_run` body (and `--debug`)."""
    from typer.testing import CliRunner
    kept: dict = {}

    def keeper(name: str):
        def keep(*values) -> None:
            kept.update(dict(zip(PARAMETERS[name], values, strict=True)), debug=cli_run.STATE["debug"], command=name)
        return keep

    for name in PARAMETERS:
        monkeypatch.setattr(cli_app, f"run_{name}", keeper(name))
    monkeypatch.setitem(cli_run.STATE, "debug", False)
    result = CliRunner().invoke(cli_app.app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return kept.pop("command"), kept


#: Each plain command's parameters, in the order `cli_app` hands them to its `cli_run` body.
PARAMETERS = {
    "estimate": ("positional", "cases", "cluster", "workload", "paths", "fmt", "what_if", "explain", "search_plan",
                 "model_only"),
    "validate": ("paths",),
    "check": ("paths", "fmt", "output", "select", "ignore", "show_waived", "strict", "as_of"),
}


def test_every_plain_command_is_tested():
    assert set(PARAMETERS) == set(cli.DEFAULTS) == {args[[a != "--debug" for a in args].index(True)] for args in TAKEN}
    for name, parameters in PARAMETERS.items():
        assert set(cli.DEFAULTS[name]) == set(parameters), name


@pytest.mark.parametrize("args", TAKEN, ids=" ".join)
def test_a_plain_command_is_parsed_as_typer_parses_it(args, monkeypatch):
    assert cli.plain_command(args) == typer_values(args, monkeypatch)


@pytest.mark.parametrize("args", DECLINED, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_goes_to_typer(args):
    assert cli.plain_command(args) is None


def test_shell_completion_goes_to_typer(monkeypatch):
    monkeypatch.setenv("_ARCHGEN_COMPLETE", "bash_source")
    assert cli.plain_command(["estimate", "--workload", "w"]) is None
    assert cli.plain_command(["check", "specs"]) is None


@pytest.mark.parametrize("args, did", [
    (ESTIMATE, "archgen.perf.train.training"),
    (("validate", str(SPECS)), "archgen.commands.validate"),
    (("check", str(SPECS), "-f", "json"), "archgen.commands.check"),
], ids=lambda a: a if isinstance(a, str) else a[0])
def test_the_console_script_runs_a_plain_command_without_typer(args, did):
    """Through `cli.main` in a fresh interpreter (`test_startup.quick_exit`): no typer, click or app imported."""
    r = quick_exit(*args)
    assert r.returncode == 0, r.stderr
    modules = exit_modules(r)
    assert did in modules  # it ran the command
    assert not {"typer", "click", "archgen.cli_app", "archgen.cli_options"} & modules


@pytest.mark.parametrize("plain, through_typer", [
    (ESTIMATE, ("estimate", "--workload=llama3-70b-pretrain-b200", "--path", ESTIMATE[-1])),
    (("estimate", "--workload", "no-such-workload", "-f", "json"), ("estimate", "--workload=no-such-workload",
                                                                    "-fjson")),
    (("validate", f"{ERRORS}/negative_count.yaml"), ("validate", "--", f"{ERRORS}/negative_count.yaml")),
    (("check", f"{ERRORS}/cage_mismatch.yaml", "--strict"), ("check", "--select=", "--strict", f"{ERRORS}/cage_mismatch.yaml")),
    (("check", f"{ERRORS}/cage_mismatch.yaml", "-f", "github", "--select", "MECH"),
     ("check", "--select=MECH", "-fgithub", f"{ERRORS}/cage_mismatch.yaml")),
], ids=lambda a: " ".join(a))
def test_the_same_output_and_exit_code_either_way(plain, through_typer):
    """The plain parse and typer's app give the same text on stdout and stderr and the same exit code."""
    assert cli.plain_command(list(plain)) is not None and cli.plain_command(list(through_typer)) is None
    runs = [subprocess.run([sys.executable, "-c", "from archgen.cli import main; main()", *args],
                           cwd=REPO, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": str(REPO)})
            for args in (plain, through_typer)]
    assert [(r.returncode, r.stdout, r.stderr) for r in runs[1:]] == [(runs[0].returncode, runs[0].stdout,
                                                                        runs[0].stderr)]
