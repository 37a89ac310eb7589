"""`archgen sweep`: `run(sweep_file, paths)` evaluates every point of each `Sweep` in a file.

The specs are loaded, analysed and checked once (`pipeline.run`): each cluster a sweep names becomes a
`perf.workload.cluster.Machine` (its hardware as the performance model sees it, on the compute fabric the network
analysis sized, and its IT power). The points are then estimated in chunks, in this process, in `workers` processes
(`concurrent.futures.ProcessPoolExecutor`) or on a Dask cluster (`scheduler`, the `distributed` extra); a chunk is an
index range, so a worker generates its own points and only summaries travel back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from archgen import __version__
from archgen.analyse.cost import sweep_figures
from archgen.checks import Finding
from archgen.checks.sweep import mistakes
from archgen.commands.common import check_out_dir, failing_note
from archgen.errors import Location, SpecError, SpecProblem, UsageError, did_you_mean
from archgen.model import Accelerator, Cluster
from archgen.model.sweep import COST_OBJECTIVES, Sweep
from archgen.model.workload import Model, Workload
from archgen.output import sweep as output
from archgen.perf.api import Machine, PointRow, Result, SweepProblem, evaluate, hardware_for, machine, summarise
from archgen.pint_import import enable_dask
from archgen.pipeline import run as pipeline_run
from archgen.pipeline import scale_out_paths
from archgen.validate import Specs

#: Chunks per worker: enough to balance uneven points (searched layouts cost more), few enough to stay cheap.
CHUNKS_PER_WORKER = 8
#: Fewest training points in a chunk sent to a worker: they are evaluated in batches (`perf.explore.vectorised`), which
#: pay off over many points of one layout set.
MIN_CHUNK = 2048
#: Workers assumed behind a Dask scheduler when cutting chunks (its size is not asked for).
SCHEDULER_WORKERS = 16
#: Files a sweep writes only when it has a front (and, for the plot, two objectives), with their format.
OPTIONAL_FILES = {"front.csv": "csv", "pareto.svg": "svg", "pareto.png": "png"}
#: How long to wait for a Dask scheduler to answer.
SCHEDULER_TIMEOUT = "10s"
SCHEDULER_TIMEOUT_S = 10.0


def problems(specs: Specs, clusters: dict, sweeps: Sequence[Sweep]) -> list[SweepProblem]:
    """Each sweep with its workload, model and clusters resolved.

    An id that names nothing is a located usage error; the sweep's mistakes against its workload
    (`checks.sweep.mistakes`, SWP001 in `archgen check`) are raised together as a `SpecError`.
    """
    scale_out = scale_out_paths(clusters)
    wrong = [SpecProblem(specs.locate(s.id, path), message=message) for s in sweeps
             for path, message in mistakes(specs, s)]
    if wrong:
        raise SpecError(wrong)
    out = []
    for sweep in sweeps:
        def where(*path, _id=sweep.id) -> Location | None:
            return specs.locate(_id, path)

        workload = specs.get(sweep.workload)
        if not isinstance(workload, Workload):
            ids = [w.id for w in specs.of(Workload)]
            raise UsageError(f"sweep '{sweep.id}': no workload '{sweep.workload}'"
                             f"{did_you_mean(sweep.workload, ids, lead='; ')} (workloads: {', '.join(ids) or 'none'})",
                             where("workload"))
        found = specs.get(workload.model) if workload.model else None
        model = found if isinstance(found, Model) else None
        if workload.collective is None and model is None:
            raise UsageError(f"sweep '{sweep.id}': workload '{workload.id}' runs model '{workload.model}', which is "
                             "not in the specs", where("workload"))
        ids = sweep.axes.cluster or ([workload.cluster] if workload.cluster else [])
        bases: dict[tuple[str, str | None], Machine] = {}
        for i, cid in enumerate(ids):
            cluster = specs.get(cid)
            if not isinstance(cluster, Cluster):
                known = [c.id for c in specs.of(Cluster)]
                at = where("axes", "cluster", i) if sweep.axes.cluster else where("workload")
                raise UsageError(f"sweep '{sweep.id}': no cluster '{cid}'{did_you_mean(cid, known, lead='; ')}"
                                 f" (clusters: {', '.join(known) or 'none'})", at)
            power = clusters[f"cluster/{cid}"].metrics["it_power"].m_as("W")
            failures, per_hour = sweep_figures(specs, clusters[f"cluster/{cid}"])
            for k, o in enumerate(sweep.objectives):
                if o.metric in COST_OBJECTIVES and per_hour is None:
                    raise UsageError(f"sweep '{sweep.id}': objective '{o.metric}' needs prices, and cluster '{cid}' "
                                     "has no cost in USD (price every part and rack on its bill of materials, "
                                     "with `price:` or a `Prices` document, and give its facility a `cost:`; "
                                     "docs/reliability.md)", where("objectives", k, "metric"))
            bases[(cid, None)] = machine(cluster, specs.items, scale_out.get(cid), power, failures=failures,
                                         cost_per_accelerator_hour=per_hour)
            for j, aid in enumerate(sweep.axes.accelerator or ()):
                bases[(cid, aid)] = _swapped(bases[(cid, None)], specs, aid, where("axes", "accelerator", j))
        axes = sweep.axes.given()
        if sweep.axes.cluster is None:
            axes = {"cluster": ids, **axes}
        out.append(SweepProblem(sweep, workload, model, bases, axes))
    return out


def _swapped(base: Machine, specs: Specs, accelerator: str, at: Location | None) -> Machine:
    """`base` with its accelerators replaced by `accelerator`.

    The chip's figures change (compute, memory, caches), the fabric stays, and the cluster's IT power changes by the
    difference of the two parts' TDP for every accelerator in it.
    """
    acc, own = specs.get(accelerator), specs.get(base.hardware.accelerator)
    assert isinstance(own, Accelerator), "a cluster's hardware comes from an accelerator of the specs"
    if not isinstance(acc, Accelerator):
        known = [a.id for a in specs.of(Accelerator)]
        raise UsageError(f"no accelerator '{accelerator}'{did_you_mean(accelerator, known, lead='; ')}", at)
    chip = hardware_for(acc, scale_up_size=1)
    power = base.it_power + base.accelerators * float((acc.tdp - own.tdp).m_as("W"))
    return dataclasses.replace(base, hardware=base.hardware.with_chip(chip), it_power=power)


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
        try:
            yield client.get_executor()
        except Exception as err:
            if not _from_dask(err):
                raise
            raise UsageError(f"--scheduler {scheduler}: the scheduler failed ({type(err).__name__}: {err})") from None
        finally:
            with contextlib.suppress(Exception):    # a peer that only posed as a scheduler may fail the goodbye too
                client.close()
    elif workers > 1:
        with ProcessPoolExecutor(max_workers=min(workers, cpu_count())) as pool:
            yield pool
    else:
        yield None


def _from_dask(err: BaseException) -> bool:
    """Whether an error came from Dask's client or its transport (a peer that greets like a scheduler, then fails)."""
    top = type(err).__module__.split(".")[0]
    return top in ("distributed", "tornado", "msgpack") or isinstance(err, (OSError, TimeoutError))


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


