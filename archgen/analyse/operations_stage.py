"""The pipeline's reliability-and-cost stage: every cluster's failures and cost, each workload's goodput and cost.

`analyse_operations` runs the reliability analysis (`analyse.reliability`) and the cost analysis (`analyse.cost`) of
each cluster, then adds to each workload estimated on one its goodput and what follows from it (`analyse.goodput`)
and its cost per hour and per token (`analyse.job_cost.workload_cost`), recording in `Operations` why a figure is not
provided (`withheld`), what rests on an input nobody gave (`unsettled`) and on assumed inputs (`assumed`).
A sweep point's failure figures and cost on a cluster are `analyse.sweep_figures`'s.
"""

from __future__ import annotations

import math
from dataclasses import replace

from archgen.analyse.assumed import assumed_inputs
from archgen.analyse.capex_bounds import lower_bounds
from archgen.analyse.cdu_power import no_cdu_power
from archgen.analyse.conversion import FABRIC_POWER_METRICS, POWER_METRICS, unpowered
from archgen.analyse.cost import CAPEX_METRICS, FACILITY_METRICS, JOB_COST_METRICS, STATED_ON_CAPEX, analyse_cost
from archgen.analyse.embodied import embodied_figures
from archgen.analyse.goodput import (
    CHECKPOINT_METRICS,
    STORAGE_METRICS,
    checkpoint_bytes,
    goodput,
    no_checkpoint_target,
    replicas_metrics,
    run_bands,
    storage_metrics,
    swapped_metrics,
    unblocked_metrics,
    unbuilt_storage,
    workload_metrics,
)
from archgen.analyse.goodput_notes import (
    REPAIR_ENDS,
    RESTORE_ENDS,
    cluster_unsettled,
    largest_job,
    still_withheld,
    unsettled,
)
from archgen.analyse.hall_storage import share_storage
from archgen.analyse.job_cost import workload_cost
from archgen.analyse.job_energy import energy_share_bounds, job_energy, upper_bounds
from archgen.analyse.job_swing import job_swing
from archgen.analyse.network import ClusterAnalysis, infeasible, north_south
from archgen.analyse.operations import Operations
from archgen.analyse.reliability import analyse_reliability, job_breakdown, job_interruptions
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.spare_parts import no_turnaround
from archgen.analyse.storage_demand import storage_demand
from archgen.analyse.sustainability import job_site_figures, site_figures
from archgen.analyse.swing_phases import checkpoint_dip, job_ramps, ramped_swing
from archgen.build import Design
from archgen.metrics import declared
from archgen.model import Model
from archgen.open_item import worded
from archgen.perf.workload.derived import charged_spares, job_share
from archgen.perf.workload.results import WorkloadResult
from archgen.perf.workload.run_figures import (
    HOURS_OF,
    accelerator_hours,
    per_goodput_ends,
    rate_ends,
    run_energy,
    serving_cost_bands,
    time_to_train,
)
from archgen.units import Q_, Q

#: Why a job's `checkpoint_power_dip` is not provided where its checkpoints block for no time.
NOTHING_BLOCKS = "its checkpoints block its GPUs for no time (written asynchronously), so they make no dip"
#: A cluster's figures taken from its largest training job here (with `tco_per_goodput_accelerator_hour`, computed
#: from them); the metric registry names this module as their source.
LARGEST_JOB_METRICS = ("goodput", "goodput_low", "goodput_high", "checkpoint_interval")
#: A workload's figures, all not provided, with why, where it is not estimated (a requirement on one reads so).
WORKLOAD_FIGURES = tuple(m.name for m in declared("workload") if "<" not in m.name)


