"""SWP: a sweep can run on its workload: its axes, objectives and requirements apply to the workload's job.

`mistakes` is the one rule: `archgen check` reports it as SWP001 findings and `archgen sweep` refuses a sweep file
with the same located list before any point runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.sweep_inputs import GOODPUT, POWER, PRICES, SWAPPED, TOKENS, missing, rests_on
from archgen.applicable import not_applicable
from archgen.binding import BoundRequirement
from archgen.build import Design
from archgen.checks.registry import Context, Violation, check
from archgen.errors import a_or_an, did_you_mean
from archgen.model.cluster import Cluster
from archgen.model.field_words import said
from archgen.model.requirements import Status, fails
from archgen.model.sweep import JOB_METRICS, Sweep
from archgen.model.sweep_axes import FABRIC_AXES, JOB_AXES, Axes
from archgen.model.sweep_fabric import refused
from archgen.model.workload import Workload, job_kind
from archgen.open_item import Worded
from archgen.units import Q_


def mistakes(design: Design, clusters: Mapping[str, ClusterAnalysis], sweep: Sweep) -> list[tuple[str, tuple, str]]:
    """Every way `sweep` does not fit its workload, as (spec id, key path in that document, message).

    The spec id is the sweep's, or that of the document stating a requirement on the workload that no point could
    provide (`unanswerable`): the workload's own, or a `Requirements` document's on it. `clusters` holds the analysed
    clusters by path. An unknown workload, cluster or accelerator id is REF001's, not repeated here.
    """
    specs = design.specs
    workload = specs.get(sweep.workload)
    if not isinstance(workload, Workload):
        return []
    job = job_kind(workload, "workload")
    out: list[tuple[tuple, str]] = []
    for name, why in sweep.axes.serving_features().items():   # refused as an `inference:` key is, on a serving job
        out.append((("axes", name), why if job == "inference" else
                    f"sweep '{sweep.id}': unknown axis '{name}'{did_you_mean(name, Axes.model_fields, lead='; ')} "
                    f"(axes of {a_or_an(job)} job: {', '.join(_axes_of(job))})"))
    for name in sweep.axes.given():
        wrong = [k for k, names in JOB_AXES.items() if name in names and k != job]
        if wrong and name not in JOB_AXES.get(job, ()):
            out.append((("axes", name), f"sweep '{sweep.id}': axis '{name}' changes {a_or_an(wrong[0])} job; "
                                        f"workload '{workload.id}' is {a_or_an(job)} job"))
    scenario = workload.inference.scenario if workload.inference is not None else "server"
    if sweep.axes.arrival_rate and scenario != "server":   # its points would run without it (newuser93)
        said_as = f"sweep '{sweep.id}': axis %s sets the Poisson arrivals of a server run; workload '{workload.id}' "
        out.append((("axes", "arrival_rate"), Worded(
            said_as % "'arrival_rate'" + f"runs scenario '{scenario}', which takes none (state scenario: server on "
                                         "the workload, or remove the axis)",
            said_as % "arrival rate" + f"runs the {scenario} scenario, which takes none")))
    theirs = {b.req.id: b for b in design.requirements_of(f"workload/{workload.id}")}
    for i, r in enumerate(sweep.requirements):
        if r.id in theirs:  # a point's outcomes are keyed by requirement id
            b = theirs[r.id]
            other = specs.locate(b.owner, b.path + ("id",))
            whose = _named(b, workload, specs, with_id=False)
            out.append((("requirements", i, "id"), f"sweep '{sweep.id}': requirement id '{r.id}' is also a "
                                                   f"requirement of {whose} (at {other}); give the sweep's "
                                                   "requirement its own id"))
    has = f"{a_or_an(job)} job has {', '.join(JOB_METRICS[job])}"
    for i, o in enumerate(sweep.objectives):
        if o.metric not in JOB_METRICS[job]:
            rest = f" is not a metric of {a_or_an(job)} job (workload '{workload.id}'), so no point would have it; "
            rest += has
            out.append((("objectives", i, "metric"), Worded(f"sweep '{sweep.id}': objective '{o.metric}'{rest}",
                                                            f"sweep '{sweep.id}': objective {said(o.metric)}{rest}")))
    for i, r in enumerate(sweep.requirements):
        if r.metric not in JOB_METRICS[job]:
            rest = (f", which {a_or_an(job)} job does not have (workload '{workload.id}'), so no point would be "
                    f"judged on it; {has}")
            out.append((("requirements", i, "metric"), Worded(f"sweep '{sweep.id}': requirement {r.id} targets "
                                                              f"'{r.metric}'{rest}", f"sweep '{sweep.id}': "
                                                              f"requirement {r.id} targets {said(r.metric)}{rest}")))
    if not (sweep.axes.cluster or workload.cluster):
        out.append((("axes",), f"sweep '{sweep.id}': workload '{workload.id}' names no cluster; give axes.cluster"))
    for name in (n for n in FABRIC_AXES if getattr(sweep.axes, n) is not None):   # a design it cannot make
        for cid in sweep.axes.cluster or [workload.cluster or ""]:
            if isinstance(cluster := specs.get(cid), Cluster) and \
                    (why := refused(cluster, name, _tiers_used(clusters.get(f"cluster/{cid}"), cluster))):
                said_as = f"sweep '{sweep.id}': axis %s changes the compute fabric, and {why}"
                out.append((("axes", name), Worded(said_as % f"'{name}'" + " (docs/sweeps.md, Fabric axes)",
                                                   (said_as % said(name)).replace(why, getattr(why, "public", why)))))
    return [(sweep.id, path, message) for path, message in out] + unanswerable(design, clusters, sweep, workload, job)


def _tiers_used(analysed: ClusterAnalysis | None, cluster: Cluster) -> int | None:
    """The tiers the cluster's compute fabric builds as stated (`tiers: auto` sizes them); None: not analysed."""
    i = cluster.compute_fabric_index()
    fabric = cluster.fabrics[i].id if i is not None else None
    return next((fa.tiers_used for fa in analysed.fabrics if fa.fabric.spec.id == fabric), None) if analysed else None


