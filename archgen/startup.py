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
  flush fails (a closed pipe), the code is not an int, this interpreter lacks the hooks, or a profiler, tracer or
  coverage tool watches the process (`watched`: `python -m cProfile -o FILE` writes FILE only once `SystemExit`
  reaches it), the ordinary exit runs.

- `reuse_generated_code` (the CLI's `main` only, before pydantic, pint and archgen's modules are imported; a test
  or library process does not read or write the file): `dataclasses` writes each
  method of each class (`__init__`, `__repr__`, `__eq__`, ...) as source text and compiles it with `exec`, some
  1,100 functions for `archgen estimate`, a fifth of its instructions in Python 3.11. The code compiled from each
  text is kept in the cache directory (`code/<interpreter tag>-each.marshal`, each code marshalled on its own,
  unmarshalled when a class asks for it; sealed with the cache key as pint's pickles are: a file without this
  machine's seal is never read) and reused by the next process; `exec` of a text and of the code compiled from it
  are the same, so every class is the same.

- `one_blas_thread` (the CLI's `main` only, before numpy is imported): numpy's OpenBLAS starts a worker thread per
  core when it loads, whose start and spin-wait cost 20-70 ms of CPU on a two-core machine (`import numpy`: 0.17 s
  of CPU against 0.10 s with one thread, idle; 0.12 against 0.10 under load). archgen calls no BLAS routine (no
  matrix product, solve or decomposition: the model's arrays are element-wise), so the threads do nothing but cost;
  `OPENBLAS_NUM_THREADS=1` (OpenBLAS's documented setting) is set unless the user set a thread count
  (`OPENBLAS_NUM_THREADS`, `GOTO_NUM_THREADS`, `OMP_NUM_THREADS`). Processes the command starts inherit it.
- `keep_freed_memory` (`archgen sweep` in the console script, and each `--workers` process,
  `commands.workers.executor`; not the other commands, which would pay ctypes' import, 3-7 ms, for nothing): glibc's
  malloc gives the large blocks numpy allocates (a sweep's batch holds arrays of 1-8 MB) pages of their own and
  hands them back to the system when freed, so every page of every array is faulted in anew: 55,000-62,000 page
  faults per 16,680 points of the 10^5-point bench sweep, 4 µs each on the 2-vCPU VM it was measured on (a loop
  that allocates and frees 8 MB arrays: 4.9 s of CPU with 998,054 faults, 0.6-0.8 s with 1,031). With blocks up to
  `MMAP_THRESHOLD` taken from the heap and up to `TRIM_THRESHOLD` of freed heap kept (mallopt(3)), the same points
  fault 6,400-7,300 times and the process's peak memory is the same (173-179 MB). Only glibc has these settings;
  elsewhere it does nothing.
- `console_script` (the CLI's `main` only): marks the process as the console script's, the one that keeps its
  validated specs in the cache directory between runs (`archgen.snapshot`); a library caller or a test process does
  not read or write them.

None changes an output or an exit code (`tests/test_startup.py`).
"""

from __future__ import annotations

import atexit
import builtins
import gc
import marshal
import os
import sys
import threading
from importlib.util import MAGIC_NUMBER
from typing import Any, NoReturn

_paused = False
_console = False


#: The variables by which OpenBLAS is told how many threads to start, in its order of precedence.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def one_blas_thread() -> None:
    """Have numpy's OpenBLAS start no worker threads, unless the user chose a count or numpy is already loaded."""
    if "numpy" not in sys.modules and not any(os.environ.get(name) for name in BLAS_THREADS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


#: mallopt(3): blocks up to this size come from the heap, not a mapping of their own (M_MMAP_THRESHOLD, 32 MiB:
#: the largest glibc documents on 64-bit systems, DEFAULT_MMAP_THRESHOLD_MAX).
MMAP_THRESHOLD = 32 << 20
#: mallopt(3): freed memory at the top of the heap goes back to the system only beyond this (M_TRIM_THRESHOLD).
TRIM_THRESHOLD = 512 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h


def keep_freed_memory() -> bool:
    """Have glibc's malloc keep large freed blocks for reuse (module docstring); whether it took the settings."""
    if sys.platform != "linux":
        return False
    import ctypes
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library this process runs on
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def console_script() -> None:
    """Mark this process as the console script's (`cli.main`): it may keep its validated specs (`archgen.snapshot`).

    The code the process runs is taken (`code_version.digest`, and the parser's, `parser_sources`) before the command
    imports any of it, so that a module edited while it runs keys what it keeps on the code as it was at the start:
    an entry made partly by the edited code is then never read (no later process sees that code), rather than served
    as the edited code's.
    """
    global _console
    _console = True
    from archgen import code_version
    code_version.digest()
    code_version.parser_sources()


def is_console_script() -> bool:
    """Whether `console_script` marked this process."""
    return _console


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


#: Modules of the tools that wrap a command and write what they measured after it returns (cProfile's and profile's
#: `-o` file, coverage's data): seen in `sys.modules` too, since a tool hooking in through `sys.monitoring` (Python
#: 3.12 on) shows in neither `sys.getprofile` nor `sys.gettrace`.
WATCHERS = ("cProfile", "profile", "coverage")


def watched() -> bool:
    """Whether a profiler, tracer or coverage tool watches this process (`exit_now` then exits the ordinary way)."""
    return (sys.getprofile() is not None or sys.gettrace() is not None
            or any(name in sys.modules for name in WATCHERS))


def exit_now(stop: SystemExit) -> NoReturn:
    """End the process as `raise stop` would, without the interpreter's teardown (see the module's doc)."""
    code = 0 if stop.code is None else stop.code
    join = getattr(threading, "_shutdown", None)
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if not isinstance(code, int) or join is None or run_exit_handlers is None or watched():
        raise stop
    join()                   # as Py_FinalizeEx: threads first, then the atexit handlers, then the streams
    run_exit_handlers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a reader that went away: the interpreter reports it as it always did
        raise stop from None
    os._exit(code)


#: The code compiled from each method text of `dataclasses` (`reuse_generated_code`), by the text: the code object, or
#: its marshalled bytes until a class asks for it. Each start reads the whole file; past `MAX_CODE` entries a process
#: that compiled one keeps only those it used (`archgen estimate`: about 900). The file holds each code marshalled
#: on its own, so a start unmarshals only the code it runs: `estimate` against a full file (2,048 entries, 3.1 MB,
#: the texts of every command), 14 ms of unmarshalling became 1 ms for the table and 3 ms for its 900 codes.
_CODE: dict[str, Any] = {}
_USED: set[str] = set()
MAX_CODE = 2048
_saving = False


def _exec(source: Any, globals: Any = None, locals: Any = None, /, **kw: Any) -> None:
    """`exec`, with a text compiled once and its code kept (`dataclasses` calls `exec` by this module-level name)."""
    if isinstance(source, str):
        code = _CODE.get(source)
        if isinstance(code, bytes):  # kept, not yet unmarshalled
            try:
                code = _CODE[source] = marshal.loads(code)
            except (EOFError, ValueError, TypeError):  # not ours: compiled anew
                code = None
        if code is None:
            code = _CODE[source] = compile(source, "<string>", "exec")  # what `exec` of the text compiles
            _save_at_exit()
        _USED.add(source)
        source = code
    builtins.exec(source, globals, locals, **kw)


#: The cache entry of this interpreter's compiled method code (`cache`: kind, key, suffix), sealed as every entry is.
#: "-each": each code marshalled on its own; archgen before it kept whole code objects in `<tag>.marshal` and would
#: `exec` these bytes as source, so the two never share a file (two versions of archgen on one machine).
_ENTRY = ("code", f"{sys.implementation.cache_tag}-each" if sys.implementation.cache_tag else "", ".marshal")


def reuse_generated_code() -> None:
    """Have `dataclasses` reuse the code of method texts compiled before (see the module's doc); errors ignored."""
    import dataclasses

    from archgen import cache
    body = cache.load_bytes(*_ENTRY) if _ENTRY[1] else None
    if body is not None and body.startswith(MAGIC_NUMBER):
        try:
            _CODE.update(marshal.loads(body[len(MAGIC_NUMBER):]))
        except (EOFError, ValueError, TypeError):  # cut short, or not ours: compile anew
            pass
    if len(_CODE) > MAX_CODE:  # too much to read at each start: this process writes back what it uses
        _save_at_exit()

    dataclasses.exec = _exec  # type: ignore[attr-defined]  # the module's own name `exec` shadows the builtin


def _save_at_exit() -> None:
    """Have `_save` run at exit, once (a process that compiled a text, or read more than `MAX_CODE`)."""
    global _saving
    if not _saving:
        _saving = True
        atexit.register(_save)


def _save() -> None:
    """Write the kept code, sealed; past `MAX_CODE` entries, only those this process used."""
    if not _ENTRY[1]:
        return
    from archgen import cache
    kept = _CODE if len(_CODE) <= MAX_CODE else {text: _CODE[text] for text in _USED}
    try:
        body = MAGIC_NUMBER + marshal.dumps({text: code if isinstance(code, bytes) else marshal.dumps(code)
                                             for text, code in kept.items()})
    except ValueError:
        return
    cache.store_bytes(*_ENTRY[:2], body, _ENTRY[2])