def analyse_operations(design: Design, clusters: dict[str, ClusterAnalysis],
                       workloads: dict[str, WorkloadResult]) -> tuple[Operations, dict[str, WorkloadResult]]:
    """Reliability and cost of each cluster, goodput and cost per token of each workload on one.

    Returns the findings and the workloads with the new metrics added (the pipeline then judges their requirements,
    `perf.workload.results.judge_workloads`).
    """
    ops = Operations()
    for path, analysis in clusters.items():
        rel = analyse_reliability(design.specs, analysis)
        ops.reliability[path] = rel
        analysis.metrics.update(rel.metrics)
        for line in rel.stock:   # no stated turnaround: the stock is not provided, never a default's (issue 22)
            if line.stock is None:
                _withhold(ops, path, (f"spare_stock.{line.name}", f"spare_demand.{line.name}"), no_turnaround(line))
        stored = storage_metrics(design.specs, analysis)
        analysis.metrics.update(stored)
        if not stored:
            _withhold(ops, path, STORAGE_METRICS, unbuilt_storage(design.specs, analysis) or NO_STORAGE)
        cost = analyse_cost(design.specs, analysis)
        if cost is not None:
            ops.cost[path] = cost
            analysis.metrics.update(cost.metrics)
            if cost.withheld:
                _withhold(ops, path, CAPEX_METRICS + STATED_ON_CAPEX, cost.withheld)
            if cost.no_opex:   # no facility cost, or prices in several currencies (then no capex either)
                energy = () if "facility_energy_per_year" in cost.metrics else ("facility_energy_per_year",)
                _withhold(ops, path, FACILITY_METRICS + energy + (CAPEX_METRICS if cost.currency is None else ()),
                          cost.no_opex)
        site, no_site = site_figures(*cost_facility(analysis), cost.facility_energy if cost is not None else None)
        embodied, no_embodied = embodied_figures(design.specs, analysis)   # scope 3: the parts' footprints
        site, no_site = {**site, **embodied}, {**no_site, **no_embodied}
        analysis.metrics.update(site)
        for name, reason in no_site.items():
            _withhold(ops, path, (name,), reason)
        if "cdu_power" not in analysis.metrics and (pumps := no_cdu_power(analysis)):   # which CDU, where none
            _withhold(ops, path, ("cdu_power",), pumps)
        if why := unpowered(analysis):   # links without link media: their optics' draw is unknown (CAB003)
            _withhold_power(ops, analysis, why)
        for fa in analysis.fabrics:   # no way out of the cluster stated, or no node ports to weigh against it
            for name, why in north_south(fa)[1].items():
                _withhold(ops, f"{path}/fabric/{fa.fabric.spec.id}", (name,), why)
            names, why = infeasible(fa)   # an impossible topology's wiring figures (NET018: 72 links on 64 ports)
            for name in names:
                fa.metrics.pop(name)
            _withhold(ops, fa.fabric.path, names, why)
            if names:
                ops.infeasible.setdefault(fa.fabric.path, {}).update(dict.fromkeys(names, fa.fabric.path))
        idle = cost.idle_assumed if cost is not None else ()   # idle hours at the average draw (rel36)
        bounded = cost.idle_bounded if cost is not None else ()   # or at their accelerators' idle draw
        if bounds := upper_bounds(analysis.metrics, analysis.typical_from_max, idle, bounded):   # energy at max draw
            ops.unsettled[path] = bounds
    share_storage(clusters, ops.cost)   # a storage two clusters of a hall state: priced once in the hall's capex
    out = dict(workloads)
    largest: dict[str, list[tuple[int, float, str]]] = {}   # by cluster: its training jobs with a goodput
    no_goodput: dict[str, str] = {}   # cluster path: why a training job on it has no goodput (REL006)
    for path, r in workloads.items():
        est, w = r.estimate, r.workload
        for name, why in (est.unjudged if est is not None else {}).items():  # shown, no target judged on it
            _withhold(ops, path, (name,), why)
        if est is None:   # not estimated (PERF003, or its cluster's infeasible fabric): none of its figures, with why
            _withhold(ops, path, WORKLOAD_FIGURES, r.not_estimated)
            if r.refused_by:
                ops.infeasible.setdefault(path, {}).update(dict.fromkeys(WORKLOAD_FIGURES, r.refused_by))
        a = clusters.get(f"cluster/{est.cluster}") if est is not None else None
        if a is None or est is None or not est.fits or (w.training is None and w.inference is None):
            continue
        tps = raw_tps = est.metrics.get("tokens_per_second")   # raw: before goodput, for the job's energy
        extra: dict[str, Q] = {}
        other: dict[str, Q] = {}   # the figures at the other end of an unknown blocking time (REL008)
        swapped: dict[str, Q] = {}   # and at the other end of the repair time of a job with no hot spare
        replicas: dict[str, Q] = {}   # and at the other end of what a restore reads, where its load is unsettled
        spare_accelerators = 0   # the hot spares the job's goodput counts on: its cost range charges them
        ranged: tuple[float, float, float] | None = None   # goodput and its range's ends: cost per goodput token
        if w.training is not None:
            model = design.specs.get(w.model) if w.model is not None else None   # a training job names one
            if not isinstance(model, Model):   # an estimate that fits resolved its model; unreachable otherwise
                continue
            if not w.checkpoint.tokens:
                _withhold(ops, path, ("time_to_train", "goodput_time_to_train", "goodput_time_to_train_low",
                                      "goodput_time_to_train_high", "job_cost", "job_cost_low", "job_cost_high",
                                      "job_energy", "job_it_energy"), NO_TOKEN_BUDGET)
            g = goodput(ops.reliability[a.cluster.path], a, design.specs, w, model, est.accelerators, est.layout)
            if g is None:  # no checkpoint storage (REL006): its interruptions are known, its goodput is not
                extra = job_interruptions(ops.reliability[a.cluster.path], est.accelerators)
                # what the storage must hold, and the time to train, need none
                extra["checkpoint_size"] = Q_(checkpoint_bytes(model, w), "B").to("TB")
                if w.checkpoint.tokens and tps is not None and tps.m > 0:   # needs no goodput
                    extra["time_to_train"] = time_to_train(w.checkpoint.tokens, tps)
                tps = None
                nowhere = no_checkpoint_target(design.specs, a, w) or "its checkpoints have nowhere to go"
                why = worded("{} (REL006)", nowhere)
                _withhold(ops, path, CHECKPOINT_METRICS + JOB_COST_METRICS[1:], why)
                no_goodput.setdefault(a.cluster.path, worded("its training job {} has no goodput: {}", w.id, why))
            else:
                ops.goodput[path] = g
                extra = workload_metrics(g, ops.reliability[a.cluster.path], a, tps, w.checkpoint.tokens)
                extra |= job_breakdown(ops.reliability[a.cluster.path], est.accelerators)   # by class, and the CI
                other = unblocked_metrics(g, ops.reliability[a.cluster.path], a, tps, w.checkpoint.tokens)
                swapped = swapped_metrics(g, ops.reliability[a.cluster.path], a, tps, w.checkpoint.tokens)
                replicas = replicas_metrics(g, ops.reliability[a.cluster.path], a, tps, w.checkpoint.tokens)
                for names, why in still_withheld(g):   # an assumed blocking time (REL008), spares none hold (REL003)
                    _withhold(ops, path, names, why)
                    extra = {k: v for k, v in extra.items() if k not in names}
                spare_accelerators = g.spares_charged * ops.reliability[a.cluster.path].per_node
                if "goodput_tokens_per_second" in extra:   # withheld: no cost per token, not one on raw tokens/s
                    ranged = (g.goodput, *g.band["goodput"])
                else:
                    tps = None
                largest.setdefault(a.cluster.path, []).append((est.accelerators, g.goodput, path))
            # checkpoints kept, data reads (none assumed; each sample's readers at the layout), a restore's read
            demand, no_demand = storage_demand(w, model, raw_tps, est.layout)
            extra |= demand
            for name, reason in no_demand.items():
                _withhold(ops, path, (name,), reason)
        cost = ops.cost.get(a.cluster.path)
        run = w.checkpoint.tokens if w.training is not None else None   # the run's tokens: its whole cost, energy
        if cost is not None:
            extra |= workload_cost(cost, est.accelerators, tps, ranged,
                                   charged_spares(spare_accelerators, a.accelerators, cost.utilisation), run)
            for at_end in (other, swapped, replicas):   # each other end's goodput: its cost per token too (restore42)
                if "goodput" in at_end:
                    at_end |= workload_cost(cost, est.accelerators, tps, (at_end["goodput"].m, math.nan, math.nan),
                                            run_tokens=run)
            for why in (cost.withheld, cost.no_opex):
                if why:
                    _withhold(ops, path, JOB_COST_METRICS, why)
        if w.training is not None:   # a run's accelerator-hours, from its times, provided or withheld as they are
            extra |= accelerator_hours(extra, est.accelerators)
            for at_end in (other, swapped, replicas):   # each other end's too, as its times' (ends41)
                at_end |= accelerator_hours(at_end, est.accelerators)
            for time, hours in HOURS_OF.items():
                if time in ops.withheld.get(path, {}):
                    _withhold(ops, path, (hours,), ops.withheld[path][time])
            it_power = a.metrics.get("it_power")   # the run's energy: its share of the cluster's maximum IT power
            share = job_share(it_power, est.accelerators, a.accelerators) if it_power is not None else None
            extra |= {k: v.to("MWh") for k, v in run_energy(share, extra).items()}
            if "time_to_train" in extra and share is None:
                _withhold(ops, path, ("job_it_energy",), ops.withheld.get(a.cluster.path, {}).get(
                    "it_power", f"cluster '{a.cluster.spec.id}' has no IT power"))
            elif "time_to_train" in ops.withheld.get(path, {}):
                _withhold(ops, path, ("job_it_energy",), ops.withheld[path]["time_to_train"])
            swing, no_swing = job_swing(design.specs, a, est.accelerators)   # its depth: floor or parts' least
            ramps = job_ramps(design.specs, a, est.accelerators)   # and where ramps are stated, how far they reach
            # `share`, the job's draw at maximum, bounds a ramp's swing and dip: no ramp swings it further (review44)
            extra |= checkpoint_dip(extra, swing.get("job_power_swing"), ramps, share)
            if (step := est.metrics.get("step_time")) is not None and ramps is not None:
                swing = {"job_power_swing": min([*swing.values(), ramped_swing(ramps, step, share)],
                                                key=lambda q: q.m_as("kW"))}
            extra |= swing
            if not swing:
                _withhold(ops, path, ("job_power_swing",), no_swing)
            if "checkpoint_power_dip" not in extra:   # why: the depth's, else the blocking time's
                block = extra.get("checkpoint_blocking_time")
                _withhold(ops, path, ("checkpoint_power_dip",), no_swing if block is not None and block.m > 0 else
                          NOTHING_BLOCKS if block is not None else ops.withheld.get(path, {}).get(
                              "checkpoint_blocking_time", "its checkpoint blocking time is not provided"))
        spent = job_energy(cost, _pue(a), est.accelerators, a.accelerators, raw_tps, run) if cost is not None else {}
        extra |= spent
        if not spent and raw_tps is not None and raw_tps.m > 0:
            names = ("facility_energy_per_million_tokens",) + (("job_energy",) if run else ())
            _withhold(ops, path, names, (cost.no_power if cost is not None else "") or
                      cost_facility(a)[1].get("cost") or NO_PUE)   # the halls' differing PUEs, say (hall30)
        if w.training is not None:   # the run's carbon and water: its energy x the hall's intensities
            no_energy = ops.withheld.get(path, {}).get("job_energy", NO_PUE)
            site, no_site = job_site_figures(*cost_facility(a), extra.get("job_energy"), no_energy)
            extra |= site
            for name, reason in no_site.items():
                _withhold(ops, path, (name,), reason)
        values = {**est.metrics, **extra}   # each input's ends joined, none dropped (ends41, `joined`)
        for ends in (unsettled(extra, other), unsettled(extra, swapped, REPAIR_ENDS),   # blocking time's first
                     unsettled(extra, replicas, RESTORE_ENDS), upper_bounds(extra, a.typical_from_max),
                     energy_share_bounds(extra, cost, a.typical_from_max) if cost is not None else {}):
            if ends:   # an unknown blocking time (REL008), repair wait, restore read, energy at maximum draw, its cost
                ops.join(path, ends, values)
        if cost is not None and (lower := lower_bounds(extra, cost.left_out)):   # a capex leaving parts out (cost31)
            ops.unsettled[path] = {**ops.unsettled.get(path, {}), **lower}
        if est.unsettled:   # the host's time per operation or launch: the estimate's other end and its rate's
            ops.join(path, est.unsettled, values)
            ops.join(path, rate_ends(est, extra), values)
        out[path] = replace(r, estimate=replace(est, metrics={**est.metrics, **extra},
                                                bands={**est.bands, **serving_cost_bands(est, extra),
                                                       **run_bands(est, extra)}))
    for cpath, jobs in largest.items():   # the cluster's own goodput: that of its largest training job, by a rule
        (gpus, _, wpath), ops.goodput_job[cpath] = largest_job(jobs)
        largest_est = out[wpath].estimate
        assert largest_est is not None, "only jobs with an estimate are ranked"
        m = largest_est.metrics
        cm = clusters[cpath].metrics
        cm.update({k: m[k] for k in LARGEST_JOB_METRICS if k in m})
        used = cm.get("tco_per_used_accelerator_hour")
        if used is not None and "goodput" in cm and cm["goodput"].m > 0:
            cm.update(goodput_hour_cost(used, cm, clusters[cpath].accelerators / gpus))
        if wpath in ops.unsettled:   # the cluster's goodput rests on that job's blocking time too
            share = clusters[cpath].accelerators / gpus
            ops.join(cpath, cluster_unsettled(ops.unsettled[wpath], used, share), cm)
    for cpath, why in no_goodput.items():   # no training job on the cluster has a goodput to give it
        if cpath not in largest:
            _withhold(ops, cpath, (*LARGEST_JOB_METRICS, *GOODPUT_HOUR_METRICS), why)
    for cpath, cost in ops.cost.items():   # the TCO's figures, their energy at maximum draw (newuser64)
        if shared := energy_share_bounds(clusters[cpath].metrics, cost, clusters[cpath].typical_from_max):
            ops.join(cpath, shared, clusters[cpath].metrics)
        ops.unsettled[cpath] = {**ops.unsettled.get(cpath, {}), **lower_bounds(clusters[cpath].metrics, cost.left_out)}
    ops.assumed.update(assumed_inputs(clusters, ops, out))   # what each figure rests on that nobody sourced
    return ops, out


