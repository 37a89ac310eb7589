"""What a command-line process spends outside its command: the cyclic collector during start-up, and the teardown.

Issue 25 (`archgen estimate` at most the CPU of Calculon's CLI). Measured with callgrind on `archgen estimate
--workload llama3-70b-pretrain-b200` (3.35 G instructions): automatic collections cost 3.1 % and the interpreter's
teardown 4.0 % (`Py_FinalizeEx`: two full collections and every module's objects freed one by one).

- `pause_gc` (the CLI's `main` only; a library caller keeps its own collector): start-up (imports, pydantic schemas,
  the pint registry, loaded and validated specs) allocates some two million container objects that live until the
  process ends; the collector examines each of them in generation 0, again in generation 1 and in full
  collections, and frees almost nothing. `resume_gc` (after validation, where every spec-reading command has
  finished its start-up) moves them into the permanent generation (`gc.freeze`, never examined again) and turns
  collection back on, so the analyses, sweeps and checks that follow collect as before. A command that reads no
  specs (`--version`, `schema`, `checks`) ends with it paused.
- `exit_now`: what the interpreter does at exit that can be seen (non-daemon threads joined, `atexit` handlers run,
  standard streams flushed), then `os._exit`, skipping the teardown that frees what the OS frees anyway. Where a
  flush fails (a closed pipe), the code is not an int, or this interpreter lacks the hooks, the ordinary exit runs.

Neither changes an output or an exit code (`tests/test_startup.py`).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from typing import NoReturn

_paused = False


def pause_gc() -> None:
    """Stop automatic garbage collection until `resume_gc` (a no-op where it is already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_gc() -> None:
    """Freeze what start-up allocated and collect automatically again, if `pause_gc` stopped it; else nothing."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def exit_now(stop: SystemExit) -> NoReturn:
    """End the process as `raise stop` would, without the interpreter's teardown (see the module's doc)."""
    code = 0 if stop.code is None else stop.code
    join = getattr(threading, "_shutdown", None)
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if not isinstance(code, int) or join is None or run_exit_handlers is None:
        raise stop
    join()                   # as Py_FinalizeEx: threads first, then the atexit handlers, then the streams
    run_exit_handlers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a reader that went away: the interpreter reports it as it always did
        raise stop from None
    os._exit(code)