def _axes_of(job: str) -> tuple[str, ...]:
    """The axes a sweep of `job` may take: all but those of another job's kind (`JOB_AXES`)."""
    others = {name for kind, names in JOB_AXES.items() if kind != job for name in names}
    return tuple(n for n in Axes.model_fields if n not in others or n in JOB_AXES.get(job, ()))


#: What to give so that a point computes a figure that rests on it (`analyse.sweep_inputs.rests_on`).
_GIVE = {TOKENS: "give the workload its token budget, `checkpoint: {tokens: ...}`",
         POWER: "name the link media of every fabric tier",
         GOODPUT: "give the cluster a checkpoint `storage:`",
         PRICES: "price every part on the cluster's bill of materials (`price:` or a `Prices` document) and give its "
                 "facility a `cost:`",
         SWAPPED: "put the cluster's own chip on the `accelerator` axis too, or model a cluster of the other systems "
                  "with their prices"}


def unanswerable(design: Design, clusters: Mapping[str, ClusterAnalysis], sweep: Sweep, workload: Workload,
                 job: str) -> list[tuple[str, tuple, str]]:
    """The requirements on the workload that fail every point of `sweep` unjudged: on a metric no point computes.

    Those `check` judges on the workload (`build.Design.requirements_of`: its own, and those of `Requirements`
    documents on it), as the points are judged on them. A point computes its job's estimate and the sweep's own
    metrics (`model.sweep.JOB_METRICS`), not the other figures of `check`'s operations stage (`spares`,
    `checkpoint_blocking_time`, ...); and of its own, power, goodput, MTTI, cost per token, the checkpoint times and
    the time to train only where its cluster and workload give what they rest on (`analyse.sweep_inputs.missing`:
    IT power, somewhere to write checkpoints, prices in USD for the chip the point runs, the workload's token
    budget). A requirement on a figure that no point of the sweep computes is not provided at every
    point; where its level makes not provided a failure (`model.requirements.fails`: SHALL, as `check` makes it an
    error), no point could be feasible, so the sweep is refused at the requirement's line before any point runs, as
    a sweep requirement on such a metric is. At SHOULD or MAY it is reported as not provided at each point and left
    alone, and so is a SHALL that some cluster of the sweep can give (the others' points are not feasible, with the
    reason).
    """
    specs = design.specs
    ids = sweep.axes.cluster or ([workload.cluster] if workload.cluster else [])
    analysed = [clusters.get(f"cluster/{c}") for c in ids]
    out: list[tuple[str, tuple, str]] = []
    for b in design.requirements_of(f"workload/{workload.id}"):
        req = b.req
        if not fails(req.level, Status.NOT_PROVIDED) or not_applicable(b, design):
            continue   # a glob's requirement on another job kind's metric is not applicable, as `check` has it
        whose = f"sweep '{sweep.id}': {_named(b, workload, specs)} ({req.level.upper()}) targets "
        named = f"{whose}'{req.metric}'"
        if req.metric not in JOB_METRICS[job]:
            rest = (", which a sweep does not compute, so no point could meet it and none would be feasible; a "
                    f"{job} point has {', '.join(JOB_METRICS[job])}")
            out.append((b.owner, b.path + ("metric",), Worded(f"{named}{rest} (judge it with `archgen check`, or make "
                                                              "it SHOULD or MAY, which the sweep reports as not "
                                                              "provided)", f"{whose}{said(req.metric)}{rest}")))
            continue
        needs = rests_on(req.metric, job)
        if not needs or not analysed or any(a is None for a in analysed):   # an unknown cluster is REF001's
            continue
        why = [missing(specs, a, workload, needs, sweep.axes.accelerator or ()) for a in analysed if a is not None]
        if all(why):
            give = " and ".join(dict.fromkeys(_GIVE[k] for ws in why for k, _ in ws))
            reasons = "; ".join(dict.fromkeys(w for ws in why for _, w in ws))
            elsewhere = "" if all(k == TOKENS for ws in why for k, _ in ws) else \
                ", or put a cluster that has what it needs on the `cluster` axis"   # no cluster gives a token budget
            rest = (f", which no point of the sweep can compute: {reasons}; so no point could meet it and none would "
                    f"be feasible (to judge it: {give}{elsewhere}; or make it SHOULD or MAY, which the sweep reports "
                    "as not provided")
            out.append((b.owner, b.path + ("metric",), Worded(f"{named}{rest}; docs/sweeps.md)",
                                                              f"{whose}{said(req.metric)}{rest})")))
    return out