#: The cost per goodput accelerator-hour and the ends of its range (`goodput_hour_cost`).
GOODPUT_HOUR_METRICS = tuple(f"tco_per_{job}goodput_accelerator_hour{end}" for job in ("", "job_")
                             for end in ("", "_low", "_high"))


def goodput_hour_cost(used: Q, cm: dict[str, Q], share: float) -> dict[str, Q]:
    """The cost per goodput accelerator-hour, `used` over the cluster's goodput, with the range goodput's range gives.

    Its low end is at `goodput_high`, its high end at `goodput_low` (infinite where that is 0: no goodput hour at any
    price; `run_figures.per_goodput_ends`), so a target met at the value but not at goodput's pessimistic end is at
    risk (REQ004), as goodput is.
    The same per goodput hour of the job's own accelerators (`tco_per_job_goodput_accelerator_hour`): times `share`,
    the cluster's accelerators over the job's, so that the idle ones' cost is charged to the job's hours.
    """
    out = {}
    for job, k in (("", 1.0), ("job_", share)):
        name = f"tco_per_{job}goodput_accelerator_hour"
        out[name] = used * k / cm["goodput"].m
        if "goodput_low" in cm and "goodput_high" in cm:
            out[f"{name}_low"], out[f"{name}_high"] = per_goodput_ends(used * k, cm["goodput_low"].m,
                                                                       cm["goodput_high"].m)
    return out


