"""The cluster document's "Reliability and availability" section and its goodput chart, and its two charts by key.

Renderers format what `archgen.analyse.reliability` computed (docs/reliability.md); they compute nothing. The "Cost"
section and its capex chart are `render.operations_cost`'s, and the Open items `render.operations_items`'; this
module hands them on to the cluster document (`__all__`).
"""

from __future__ import annotations

import math
from typing import Any

from matplotlib.figure import Figure as Chart

from archgen import display
from archgen.analyse.failure_model import HARDWARE_CLASSES, rests_on_few
from archgen.analyse.goodput import PACKED_SPARES
from archgen.analyse.goodput_notes import spare_interval
from archgen.analyse.goodput_range import few_words, sets_words, uncounted_words
from archgen.analyse.rate_sets import range_counts
from archgen.metrics import UNBOUNDED, unbounded
from archgen.render import alt_text, fmt
from archgen.render.blocks import Column, Figure, Para, Section, Table
from archgen.render.operations_cost import capex_chart, cost_section
from archgen.render.operations_items import open_items
from archgen.render.spare_parts import by_class_blocks, stock_blocks
from archgen.units import Q_

#: Checkpoint intervals of the goodput chart, as multiples of the job's optimum.
INTERVAL_FACTORS = (0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.4, 2.0, 3.0, 5.0, 7.0, 10.0)


def jobs(run: Any, cluster_id: str) -> list[tuple[str, Any]]:
    """(workload id, goodput) of the training workloads the REL stage analysed on a cluster, by id."""
    out = []
    for path, g in sorted(run.operations.goodput.items()):
        r = run.workloads.get(path)
        if r is not None and r.estimate is not None and r.estimate.cluster == cluster_id:
            out.append((r.workload.id, g))
    return out


def _per_server(c: Any) -> str:
    """The set's own figure where it was counted per server of n accelerators and this cluster's nodes hold another.

    The per-unit column is then not the set's figure (docs/reliability.md, Inputs); this says what it is.
    """
    n = c.rate.per_accelerators
    if not n or c.exposure is None or math.isclose(c.exposure, c.units):
        return ""
    return f"; the set's {c.rate.per_year:.4f} is per server of {n} accelerators, applied per accelerator"


def _lent(c: Any) -> str:
    """Where a class's rate was measured, where the set borrows it from another operator (`FailureRate.operator`)."""
    stands_in = f"; not stated for this class: the set's {c.lender} rate stands in" if c.lender else ""
    return stands_in + (f"; borrowed: measured by {c.rate.operator}" if c.rate.operator else "")


def _repair(c: Any) -> str:
    """A node hardware class's repair time where it is assumed: the restart's wait and the spares rest on it."""
    return (f"; repair {c.rate.repair.m_as('h'):g} h assumed" if c.name in HARDWARE_CLASSES
            and c.rate.repair_basis == "assumed" else "")


def _every_tier(rel: Any) -> str:
    """Where a borrowed rate is a switch's: that it stands for every switch of the design, whatever its tier.

    review30: HPN's figure is its ToRs', and archgen keeps no tier apart, so a customer's NVLink switch trays, spines
    and OCSes take it too; docs/reliability.md said so, the document did not.
    """
    if not any(c.name in ("switch", "scale_up_switch") and c.interrupts and c.per_day and c.rate is not None
               and c.rate.operator for c in rel.classes):
        return ""
    return (" A switch rate stands for every switch here, whatever its tier (a leaf, a spine, an optical circuit "
            "switch, and a scale-up switch tray, a class of its own that takes the switch rate where the set states "
            "none for it): a rate measured on one tier is applied to all (docs/reliability.md, Limitations).")


def _count(rel: Any, c: Any) -> str:
    """The count a class's rate was taken from and its 95 % interval per unit-year, where the rate states one.

    A pooled count (`FailureRate.pooled`) says that every unit of the classes sharing it takes the same rate, a
    copper assembly as one optical end, since the source does not split the count (review28: the interval reads as
    the rate's whole uncertainty otherwise). Switches no longer share Llama 3's count: they take a switch rate
    (rel22, issue 22: all 35 on its ToR switches would have been 0.231 a switch-year). A count below `FEW_EVENTS`
    is marked "few events", as in the by-class table (rel36).
    """
    ends = c.per_unit_interval()
    if ends is None:
        return ""
    shared, n = rel.sharing(c), c.rate.events
    one = (f"one count of {n} events for {', '.join(shared)}, the same rate for each unit (the source does not split "
           "the count; how far a class's own rate lies from it is in no interval or range)"
           if len(shared) > 1 else f"counted from {n} events" + (" (few events)" if rests_on_few(n) else ""))
    return f"; {one}, 95 % {ends[0]:.4f} to {ends[1]:.4f}"


