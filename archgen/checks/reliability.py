"""REL: failure data, checkpoints and hot spares of clusters and training workloads (docs/reliability.md)."""

from __future__ import annotations

import math
from collections.abc import Iterator

from archgen.analyse.goodput import Goodput
from archgen.analyse.goodput_notes import (
    FIXED_WIRING,
    far_from_optimum,
    interval_cost,
    interval_words,
    no_spares,
    said_by_spares,
    spare_interval,
)
from archgen.analyse.rate_sets import scope_chain
from archgen.checks import (
    rate_repairs,  # noqa: F401 (registers REL015: a repair of 0 h)
    reliability_storage,  # noqa: F401 (registers REL001, REL006, REL010 to REL014: storage)
)
from archgen.checks.registry import Context, Severity, Violation, check
from archgen.checks.reliability_storage import jobs as _jobs
from archgen.display import decimals, duration
from archgen.model import FailureRates
from archgen.units import Q_


@check("REL002", "rel.progress", severity="warning")
def checkpoint_within_mtti(ctx: Context) -> Iterator[Violation]:
    """A training job writes a checkpoint in less time than its mean time to interruption.

    When the write takes longer than the MTTI, Daly's optimum interval is the MTTI itself and most checkpoints are
    lost to the next failure: the job barely progresses.

    Fix: add checkpoint write bandwidth (`storage.write_bandwidth`, storage NICs), checkpoint less state, or run on
    fewer or more reliable parts.
    """
    for path, r, g in _jobs(ctx):
        if g.mtti and g.write_time >= g.mtti:
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"a checkpoint takes {duration(g.write_time)}, the mean time to interruption is "
                            f"{duration(g.mtti)}",
                            Q_(g.write_time, "s").to("min"), Q_(g.mtti, "s").to("min"))


@check("REL003", "rel.spares", severity="info")
def spares_held(ctx: Context) -> Iterator[Violation]:
    """The cluster keeps the hot spare nodes a training job needs to hold its goodput target.

    A spare is a node the job does not use; without one, a job that loses a node waits for its repair.

    Where a scale-up domain spans several nodes (an NVL72 rack), a spare must be inside the job's domain (an idle
    tray of it) or a whole idle domain. A torus wired without OCSes takes none: it is reported only where its goodput
    misses the target.

    A job that states no `placement` fills whole domains in order: its idle trays are all in its last one.

    Where no idle node can stand in at all, every hardware failure waits for its repair: the finding gives the job's
    mean nodes in repair m, e^-m (the share of time none is in repair) and its goodput with a failed node replaced at
    once, the other end of its range, since no design input states the repair time (docs/reliability.md, Hot spares).

    The spares are sized at the interval the job checkpoints at: its stated `checkpoint.interval`, else Daly's
    optimum, and the finding says which. Where no number of them holds the target at a stated interval, the finding
    (a warning, at the interval) gives the spares that would at Daly's optimum, or says none would there either;
    where that interval lies outside a factor of two of the optimum, it also gives goodput at the interval and at the
    optimum (and whether the interval outlasts the run), REL005's figures, which REL005 then does not repeat.

    Severity: a warning where the job states its own `checkpoint.goodput_target` and its goodput misses it, or where
    no number of hot spares holds the target (a stated target missed is not information: newuser41's goodput 0.184
    against a stated 0.9 read info); info where the default target (0.9, not stated) is missed for want of idle nodes.

    Fix: run the job on fewer accelerators with `placement: {per_domain: 64}` (an NVL72 rack can run 64 of 72 GPUs,
    2 trays idle), add spare nodes, or cut repair times; `checkpoint.goodput_target` sets the target (default 0.9).
    """
    for path, r, g in _jobs(ctx):
        stated = r.workload.checkpoint.goodput_target is not None and g.goodput < g.target
        severity: Severity | None = "warning" if stated else None
        whose, said = ((f" (the job's stated {key})" if stated else "")
                       for key in ("checkpoint.goodput_target", "goodput target"))
        if g.fixed_wiring:
            if g.goodput < g.target:
                misses = f"goodput {_goodput(g.goodput, 3)} misses the target {g.target:g}"
                yield Violation(path, r.workload.id, ("cluster",), f"{misses}{whose}, and {FIXED_WIRING}",
                                Q_(g.goodput, ""), Q_(g.target, ""), severity=severity,
                                public=f"{misses}{said}, and {FIXED_WIRING}")
        elif g.spares_needed is None and g.interval_stated:
            cost = f"; {interval_cost(g, _run_time(ctx, path))[0]}" if said_by_spares(g) else ""   # REL005's, once
            yield Violation(path, r.workload.id, ("checkpoint", "interval"),
                            no_spares(g).removesuffix(" (REL003)") + cost + _repair_wait(g),
                            Q_(g.interval, "s").to("min"), Q_(g.optimum, "s").to("min"), severity="warning")
        elif g.spares_needed is None:
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"no number of hot spares holds goodput {g.target:g}; the failure "
                            f"rate and checkpoint cost alone leave it below" + _repair_wait(g), severity="warning")
        elif g.spares_needed > g.spares_available:
            takes = (f" {spare_interval(g)} takes {g.spares_needed} hot spare node(s); its cluster leaves "
                     f"{g.spares_available} idle, so goodput is {decimals(g.goodput, 3)}")
            packed = ("; its ranks fill whole scale-up domains in order, so those in its last domain stand in for "
                      "that domain's trays alone") if g.packed else ""
            yield Violation(path, r.workload.id, ("accelerators",) if r.workload.accelerators else ("cluster",),
                            f"holding goodput {g.target:g}{whose}{takes}"
                            + (f"{packed} (`placement.per_domain` states a segment)" if packed else "")
                            + _repair_wait(g), Q_(g.spares_available, ""), Q_(g.spares_needed, ""),
                            severity=severity, public=f"holding goodput {g.target:g}{said}{takes}{packed}"
                                                      + _repair_wait(g))


