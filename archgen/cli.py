"""The command line's entry point: `main`, the `archgen` console script. With `cli_app` and `cli_run`, the only printer.

The commands, their arguments and help are typer's app (`archgen.cli_app`, also `archgen.cli.app`); a command's
text is printed and its exit code returned by `archgen.cli_run` (exit codes there).

A plain `archgen estimate`, `validate` or `check` (issue 25: `estimate`'s CPU against Calculon's `llm`) is parsed
here and run without building typer's app: importing typer and building the app's commands cost 100-150 ms of CPU
(typer's own modules and click's, and a pydantic adapter per parameter), some 10 % of an estimate and 15 % of a
`validate`. `plain_command` takes only the arguments whose meaning is plain: one of these commands with its
positional paths, its options given as `--option VALUE` and its flags (`DEFAULTS`, `VALUES`, `FLAGS`), and `--debug`
anywhere; anything else (help, `--opt=VALUE`, `--`, an unknown option, a value that starts with `-`, an empty value,
shell completion, every other command) goes to typer's app, which parses, explains and refuses as always. Both give
the command the same values (`tests/test_cli_plain.py` holds them to typer's parse).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, TextIO

from archgen.startup import console_script, exit_now, one_blas_thread, pause_gc, reuse_generated_code

#: The commands parsed here, each with the parameters `cli_run`'s body takes and typer's values when not given (a
#: list not given is None to typer): its options that take a value (the parameter each fills and whether it repeats;
#: a single one given twice keeps the last value, as click does) and its flags (the parameter each sets, and to what).
#: `--debug`, the group's, may stand anywhere (`cli_options.Group`); positional words are the command's paths.
DEFAULTS: dict[str, dict[str, Any]] = {
    "estimate": {"positional": [], "cases": None, "cluster": None, "workload": None, "paths": [], "fmt": "text",
                 "what_if": [], "explain": False, "search_plan": False, "model_only": False},
    "validate": {"paths": []},
    "check": {"paths": [], "fmt": "text", "output": None, "select": "", "ignore": "", "show_waived": False,
              "strict": False, "as_of": None},
}
VALUES: dict[str, dict[str, tuple[str, bool]]] = {
    "estimate": {"--cases": ("cases", False), "--cluster": ("cluster", False), "--workload": ("workload", False),
                 "--path": ("paths", True), "--format": ("fmt", False), "-f": ("fmt", False),
                 "--what-if": ("what_if", True)},
    "validate": {},
    "check": {"--format": ("fmt", False), "-f": ("fmt", False), "--output": ("output", False),
              "-o": ("output", False), "--select": ("select", False), "--ignore": ("ignore", False),
              "--as-of": ("as_of", False)},
}
FLAGS: dict[str, dict[str, tuple[str, bool]]] = {
    "estimate": {"--explain": ("explain", True), "--search-plan": ("search_plan", True),
                 "--model-only": ("model_only", True)},
    "validate": {},
    "check": {"--show-waived": ("show_waived", True), "--no-show-waived": ("show_waived", False),
              "--strict": ("strict", True), "--no-strict": ("strict", False)},
}
#: The parameter positional words fill, and the parameters whose values are paths.
POSITIONAL = {"estimate": "positional", "validate": "paths", "check": "paths"}
PATHS = {"positional", "paths", "cases", "output"}


def plain_command(args: list[str]) -> tuple[str, dict[str, Any]] | None:
    """`archgen ARGS`'s command and parameters if `cli_app` would parse them the same way (`DEFAULTS`), else None."""
    rest = [a for a in args if a != "--debug"]
    if not rest or rest[0] not in DEFAULTS or any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return None
    name = rest[0]
    params = {k: list(v) if isinstance(v, list) else v for k, v in DEFAULTS[name].items()}
    values, flags = VALUES[name], FLAGS[name]
    words = iter(rest[1:])
    for word in words:
        if word in flags:
            key, setting = flags[word]
            params[key] = setting
        elif word in values:
            value = next(words, "")
            if not value or value.startswith("-"):
                return None
            key, repeats = values[word]
            given: Any = Path(value) if key in PATHS else value
            if repeats:
                params[key].append(given)
            else:
                params[key] = given
        elif word and not word.startswith("-"):
            params[POSITIONAL[name]].append(Path(word))
        else:
            return None
    params = {k: v if v != [] else None for k, v in params.items()}   # typer's None for a list not given
    return name, {**params, "debug": len(rest) < len(args)}


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


def _plain(name: str, params: dict[str, Any]) -> None:
    """Run a plain command as typer's app runs it (`typer.core.main`: an interrupt exits 130, a closed pipe 1)."""
    from archgen import cli_run
    cli_run.STATE["debug"] = params.pop("debug")
    try:
        getattr(cli_run, f"run_{name}")(**params)
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
        plain = plain_command(sys.argv[1:])
        if plain is None:
            from archgen.cli_app import app
            app()
        else:
            _plain(*plain)
    except SystemExit as stop:
        exit_now(stop)


if __name__ == "__main__":  # python -m archgen.cli
    main()