def _own_interval(rel: Any, m: Any) -> str:
    """The MTTI's 95 % confidence interval from the point set's own counts, where the range spans other sets too.

    The range over the published sets is the spread between fleets, not a confidence interval of the figure given;
    this is that interval (`Reliability.own_band`), with the classes whose uncertainty it leaves out named.
    """
    if not rel.spread or "mtti" not in m or rel.interval() == (1.0, 1.0):
        return ""
    high, low = (24 / per_day for per_day in rel.own_band(rel.job_size))
    left = rel.uncounted()
    return (f" Its 95 % confidence interval from the '{rel.rates_id}' set's own counts (Poisson) is "
            f"{fmt.q(Q_(low, 'h'), 'h', 1)} to {fmt.q(Q_(high, 'h'), 'h', 1)}"
            + (f"; the uncertainty of {', '.join(left)} is not in it (their rates state no `events`)" if left else "")
            + ".")


def _planned(rel: Any, g: Any) -> str:
    """A job's planned interruptions in words: how many, how long each, their share of its wall time; '' if none.

    They were folded into goodput and shown nowhere (newuser92: a monthly 4 h window, 0.51 % of the job's time).
    """
    if not g.planned:
        return ""
    per_day = rel.planned_per_accelerator_day * g.nodes * max(rel.per_node, 1) + rel.planned_per_day  # whole nodes
    kind = "cluster-wide planned windows" if rel.planned_per_day else "planned interruptions"
    return (f"; {kind} ('{rel.rates_id}' set's): {fmt.number(per_day, 3)} a day, each stopping it for "
            f"its restart and restore"
            + (f" plus {display.duration(rel.planned_duration)}" if rel.planned_duration else "") + ", "
            f"{fmt.number(g.planned * 100, 2)} % of its wall time (taken after a checkpoint: no work lost)")


def _counts(rel: Any) -> str:
    """Which interruptions the figures count: what the set's source counted (a measured MTTF may count others)."""
    if not rel.rates_id:
        return ""
    if rel.counts == "not stated":
        return " Which interruptions the set's source counts is not stated."
    return f" They count what the set's source counts: {rel.counts}."


def _job_words(rel: Any) -> str:
    """The job the cluster's figures are of: on every accelerator, or on the largest the spec lets run."""
    if not rel.largest_job:
        return f"A job on all {rel.accelerators:,} accelerators"
    return (f"A job on the largest slice the spec allows, {rel.largest_job:,} of the {rel.accelerators:,} "
            f"accelerators ({rel.largest_why}; no job runs on all of them),")