def probe(address: str, timeout: float = SCHEDULER_TIMEOUT_S) -> None:
    """Check that a `tcp://` address answers as a Dask scheduler does before Dask itself connects to it.

    Dask's client reads the first 8 bytes of the peer's greeting as a message length and allocates that many bytes,
    and waits for a greeting that an HTTP or SSH server never sends: an HTTP server hung it past its timeout and an
    SSH banner asked for 2.8 EiB. A scheduler greets first with a short handshake (msgpack naming its
    `pickle-protocol`), so a peer that sends nothing within `timeout`, more than 64 KiB or something else is refused
    here, with a message. Other schemes (`tls://`, `inproc://`, `ucx://`) are left to Dask and its timeout.
    """
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        return
    host, _, port = rest.rstrip("/").rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--scheduler {address}: expected a Dask scheduler address such as tcp://host:8786")
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as conn:
            head = _receive(conn, 8, deadline)
            size = int.from_bytes(head, "little") if len(head) == 8 else 0
            body = _receive(conn, size, deadline) if 0 < size <= 65536 else b""
    except OSError as err:
        raise UsageError(f"--scheduler {address}: cannot reach the Dask scheduler ({err})") from None
    if b"pickle-protocol" not in body:
        said = (head + body)[:24].decode("ascii", "backslashreplace")
        what = f"answered {said!r}" if head else f"sent nothing within {timeout:g} s"
        raise UsageError(f"--scheduler {address}: not a Dask scheduler (it {what}); give the address the scheduler "
                         "prints at start, such as tcp://host:8786")


