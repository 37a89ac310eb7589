"""The performance model's two costliest pure functions, run once per test process for the same arguments.

The suite runs the same estimates again and again: `diff`, `check`, `estimate`, sweeps and documents of the shipped
specs (or copies of them) in test after test, each pipeline run estimating every workload afresh. Counted over the
suite at the start of testspeed6 (`-n 0`, less the fuzz and mypy): `perf.workload.cluster.estimate` was called 4,794
times, 4,053 of them with arguments an earlier call in the process had (pickled bytes equal), 66.6 of its 84.1
CPU-s; `perf.serve.scheduler.simulate` 1,605 times, 734 repeated (6.5 of 18.3 CPU-s; some inside the repeated estimates,
the rest in case files' scoring).

`shared_results` makes a repeated call return what the first call returned: both functions read nothing but their
arguments and the model's modules (a sweep's, a spec's or the catalog's changes are in the arguments; the model reads
no environment variable), are deterministic (the suite holds outputs byte for byte, and an open loop's arrivals come
from its seed), and every return is a fresh unpickled copy, so no caller can change what the next one gets.
`simulate`'s `timing`, iteration times of the same hardware, job and tp that a caller evaluated once for two runs,
changes how long a run takes, not what it finds, and is left out of the key.

What a test changes in the model's modules (a constant, a function) is not in the key, so while anything is patched
(a `pytest.MonkeyPatch` has set or deleted an attribute or item, `setenv` included, and not undone it; a
`unittest.mock` patch is in force) every call is computed, and kept for no later one (`patched`). A test module that
times something (`process_time`, `perf_counter`: a hang guard would time a copy) runs without it (`applies`).
"""

from __future__ import annotations

import contextlib
import functools
import pickle
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

#: Words whose presence in a test module's text keeps the shared results out of its tests (module docstring).
TIMED = ("process_time", "perf_counter")
#: What each function returned, by function and pickled arguments: {(name, key): pickled result}.
_RESULTS: dict[tuple[str, bytes], bytes] = {}
#: Whether `shared_results` is in force (`active`; `tests.shared_runs` shares the command line's runs only then).
_ACTIVE = [False]
#: The monkeypatches with a change not undone, and the mock patches in force.
_PATCHING: weakref.WeakSet[Any] = weakref.WeakSet()
_MOCKS: set[int] = set()


@functools.cache
def applies(path: str) -> bool:
    """Whether the tests of the module at `path` run with the shared results: it times nothing (`TIMED`)."""
    text = Path(path).read_text(encoding="utf-8")
    return not any(word in text for word in TIMED)


def active() -> bool:
    """Whether a `shared_results` context is in force."""
    return _ACTIVE[0]


def patched() -> bool:
    """Whether any monkeypatch or mock patch is in force (`watch_patches`)."""
    return bool(_MOCKS) or any(_PATCHING)


def watch_patches() -> None:
    """Have `pytest.MonkeyPatch` and `unittest.mock`'s patches say when they are in force (`patched`); once a
    process."""
    if getattr(pytest.MonkeyPatch, "_archgen_watched", False):
        return
    mp: Any = pytest.MonkeyPatch

    def changing(original: Any) -> Any:
        def changes(self: Any, *args: Any, **kwargs: Any) -> Any:
            _PATCHING.add(self)
            return original(self, *args, **kwargs)
        return changes
    for name in ("setattr", "delattr", "setitem", "delitem"):
        setattr(mp, name, changing(getattr(mp, name)))

    def undo(self: Any, _original: Any = mp.undo) -> None:
        _original(self)
        _PATCHING.discard(self)
    mp.undo = undo
    for cls in (mock._patch, mock._patch_dict):  # type: ignore[attr-defined]
        def enter(self: Any, _original: Any = cls.__enter__) -> Any:
            result = _original(self)
            _MOCKS.add(id(self))
            return result

        def leave(self: Any, *args: Any, _original: Any = cls.__exit__) -> Any:
            _MOCKS.discard(id(self))
            return _original(self, *args)
        cls.__enter__, cls.__exit__ = enter, leave
    mp._archgen_watched = True


def _shared(name: str, original: Any, skip: tuple[str, ...] = ()) -> Any:
    """`original`, its result for arguments seen before (pickled, less the keywords `skip`) a copy of the first."""

    def call(*args: Any, **options: Any) -> Any:
        if patched():
            return original(*args, **options)
        try:
            key = (name, pickle.dumps((args, sorted((k, v) for k, v in options.items() if k not in skip))))
        except (pickle.PicklingError, TypeError, AttributeError):
            return original(*args, **options)
        if key in _RESULTS:
            return pickle.loads(_RESULTS[key])
        result = original(*args, **options)
        with contextlib.suppress(pickle.PicklingError, TypeError, AttributeError):
            _RESULTS[key] = pickle.dumps(result)
        return result

    return call


@contextlib.contextmanager
def shared_results() -> Iterator[None]:
    """Inside it, `perf.workload.cluster.estimate` (what `estimate_on_cluster`, the one way the pipeline, `archgen
    estimate` and sweeps estimate a job, calls) and `perf.serve.scheduler.simulate` return what an earlier call with
    the same arguments returned in this process (module docstring)."""
    from archgen.perf.serve import scheduler
    from archgen.perf.workload import cluster

    watch_patches()
    originals = cluster.estimate, scheduler.simulate
    cluster.estimate = _shared("estimate", originals[0])
    scheduler.simulate = _shared("simulate", originals[1], skip=("timing",))
    _ACTIVE[0] = True
    try:
        yield
    finally:
        cluster.estimate, scheduler.simulate = originals
        _ACTIVE[0] = False
