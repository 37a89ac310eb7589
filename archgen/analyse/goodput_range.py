"""The failure figures a training job's goodput is computed from, and the range it spans over failure sets.

`failures_of` gathers a cluster's failure model (`archgen.analyse.reliability`) and its checkpoint storage
(`archgen.analyse.checkpoint_storage`) into the closed forms' `Failures`; `failure_ends` gives the figures the goodput's
range spans (every published rate set at both ends of its Poisson interval), and
`spanned` and `rate_sets` say so in words. `archgen.analyse.goodput` computes the job from them (and re-exports them).
"""

from __future__ import annotations

from dataclasses import replace

from archgen.analyse.checkpoint_storage import node_storage_bandwidth, storage_cap
from archgen.analyse.failure_model import FEW_EVENTS, Reliability, rests_on_few
from archgen.analyse.network import ClusterAnalysis, compute_node, compute_torus, spare_domain_nodes  # re-exported
from archgen.open_item import Worded
from archgen.perf.train.goodput import Failures
from archgen.validate import Specs


def failures_of(rel: Reliability, specs: Specs, a: ClusterAnalysis) -> Failures:
    """What a job on part of the cluster needs for its goodput: the same figures for `check` and for sweeps."""
    storage = a.cluster.spec.storage
    node = compute_node(a.nodes)
    host = node.part.host_memory if node is not None else None
    domain = spare_domain_nodes(a, rel.per_node)
    per_acc, per_node = rel.split()
    cap = storage_cap(a)   # the storage's own ports on its fabric and the leaf uplinks its traffic climbs
    write, read = storage.checkpoint_bandwidth if storage else (0.0, 0.0)   # stated x efficiency, where given
    return Failures(per_acc, rel.site, rel.per_node, rel.nodes, rel.node_hardware_per_day(),
                    rel.node_repair_hours() * 3600, min(write, cap), min(read, cap), node_storage_bandwidth(specs, a),
                    rel.detection(), host.link.m_as("B/s") * host.efficiency if host is not None else 0.0, domain,
                    rel.planned_per_accelerator_day, rel.planned_duration, per_node,
                    fixed_wiring=(torus := compute_torus(a)) is not None and torus.ocs is None,
                    planned_per_day=rel.planned_per_day)


def failure_ends(rel: Reliability, specs: Specs, a: ClusterAnalysis) -> tuple[Failures, ...]:
    """The failure figures a goodput's range spans, for `check` and for sweeps.

    Every rate set of `rel.spread` (`rel` alone where the design states its set), each at both ends of its 95 %
    Poisson interval (`Reliability.interval`). The job's placement in its scale-up domains is not a range: it is the
    one the performance model times (`Failures.per_domain`, from the workload's `placement`, else rank order).
    """
    ends = []
    for r in rel.spread or (rel,):
        f = failures_of(r, specs, a)
        ends += [replace(f, per_accelerator_day=f.per_accelerator_day * k, per_node_day=f.per_node_day * k,
                         node_hw_per_day=f.node_hw_per_day * k) for k in r.interval()]
    return tuple(ends)


#: Where a job's hot spares come from when it states no `placement` and leaves idle trays in a domain of several nodes.
PACKED_SPARES = ("its ranks fill whole scale-up domains in order (no `placement` stated), as the performance model "
                 "places them: the last domain keeps the idle trays, and a tray failure in a full domain takes a whole "
                 "idle domain or waits for its repair; `placement: {per_domain: ...}` states a segment that leaves "
                 "idle trays in each domain")


#: What a goodput's range spans besides the failure figures where no hot spare stands in (`with_swapped`); a
#: `Worded`, whose customer words name the range's end, not its metric key.
REPAIR_SPANNED = Worded(*(f"the wait for a repair, from the rate sets' repair times to none (a failed node replaced at "
                          f"once, {end}): the job leaves no idle node to stand in, so every hardware failure waits "
                          "for its repair, whose time no design input states and no shipped set but StepFun's "
                          "measures" for end in ("goodput_high's end", "the range's high end")))


def few_words(r: Reliability) -> str:
    """' (few events: n)' where set `r`'s interval rests on fewer than `FEW_EVENTS` failures (issue 22), else ''."""
    return few_count(r.events())


def few_count(n: float | None) -> str:
    """' (few events: n)' where an interval rests on `n` < `FEW_EVENTS` failures, else '' (a set's, a class's)."""
    return f" (few events: {n:.2g})" if rests_on_few(n) else ""


def few_why(what: str) -> str:
    """Why an interval marked `few_count` is read apart, for a `what` ('set', 'class'): the same words for both."""
    return (f"counted from fewer than {FEW_EVENTS} failures, so that {what}'s ends come more from its interval's "
            "width than from its rate")


def sets_words(rel: Reliability) -> str:
    """The published rate sets a range spans, each counted from few failures marked, in words (`FEW_EVENTS`).

    Where a set rests on fewer than 10 failures, its interval's width more than its rate places its ends: the words
    say so, so that a figure inside the range only through such a set is not read as inside a fleet's rate.
    """
    names = ", ".join(r.rates_id + few_words(r) for r in rel.spread)
    few = f" (few events: {few_why('set')})" if any(r.few_events for r in rel.spread) else ""
    return f"the published rate sets {names} and their 95 % Poisson intervals{few}"


def spanned(rel: Reliability) -> str:
    """The failure figures a reliability figure's range spans (`failure_ends`), in words."""
    return (sets_words(rel) if rel.spread else f"the '{rel.rates_id or 'none'}' rate set's 95 % Poisson interval"
            f"{few_words(rel)} (the design states its set){uncounted_words(rel)}")


def uncounted_words(rel: Reliability) -> str:
    """Where a named set's classes state no `events`: a clause saying their uncertainty is in no range, else ''."""
    names = rel.uncounted()
    return (f"; the uncertainty of {', '.join(names)} is not provided (their rates state no `events`), so the range "
            "is narrower than the rates are known") if names and not rel.spread else ""


#: What a goodput's range spans besides the failure figures where the blocking time is assumed (`with_unblocked`);
#: a `Worded`, as `REPAIR_SPANNED`.
BLOCKING_SPANNED = Worded("the checkpoint's blocking time from the whole write (the nodes give no `host_memory.link`) "
                          "to none, goodput_high's end (REL008)", "the checkpoint's blocking time from the whole "
                          "write (the nodes state no host memory link) to none, the range's high end (REL008)")

#: What a goodput's range spans besides the failure figures where which load a restore runs is not settled
#: (`analyse.goodput.restore_reads`); a `Worded`, as `REPAIR_SPANNED`.
RESTORE_SPANNED = Worded(*(f"what a restore reads, from the checkpoint once (a fully parallel load) to each "
                           f"data-parallel replica's weights ({key}, Megatron's default load, {end}): which load the "
                           "job runs is not stated and its stack's default is not settled" for key, end in (
                               ("`checkpoint_restore_read`", "goodput_low's end"),
                               ("the checkpoint restore read", "the range's low end"))))


def rate_sets(rel: Reliability) -> str:
    """Which rate set a goodput's central value uses and what its range spans (`failure_ends`), in words."""
    over = (sets_words(rel) if rel.spread
            else f"that set's 95 % Poisson interval{few_words(rel)} (the design states its set){uncounted_words(rel)}")
    return f"goodput from the '{rel.rates_id or 'none'}' rate set; its range (goodput_low, goodput_high) spans {over}"
