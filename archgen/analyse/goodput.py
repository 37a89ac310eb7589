"""A training job's checkpoints, interruptions and goodput on its cluster, with their spread (docs/reliability.md).

The closed forms are `archgen.perf.train.goodput`'s, shared with sweeps; this module feeds them a cluster's failure
model (`archgen.analyse.reliability`), its checkpoint storage and its nodes' NICs and host links, and states the range
of every figure over the catalog's published rate sets and each set's Poisson confidence interval.

Beside it: `archgen.analyse.checkpoint_storage` (where the checkpoints go and at what bandwidth),
`archgen.analyse.goodput_range` (the failure figures and the range over rate sets, in numbers and words) and
`archgen.analyse.goodput_notes` (what a job's goodput leaves unsettled or not provided, and why).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from archgen.analyse.checkpoint_storage import (
    CHECKPOINT_METRICS,
    StorageSide,
    delivered_storage,
    no_checkpoint_target,
    node_storage_bandwidth,
    storage_fabrics,
    storage_side,
    unbounded_why,
    unbuilt_storage,
)
from archgen.analyse.failure_model import Reliability
from archgen.analyse.goodput_range import (
    BLOCKING_SPANNED,
    PACKED_SPARES,
    REPAIR_SPANNED,
    failure_ends,
    failures_of,
    rate_sets,
    spanned,
)
from archgen.analyse.network import ClusterAnalysis, compute_node
from archgen.analyse.storage_demand import amount
from archgen.model.network import Switch
from archgen.model.storage import AT_STATED_BANDWIDTH
from archgen.model.system import max_draw
from archgen.model.workload import Model, Workload
from archgen.perf.train.goodput import (
    DEFAULT_GOODPUT_TARGET,
    JobGoodput,
    ettr,
    free_end,
    job_goodput,
    range_ends,
    spares_charged,
)
from archgen.perf.train.point_goodput import checkpoint_bytes, for_job, loads_once, restore_reads
from archgen.perf.workload.derived import goodput_rates, mtti_figures
from archgen.perf.workload.run_figures import goodput_time_ends, run_bands, time_to_train
from archgen.units import Q_, Q
from archgen.validate import Specs

#: Re-exported: the checkpoint storage (`archgen.analyse.checkpoint_storage`) and the failure figures and their range
#: (`archgen.analyse.goodput_range`) were defined here before; the words of what a goodput leaves unsettled are
#: `archgen.analyse.goodput_notes`'.
__all__ = ["BLOCKING_SPANNED", "CHECKPOINT_METRICS", "PACKED_SPARES", "REPAIR_SPANNED", "STORAGE_METRICS", "Goodput",
           "StorageSide", "checkpoint_bytes", "delivered_storage", "failure_ends", "failures_of", "goodput",
           "no_checkpoint_target", "node_storage_bandwidth", "rate_sets", "replicas_metrics", "run_bands", "spanned",
           "storage_fabrics", "storage_metrics", "storage_side", "swapped_metrics", "unblocked_metrics",
           "unbounded_why", "unbuilt_storage", "workload_metrics"]


@dataclass(frozen=True)
class Goodput(JobGoodput):
    """A training job's checkpoints, interruptions and goodput (perf.train.goodput.JobGoodput) with its size."""

    accelerators: int = 0
    checkpoint_size: float = 0.0  # B
    band: dict[str, tuple[float, float]] = field(default_factory=dict)  # (low, high) over rate sets and intervals
    #: Where the blocking time is assumed (REL008): the same job with no blocking at all, the other end of what the
    #: unknown copy rate allows (the figures above charge the whole write).
    unblocked: JobGoodput | None = None
    #: Whether its idle trays are all in its last scale-up domain (`PACKED_SPARES`): it states no `placement`, runs on
    #: more than one domain of several nodes, and leaves part of the last one idle.
    packed: bool = False
    #: The idle nodes its cost range charges as hot spares: the most `spares_counted` of the value and of every end of
    #: goodput's range (`perf.train.goodput.spares_charged`).
    spares_charged: int = 0
    #: (hot spares needed, whole idle domains among them, restart + wait in s) at each end of goodput's range: the
    #: spares infinite where no number holds the target there, the restart where more nodes are in repair than spares.
    spare_ends: tuple[tuple[float, int, float], ...] = ()
    #: Where every hardware failure waits for its repair (no hot spare: `perf.train.goodput.waits_for_repair`): the
    #: same job with a failed node replaced at once (repair 0), the other end of what the unstated repair time allows.
    swapped: JobGoodput | None = None
    #: Where which load the job's restore runs is not settled (`restore_reads`' other end: no `checkpoint.parallel_load`
    #: and a stack whose default no one source settles): the same job restoring each data-parallel replica's weights
    #: (`checkpoint_restore_read`), the other end of the one-copy restore the figures above time.
    replicas: JobGoodput | None = None
    repair: float = 0.0   # s, the mean repair time of a node's hardware failures the job waits for (the rate set's)

    def curve(self, intervals: list[float]) -> list[float]:
        """Goodput at each checkpoint interval (s), for the goodput-vs-interval chart and REL005.

        With its planned stops, as `goodput` (the chart's point at the job's interval read 0.924 where its goodput
        is 0.920, newuser92's monthly 4 h window).
        """
        return [max(0.0, ettr(t, self.blocking, self.restart + self.wait, self.mtti) * (1 - self.planned))
                for t in intervals]


