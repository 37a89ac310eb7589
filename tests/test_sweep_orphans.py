"""`--workers` processes end with the sweep that forked them, however it ends (newuser40).

A sweep killed by SIGTERM (`kill PID`, `timeout`, a batch system's cancel) or SIGKILL runs no clean-up, so its
worker processes were orphaned: two of a 10^5-point sweep still waited on the pool's queue ten minutes after `kill`,
some 150 MB each, and a caller reading the command's output hung on the pipe they held
(`commands.workers._worker_start`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SPECS
from tests.test_sweep_chunks import GRID

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the workers die with their parent on Linux only")

#: A sweep of 360 training points in 8 chunks whose every chunk takes ten minutes: the workers are busy when the
#: parent is killed. The script prints the workers' process ids once they are forked.
SCRIPT = """
import sys, time
from pathlib import Path
from archgen.commands import sweep as sw, workers

def held(*args):
    time.sleep(600)

def submit(*args):
    pending = given(*args)
    print(*(p.pid for p in args[1]._processes.values()), flush=True)
    return pending

given = workers.submit
workers.cpu_count = lambda: 2
workers.MIN_CHUNK = 20
workers.evaluate_chunk = held
sw.submit = submit
sw.evaluate_sweeps(Path(sys.argv[1]), [Path(sys.argv[2])], workers=2)
"""


def _running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (an orphan ended but not yet reaped is a zombie: ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_workers_end_with_a_killed_sweep(tmp_path, sig):
    """The parent killed while both workers run a chunk: within seconds neither is left (on main both slept on)."""
    path = tmp_path / "sweep.yaml"
    path.write_text(GRID, encoding="utf-8")
    script = tmp_path / "run.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path.cwd()), os.environ.get("PYTHONPATH", "")])}
    parent = subprocess.Popen([sys.executable, str(script), str(path), str(SPECS)], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env)
    pids: list[int] = []
    try:
        assert parent.stdout is not None
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2, "the script printed its two workers' process ids"
        time.sleep(1.0)  # the workers take their first chunks (and, fixed, have set their parent-death signal)
        assert all(_running(p) for p in pids)
        parent.send_signal(sig)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 15
        while any(_running(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in pids if _running(p)], "a worker outlived its killed parent"
    finally:
        parent.kill()
        parent.wait()
        for p in pids:
            if _running(p):
                os.kill(p, signal.SIGKILL)
