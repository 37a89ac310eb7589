"""SWP: a sweep can run on its workload: its axes, objectives and requirements apply to the workload's job.

`mistakes` is the one rule: `archgen check` reports it as SWP001 findings and `archgen sweep` refuses a sweep file
with the same located list before any point runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.errors import a_or_an
from archgen.model.sweep import JOB_AXES, JOB_METRICS, Sweep
from archgen.model.workload import Workload, job_kind
from archgen.units import Q_


def mistakes(specs, sweep: Sweep) -> list[tuple[tuple, str]]:
    """Every way `sweep` does not fit its workload, as (key path in the sweep's document, message).

    An unknown workload, cluster or accelerator id is REF001's, not repeated here.
    """
    workload = specs.get(sweep.workload)
    if not isinstance(workload, Workload):
        return []
    job = job_kind(workload, "workload")
    out: list[tuple[tuple, str]] = []
    for name in sweep.axes.given():
        wrong = [k for k, names in JOB_AXES.items() if name in names and k != job]
        if wrong and name not in JOB_AXES.get(job, ()):
            out.append((("axes", name), f"sweep '{sweep.id}': axis '{name}' changes {a_or_an(wrong[0])} job; "
                                        f"workload '{workload.id}' is {a_or_an(job)} job"))
    theirs = {r.id: j for j, r in enumerate(workload.requirements)}
    for i, r in enumerate(sweep.requirements):
        if r.id in theirs:  # a point's outcomes are keyed by requirement id
            other = specs.locate(workload.id, ("requirements", theirs[r.id], "id"))
            out.append((("requirements", i, "id"), f"sweep '{sweep.id}': requirement id '{r.id}' is also a "
                                                   f"requirement of workload '{workload.id}' (at {other}); give the "
                                                   "sweep's requirement its own id"))
    for i, o in enumerate(sweep.objectives):
        if o.metric not in JOB_METRICS[job]:
            out.append((("objectives", i, "metric"), f"sweep '{sweep.id}': objective '{o.metric}' is not a metric "
                                                     f"of a {job} job (workload '{workload.id}'), so no point would "
                                                     f"have it; a {job} job has {', '.join(JOB_METRICS[job])}"))
    for i, r in enumerate(sweep.requirements):
        if r.metric not in JOB_METRICS[job]:
            out.append((("requirements", i, "metric"), f"sweep '{sweep.id}': requirement {r.id} targets "
                                                       f"'{r.metric}', which a {job} job does not have (workload "
                                                       f"'{workload.id}'), so no point would be judged on it; a "
                                                       f"{job} job has {', '.join(JOB_METRICS[job])}"))
    if not (sweep.axes.cluster or workload.cluster):
        out.append((("axes",), f"sweep '{sweep.id}': workload '{workload.id}' names no cluster; give axes.cluster"))
    return out


@check("SWP001", "sweep.fits_workload")
def sweep_fits_workload(ctx: Context) -> Iterator[Violation]:
    """A sweep's axes, objectives and requirements apply to its workload's job, and it has a cluster to run on.

    Fix: vary the axes of the workload's kind of job (tp, pp, micro_batch for training; batch for inference), name
    metrics that job has as objectives and requirements, give the sweep's requirements their own ids, and name a
    cluster in the workload or in `axes.cluster`.
    """
    specs = ctx.design.specs
    for sweep in specs.of(Sweep):
        for path, message in mistakes(specs, sweep):
            yield Violation(f"sweep/{sweep.id}", sweep.id, path, message)


@check("SWP002", "sweep.accelerators")
def sweep_accelerators_exist(ctx: Context) -> Iterator[Violation]:
    """Every value of a sweep's `accelerators` axis is a job some cluster of the sweep can hold.

    A point that asks for more accelerators than its cluster has is *invalid* in the sweep's table; a value that no
    cluster of the sweep (`axes.cluster`, else the workload's) can hold makes only invalid points, a typo such as
    an extra digit, and the sweep would run them all.

    Fix: give job sizes up to the largest cluster's accelerators, or add a cluster that holds them to `axes.cluster`.
    """
    specs = ctx.design.specs
    for sweep in specs.of(Sweep):
        workload = specs.get(sweep.workload)
        names = sweep.axes.cluster or ([workload.cluster] if isinstance(workload, Workload) and workload.cluster
                                       else [])
        sizes = {n: a.accelerators for n in names if (a := ctx.clusters.get(f"cluster/{n}")) is not None}
        if not sizes or len(sizes) < len(names):  # an unknown cluster is REF001's
            continue
        largest = max(sizes.values())
        for i, n in enumerate(sweep.axes.accelerators or ()):
            if n > largest:
                held = ", ".join(f"'{c}' {k:,}" for c, k in sizes.items())
                yield Violation(f"sweep/{sweep.id}", sweep.id, ("axes", "accelerators", i),
                                f"sweep '{sweep.id}': {n:,} accelerators is more than any cluster of the sweep "
                                f"holds ({held}): every point of it would be invalid", Q_(n, ""), Q_(largest, ""))
