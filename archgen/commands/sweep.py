"""`archgen sweep`: `evaluate_sweeps(sweep_file, paths)` evaluates every point of each `Sweep` in a file.

The specs are loaded, analysed and checked once (`pipeline.analyse_paths`, then `pipeline.judged`); each sweep is
resolved against the analysed clusters (`commands.sweep_problems`) and its points estimated in chunks, here, in worker
processes or on a Dask cluster (`commands.workers`). With workers, the chunks are handed out as soon as the clusters
are analysed, and this process checks the specs (workload estimates, operations, the checks) while they run.
`sweep` is the command: it writes each sweep's reports (`render.sweep`) and says what was found
(`output.sweep`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from importlib import import_module
from pathlib import Path

from archgen.as_of import AsOf, given
from archgen.checks import Finding
from archgen.commands.common import check_out_dir, failing_note
from archgen.commands.sweep_problems import failing, problems
from archgen.commands.workers import SCHEDULER_WORKERS, executor, submit, worker_count
from archgen.errors import LoadError, SpecProblem, UnreadableError, UsageError, ValidateError
from archgen.model.sweep import DEFAULT_MAX_POINTS, Sweep
from archgen.perf.api import Result
from archgen.pipeline import Analysed, analyse_paths, judged
from archgen.spec_files import linked_out
from archgen.validate import Specs

#: Files a sweep writes only when it has a front (and, for the plot, two objectives), with their format.
OPTIONAL_FILES = {"front.csv": "csv", "pareto.svg": "svg", "pareto.png": "png"}


#: A sweep file, or several (`archgen sweep PATH...`: each file argument's Sweep documents run).
SweepFiles = Path | Sequence[Path]


def load(sweep_file: SweepFiles, paths: Sequence[Path]) -> tuple[Specs, dict, list[Sweep]]:
    """Load and analyse `sweep_file` with the specs under `paths`; the sweeps are those of `sweep_file`."""
    return checked(sweep_file, paths)[:3]


def checked(sweep_file: SweepFiles, paths: Sequence[Path]) -> tuple[Specs, dict, list[Sweep], list[Finding]]:
    """`load`, and the unwaived error findings of the specs (the pipeline's checks run as in `archgen check`)."""
    analysed, sweeps = analyse(sweep_file, paths)
    return analysed.specs, analysed.clusters, sweeps, judged(*analysed).errors


def analyse(sweep_file: SweepFiles, paths: Sequence[Path]) -> tuple[Analysed, list[Sweep]]:
    """The pipeline's stages up to the analysed clusters (`pipeline.analyse_paths`), and the sweeps of the file(s).

    What a sweep's points need; the rest of the pipeline (`pipeline.judged`: workload estimates, operations, the
    checks) gives the specs' error findings, which only the reports and the exit code read. Of several files
    (`commands.common.sweep_paths`), those without a Sweep document are specs like the `paths`; one of them must
    hold one.
    """
    files = [sweep_file] if isinstance(sweep_file, Path) else list(sweep_file)
    if not files:
        raise UsageError("no sweep file given: name the file of Sweep documents (archgen sweep SWEEP.yaml [PATH...])")
    # the link rule before "no such file", which told a pull request which of the runner's files exist
    if refused := [out for f in files if (out := linked_out(f)) is not None]:
        raise UnreadableError(refused)
    wrong = [f"{f}: " + ("is a directory, expected a file" if f.is_dir() else "no such file") for f in files
             if not f.is_file()]
    if wrong:
        raise LoadError("; ".join(wrong))
    analysed = analyse_paths([*paths, *files])
    specs = analysed.specs
    mine = {f.resolve() for f in files}
    sweeps = [s for s in specs.of(Sweep) if Path(specs.sources[s.id].file).resolve() in mine]
    if not sweeps:
        raise LoadError(f"{files[0]}: no Sweep document in the file" if len(files) == 1 else
                        f"no Sweep document in any of the files given ({', '.join(map(str, files))}): name the file "
                        "of Sweep documents among the paths")
    return analysed, sweeps


#: The most points one run of `archgen sweep` evaluates unless `--max-points` says more: a spec's `max_points` can
#: lower it, never raise it, so that a pull request's sweep of 10^6 points (at the per-point path's 0.15 s a point
#: on a shared 2-core machine, some 40 hours; newuser77) does not hold the job that checks it.
RUN_MAX_POINTS = DEFAULT_MAX_POINTS


def sweep(sweep_file: SweepFiles, paths: Sequence[Path], *, workers: int = 1, scheduler: str | None = None,
          out: Path = Path("out"), formats: Sequence[str] = ("md", "csv", "svg"), fmt: str = "text",
          templates: Path | None = None, progress: Callable[[str, int, int], None] | None = None,
          note: Callable[[str], None] = lambda text: None, as_of: str | None = None,
          max_points: int = RUN_MAX_POINTS) -> tuple[str, int]:
    """`archgen sweep`: evaluate, write the reports under `out`, and say what was found (text or JSON).

    Exit code 1 when a sweep has no feasible point, or the specs have error findings (the documents say so).
    `note` receives what the command says beside its output (a capped worker count, the specs' errors). `as_of`:
    `--as-of`, the day waivers' `expires` is judged on (`as_of`), as `archgen check` takes it: the error findings
    and the points on a cluster they fail are those `check` gives on that day. `max_points`: `--max-points`, the
    most points a sweep of this run may have (`RUN_MAX_POINTS`; `within`).
    """
    from archgen.render import parse_formats
    if fmt not in ("text", "json"):
        raise UsageError(f"unknown format '{fmt}'; expected text or json")
    if scheduler and workers != 1:
        raise UsageError("give either --workers or --scheduler, not both")
    check_out_dir(out)
    parse_formats(formats)  # an unknown format is refused before the points run, not after
    on = given(as_of)
    if templates is not None and not templates.is_dir():
        raise UsageError(f"templates directory '{templates}' does not exist")  # as archgen render says
    count, capped = worker_count(workers)
    if capped:
        note(capped)
    texts: dict[str, str] | None = {} if "csv" in formats else None
    # the reports' modules (`output.sweep`, which imports `render.sweep` and matplotlib: some 0.5-0.8 s) are
    # imported by `evaluate_sweeps` while the workers evaluate, so that the import below finds them loaded
    specs, results, errors = evaluate_sweeps(sweep_file, paths, workers=count, scheduler=scheduler,
                                             progress=progress, texts=texts, rows="xlsx" in formats,
                                             preload=("archgen.output.sweep",), as_of=on, note=note,
                                             max_points=max_points)
    from archgen.output import sweep as output
    written = write(specs, results, out, formats, templates, failing=len(errors), points_csv=texts)
    text = output.json_text(results, written) if fmt == "json" else output.text(results, written)
    if errors:
        note(failing_note([f.id for f in errors]))
    return text, 0 if all(r.counts()["feasible"] for r in results) and not errors else 1


def evaluate_sweeps(sweep_file: SweepFiles, paths: Sequence[Path], *, workers: int = 1, scheduler: str | None = None,
                    progress: Callable[[str, int, int], None] | None = None,
                    texts: dict[str, str] | None = None, rows: bool = True,
                    preload: Sequence[str] = (), as_of: AsOf | None = None,
                    note: Callable[[str], None] | None = None,
                    max_points: int = RUN_MAX_POINTS) -> tuple[Specs, list[Result], list[Finding]]:
    """Evaluate every sweep of `sweep_file` on the specs under `paths`.

    Returns the specs (for provenance), a result per sweep and the specs' unwaived error findings: a sweep still
    runs on specs with errors (its document says so), and the command exits 1. With `texts`, each sweep's
    `points.csv` is written by whoever evaluates its chunks and left there by sweep id. Without `rows`, workers send
    back only the rows of the front and best points (`workers.evaluate_all`). With a pool, the specs are checked,
    and the modules named in `preload` imported (those the caller reads the results with), while its workers
    evaluate. A sweep over a cluster the checks fail (`sweep_problems.failing`) is evaluated again knowing it, so that
    its points are not feasible (`perf.explore.points.feasibility`). `as_of` is the day waivers' `expires` is judged
    on (`pipeline.judged`; None: SOURCE_DATE_EPOCH, else today). `note` hears that a Dask scheduler has no worker
    while its chunks wait (`workers.Pending.result`). A sweep of more than `max_points` points is refused (`within`).
    """
    workers, _ = worker_count(workers)
    analysed, sweeps = analyse(sweep_file, paths)
    specs = analysed.specs
    within(specs, sweeps, max_points)
    todo = problems(specs, analysed.clusters, sweeps, as_of)
    with executor(workers, scheduler) as pool, ExitStack() as owned:
        # a pool's workers start on the chunks now (without a pool they run below, here); on an error, each sweep's
        # chunks not started are cancelled (`workers.Pending`) and the local workers running others ended
        # (`workers.executor`), not waited for
        n = workers if scheduler is None else SCHEDULER_WORKERS
        pending = [owned.enter_context(submit(p, pool, n, texts is not None, rows)) for p in todo]
        errors = judged(*analysed, as_of=as_of).errors  # the specs checked meanwhile
        for k, p in enumerate(todo):   # a sweep over a cluster the checks fail: its points are not feasible
            if why := failing(p, analysed.clusters, errors):   # (rare: evaluated again, knowing it)
                pending[k].cancel()
                todo[k] = replace(p, failing=why)
                pending[k] = owned.enter_context(submit(todo[k], pool, n, texts is not None, rows))
        for name in preload:
            import_module(name)
        results = []
        for p, chunks in zip(todo, pending, strict=True):
            lines: list[str] | None = None if texts is None else []
            results.append(chunks.result(_reporter(progress, p.sweep.id), lines, note))
            if texts is not None and lines is not None:
                texts[p.sweep.id] = "".join(lines)
    return specs, results, errors


def within(specs: Specs, sweeps: Sequence[Sweep], max_points: int = RUN_MAX_POINTS) -> None:
    """Refuse, at each one's `axes`, the sweeps of more points than a run evaluates (`max_points`), all at once.

    The cap is the command's (`--max-points`), not the spec's: a sweep's own `max_points` (at most 10^6) refuses
    more points than it states, and cannot let a run evaluate more than this.
    """
    problems = []
    for s in sweeps:
        points = math.prod(len(levels) for levels in s.axes.given().values())
        if points > max_points:
            problems.append(SpecProblem(specs.sources[s.id].locate(("axes",)), path="axes", message=(
                f"the axes make {points:,} points, more than the {max_points:,} one run of archgen sweep evaluates"),
                hint=f"shorten an axis, or run `archgen sweep --max-points {points}` to evaluate them all "
                     "(a sweep's own max_points cannot raise the run's cap)"))
    if problems:
        raise ValidateError(problems)


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