def _named(b: BoundRequirement, workload: Workload, specs, *, with_id: bool = True) -> str:
    """A requirement on the workload in words: "workload 'w' requirement R", "Requirements 'r' requirement R on ...".

    Without its id (`with_id` false), whose it is: "workload 'w'", "Requirements 'r' on workload 'w'".
    """
    req = f" requirement {b.req.id}" if with_id else ""
    if b.owner == workload.id:
        return f"workload '{workload.id}'{req}"
    return f"{_kind(specs, b.owner)} '{b.owner}'{req} on workload '{workload.id}'"


def _kind(specs, owner: str) -> str:
    """The kind of the document `owner` ("Requirements", "Cluster")."""
    return getattr(specs.get(owner), "kind", "document")


@check("SWP001", "sweep.fits_workload")
def sweep_fits_workload(ctx: Context) -> Iterator[Violation]:
    """A sweep's axes, objectives and requirements apply to its workload's job, and it has a cluster to run on.

    The SHALL requirements `check` judges on the workload count too, its own and those of `Requirements` documents
    on it: one on a figure no sweep point computes (`spares`, which `archgen check` gives), or on power, goodput,
    MTTI, cost per token or time to train where no cluster of the sweep gives what they rest on (IT power, checkpoint
    storage, prices in USD for the chip the points run; the workload's token budget), would be not provided at
    every point, so no point could be feasible; it is reported at the requirement's line in the file that states it.

    Fix: vary the axes of the workload's kind of job (tp, pp, micro_batch for training; batch for inference), name
    metrics that job has as objectives and requirements, give the sweep's requirements their own ids, and name a
    cluster in the workload or in `axes.cluster`; judge a workload's target on a figure a sweep does not compute
    with `archgen check`, give the cluster or workload what the message names (a `storage:`, prices, a token
    budget), or make it SHOULD or MAY.
    """
    specs = ctx.design.specs
    for sweep in specs.of(Sweep):
        for owner, path, message in mistakes(ctx.design, ctx.clusters, sweep):
            yield Violation(f"sweep/{sweep.id}", owner, path, str(message), public=getattr(message, "public", ""))


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