def _run_time(ctx: Context, path: str) -> float | None:
    """The job's time to train (s) where it states `checkpoint.tokens`, else None."""
    run = ctx.metrics.get(path, {}).get("time_to_train")
    return run.m_as("s") if run is not None else None


def _repair_wait(g: Goodput) -> str:
    """Where every hardware failure of a job waits for its repair (no hot spare): what its goodput rests on, else ''.

    The mean nodes in repair m (M/M/inf) and goodput near e^-m, the chance that none of its nodes is in repair, at the
    rate set's repair time; and the goodput with a failed node replaced at once, the other end of its range.
    """
    if g.swapped is None:
        return ""
    return (f"; every hardware failure waits for its repair (the rate set's {g.repair / 3600:.3g} h mean, which no "
            f"design input states): on average {g.in_repair:.3g} of its {g.nodes:,} nodes are in repair, so it runs "
            f"only about e^-{g.in_repair:.3g} = {decimals(math.exp(-g.in_repair), 3)} of the time, and with a failed "
            f"node replaced at once its goodput would be {decimals(g.swapped.goodput, 3)} at the same failure rates")


@check("REL004", "rel.rates", severity="warning")
def parts_have_rates(ctx: Context) -> Iterator[Violation]:
    """Every part class of a cluster has a failure rate, so that its interruptions are complete.

    Fix: add the class to the cluster's `FailureRates` set, give the part its own `reliability:`, or name an
    existing set in `failure_rates`.
    """
    for path, rel in sorted(ctx.operations.reliability.items()):
        cluster = ctx.clusters[path].cluster.spec
        if not rel.rates_id:
            yield Violation(path, cluster.id, ("failure_rates",) if cluster.failure_rates else (),
                            f"no FailureRates set '{cluster.failure_rates or 'field-h100-2024'}'")
        elif rel.unrated:
            yield Violation(path, cluster.id, ("failure_rates",) if cluster.failure_rates else (),
                            f"no failure rate for {', '.join(rel.unrated)}; their failures are left out"
                            f"{_broken_base(ctx, rel.rates_id)}")


def _broken_base(ctx: Context, rates_id: str) -> str:
    """Where the set's `base` chain ends at an id that names no `FailureRates` set: a clause saying so, else ''."""
    specs = ctx.design.specs
    found = specs.get(rates_id)
    last = scope_chain(specs, found if isinstance(found, FailureRates) else None)[-1:]
    if not last or not last[0].base or isinstance(specs.get(last[0].base), FailureRates):
        return ""
    return f" ('{last[0].id}' takes the classes it leaves out from base '{last[0].base}', which names no set)"


@check("REL005", "rel.interval", severity="info")
def interval_near_optimum(ctx: Context) -> Iterator[Violation]:
    """A training job's checkpoint interval is within a factor of two of Daly's optimum.

    The finding gives goodput at the interval and at the optimum; it is a warning where the interval is longer than
    the run takes to train (`checkpoint.tokens` stated): no checkpoint is written before the run ends.

    Where no number of hot spares holds the job's goodput target at the stated interval, REL003 already names the
    interval and Daly's optimum (and the spares that would hold the target there): it gives these figures too, and
    this finding is not repeated for the job. Where the job falls short of spares at an interval some count would
    hold, the two are different facts (REL003: the idle nodes the interval takes; this: what the interval costs at
    the idle nodes the job has), and both are given.

    Fix: leave `checkpoint.interval` out to use the optimum, or set it near the optimum shown.
    """
    for path, r, g in _jobs(ctx):
        if r.workload.checkpoint.interval is not None and far_from_optimum(g) and not said_by_spares(g):
            words, longer = interval_words(g, _run_time(ctx, path))
            yield Violation(path, r.workload.id, ("checkpoint", "interval"), words, Q_(g.interval, "s").to("min"),
                            Q_(g.optimum, "s").to("min"), severity="warning" if longer else None)


