"""Each `pytest -n N` worker first imports its own share of the test modules, so that a cold start compiles each once.

Every xdist worker collects the whole suite: it imports all 540 test modules, which pytest rewrites (assertions) and
compiles, with the archgen and third-party modules they import, writing the bytecode to `__pycache__`. From a clean
clone (`.ci/run`: nothing compiled yet, pip installs with `--no-compile`) the two workers of `make test` started
together and went through the same modules in the same order, each compiling every one itself: 23.1 and 23.0 CPU-s
of collection against 6.8 for one warm collection (testspeed14, load 4-8). Worker k of N now imports the k-th
N-th of the modules, in collection order, before collecting; its collection then finds the rest compiled by the
others (and its own share already imported), so the compiling is shared out instead of done N times.

Only what is imported, and in which order, changes: the same modules are collected, and a module whose import fails
is left to collection to import again and report. Nothing happens outside a worker, in worker 0 (its share comes
first in its collection anyway), or where the run names single files or ignores paths.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def modules_to_collect(config: pytest.Config) -> list[Path]:
    """The test modules a collection of `config.args` imports, in its order (names sorted at each level); [] where
    the run names files or test ids, or ignores paths."""
    if config.getoption("ignore") or config.getoption("ignore_glob"):
        return []
    folders = [Path(config.invocation_params.dir, arg) for arg in config.args]
    if not all(f.is_dir() for f in folders):
        return []
    files = {p.resolve() for folder in folders for p in folder.rglob("test_*.py")}
    return sorted(files, key=lambda p: p.parts)


def import_own_share(config: pytest.Config) -> None:
    """In worker k of N (`PYTEST_XDIST_WORKER` gwk, `PYTEST_XDIST_WORKER_COUNT` N), import the k-th N-th of
    `modules_to_collect` as collection imports a module (`_pytest.pathlib.import_path`, the same names)."""
    worker, count = os.environ.get("PYTEST_XDIST_WORKER", ""), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or not worker[2:].isdigit() or count < 2 or int(worker[2:]) == 0:
        return
    try:   # pytest's own import of a test module (internal: a pytest without it only loses the head start)
        from _pytest.pathlib import import_path
    except ImportError:
        return
    paths, k = modules_to_collect(config), int(worker[2:])
    for path in paths[len(paths) * k // count:len(paths) * (k + 1) // count]:
        try:
            import_path(path, mode=config.getoption("importmode"), root=config.rootpath,
                        consider_namespace_packages=config.getini("consider_namespace_packages"))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # a skip or an error: collection imports it again and reports it
            continue