#: A cluster's storage figures per accelerator (`storage_metrics`), not provided without `storage:`.
STORAGE_METRICS = ("storage_write_bandwidth_per_accelerator", "storage_read_bandwidth_per_accelerator")


#: A job stating `dataset:`: its reads and its checkpoints are each judged against the whole storage
#: (docs/reliability.md).
SHARED_STORAGE = ("the data loaders' reads (`dataset_read_bandwidth`) share the storage with the checkpoint writes and "
                  "restores, each timed or judged (REL013) at the storage's whole bandwidth, as if alone")


def replica_note(workload: Workload, size: float, restore: float, other: float | None, job: JobGoodput,
                 low: JobGoodput | None) -> str:
    """What a restore reads where that is more than the checkpoint once, and where goodput counts it; else "".

    `low` is the job at the replicas' read (`restore_reads`' other end), where the stack's load is unsettled.
    """
    _, why = loads_once(workload)
    if restore > size * (1 + 1e-9):
        return (f"a restore reads {amount(restore)}, the weights once per data-parallel replica "
                f"(`checkpoint_restore_read`; no fully parallel load: {why}), not the {amount(size)} checkpoint "
                f"once: {job.restore_time:,.0f} s at the job's read bandwidth, which goodput counts")
    if other is None or low is None:
        return ""
    return (f"a restore reads the {amount(size)} checkpoint once under a fully parallel load ({job.restore_time:,.0f} "
            f"s, goodput {job.goodput:.3f}) or {amount(other)}, the weights once per data-parallel replica "
            f"(`checkpoint_restore_read`), under Megatron's default ({low.restore_time:,.0f} s, goodput "
            f"{low.goodput:.3f}); which the stack runs is not settled, {why}: goodput's range spans both (state "
            "`checkpoint.parallel_load`)")


def storage_metrics(specs: Specs, a: ClusterAnalysis) -> dict[str, Q]:
    """The storage bandwidth each accelerator gets (`delivered_storage` over the accelerators); empty without one."""
    both = delivered_storage(specs, a)
    if both is None or not a.accelerators or unbuilt_storage(specs, a):   # figures of appliances placed nowhere
        return {}
    return {name: Q_(bw / a.accelerators, "B/s").to("GB/s") for name, bw in zip(STORAGE_METRICS, both, strict=True)}