@check("REL007", "rel.scope", severity="info")
def rates_in_scope(ctx: Context) -> Iterator[Violation]:
    """A cluster's failure rates were measured on its own accelerator, or the document says they are borrowed.

    A set whose source leaves the accelerator model unstated (StepFun's trace: NVIDIA, model not stated) is not
    shown to be the cluster's own either: this finding says so too ("accelerator not stated by the source").

    Fix: name a `failure_rates` set measured on the cluster's accelerator, or accept the borrowed rates knowingly
    (waive this finding with the reason).
    """
    for path, rel in sorted(ctx.operations.reliability.items()):
        said = ([f"{rel.borrowed}: rates from another generation or vendor"] if rel.borrowed else []) + (
            [rel.unstated] if rel.unstated else [])
        if said:
            cluster = ctx.clusters[path].cluster.spec
            yield Violation(path, cluster.id, ("failure_rates",) if cluster.failure_rates else (), "; ".join(said))


@check("REL008", "rel.blocking", severity="info")
def checkpoint_blocking_known(ctx: Context) -> Iterator[Violation]:
    """An asynchronous or in-memory checkpoint's blocking time rests on the nodes' host link, not on an assumption.

    Such a checkpoint stops training only to copy each accelerator's share to host memory, over the node's
    `host_memory.link`. A node that gives no link leaves that copy's rate unknown: archgen does not guess it and
    charges the whole write as blocking, an upper bound on the checkpoint's cost, and this finding says so. The
    blocking time itself is then not provided, and a requirement on it is REQ002 (not provided), not judged on the
    assumption. Goodput and what rests on it are given at that bound, and its range (`goodput_high`) reaches the
    other end, no stop at all; a requirement on them met at one end and not at the other is REQ002 as well.

    Fix: give the compute node's `host_memory` (capacity, link and efficiency, with their source), or accept the
    whole write as the cost (waive this finding with the reason).
    """
    for path, r, g in _jobs(ctx):
        if g.blocking_assumed:
            cp = r.workload.checkpoint
            kind = "in-memory" if cp.in_memory else "asynchronous"
            cluster = r.estimate.cluster if r.estimate else "?"
            rest = (f", so the {kind} checkpoint's copy to host memory has no rate: training is taken to stop for the "
                    f"whole write, {duration(g.write_time)} (an assumption, an upper bound): goodput "
                    f"{decimals(g.goodput, 4)} there, "
                    f"{decimals(g.unblocked.goodput if g.unblocked else g.goodput, 4)} with no stop")
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"the nodes of cluster '{cluster}' give no `host_memory.link`{rest}", Q_(g.blocking, "s"),
                            None, public=f"the nodes of cluster '{cluster}' state no host memory link{rest}")


@check("REL009", "rel.spare_model", severity="warning")
def spare_model_valid(ctx: Context) -> Iterator[Violation]:
    """A training job's hot spares outnumber its nodes in repair, where the spare model's wait for a repair holds.

    The spare model counts the job's nodes in repair as Poisson (M/M/inf: nodes x hardware failure rate x repair
    time) and charges an interruption that finds every spare in repair one wait for the first node back. That is a
    correction to the restart while the spares outnumber the nodes in repair. Where more are in repair on average
    than the job has spares, the job is short of spares most of the time, and its waits are set by the repair queue
    the closed form does not model (repair scheduling, the repair times' spread, idle spares failing): the restart
    time is then not provided (a requirement on it is REQ002), and the goodput and spares given rest on that wait.
    With no spare at all the wait is the failed node's own repair, and this finding does not apply.

    Fix: cut repair times or failure rates (check the `FailureRates` figures: an AFR of 100 % with a year's repair
    leaves a node in repair most of its life), or keep more idle nodes than are in repair.
    """
    for path, r, g in _jobs(ctx):
        if g.spares_overrun:
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"the job's {g.nodes} node(s) keep {g.in_repair:.3g} nodes in repair on average (M/M/∞: "
                            f"nodes × hardware failure rate × repair time), more than {_spares(g)}: the spare model "
                            "is outside its validity, so the restart time (with its wait for a repair) is not "
                            f"provided; goodput {_goodput(g.goodput, 4)} rests on that wait",
                            Q_(g.in_repair, ""), Q_(g.spare_slots, ""))


def _spares(g: Goodput) -> str:
    """What a job's nodes in repair are weighed against (REL009): its idle nodes, or what they stand in for."""
    if g.spare_slots == g.spares_available:
        return f"its {g.spares_available} hot spare(s)"
    return (f"the {g.spare_slots} failed node(s) its {g.spares_available} idle node(s) stand in for at once (a whole "
            "idle scale-up domain takes one failed node's domain, an idle node of the job's own domains one failure "
            "there)")


def _goodput(goodput: float, digits: int) -> str:
    """A goodput as a finding words it: at `digits` decimals, but an exact 0 reads "0 (no progress)".

    Goodput below `perf.train.goodput`'s floor is reported as 0, no progress at all; "0.0000" read as a rounded
    figure (newuser103: REL009 on a 1,048,576-accelerator job).
    """
    return decimals(goodput, digits) if goodput else "0 (no progress)"
