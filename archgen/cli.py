"""The command line's entry point: `main`, the `archgen` console script. With `cli_app` and `cli_run`, the only printer.

The commands, their arguments and help are typer's app (`archgen.cli_app`, also `archgen.cli.app`); a command's
text is printed and its exit code returned by `archgen.cli_run` (exit codes there).

A plain `archgen estimate` (issue 25: its CPU against Calculon's `llm`) is parsed here and run without building
typer's app: importing typer and building the app's commands cost 100-150 ms of CPU (typer's own modules and click's,
and a pydantic adapter per parameter), some 10 % of the estimate. `plain_estimate` takes only the arguments whose
meaning is plain: `estimate` with its positional paths, its options given as `--option VALUE` and its flags, and
`--debug` anywhere; anything else (help, `--opt=VALUE`, `--`, an unknown option, a value that starts with `-`, an
empty value, shell completion) goes to typer's app, which parses, explains and refuses as always. Both give the
command the same values (`tests/test_cli_plain.py` holds them to typer's parse).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, TextIO

from archgen.startup import console_script, exit_now, one_blas_thread, pause_gc, reuse_generated_code

#: `estimate`'s options that take a value: the parameter each fills and whether it repeats (a single one given twice
#: keeps the last value, as click does).
VALUES = {"--cases": ("cases", False), "--cluster": ("cluster", False), "--workload": ("workload", False),
          "--path": ("paths", True), "--format": ("fmt", False), "-f": ("fmt", False), "--what-if": ("what_if", True)}
#: `estimate`'s flags (and the group's `--debug`, which `cli_options.Group` takes anywhere before `--`).
FLAGS = {"--explain": "explain", "--search-plan": "search_plan", "--model-only": "model_only", "--debug": "debug"}


def plain_estimate(args: list[str]) -> dict[str, Any] | None:
    """`archgen ARGS`'s parameters if it is an `estimate` `cli_app.estimate` would parse the same way, else None."""
    rest = [a for a in args if a != "--debug"]
    if not rest or rest[0] != "estimate" or any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return None
    params: dict[str, Any] = {"positional": [], "cases": None, "cluster": None, "workload": None, "paths": [],
                              "fmt": "text", "what_if": [], "explain": False, "search_plan": False,
                              "model_only": False, "debug": len(rest) < len(args)}
    words = iter(rest[1:])
    for word in words:
        if word in FLAGS:
            params[FLAGS[word]] = True
        elif word in VALUES:
            value = next(words, "")
            if not value or value.startswith("-"):
                return None
            name, repeats = VALUES[word]
            if repeats:
                params[name].append(Path(value) if name == "paths" else value)
            else:
                params[name] = Path(value) if name == "cases" else value
        elif word and not word.startswith("-"):
            params["positional"].append(Path(word))
        else:
            return None
    return {k: v if v != [] else None for k, v in params.items()}   # typer's None for a list not given


class _PipeSafe:
    """A stream whose `flush` ignores a closed pipe (click's `PacifyFlushWrapper`)."""

    def __init__(self, wrapped: TextIO) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        """Flush, unless the reader has gone."""
        try:
            self.wrapped.flush()
        except BrokenPipeError:
            pass

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.wrapped, attr)


def _estimate(params: dict[str, Any]) -> None:
    """Run a plain `estimate` as typer's app runs it (`typer.core.main`: an interrupt exits 130, a closed pipe 1)."""
    from archgen.cli_run import STATE, run_estimate
    STATE["debug"] = params.pop("debug")
    try:
        run_estimate(**params)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except BrokenPipeError:
        sys.stdout, sys.stderr = _PipeSafe(sys.stdout), _PipeSafe(sys.stderr)
        raise SystemExit(1) from None


def __getattr__(name: str) -> Any:
    """`archgen.cli.app`: typer's app (`archgen.cli_app`), imported when asked for (PEP 562)."""
    if name == "app":
        from archgen.cli_app import app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point: start-up as a shell tool's (`archgen.startup`, `archgen.snapshot`).

    No collector at start-up, no teardown, no BLAS threads; the dataclass code and the validated specs reused.
    """
    pause_gc()
    one_blas_thread()
    console_script()
    reuse_generated_code()  # the console script's process only: pydantic, pint and archgen import after this
    try:
        params = plain_estimate(sys.argv[1:])
        if params is None:
            from archgen.cli_app import app
            app()
        else:
            _estimate(params)
    except SystemExit as stop:
        exit_now(stop)


if __name__ == "__main__":  # python -m archgen.cli
    main()
