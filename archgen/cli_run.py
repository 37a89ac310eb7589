"""How the command line runs a command: print the text it returns (or write it to a file), exit with its code.

Exit codes: 0 clean, 1 the specs have error findings (or a diff or gap found a failing requirement; a
`ValidateError`), 2 any other error (`archgen.errors`: usage, load, build, analyse or render) or an internal error.
Apart from `archgen.cli` (split from it with `archgen.cli_app`): with these three modules, the command line is the
only printer. No typer here: `archgen.cli` runs `estimate`, `validate` and `check` through this module without
building typer's app.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from archgen.errors import ArchgenError
from archgen.spec_files import inert

#: `--debug`: tracebacks for every error (`archgen.cli_app.main_options`, or `archgen.cli`'s own parse).
STATE = {"debug": False}


def write(text: str, output: Path | None, raw: bool = False) -> None:
    """Print `text` (`inert` unless `raw`: GitHub's own annotations), or write it to `output` atomically."""
    if output is None:
        sys.stdout.write(text if raw else inert(text))
        return
    from archgen.commands.common import check_output_file
    from archgen.render.files import write_atomic
    check_output_file(output)
    write_atomic(output, text.encode())


def note(text: str) -> None:
    """What a command says beside its output (a note, a warning): on stderr, `inert`."""
    print(inert(text), file=sys.stderr)


def _trace() -> None:
    """With `--debug`, the traceback of a user error too (for reporting a message that looks wrong)."""
    if STATE["debug"]:
        traceback.print_exc()


def run(command: Callable[[], tuple[str, int]], output: Path | None = None, raw: bool = False) -> None:
    """Run a command; print its text (or write it to `output`) and exit with its code."""

    def body() -> int:
        text, code = command()
        write(text, output, raw)
        return code

    guarded(body)


def guarded(func: Callable[[], int]) -> None:
    """Run a command body; turn user errors into messages and exit codes, other errors into a bug report.

    Ends with `SystemExit(code)`, which typer's app lets through to its caller as it does its own `Exit`.
    """
    try:
        code = func()
        sys.stdout.flush()  # a closed pipe shows here, not at exit
    except ArchgenError as err:  # its kind says the stage that failed and the exit code (`archgen.errors`)
        _trace()
        from archgen.output.capped import report
        note(report(err))                        # at most `capped.PER_FILE` problems of a file
        code = err.exit_code
    except (KeyboardInterrupt, BrokenPipeError):  # the caller exits 1 quietly on a broken pipe (click's rule)
        raise
    except Exception:  # a bug in archgen, not a user mistake
        traceback.print_exc()
        print("internal error: this is a bug in archgen; please report it with the traceback above.", file=sys.stderr)
        code = 2
    raise SystemExit(code)


def run_validate(paths: list[Path] | None) -> None:
    """`archgen validate` with its parsed arguments (typer's, `archgen.cli_app.validate`, or `archgen.cli`'s own)."""
    from archgen.commands.validate import validate as command
    run(lambda: command(paths))


def run_check(paths: list[Path] | None, fmt: str, output: Path | None, select: str, ignore: str, show_waived: bool,
              strict: bool, as_of: str | None) -> None:
    """`archgen check` with its parsed arguments (typer's, `archgen.cli_app.check`, or `archgen.cli`'s own)."""
    from archgen.commands.check import check as command
    from archgen.commands.common import check_output_file

    def body() -> tuple[str, int]:
        check_output_file(output)
        return command(paths, fmt, select, ignore, show_waived, strict, as_of)

    run(body, output, raw=fmt == "github")   # annotations are GitHub's workflow commands, each escaped


def run_estimate(positional: list[Path] | None, cases: Path | None, cluster: str | None, workload: str | None,
                 paths: list[Path] | None, fmt: str, what_if: list[str] | None, explain: bool, search_plan: bool,
                 model_only: bool) -> None:
    """`archgen estimate` with its parsed arguments (typer's, `archgen.cli_app.estimate`, or `archgen.cli`'s own)."""
    from archgen.commands.common import existing_spec_paths
    from archgen.commands.estimate import run as command
    given = [*(positional or ()), *(paths or ())]
    run(lambda: command(cases, cluster, workload, existing_spec_paths(given), fmt, what_if, explain, search_plan,
                        model_only))