def _receive(conn: socket.socket, n: int, deadline: float) -> bytes:
    """Up to `n` bytes from `conn`, whatever arrived by `deadline`."""
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        conn.settimeout(left)
        try:
            chunk = conn.recv(n - len(data))
        except TimeoutError:
            break
        if not chunk:
            break
        data += chunk
    return data


def chunks(size: int, parts: int) -> list[tuple[int, int]]:
    """`size` points cut into at most `parts` contiguous index ranges of near-equal length."""
    step = max(1, math.ceil(size / max(parts, 1)))
    return [(a, min(a + step, size)) for a in range(0, size, step)]


def evaluate_chunk(problem: SweepProblem, start: int, stop: int, csv: bool = False) -> tuple[list[PointRow], str]:
    """Points `start` to `stop` - 1 and, with `csv`, their lines of `points.csv` (the header with the first chunk).

    What a worker runs: the output of a chunk is written where it was evaluated, so that `--workers N` shares the
    formatting as it shares the estimates (`render.point_table` writes from columns).
    """
    rows = evaluate(problem, start, stop)
    if not csv:
        return rows, ""
    from archgen.render.point_table import csv_text
    return rows, csv_text(problem, rows, header=start == 0)


def evaluate_all(problem: SweepProblem, pool: Executor | None, workers: int = 1,
                 progress: Callable[[int, int], None] | None = None, written: list[str] | None = None) -> Result:
    """Every point of `problem`, in point order, evaluated here or by `pool`.

    With `written`, each chunk's lines of `points.csv` are appended to it, in point order (`evaluate_chunk`).
    """
    least = MIN_CHUNK if problem.workload.training is not None else 1
    ranges = chunks(problem.size, min(workers * CHUNKS_PER_WORKER, -(-problem.size // least)) if pool else 1)
    rows: list[PointRow] = []
    done = 0
    try:
        parts: Iterable[tuple[list[PointRow], str]]
        csv = written is not None
        if pool is None:
            parts = (evaluate_chunk(problem, a, b, csv) for a, b in ranges)
        else:
            parts = pool.map(evaluate_chunk, [problem] * len(ranges), [a for a, _ in ranges],
                             [b for _, b in ranges], [csv] * len(ranges))
        for part, text in parts:
            if written is not None:
                written.append(text)
            rows.extend(part)
            done += len(part)
            if progress:
                progress(done, problem.size)
    except ImportError as err:  # raised in a worker: a Dask worker without archgen (or another version of it)
        raise UsageError(f"a sweep worker cannot import archgen's code ({err}); install archgen {__version__} on "
                         "every Dask worker") from None
    return summarise(problem, rows)


def load(sweep_file: Path, paths: Sequence[Path]) -> tuple[Specs, dict, list[Sweep]]:
    """Load and analyse `sweep_file` with the specs under `paths`; the sweeps are those of `sweep_file`."""
    return checked(sweep_file, paths)[:3]


def checked(sweep_file: Path, paths: Sequence[Path]) -> tuple[Specs, dict, list[Sweep], list[Finding]]:
    """`load`, and the unwaived error findings of the specs (the pipeline's checks run as in `archgen check`)."""
    if not sweep_file.is_file():
        what = "is a directory, expected a file" if sweep_file.is_dir() else "no such file"
        raise UsageError(f"{sweep_file}: {what}")
    result = pipeline_run([*paths, sweep_file])
    specs = result.specs
    mine = sweep_file.resolve()
    sweeps = [s for s in specs.of(Sweep) if Path(specs.sources[s.id].file).resolve() == mine]
    if not sweeps:
        raise UsageError(f"{sweep_file}: no Sweep document in the file")
    return specs, result.clusters, sweeps, result.errors


def sweep(sweep_file: Path, paths: Sequence[Path], *, workers: int = 1, scheduler: str | None = None,
          out: Path = Path("out"), formats: Sequence[str] = ("md", "csv", "svg"), fmt: str = "text",
          templates: Path | None = None, progress: Callable[[str, int, int], None] | None = None,
          note: Callable[[str], None] = lambda text: None) -> tuple[str, int]:
    """`archgen sweep`: evaluate, write the reports under `out`, and say what was found (text or JSON).

    Exit code 1 when a sweep has no feasible point, or the specs have error findings (the documents say so).
    `note` receives what the command says beside its output (a capped worker count, the specs' errors).
    """
    from archgen.render import parse_formats
    if fmt not in ("text", "json"):
        raise UsageError(f"unknown format '{fmt}'; expected text or json")
    if scheduler and workers != 1:
        raise UsageError("give either --workers or --scheduler, not both")
    check_out_dir(out)
    parse_formats(formats)  # an unknown format is refused before the points run, not after
    if templates is not None and not templates.is_dir():
        raise UsageError(f"templates directory '{templates}' does not exist")  # as archgen render says
    count, capped = worker_count(workers)
    if capped:
        note(capped)
    texts: dict[str, str] | None = {} if "csv" in formats else None
    specs, results, errors = run(sweep_file, paths, workers=count, scheduler=scheduler, progress=progress,
                                 texts=texts)
    written = write(specs, results, out, formats, templates, failing=len(errors), points_csv=texts)
    text = output.json_text(results, written) if fmt == "json" else output.text(results, written)
    if errors:
        note(failing_note(errors))
    return text, 0 if all(r.counts()["feasible"] for r in results) and not errors else 1


def run(sweep_file: Path, paths: Sequence[Path], *, workers: int = 1, scheduler: str | None = None,
        progress: Callable[[str, int, int], None] | None = None,
        texts: dict[str, str] | None = None) -> tuple[Specs, list[Result], list[Finding]]:
    """Evaluate every sweep of `sweep_file` on the specs under `paths`.

    Returns the specs (for provenance), a result per sweep and the specs' unwaived error findings: a sweep still
    runs on specs with errors (its document says so), and the command exits 1. With `texts`, each sweep's
    `points.csv` is written by whoever evaluates its chunks and left there by sweep id.
    """
    workers, _ = worker_count(workers)
    specs, clusters, sweeps, errors = checked(sweep_file, paths)
    todo = problems(specs, clusters, sweeps)
    results = []
    with executor(workers, scheduler) as pool:
        n = workers if scheduler is None else SCHEDULER_WORKERS
        for p in todo:
            lines: list[str] | None = None if texts is None else []
            results.append(evaluate_all(p, pool, n, _reporter(progress, p.sweep.id), lines))
            if texts is not None and lines is not None:
                texts[p.sweep.id] = "".join(lines)
    return specs, results, errors


def _reporter(progress: Callable[[str, int, int], None] | None, sweep_id: str) -> Callable[[int, int], None] | None:
    """`progress` for one sweep's points, or None."""
    if progress is None:
        return None
    return lambda done, total: progress(sweep_id, done, total)


def write(specs: Specs, results: Sequence[Result], out: Path, formats: Sequence[str] = ("md", "csv", "svg"),
          templates: Path | None = None, date: str | None = None, failing: int = 0,
          points_csv: dict[str, str] | None = None) -> list[Path]:
    """Render each sweep into ``out/<sweep id>/`` (every file atomically, after all are rendered) and list them.

    `failing` counts the specs' error findings; a document of specs with errors says so. `points_csv` holds the
    sweeps' `points.csv` by sweep id where the workers wrote it.
    """
    from archgen.render import parse_formats
    from archgen.render.files import write_atomic
    from archgen.render.sweep import provenance_of, render_sweep

    wanted = parse_formats(formats)
    rendered = []
    for r in results:
        revision, digest = provenance_of(specs, r)
        given = (points_csv or {}).get(r.problem.sweep.id)
        rendered.append((r.problem.sweep.id, render_sweep(r, wanted, templates, revision, digest, date, failing,
                                                          given)))
    written = [write_atomic(out / sid / name, data) for sid, files in rendered for name, data in sorted(files.items())]
    for sid, files in rendered:  # a sweep without a front this time leaves no front of an earlier run behind
        for name, fmt in OPTIONAL_FILES.items():
            if fmt in wanted and name not in files:
                (out / sid / name).unlink(missing_ok=True)
    return written