def goodput(rel: Reliability, a: ClusterAnalysis, specs: Specs, workload: Workload, model: Model,
            accelerators: int, layout: dict[str, int | str] | None = None) -> Goodput | None:
    """Checkpoint size, write/restore time, Daly interval, restart and goodput of a training workload.

    None when the checkpoint has nowhere to go (no `storage:` and not in memory, or storage NICs wired to nothing:
    REL006). The restore reads what the stack's load reads at the job's `layout` (`restore_reads`): the checkpoint
    once under a fully parallel load, each data-parallel replica's weights under Megatron's default, and where which
    is unsettled the range spans both; a note says so (`replica_note`).
    """
    cp = workload.checkpoint
    if no_checkpoint_target(specs, a, workload):   # REL006: no storage, or none the nodes reach
        return None
    size = checkpoint_bytes(model, workload)
    target = cp.goodput_target or DEFAULT_GOODPUT_TARGET
    central = for_job(failures_of(rel, specs, a), workload)   # its placement: the one the model times
    restore, other = restore_reads(model, workload, layout)
    job = job_goodput(central, cp, size, accelerators, target, restore)
    if job is None:
        return None
    # REL008: where the copy's rate is unknown, the blocking time lies anywhere from the whole write to none
    unblocked = free_end(job, central, cp, size, accelerators, target, repair=False, restore_bytes=restore)
    # no hot spare: goodput rests on the repair time, so its range spans it to none
    swapped = free_end(job, central, cp, size, accelerators, target, blocking=False, restore_bytes=restore)
    failures = tuple(for_job(f, workload) for f in failure_ends(rel, specs, a))
    ends = range_ends(job, failures, cp, size, accelerators, target, restore)
    low = job_goodput(central, cp, size, accelerators, target, other) if other is not None else None
    if low is not None:   # the stack's load unsettled: the range reaches the replicas' read
        ends += [low, *range_ends(low, failures, cp, size, accelerators, target, other)]
    band = {name: (min(getattr(e, name) for e in ends), max(getattr(e, name) for e in ends))
            for name in ("per_day", "mtti", "goodput")}
    if not cp.in_memory and a.cluster.spec.storage is not None and a.cluster.spec.storage.at_stated:
        job = replace(job, notes=(*job.notes, AT_STATED_BANDWIDTH))
    if note := replica_note(workload, size, restore, other, job, low):
        job = replace(job, notes=(*job.notes, note))
    if workload.dataset is not None and not cp.in_memory:
        job = replace(job, notes=(*job.notes, SHARED_STORAGE))
    return Goodput(**{f.name: getattr(job, f.name) for f in fields(job)}, accelerators=accelerators,
                   checkpoint_size=size, band=band, unblocked=unblocked, swapped=swapped, replicas=low,
                   repair=central.repair,
                   packed=not central.per_domain and job.nodes > central.domain_nodes > 1
                   and job.nodes % central.domain_nodes != 0,
                   spares_charged=spares_charged(job, ends),
                   spare_ends=tuple((math.inf if e.spares_needed is None else e.spares_needed, e.spare_domains,
                                     math.inf if e.spares_overrun else e.restart + e.wait) for e in ends))


def unblocked_metrics(g: Goodput, rel: Reliability, a: ClusterAnalysis, tokens_per_second: Q | None,
                      tokens: float | None) -> dict[str, Q]:
    """`workload_metrics` of the same job with no blocking at all: the other end where the blocking is assumed.

    Empty where the blocking time is known (`Goodput.unblocked` is None).
    """
    return _other_end(g, g.unblocked, rel, a, tokens_per_second, tokens)


def swapped_metrics(g: Goodput, rel: Reliability, a: ClusterAnalysis, tokens_per_second: Q | None,
                    tokens: float | None) -> dict[str, Q]:
    """`workload_metrics` of the same job with a failed node replaced at once: the other end of its repair time.

    Empty where a hot spare stands in for a failed node (`Goodput.swapped` is None).
    """
    return _other_end(g, g.swapped, rel, a, tokens_per_second, tokens)


def replicas_metrics(g: Goodput, rel: Reliability, a: ClusterAnalysis, tokens_per_second: Q | None,
                     tokens: float | None) -> dict[str, Q]:
    """`workload_metrics` of the same job restoring each replica's weights: the other end where the load is unsettled.

    Empty where the restore's read is settled (`Goodput.replicas` is None: stated, the stack's, or one copy either way).
    """
    return _other_end(g, g.replicas, rel, a, tokens_per_second, tokens)


def _other_end(g: Goodput, other: JobGoodput | None, rel: Reliability, a: ClusterAnalysis,
               tokens_per_second: Q | None, tokens: float | None) -> dict[str, Q]:
    """`workload_metrics` of `g` with the job figures of `other`, an other end of it (None: none, empty).

    The job's size, range and spares are `g`'s: only what `perf.train.goodput.JobGoodput` holds is the other end's.
    """
    if other is None:
        return {}
    at = replace(g, **{f.name: getattr(other, f.name) for f in fields(JobGoodput)}, unblocked=None, swapped=None)
    return workload_metrics(at, rel, a, tokens_per_second, tokens)


