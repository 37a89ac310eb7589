"""A Dask scheduler with no worker makes the sweep say so, not wait in silence (newuser40).

`archgen sweep --scheduler ADDRESS` against a scheduler whose only worker had been killed (a `dask worker --no-nanny`
process, `kill -9`) printed nothing for 120 s until `timeout` ended it: Dask holds the chunks until a worker joins.
The sweep still waits (an adaptive cluster adds its workers later), but it says, once, that the scheduler has none
and how to start one (`commands.scheduler.DaskPool.idle`, `commands.workers.Pending.result`).
"""

from __future__ import annotations

import pytest

from archgen.commands import workers
from tests.test_sweep import problem_of

distributed = pytest.importorskip("distributed")


def test_a_scheduler_without_workers_is_named_and_the_sweep_goes_on_once_one_joins(tmp_path, monkeypatch):
    """No worker: the note names the scheduler and how to start one; a worker started then runs every chunk, and
    the rows are those evaluated here. Then, with that worker, a sweep says nothing, however long its chunks take
    beside `WATCH_S`, and gives the same rows: Dask's path gives the serial rows (this file's scheduler with a worker
    is the one test_sweep's process-pool test used to start a second time, each start 1.4-1.7 CPU-s)."""
    monkeypatch.setattr(workers, "WATCH_S", 0.2)
    problem = problem_of(tmp_path)
    serial = workers.evaluate_all(problem, None).rows
    heard: list[str] = []
    quiet: list[str] = []
    with distributed.LocalCluster(n_workers=0, threads_per_worker=1, dashboard_address=None) as cluster, \
            workers.executor(scheduler=cluster.scheduler_address) as pool:

        def note(text: str) -> None:
            heard.append(text)
            cluster.scale(1)  # a worker joins once the sweep has said it has none

        with workers.submit(problem, pool, 4) as pending:
            rows = pending.result(note=note).rows
        monkeypatch.setattr(workers, "WATCH_S", 0.05)
        with workers.submit(problem, pool, 4) as again:
            rows_again = again.result(note=quiet.append).rows
    address = cluster.scheduler_address
    assert heard == [f"note: sweep 't': the Dask scheduler at {address} has no worker, so {len(pending.parts)} of "
                     f"its {len(pending.parts)} chunks wait for one; start workers (`dask worker {address}`), or "
                     "stop the sweep with Ctrl-C"]
    assert rows == serial
    assert quiet == [] and rows_again == serial
