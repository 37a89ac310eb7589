"""Where a sweep's points run: in this process, in local worker processes or on a Dask cluster, chunk by chunk.

A chunk is an index range of a `perf.explore.problem.SweepProblem`, so a worker generates its own points and only their
rows (and, with `csv`, their lines of `points.csv`) travel back. `executor` gives a `concurrent.futures.Executor`
(`ProcessPoolExecutor` for `--workers`, Dask's for `--scheduler`, the `distributed` extra) after `probe` has checked
that the scheduler's address answers as a Dask scheduler does.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import multiprocessing
import multiprocessing.context
import os
import pickle
import sys
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager

from archgen import __version__
from archgen.cache import Memo
from archgen.commands.scheduler import SCHEDULER_TIMEOUT, DaskPool, from_dask, lost, probe, quiet_client
from archgen.errors import UsageError
from archgen.perf.api import (
    Cached,
    Chunk,
    Keep,
    Preparation,
    Result,
    SweepProblem,
    chunk,
    evaluate,
    merge,
    row_stride,
    set_size,
    set_stride,
)
from archgen.pint_import import enable_dask
from archgen.startup import keep_freed_memory

#: Share of the points left that the next chunk takes, per worker (`guided`): large chunks first, smaller ones as
#: the sweep ends, so that the workers finish together although points cost unevenly (searched layouts cost more).
SHARE_PER_WORKER = 2
#: Fewest training points in a chunk sent to a worker: they are evaluated in batches (`perf.batch`), which pay off
#: over many points of one layout set. A batch never holds two sets' points, so a chunk of whole sets has the batches
#: it would have in one process, however small (`submit`).
MIN_CHUNK = 2048
#: Most points a chunk evaluated in this process holds (`submit` without a pool): its rows are tallied and dropped
#: before the next chunk, so that a sweep's memory does not grow with its points (newuser40: 476 MB of resident memory
#: at 99,960 points as one chunk, 2.3 kB a row). A training chunk holds whole layout sets where one fits
#: (`vectorised.set_stride`: a set cut in two costs some of its work twice, 2-10 % of the CPU at 8,192 points a chunk
#: on the 10^5-point benchmark), else whole rows of a set's grid. 32,768 rows are some 75 MB.
LOCAL_CHUNK = 32768
#: Layout sets prepared in this process (`perf.explore.vectorised_sets.Preparation`), by sweep problem and set
#: (`_cached`): a worker evaluating several chunks of a set prepares it once, not once per chunk. Chunks are handed
#: out in point order, so a worker meets a set again in its next chunks or not at all: the last few sets are enough.
PREPARED: Memo[Preparation] = Memo(8)
#: Workers assumed behind a Dask scheduler when cutting chunks (its size is not asked for).
SCHEDULER_WORKERS = 16
#: How long `_stop` waits for a stopped pool's manager thread (it joins workers already ended: milliseconds).
MANAGER_TIMEOUT_S = 10.0
#: How often the parent asks a Dask scheduler whether it has a worker while a chunk is not done (`DaskPool.idle`).
WATCH_S = 5.0

#: prctl(2)'s option that has the kernel send the calling process a signal when its parent ends
#: (linux/prctl.h: `#define PR_SET_PDEATHSIG 1`).
PR_SET_PDEATHSIG = 1


@contextmanager
def executor(workers: int = 1, scheduler: str | None = None):
    """A `concurrent.futures.Executor` for the chunks, or None to evaluate them here."""
    if scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise UsageError("--scheduler needs Dask: pip install 'archgen[distributed]'") from None
        enable_dask()  # pint was imported without Dask (archgen/pint_import.py); Dask now meets Quantities
        probe(scheduler)
        try:
            client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
        except Exception as err:  # noqa: BLE001 unreachable, not a scheduler (an HTTP port behind ws://), unparsable
            raise UsageError(f"--scheduler {scheduler}: cannot reach a Dask scheduler ({type(err).__name__}: "
                             f"{err})") from None
        with quiet_client():  # Dask's traceback of a lost scheduler, which `lost` says in one line
            try:
                yield DaskPool(client, scheduler)
            except Exception as err:
                if not from_dask(err):
                    raise
                raise lost(err, scheduler) from None
            finally:
                with contextlib.suppress(Exception):    # a peer that only posed as a scheduler may fail the goodbye
                    client.close()
    elif workers > 1:
        before = set(multiprocessing.active_children())
        with ProcessPoolExecutor(max_workers=min(workers, cpu_count()), mp_context=_forking(),
                                 initializer=_worker_start, initargs=(os.getpid(),)) as pool:
            try:
                yield pool
            except BaseException:
                _stop(pool, before)
                raise
    else:
        yield None


def _stop(pool: ProcessPoolExecutor, before: set[multiprocessing.process.BaseProcess]) -> None:
    """On an error, the chunks no worker has started cancelled and the workers running others ended, not waited for.

    A worker only evaluates and returns chunks (`_forking`), so ending one loses nothing but its chunk, which the
    error made useless; the error then reaches the user at once, not after the longest chunk running (a quarter of
    the points with two workers: `guided`). Python 3.14's `terminate_workers` does this; before it, the pool's
    processes are read from its `_processes`, and with them every child process this process started since the
    pool opened (not in `before`; archgen starts none but the pool's). The pool's manager thread, seeing a worker
    end, terminates and joins the same processes (`terminate_broken`): of two `waitpid` calls on one process, one
    reaps it and the other returns at once with no exit code, so a `join` here can return before the worker's end is
    recorded (the clean-clone CI three times found a worker "alive" after `_stop`); the manager thread is joined
    last, and by then every worker's end is. A Dask scheduler's tasks are released when its client closes.
    """
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    running: list[multiprocessing.process.BaseProcess] = list((pool._processes or {}).values())
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    running += [p for p in multiprocessing.active_children() if p not in before and p not in running]
    for process in running:
        if process.is_alive():
            process.terminate()
    for process in running:
        process.join()
    if manager is not None:
        manager.join(MANAGER_TIMEOUT_S)


def _forking() -> multiprocessing.context.BaseContext | None:
    """Worker processes forked from this one on Linux (the platform's default elsewhere: spawn on macOS, Windows).

    A forked worker starts with archgen and numpy imported (a spawned one imports them again, 0.4-2 s of CPU each,
    as serial as the parent's own start; Python 3.14 makes forkserver Linux's default). It is safe here: the pool
    forks its processes all at once, at the first chunk submitted (`submit`), from the main thread, before its own
    manager thread starts, and archgen starts no other thread (`cache.Memo`'s lock is only taken inside a call),
    so no lock is held across the fork; OpenBLAS re-creates its threads in the child (pthread_atfork), and the
    sweep's evaluation uses no BLAS call. A worker only evaluates and returns chunks: it writes no file and shares
    no descriptor but the pool's pipes.
    """
    return multiprocessing.get_context("fork") if sys.platform == "linux" else None


def _worker_start(parent: int) -> None:
    """A `--workers` process's start: malloc keeps freed blocks, inherited objects are frozen, it dies with `parent`.

    malloc: `startup.keep_freed_memory`. Frozen: the objects the worker was forked with are left out of its cyclic
    collections (`gc.freeze`).

    A forked worker starts with every object of its parent. Where `commands.sweep.sweep` runs in a library or test
    process (the benchmarks', `bench/bench_sweep_output.py`), none of them is frozen (`startup.resume_gc` freezes
    only the console script's), and each full collection in a worker examined some 90,000 of them and wrote to each
    one's header, copying its page from the parent's: on the 10^5-point benchmark sweep, 4-5 full collections per
    worker took 0.20 CPU seconds in each, 0.007 frozen (`gc.callbacks`; the console script's workers 0.02 either
    way). Python's documentation names this use of `gc.freeze` for forked children
    (https://docs.python.org/3/library/gc.html#gc.freeze). The worker's own objects are collected as before; an
    inherited cycle it drops is kept until it exits (it drops few: it only evaluates and returns chunks).

    Ctrl-C reaches the workers and `_stop` ends them, but a parent ended by a signal it cannot catch (SIGKILL: the
    OOM killer, a batch system's kill after its grace time) or does not (SIGTERM: `kill`, `timeout`, Slurm's
    cancel) runs no `_stop`: its workers were orphaned and waited on the pool's queue for ever, some 150 MB each
    (newuser40: two workers of a 10^5-point sweep still there ten minutes after `kill PID`, and a caller reading the
    command's output hung on the pipe they held). On Linux the kernel now kills each worker when the process that
    forked it ends (prctl(2) PR_SET_PDEATHSIG; the pool forks them from the thread that runs the sweep, `_forking`),
    and a worker whose parent ended before that was set exits at once. A worker holds nothing to save: it writes no
    file (`_forking`), and its chunk is lost with the parent that would have merged it. Elsewhere (spawned workers,
    macOS and Windows) Python's pool is left as it is.
    """
    keep_freed_memory()
    gc.freeze()
    if sys.platform != "linux":
        return
    import ctypes
    import signal
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # the C library this process runs on
    except (OSError, AttributeError):
        return
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent ended between the fork and the prctl: no signal will come
        os._exit(1)


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_count(requested: int) -> tuple[int, str]:
    """`--workers` bounded by the CPU count (more processes than CPUs only add memory), with a note when capped."""
    if requested < 1:
        raise UsageError(f"--workers must be at least 1, got {requested}")
    cpus = cpu_count()
    if requested <= cpus:
        return requested, ""
    shown = f"{requested:,}" if requested < 10**12 else f"{requested:.3g}"
    return cpus, f"note: --workers {shown} capped at {cpus}, the CPUs available to this process"


def guided(size: int, workers: int, least: int, unit: int = 1, block: int = 0) -> list[tuple[int, int]]:
    """`size` points cut into contiguous index ranges for `workers` workers, large first, small last.

    Each chunk is 1 / (`SHARE_PER_WORKER` x `workers`) of the points left, at least `least` (but the last): guided
    self-scheduling (Polychronopoulos and Kuck, IEEE Trans. Computers 36(12), 1987), so that no worker is left
    running alone on a large chunk at the end. Each chunk ends at a multiple of `unit` (but the last): rounded up.

    With `block` (a multiple of `unit`: a layout set's points, `vectorised.set_stride`), a chunk that would cut a
    block ends at the block's edge instead where that keeps it between half and one and a half times its size (and
    at least `least`): each piece of a set a chunk holds is set up and searched on its own (the set's preparation,
    the hardware columns, the memo of collective times, the search's first rounds), so a set cut in pieces costs
    more than whole. The 10^5-point benchmark sweep (6 sets of 16,680 points) is cut into 13 chunks that cut no set,
    instead of 13 that cut 5 (18 pieces); those chunks evaluated one after the other in one process, two caches of
    prepared sets taking turns as two workers' do, 5 alternating rounds at load 6.8-8.6: 9.27-10.33 CPU seconds
    against 9.41-10.59, a median ratio of 0.95 (0.91-1.00).
    """
    out = []
    a = 0
    snap = block > 0 and block % unit == 0
    while a < size:
        b = min(size, -(-(a + max(least, -(-(size - a) // (SHARE_PER_WORKER * workers)))) // unit) * unit)
        if snap and b < size:
            down = b // block * block          # the last edge of a block in the chunk, if any
            if down - a >= max(least, (b - a) / 2):
                b = down
            elif down + block < size and down + block - a <= 1.5 * (b - a):
                b = down + block
        out.append((a, b))
        a = b
    return out


def evaluate_chunk(problem: SweepProblem, start: int, stop: int, csv: bool = False,
                   keep: Keep = "list") -> tuple[Chunk, str]:
    """Points `start` to `stop` - 1, tallied, and, with `csv`, their lines of `points.csv` (the header with the first).

    What a worker runs: the output of a chunk is written and tallied where it was evaluated (`perf.explore.tally`), so
    that `--workers N` shares the formatting and the Pareto front as it shares the estimates. `keep`: the rows as
    they are, pickled (for the parent to unpickle only if it reads them), or not at all (`perf.explore.tally.chunk`).
    """
    rows = evaluate(problem, start, stop, _cached(problem))
    text = ""
    if csv:
        from archgen.render.point_table import csv_text
        text = csv_text(problem, rows, header=start == 0)
    return chunk(problem, rows, start, keep), text


def _cached(problem: SweepProblem) -> Cached:
    """`evaluate`'s cache of layout sets for `problem`, in this process's `PREPARED`, by the problem's content.

    A worker gets each chunk's problem pickled anew, so the key is a digest of its pickle, not the object: 5-20 kB
    (the shipped sweeps, the 10^5-point benchmark's), pickled and hashed in about 0.1 ms.
    """
    key = hashlib.sha256(pickle.dumps(problem, pickle.HIGHEST_PROTOCOL)).digest()

    def cached(part: Hashable, make: Callable[[], Preparation]) -> Preparation:
        return PREPARED.get((key, part)) or PREPARED.put((key, part), make())

    return cached


def evaluate_all(problem: SweepProblem, pool: Executor | None, workers: int = 1,
                 progress: Callable[[int, int], None] | None = None, written: list[str] | None = None,
                 rows: bool = True) -> Result:
    """Every point of `problem`, in point order, evaluated here or by `pool`.

    With `written`, each chunk's lines of `points.csv` are appended to it, in point order (`evaluate_chunk`). Without
    `rows`, the workers send back no rows but the front and best points: the result's other rows are evaluated again
    if read (the reports but the `xlsx` workbook read none). The result is the same for any pool and worker count
    (`perf.explore.tally.merge`).
    """
    with submit(problem, pool, workers, written is not None, rows) as pending:
        return pending.result(progress, written)


def submit(problem: SweepProblem, pool: Executor | None, workers: int = 1, csv: bool = False,
           rows: bool = True) -> Pending:
    """`problem`'s chunks handed to `pool` now (its workers start on them), or to evaluate here when asked for.

    Without a pool, the points are chunks of about `LOCAL_CHUNK`, each evaluated when `Pending.result` reaches it and,
    without `rows`, its rows dropped once tallied, as a worker drops them: `evaluate_all` is `submit` then
    `Pending.result`, in a `with` block that cancels the chunks not started on an error (`Pending.__exit__`).
    """
    # a training chunk of at least MIN_CHUNK points (its batches stay large), in whole rows of the points' grid
    # (`perf.explore.vectorised_grid.row_stride`), or where a row is larger, in whole blocks of its last axes that
    # are not (`grid_hw` takes those too; rounding up to a larger row would make the chunks coarser than guided
    # scheduling asks for: a row can hold most of a set), ended at a layout set's edge where that changes a chunk by at
    # most half (`guided`'s block); others of at least a 1/64 share each. Where each block of `set_stride` points is a
    # whole set (the sets' axes come first: `set_size`) smaller than MIN_CHUNK, chunks of whole sets, as few as one:
    # they have the batches one process has, and a training sweep under MIN_CHUNK points is shared by the workers
    # (it was one chunk, for one worker)
    training = problem.workload.training is not None
    least = MIN_CHUNK if training else max(1, problem.size // (64 * workers))
    unit = row_stride(problem, least) if training else 1
    block = set_stride(problem) if training else 0
    if training and block < least and block == set_size(problem):
        least = unit = block
    if pool is None:
        step = LOCAL_CHUNK
        if training and block <= step:
            step = step // block * block   # whole sets
        elif training:
            step = -(-step // (whole := row_stride(problem, step))) * whole   # whole rows of a set's grid
        here: Keep = "list" if rows else "none"
        return Pending(problem, [functools.partial(evaluate_chunk, problem, a, min(a + step, problem.size), csv, here)
                                 for a in range(0, problem.size, step)])
    ranges = guided(problem.size, workers, least, unit, block)
    keep: Keep = "pickle" if rows else "none"
    try:
        return Pending(problem, [pool.submit(evaluate_chunk, problem, a, b, csv, keep) for a, b in ranges], pool)
    except ImportError as err:
        raise _not_installed(err) from None


class Pending:
    """A sweep's chunks, in point order: futures of a pool, or calls that evaluate them here.

    Their owner: leaving a `with` block of it on an error cancels the chunks no worker has started (`cancel`), once.
    """

    def __init__(self, problem: SweepProblem, parts: list[Future | Callable[[], tuple[Chunk, str]]],
                 pool: Executor | None = None) -> None:
        self.problem, self.parts, self.pool = problem, parts, pool

    def __enter__(self) -> Pending:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.cancel()

    def result(self, progress: Callable[[int, int], None] | None = None,
               written: list[str] | None = None, note: Callable[[str], None] | None = None) -> Result:
        """The merged chunks (`evaluate_all`), each waited for in point order.

        `note` hears, once, that a Dask scheduler has had no worker for two looks `WATCH_S` apart while a chunk
        waited (`DaskPool`): the sweep goes on waiting for one to join, but not in silence.
        """
        done: list[Chunk] = []
        try:
            for k, got in enumerate(self.parts):
                if isinstance(got, Future) and note is not None and isinstance(self.pool, DaskPool):
                    note = self._watch(got, self.pool, len(self.parts) - k, note)
                part, text = got.result() if isinstance(got, Future) else got()
                if written is not None:
                    written.append(text)
                done.append(part)
                if progress:
                    progress(part.start + part.size, self.problem.size)
        except ImportError as err:  # raised in a worker: a Dask worker without archgen (or another version of it)
            raise _not_installed(err) from None
        return merge(self.problem, done)

    def _watch(self, got: Future, pool: DaskPool, left: int,
               note: Callable[[str], None]) -> Callable[[str], None] | None:
        """Wait for `got`, saying once if `pool`'s scheduler has no worker; `note`, or None once it was said."""
        looks = 0
        while not wait([got], timeout=WATCH_S).done:
            looks = looks + 1 if pool.idle() else 0
            if looks >= 2:
                note(f"note: sweep '{self.problem.sweep.id}': the Dask scheduler at {pool.address} has no worker, so "
                     f"{left} of its {len(self.parts)} chunks wait for one; start workers (`dask worker "
                     f"{pool.address}`), or stop the sweep with Ctrl-C")
                return None
        return note

    def cancel(self) -> None:
        """Cancel the chunks no worker has started (a chunk running runs to its end, unless `executor` ends it)."""
        for got in self.parts:
            if isinstance(got, Future):
                got.cancel()


def _not_installed(err: ImportError) -> UsageError:
    return UsageError(f"a sweep worker cannot import archgen's code ({err}); install archgen {__version__} on "
                      "every Dask worker")
