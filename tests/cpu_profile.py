"""CPU seconds per test phase, collection and worker: `pytest -p tests.cpu_profile` with `ARCHGEN_CPU_PROFILE=DIR`.

Each process (an xdist worker, or the one process of `-n 0`) writes `DIR/<worker>.json`: a list of
[node id, phase, CPU-s, wall clock at the phase's end (Unix seconds)] rows, phase one of setup, call, teardown, plus
one "collect" row and one "total" row (the process's CPU from its start to its end). CPU is user + system of the process and of the children it waited for
(`resource.getrusage`: Chromium, mypy, a test's child interpreters), so it measures what a test costs the machine
where `--durations` measures the wall clock, which other work on a shared machine stretches.
The wall clock at each phase's end gives the schedule: where one worker finished long before the other, the run
ended on one core (`tail`); suite39's `make test` had none (the last tests of its two workers ended 3.2 s apart).
`python -m tests.cpu_profile DIR [N]` prints the totals, the tail and the N largest files and test phases.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import resource
import sys
import time

import pytest

_ROWS: list[list] = []


def _cpu() -> float:
    own, waited = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):  # type: ignore[no-untyped-def]
    start = _cpu()
    yield
    _ROWS.append(["<collect>", "collect", _cpu() - start, time.time()])


def _phase(name: str):  # type: ignore[no-untyped-def]
    @pytest.hookimpl(hookwrapper=True)
    def hook(item):  # type: ignore[no-untyped-def]
        start = _cpu()
        yield
        _ROWS.append([item.nodeid, name, _cpu() - start, time.time()])
    return hook


pytest_runtest_setup = _phase("setup")
pytest_runtest_call = _phase("call")
pytest_runtest_teardown = _phase("teardown")


def pytest_unconfigure(config):  # type: ignore[no-untyped-def]
    folder = os.environ.get("ARCHGEN_CPU_PROFILE")
    if folder:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(folder, f"{worker}.json"), "w", encoding="utf-8") as f:
            json.dump([*_ROWS, ["<total>", "total", _cpu(), time.time()]], f)


def tail(rows: list[list]) -> str | None:
    """How long the run went on after one worker's last test ended while another's still ran (the wall seconds one
    core stood idle at the end), with the worker that ran last; None without two workers' wall clocks."""
    ends: dict[str, float] = {}
    for worker, _, phase, _, *wall in rows:
        if phase in ("setup", "call", "teardown") and worker != "main" and wall:
            ends[worker] = max(ends.get(worker, wall[0]), wall[0])
    if len(ends) < 2:
        return None
    last = max(ends, key=ends.__getitem__)
    return f"tail {ends[last] - min(ends.values()):.1f} s: {last} ran on after the first worker's last test ended"


def summary(folder: str, top: int = 40) -> str:
    """The workers' totals, collection, the tail, and the `top` largest test files and test phases, in CPU-s."""
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        worker = os.path.basename(path)[:-5]
        with open(path, encoding="utf-8") as f:
            rows += [[worker, *r] for r in json.load(f)]
    # the controller's total holds its workers' (they are its children); without workers it is the run
    totals = {w: c for w, _, phase, c, *_ in rows if phase == "total"}
    workers = {w: c for w, c in totals.items() if w != "main"}
    files: collections.Counter = collections.Counter()
    phases: collections.Counter = collections.Counter()
    for _, node, phase, c, *_ in rows:
        if phase in ("setup", "call", "teardown"):
            files[node.split("::")[0]] += c
            phases[(node, phase)] += c
    lines = [f"run {totals.get('main', sum(workers.values())):.1f} CPU-s; workers "
             + ", ".join(f"{w} {c:.1f}" for w, c in sorted(workers.items())),
             "collection " + ", ".join(f"{w} {c:.1f}" for w, _, phase, c, *_ in rows if phase == "collect"),
             f"tests {sum(files.values()):.1f} CPU-s in {len({n for _, n, p, *_ in rows if p == 'call'})} tests",
             *filter(None, [tail(rows)]), "-- by file"]
    lines += [f"{c:7.2f}  {name}" for name, c in files.most_common(top)]
    lines += ["-- by test and phase"]
    lines += [f"{c:7.2f}  {phase:8} {node}" for (node, phase), c in phases.most_common(top)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40))