def workload_metrics(g: Goodput, rel: Reliability, a: ClusterAnalysis, tokens_per_second: Q | None,
                     tokens: float | None) -> dict[str, Q]:
    """A training workload's reliability metrics."""
    m: dict[str, Q] = {
        "interruptions_per_day": Q_(g.per_day, "1/day"),
        "checkpoint_size": Q_(g.checkpoint_size, "B").to("TB"),
        "checkpoint_write_time": Q_(g.write_time, "s"), "checkpoint_blocking_time": Q_(g.blocking, "s"),
        "checkpoint_restore_time": Q_(g.restore_time, "s"),
        "restart_time": Q_(g.restart + g.wait, "s").to("min"), "goodput": Q_(g.goodput, ""),
        "interruptions_per_day_low": Q_(g.band["per_day"][0], "1/day"),
        "interruptions_per_day_high": Q_(g.band["per_day"][1], "1/day"),
        "goodput_low": Q_(g.band["goodput"][0], ""), "goodput_high": Q_(g.band["goodput"][1], ""),
    }
    m |= {k: Q_(v, "s").to("h") for k, v in mtti_figures(g.mtti, *g.band["mtti"]).items()}   # as a sweep point's
    if g.interval:
        m["checkpoint_interval"] = Q_(g.interval, "s").to("min")
    m |= _ends("restart_time", [Q_(r, "s").to("min") for _, _, r in g.spare_ends])
    if g.spares_needed is not None:
        m["spares"] = Q_(g.spares_needed, "")
        m |= _ends("spares", [Q_(n, "") for n, _, _ in g.spare_ends])
        node = compute_node(a.nodes)
        if node is not None:
            switch, per_domain = domain_switches(a)
            for name, unit, per_node, per_switch in (
                    ("spare_power", "kW", max_draw(node.part), max_draw(switch) if switch is not None else None),
                    ("spare_space", "U", node.part.mechanical.height,
                     switch.mechanical.height if switch is not None else None)):
                figures = [(per_node * n + (per_switch * per_domain * d if per_switch is not None else Q_(0, unit)))
                           .to(unit) for n, d in ((g.spares_needed, g.spare_domains),
                                                  *((n, d) for n, d, _ in g.spare_ends))]
                m[name] = figures[0]
                m |= _ends(name, figures[1:])
    if tokens_per_second is not None:
        m.update(goodput_rates(tokens_per_second, g.goodput, *g.band["goodput"]))   # as a sweep point's
        if tokens:
            m["time_to_train"] = time_to_train(tokens, tokens_per_second)
            if g.goodput > 0:
                m["goodput_time_to_train"] = (Q_(tokens, "") / tokens_per_second / g.goodput).to("day")
                m.update(goodput_time_ends(m["time_to_train"], *g.band["goodput"]))
    return m


def _ends(name: str, values: list[Q]) -> dict[str, Q]:
    """`name_low` and `name_high`: the least and most of `values`, a figure at each end of goodput's range (none: {}).

    A high end may be infinite (`Goodput.spare_ends`: no count of spares holds the target at that end, or more nodes
    are in repair than spares); `metric.unbounded` says why wherever it is shown, and a requirement met at the value
    but not there is at risk (REQ004), as goodput's is.
    """
    return {f"{name}_low": min(values), f"{name}_high": max(values)} if values else {}


def domain_switches(a: ClusterAnalysis) -> tuple[Switch | None, int]:
    """The scale-up switch part placed in the cluster's racks and how many one domain holds, else (None, 0).

    A whole idle domain taken as a hot spare (an NVL72 rack of 18 trays) stands in with its own switch trays
    (`scale_up.switches`, 9 NVLink switch trays a rack): they draw and take space as its nodes do.
    """
    su = a.cluster.spec.scale_up
    if su is None or su.switch is None or not su.switches:
        return None, 0
    for rack in a.cluster.rack_types.values():
        for item in rack.items:
            if isinstance(item.part, Switch) and item.part.id == su.switch:
                return item.part, su.switches
    return None, 0