def reliability_section(run: Any, a: Any) -> Section | None:
    """Failure-domain table, per-class rates, and each training job's checkpoints and goodput."""
    rel = run.operations.reliability.get(a.cluster.path)
    if rel is None:
        return None
    m = a.metrics
    # the range is over every catalog set, or, where the cluster names one, over that set's own interval
    over = sets_words(rel) if rel.spread else f"the set's 95 % Poisson interval{few_words(rel)}{uncounted_words(rel)}"
    mixed = range_counts((r.rates_id, r.counted_as) for r in rel.spread)   # what each of the range's sets counts
    section = Section("reliability", "Reliability and availability").add(Para(
        f"Failure rates from the '{rel.rates_id or 'none'}' set and the parts' own data, as independent exponential "
        f"failures (docs/reliability.md).{_counts(rel)} {_job_words(rel)} sees "
        f"{fmt.number(fmt.magnitude(m.get('interruptions_per_day'), '1/day') or 0, 2)} interruptions per day, "
        + (f"a mean time to interruption of {fmt.q(m['mtti'], 'h', 1)}" if "mtti" in m
           else "no part fails at these rates, so there is no mean time to interruption")
        + (f" ({fmt.q(m['mtti_low'], 'h', 1)} to {fmt.q(m['mtti_high'], 'h', 1)} over {over})"
           if "mtti_low" in m else "") + "."
        + _own_interval(rel, m)
        + (f" The range's sets count different interruptions: {mixed}." if mixed and "mtti_low" in m else "")
        + (f" Borrowed rates: {rel.borrowed}." if rel.borrowed else "")
        + (f" Rates' accelerator: {rel.unstated}." if rel.unstated else "")))
    rows: tuple[tuple[Any, ...], ...] = tuple((d.name, d.causes, d.per_year, d.accelerators, d.repair, d.note)
                                              for d in rel.domains)
    section.add(Table("failure-domains", "Failure domains: failures per year in the cluster and accelerators each "
                      "failure removes", (Column("Domain"), Column("What fails"),
                                          Column("Failures / year", digits=1, align="right"),
                                          Column("Accelerators removed", digits=0, align="right"),
                                          Column("Repair", "h", 0, "right"), Column("Note")), rows))
    rows = tuple((c.name + ("" if c.interrupts else " (no interruption)"), c.units, c.per_unit_year,
                  c.per_day * 365.25,
                  (("assumed" if c.lender else c.rate.basis) + _lent(c) + _per_server(c) + _count(rel, c)
                   + _repair(c)) if c.rate else "—")
                 for c in rel.classes)
    rows += tuple((name, n, None, None, "not provided: no rate, left out (REL004)")
                  for name, n in rel.unrated_units.items())
    section.add(Table("failure-rates", "Failure rates by part class", (
        Column("Class"), Column("Units", digits=0, align="right"), Column("Per unit-year", digits=4, align="right"),
        Column("Failures / year", digits=1, align="right"), Column("Basis")), rows))
    for block in [*by_class_blocks(rel), *stock_blocks(rel)]:   # issue 22: Llama 3's Table 5 by class; spares
        section.add(block)
    found = jobs(run, a.cluster.spec.id)
    if found:
        rows = tuple((wid, g.accelerators, Q_(g.mtti, "s").to("h") if g.mtti != float("inf") else None,
                      Q_(g.checkpoint_size, "B").to("TB"), Q_(g.write_time, "s"),
                      Q_(g.interval, "s").to("min") if g.interval else None,   # 0: no interruption, no interval
                      None if g.spares_overrun else Q_(g.restart + g.wait, "s").to("min"),   # REL009
                      g.goodput, g.spares_needed, g.spares_available)
                     for wid, g in found)
        gp = display.decimals   # 8.7e-06, not 0.000
        notes = [f"{wid}: goodput {gp(g.band['goodput'][0], 3)} to {gp(g.band['goodput'][1], 3)} over "
                 + ("the rate sets" if rel.spread else "the set's 95 % Poisson interval")
                 + (f" and the blocking time, from the whole write ({gp(g.goodput, 3)}) to none "
                    f"({gp(g.unblocked.goodput, 3)})" if g.unblocked is not None else "")
                 + (f" and the wait for a repair, from the rate set's {g.repair / 3600:.3g} h mean "
                    f"({gp(g.goodput, 3)}) to none, a failed node replaced at once ({gp(g.swapped.goodput, 3)}): "
                    "no idle node stands in for a failed one, and no design input states the repair time"
                    if g.swapped is not None else "")
                 + _cost_range(run, wid)
                 + _spare_range(run, wid, spare_interval(g) if g.spares_needed is not None and g.interval else "")
                 + "".join(f"; {n}" for n in g.notes)
                 + (f"; hot spares: {PACKED_SPARES}" if g.packed else "")
                 + ("; restart not provided: more nodes are in repair on average than the job has spares, outside "
                    "the spare model (REL009)" if g.spares_overrun else "") + _planned(rel, g)
                 for wid, g in found if g.band]
        cols = (Column("Workload"), Column("Accelerators", digits=0, align="right"), Column("MTTI", "h", 1, "right"),
                Column("Checkpoint", "TB", 2, "right"), Column("Write", "s", 1, "right"),
                Column("Interval", "min", 1, "right"), Column("Restart + repair wait", "min", 1, "right"),
                Column("Goodput", digits=3, align="right"), Column("Spares needed", digits=0, align="right"),
                Column("Spares idle", digits=0, align="right"))
        section.add(Table("goodput", "Training jobs: checkpoints, restarts and goodput (effective training time "
                          "ratio); a restart includes the expected wait for a repair, the mean repair time times "
                          "the chance that no hot spare is free", cols, rows))
        section.add(Figure("fig-goodput", "goodput", "Goodput against checkpoint interval; the dot is the interval "
                           "used", alt_text.goodput(found)))
        if notes:
            section.add(Para("Range: " + ". ".join(notes) + "."))
    if rel.assumed:
        section.add(Para("Assumed rates: " + ", ".join(rel.assumed) + "."))
    if rel.lent():   # a class rate the set takes from another operator's fleet (issue 22: Llama 3's switches)
        section.add(Para(f"Rates the '{rel.rates_id}' set borrows from another operator's fleet: "
                         + ", ".join(rel.lent()) + "." + _every_tier(rel)))
    return section


