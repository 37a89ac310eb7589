"""A Dask scheduler lost midway is a usage error that says what was lost, not an internal error (newuser40).

`kill` of the `dask scheduler` process during `archgen sweep --scheduler ADDRESS` ended the sweep with Dask's
traceback, `concurrent.futures._base.CancelledError` and "internal error: this is a bug in archgen" (exit 2): Dask's
client cancels every future once it cannot reach its scheduler again, and `commands.scheduler.from_dask` did not
count a cancelled chunk as Dask's error. It is now a `UsageError` naming the scheduler and saying that nothing was
written (`commands.scheduler.lost`), and Dask's own traceback of the lost connection is not printed.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import CancelledError
from types import SimpleNamespace

import pytest

from archgen.commands import workers
from archgen.commands.scheduler import lost, quiet_client
from archgen.errors import UsageError
from tests.test_sweep import problem_of

distributed = pytest.importorskip("distributed")


def test_a_scheduler_lost_midway_is_a_usage_error_that_names_it(tmp_path, monkeypatch, caplog):
    """The scheduler closed while the chunks wait on it: a UsageError naming it, no traceback from Dask's client."""
    monkeypatch.setattr(workers, "WATCH_S", 0.2)
    problem = problem_of(tmp_path)
    cluster = distributed.LocalCluster(n_workers=0, threads_per_worker=1, dashboard_address=None)
    address = cluster.scheduler_address
    start = time.monotonic()
    with pytest.raises(UsageError) as caught, caplog.at_level(logging.ERROR, logger="distributed.client"), \
            workers.executor(scheduler=address) as pool, workers.submit(problem, pool, 4) as pending:
        pending.result(note=lambda _: cluster.close())  # the scheduler goes once the sweep waits on it
    assert str(caught.value) == (f"--scheduler {address}: the Dask scheduler was lost while the sweep's chunks ran "
                                 "(it stopped, or the connection to it closed, and Dask cancelled the chunks); the "
                                 "sweep stopped before writing any file (run it again once the cluster is up)")
    assert time.monotonic() - start < 60
    assert not [r for r in caplog.records if r.name == "distributed.client" and r.exc_info]


def test_a_cancelled_chunk_and_a_killed_worker_say_what_was_lost():
    """`lost` of Dask's errors: the scheduler for a cancelled chunk, the workers for KilledWorker."""
    assert "the Dask scheduler was lost" in str(lost(CancelledError(), "tcp://h:1"))
    killed = distributed.scheduler.KilledWorker("chunk-1", SimpleNamespace(address="tcp://w:2"), 3)
    assert str(lost(killed, "tcp://h:1")) == ("--scheduler tcp://h:1: Dask workers were lost running one of the "
                                              "sweep's chunks (4 workers in turn), as many times as the scheduler "
                                              "allows; the last was tcp://w:2; the sweep stopped before writing any "
                                              "file (run it again once the cluster is up)")


def test_only_the_lost_connection_is_kept_out_of_the_log(caplog):
    """Dask's other errors still reach its log; a lost connection's traceback does not."""
    log = logging.getLogger("distributed.client")
    with caplog.at_level(logging.ERROR, logger="distributed.client"), quiet_client():
        for err in (OSError("refused"), ValueError("other")):
            try:
                raise err
            except Exception:
                log.exception("")
    assert [r.exc_info[1].args for r in caplog.records if r.exc_info] == [("other",)]
