"""The pipeline runs of the in-process command line, once per test process for the same tree and options.

Tests run the same command on the same files again and again in other forms: `diff A B`, then with `--format json`,
then `--audience customer`; `check specs/` in text, JSON and SARIF. Each run of the command ran the pipeline on the
same files afresh. Counted with `-n 0` over tests/test_[a-z]*.py at the start of tests32, 136 + 28 pipeline runs
repeated one the process had made with the same arguments, from the same folder, on files of the same names and bytes
(10.4 + 4.5 of 100.7 CPU-s of pipeline runs), nearly all inside `conftest.run_cli`.

Inside `run_cli` (`cli_runs`) and `shared_results.shared_results` (a test module that times nothing), while nothing
is patched (`shared_results.patched`), `archgen.pipeline.run` gives the `Run` it gave before for the same key
(`run_key`): the arguments, the working directory, the date (the day waivers' `expires` is judged on by default),
the environment variables archgen reads (`ARCHGEN_*`, `SOURCE_DATE_EPOCH`), and the name, real path and bytes of
every file the run reads (the spec files `find_files` gives, the catalog's). The commands only read a `Run` (a frozen
value; stages return new values, STYLE habit 3) and print or write what it holds, so the same object serves them all
(`tests/test_shared_runs.py` holds check, render, diff and gap, the only commands that call `pipeline.run`, to
leaving it as they found it, pickled byte for byte; sweep, catalog and the rest make no run to share); a test that
calls `pipeline.run` itself always gets a run of its own. No key (a tree with a named pipe, a link to
something that is not a file, more than `MOST_FILES` files, a path that raises) runs the pipeline as always.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import os
from collections.abc import Iterator
from typing import Any

#: The runs kept, by `run_key`.
_RUNS: dict[tuple[Any, ...], Any] = {}
#: Whether a `run_cli` is under way in this process.
_IN_CLI = [False]
#: Past this many files a tree's run is not kept (the hostile trees of thousands of files: the key would read them all).
MOST_FILES = 1000


def run_key(args: tuple[Any, ...], options: dict[str, Any]) -> tuple[Any, ...] | None:
    """What decides a `pipeline.run(*args, **options)`, or None where it cannot be told without running it.

    The files' part is the console script's own content key of what `load` reads (`snapshot._key`: each spec file
    and the catalog by name, real path and bytes, the working directory, archgen's code), so a tree it keeps no
    snapshot for (a named pipe, a path it refuses) is run as always here too."""
    from archgen.snapshot import _key
    from archgen.spec_files import find_files

    paths = args[0] if args else options.get("paths", ())
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    try:
        if len(find_files(paths)) > MOST_FILES:
            return None
    except Exception:   # noqa: BLE001 - whatever the run would say of the tree, it says it itself
        return None
    content = _key(paths, options.get("catalog"))
    if content is None:
        return None
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("ARCHGEN_") or k == "SOURCE_DATE_EPOCH"))
    return (repr(args), repr(sorted(options.items())), datetime.date.today(), env, content)


def share() -> None:
    """Have `archgen.pipeline.run` keep the runs of `run_cli` (once a process, before any command imports it)."""
    from archgen import pipeline

    if getattr(pipeline.run, "_archgen_shared", False):
        return
    original = pipeline.run

    @functools.wraps(original)
    def run(*args: Any, **options: Any) -> Any:
        from tests.shared_results import active, patched

        if not (_IN_CLI[0] and active()) or patched():
            return original(*args, **options)
        key = run_key(args, options)
        if key is None:
            return original(*args, **options)
        if key not in _RUNS:
            _RUNS[key] = original(*args, **options)
        return _RUNS[key]

    run._archgen_shared = True  # type: ignore[attr-defined]
    pipeline.run = run


@contextlib.contextmanager
def cli_runs() -> Iterator[None]:
    """Inside it (`run_cli`), a pipeline run of a key run before is not run again (module docstring)."""
    outer = _IN_CLI[0]
    _IN_CLI[0] = True
    try:
        yield
    finally:
        _IN_CLI[0] = outer