def _cost_range(run: Any, wid: str) -> str:
    """A training job's cost per token range (`perf.workload.derived.cost_ends`), or "" without one."""
    r = run.workloads.get(f"workload/{wid}")
    m = r.estimate.metrics if r is not None and r.estimate is not None else {}
    if "cost_per_token_high" not in m:
        return ""
    high = m["cost_per_token_high"]   # infinite where goodput's low end is 0 (`perf.workload.derived.cost_ends`)
    return (f"; cost per token {fmt.q(m['cost_per_token_low'], 'µUSD', 3)} (its own accelerators, at goodput_high) "
            f"to {UNBOUNDED if high.m == math.inf else fmt.q(high, 'µUSD', 3)} (with the hot spares its goodput "
            "counts on, at goodput_low)")


def _spare_range(run: Any, wid: str, sized: str = "") -> str:
    """A training job's spares needed and restart + repair wait over the same ends as its goodput, or "" without.

    An infinite end reads `metric.unbounded`'s reason (no count of spares holds the target there; more nodes in
    repair than spares), never a number; ends that read the same are left out (the table's value is the figure).
    `sized`: the interval its spares are sized at (`goodput_notes.spare_interval`), said after their range.
    """
    r = run.workloads.get(f"workload/{wid}")
    m = r.estimate.metrics if r is not None and r.estimate is not None else {}
    out = ""
    for name, what, unit, digits in (("spares", "spares needed", "", 0), ("restart_time", "restart + repair wait",
                                                                            "min", 1)):
        if f"{name}_high" in m:
            ends = [unbounded(name) if m[f"{name}{e}"].m == math.inf else
                    fmt.number(m[f"{name}{e}"].m_as(unit), digits) + (f" {unit}" if unit else "")
                    for e in ("_low", "_high")]
            out += f"; {what} {ends[0]} to {ends[1]}" if ends[0] != ends[1] else ""   # no spread: said by the table
        if name == "spares" and sized:
            out += f"; spares sized {sized}"
    return out


def goodput_chart(found: list[tuple[str, Any]]) -> Chart:
    """Goodput of each training job against its checkpoint interval (log axis), the interval used marked."""
    fig = Chart(figsize=(7.0, 3.2))
    ax = fig.subplots()
    for wid, g in found:
        base = g.optimum or g.interval or 60.0
        xs = [base * f for f in INTERVAL_FACTORS]
        ax.plot([x / 60 for x in xs], g.curve(xs), marker=".", linewidth=1.2, label=wid)
        if g.interval:
            ax.plot([g.interval / 60], g.curve([g.interval]), marker="o", color="#333333", linestyle="")
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint interval (min)")
    ax.set_ylabel("goodput")
    ax.set_ylim(0, 1.02)
    ax.grid(color="#dddddd", linewidth=0.5)
    ax.legend(fontsize=6, frameon=False, loc="lower center")
    fig.tight_layout()
    return fig


def figures(run: Any, a: Any) -> dict:
    """The two charts, by figure key."""
    out = {}
    found = jobs(run, a.cluster.spec.id)
    if found:
        out["goodput"] = lambda: goodput_chart(found)
    cost = run.operations.cost.get(a.cluster.path)
    if cost is not None and cost.capex is not None:
        out["capex"] = lambda: capex_chart(cost)
    return out


__all__ = ["capex_chart", "cost_section", "figures", "goodput_chart", "open_items", "reliability_section"]