#: Why a cluster has no storage bandwidth per accelerator: it states no storage (or has no accelerator).
NO_STORAGE = "the cluster states no `storage:` (capacity and bandwidth of its checkpoint storage)"
#: Why a job has no energy per token: its hall states no annual PUE (`cost.energy.pue`).
NO_PUE = "the cluster's facility gives no `cost:` (its annual PUE, `cost.energy.pue`, turns IT energy into the hall's)"


def _pue(a: ClusterAnalysis) -> float | None:
    """The annual PUE of the cluster's hall (`cost.energy.pue`; its halls', `cost_facility`), or None: no `cost:`."""
    hall = cost_facility(a)[0]
    return hall.cost.energy.pue if hall is not None and hall.cost is not None else None


#: Why a training job has no time to train: nothing states how many tokens it trains on.
NO_TOKEN_BUDGET = "the workload states no token budget: give `checkpoint: {tokens: 15.6e12}` (tokens of the run)"


def _withhold_power(ops: Operations, a: ClusterAnalysis, why: str) -> None:
    """Drop the figures that rest on a cluster's IT power, and those of each fabric with links on no media, with why.

    A fabric whose tier names no link media (CAB003) has no network or optics power, and that tier no cables or
    transceivers (`cables.<link>`, `transceivers.<link>`): not provided, never 0 (newuser105: `cables.spine_core` 0 for
    9,216 links). Another fabric's, whose tiers all name theirs, are whole and stay.
    """
    for name in POWER_METRICS:
        a.metrics.pop(name, None)
    _withhold(ops, a.cluster.path, POWER_METRICS, why)
    for fa in a.fabrics:
        dark = [t for t in (a.cabling.tiers if a.cabling is not None else ())
                if t.fabric == fa.fabric.spec.id and t.no_media]
        if not dark:
            continue
        names = FABRIC_POWER_METRICS + tuple(f"{k}.{t.tier}" for t in dark for k in ("cables", "transceivers"))
        for name in names:
            fa.metrics.pop(name, None)
        links = ", ".join(f"{t.tier} x{t.links}" for t in dark)
        _withhold(ops, fa.fabric.path, names, f"its links without link media ({links}; CAB003): their cables, "
                  "transceivers and the transceivers' draw are unknown")


def _withhold(ops: Operations, path: str, metrics: tuple[str, ...], why: str) -> None:
    """Record why `metrics` of `path` are not provided; a metric withheld for two reasons gives both, for one once.

    A metric in two of the lists withheld for one reason (the TCO is a facility figure and rests on the capex: prices
    in several currencies withhold both) gave the reason twice (newuser90).
    """
    reasons = ops.withheld.setdefault(path, {})
    for name in metrics:
        if name not in reasons:
            reasons[name] = why
        elif f"; {why}; " not in f"; {reasons[name]}; ":
            reasons[name] = worded("{}; {}", reasons[name], why)   # each reason's customer words kept
