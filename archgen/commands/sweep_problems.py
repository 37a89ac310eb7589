"""The sweeps of a file resolved against the analysed specs: each a `perf.explore.problem.SweepProblem`.

Each cluster a sweep names becomes a `perf.workload.machine.Machine` (its hardware as the performance model sees it,
on the compute fabric the network analysis sized, its IT power, failure figures and cost per accelerator-hour), and each
accelerator on the sweep's `accelerator` axis a copy of it with that chip. Ids that name nothing are located usage
errors; the sweep's mistakes against its workload (`checks.sweep.mistakes`) are raised together.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from archgen.analyse.conversion import feed_per_watt, unpowered
from archgen.analyse.cost import analyse_cost
from archgen.analyse.goodput import no_checkpoint_target
from archgen.analyse.hall_room import hall_rooms
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.scale_up_switches import own_links_domain
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.sweep_figures import (
    energy_price,
    facility_figures,
    sweep_capex_left_out,
    sweep_energy_share,
    sweep_figures,
)
from archgen.analyse.sweep_inputs import usd_per_hour
from archgen.applicable import not_applicable
from archgen.as_of import AsOf
from archgen.build import build
from archgen.checks import Finding
from archgen.checks.sweep import mistakes
from archgen.commands import sweep_fabric
from archgen.commands.common import located
from archgen.errors import BuildError, Location, SpecProblem, ValidateError, did_you_mean
from archgen.model import Accelerator, Cluster
from archgen.model.sweep import COST_OBJECTIVES, GOODPUT_METRICS, RUN_METRICS, STORAGE_METRICS, Sweep
from archgen.model.sweep_axes import FABRIC_AXES, FACILITY_AXES, facility_levels
from archgen.model.workload import Model, Workload
from archgen.money import currency
from archgen.perf.api import Machine, Stated, SweepProblem, SwitchPorts, hardware_for, machine
from archgen.pipeline import scale_out_paths
from archgen.units import format_quantity
from archgen.validate import Specs


def problems(specs: Specs, clusters: dict, sweeps: Sequence[Sweep], as_of: AsOf | None = None) -> list[SweepProblem]:
    """Each sweep with its workload, model and clusters resolved, and the requirements `check` judges on the workload.

    Those are bound as the pipeline binds them (`build.build`, some milliseconds): the workload's own, and those of
    `Requirements` documents whose subject names it (`build.Design.requirements_of`). An id that names nothing is a
    located `BuildError`; the sweep's mistakes against its workload (`checks.sweep.mistakes`, SWP001 in `archgen
    check`) are raised together as a `ValidateError`. With a fabric axis, the machines are those of each cluster at
    each level (`sweep_fabric.levels`: the specs analysed and checked again, waivers judged on `as_of`), keyed by
    `model.sweep_axes.variant_id`, and the levels `archgen check` fails are the problem's `failing`.
    """
    design = build(specs)
    scale_out = scale_out_paths(clusters)
    rooms = hall_rooms(clusters)   # what each cluster's hall leaves for its IT power: a point over it does not fit
    wrong = [SpecProblem(specs.locate(owner, path), message=message) for s in sweeps
             for owner, path, message in mistakes(design, clusters, s)]
    if wrong:
        raise ValidateError(wrong)
    out = []
    for sweep in sweeps:
        def where(*path, _id=sweep.id) -> Location | None:
            return specs.locate(_id, path)

        workload = specs.get(sweep.workload)
        if not isinstance(workload, Workload):
            ids = [w.id for w in specs.of(Workload)]
            raise BuildError(f"sweep '{sweep.id}': no workload '{sweep.workload}'"
                             f"{did_you_mean(sweep.workload, ids, lead='; ')} (workloads: {', '.join(ids) or 'none'})",
                             where("workload"))
        found = specs.get(workload.model) if workload.model else None
        model = found if isinstance(found, Model) else None
        if workload.collective is None and model is None:
            raise BuildError(f"sweep '{sweep.id}': workload '{workload.id}' runs model '{workload.model}', which is "
                             "not in the specs", where("workload"))
        ids = sweep.axes.cluster or ([workload.cluster] if workload.cluster else [])
        # objectives and sweep requirements alike: a metric no point of a cluster can give is refused at its line
        asked = [(f"objective '{o.metric}'", o.metric, ("objectives", k, "metric"))
                 for k, o in enumerate(sweep.objectives)] + [
            (f"requirement '{r.id}' on '{r.metric}'", r.metric, ("requirements", k, "metric"))
            for k, r in enumerate(sweep.requirements)]
        for what, metric, path in asked:   # a run's time is its token budget over its tokens per second
            if metric in RUN_METRICS and workload.training is not None and not workload.checkpoint.tokens:
                raise BuildError(f"sweep '{sweep.id}': {what} needs the training job's token budget, and workload "
                                 f"'{workload.id}' states none (give it `checkpoint: {{tokens: ...}}`, the tokens of "
                                 "the run; docs/sweeps.md)", where(*path))
        bases: dict[tuple[str, str | None], Machine] = {}
        kept: list[str] = []   # where an accelerator axis's chip runs other scale-up links than its own (newuser95)
        for i, cid in enumerate(ids):
            if not isinstance(specs.get(cid), Cluster):
                known = [c.id for c in specs.of(Cluster)]
                at = where("axes", "cluster", i) if sweep.axes.cluster else where("workload")
                raise BuildError(f"sweep '{sweep.id}': no cluster '{cid}'{did_you_mean(cid, known, lead='; ')}"
                                 f" (clusters: {', '.join(known) or 'none'})", at)
        # the designs the points run on: each cluster, or each at each level of the fabric axes (`sweep_fabric`)
        fabric = sweep_fabric.levels(specs, sweep, ids, as_of)
        views = {key: _View(lv.cluster, lv.specs, lv.clusters, scale_out_paths(lv.clusters), hall_rooms(lv.clusters))
                 for key, lv in fabric.items()} or {cid: _View(cid, specs, clusters, scale_out, rooms) for cid in ids}
        for key, view in views.items():
            cid, cluster = view.cluster, view.specs.get(view.cluster)
            assert isinstance(cluster, Cluster), "checked above"
            # not provided where links name no media (CAB003), whether or not the checks have withheld it yet
            a = view.clusters[f"cluster/{cid}"]
            why = unpowered(a)
            given = None if why else a.metrics.get("it_power")
            power = given.m_as("W") if given is not None else math.nan
            failures, ends, per_hour, rates, utilisation = sweep_figures(view.specs, a,
                                                                           workload.checkpoint.in_memory,
                                                                           tuple(sweep.axes.given()))
            nowhere = (no_checkpoint_target(view.specs, a, workload)
                       if workload.training is not None else None)
            for what, metric, path in asked:
                if metric in COST_OBJECTIVES and per_hour is None:
                    raise BuildError(f"sweep '{sweep.id}': {what} needs prices, and cluster '{cid}' "
                                     "has no cost in USD (price every part and rack on its bill of materials, "
                                     "with `price:` or a `Prices` document, name the link media of every fabric "
                                     "tier, and give its facility a `cost:`; "
                                     "docs/reliability.md)", where(*path))
                if metric in ("power", "energy_per_token") and given is None:
                    raise BuildError(f"sweep '{sweep.id}': {what} needs the cluster's IT power, and "
                                     f"{why} (name the link media of every fabric "
                                     "tier; docs/clusters.md)", where(*path))
                if metric in STORAGE_METRICS and nowhere:
                    raise BuildError(f"sweep '{sweep.id}': {what} needs the training job's "
                                     f"{'goodput' if metric in GOODPUT_METRICS else 'checkpoint storage'}, "
                                     f"and {nowhere} (REL006; docs/reliability.md)", where(*path))
            with located(specs, (sweep.id, ("workload",))):  # a cluster the model cannot run, at its line
                own_machine = machine(cluster, view.specs.items, view.scale_out.get(cid), power, failures=failures,
                                      failure_ends=ends, cost_per_accelerator_hour=per_hour, rates=rates,
                                      utilisation=utilisation)
                room = view.rooms.get(f"cluster/{cid}")
                bases[(key, None)] = dataclasses.replace(   # its cost's energy at maximum draw: a range (newuser64)
                    own_machine, cluster=key, switch=_switch_ports(a, specs, own_machine.hardware.accelerator),
                    hall_limit=math.inf if room is None else room.limit.m_as("W"),
                    hall_room="" if room is None else room.words, feed_per_watt=feed_per_watt(a),
                    energy_share=sweep_energy_share(view.specs, a) if per_hour is not None else 0.0,
                    capex_left_out=sweep_capex_left_out(view.specs, a) if per_hour is not None else "",
                    energy_price=energy_price(a) if per_hour is not None else 0.0)
                for j, aid in enumerate(sweep.axes.accelerator or ()):
                    bases[(key, aid)] = swapped = dataclasses.replace(
                        _swapped(bases[(key, None)], specs, aid, where("axes", "accelerator", j)),
                        switch=_switch_ports(a, specs, aid))
                    kept.append(_links_kept(cid, bases[(key, None)], specs, aid,
                                            bool(sweep.axes.scale_up_bandwidth)))
                    own = bases[(key, None)].hardware.accelerator
                    for what, metric, _ in asked:  # the cluster's prices are its own systems', not the new chip's
                        if metric in COST_OBJECTIVES and per_hour is not None and \
                                swapped.cost_per_accelerator_hour is None:
                            raise BuildError(f"sweep '{sweep.id}': {what} needs prices, and cluster "
                                             f"'{cid}' prices its own '{own}' systems, not '{aid}' ones (model a "
                                             f"cluster of '{aid}' systems with their prices and put it on the "
                                             "`cluster` axis; docs/sweeps.md)", where("axes", "accelerator", j))
        facility = _facility_levels(sweep, views, where)
        axes = sweep.axes.given()
        if sweep.axes.cluster is None:
            axes = {"cluster": ids, **axes}
        # a glob's requirement on another job kind's metric (ttft_p99 over `workload/*` on a training job) is not
        # applicable, as `check` judges it, not a point's failure (newuser95)
        stated = tuple(Stated(getattr(specs.get(b.owner), "kind", ""), b.owner, b.req)
                       for b in design.elsewhere(workload.id) if not not_applicable(b, design))
        tdp = {k: float(part.tdp.m_as("W")) for k, b in bases.items()
               if isinstance(part := specs.get(b.hardware.accelerator), Accelerator)}
        out.append(SweepProblem(sweep, workload, model, bases, axes, stated, facility, tdp=tdp,
                                notes=tuple(dict.fromkeys(k for k in kept if k)),
                                failing={key: lv.failing for key, lv in fabric.items() if lv.failing}))
    return out


def failing(problem: SweepProblem, clusters: dict, errors: Sequence[Finding]) -> dict[str, str]:
    """The clusters of `problem` that `archgen check` fails, by id: their unwaived error findings, in words.

    A cluster's findings are those about it, its fabrics and the racks it places (`check`'s error findings of the
    design the points run on; `sweep_fabric.failing_words`). With a fabric axis, the points run on the designs of
    its levels, each judged as it was built (`SweepProblem.failing`), not on the clusters as stated: {}.
    """
    if any(name in problem.axes for name in FABRIC_AXES):
        return {}
    return {cid: why for cid in problem.axes["cluster"] if (why := sweep_fabric.failing_words(cid, clusters, errors))}


class _View(NamedTuple):
    """A design the points run on: a cluster (by id) in its specs, analysed, with its scale-out paths and halls."""

    cluster: str
    specs: Specs
    clusters: dict
    scale_out: dict
    rooms: dict


def _facility_levels(sweep: Sweep, views: dict[str, _View],
                     where: Callable[..., Location | None]) -> dict[tuple, tuple[float | None, float, float, float]]:
    """Each cluster's cost per accelerator-hour, utilisation, energy share and energy price at each facility level.

    At each combination of the levels of the facility axes (`FACILITY_AXES`), keyed by the cluster and
    `facility_levels`. A facility axis on a cluster whose hall gives no `cost:` is refused at its line: it would change
    nothing; so is an electricity price in another currency than the hall's (its cost would add two currencies), and
    an axis on a cluster with no cost per token at any of its levels (`usd_per_hour`: a hall priced in EUR, parts
    without prices), whose points would all read "not provided" whatever the level.
    """
    given = [name for name in FACILITY_AXES if getattr(sweep.axes, name) is not None]
    if not given:
        return {}
    out: dict[tuple, tuple[float | None, float, float, float]] = {}
    combos = [dict(zip(given, levels, strict=True))
              for levels in itertools.product(*(getattr(sweep.axes, name) for name in given))]
    for key, (cid, specs, clusters, _, _) in views.items():
        a = clusters[f"cluster/{cid}"]
        hall = cost_facility(a)[0]   # on a site of halls, theirs (hall30)
        if hall is None or hall.cost is None:
            which = "names no facility" if hall is None else f"has facility '{hall.id}' with no `cost:`"
            raise BuildError(f"sweep '{sweep.id}': axis '{given[0]}' changes the facility's cost, and cluster "
                             f"'{cid}' {which} (docs/reliability.md, Cost)", where("axes", given[0]))
        own = currency(hall.cost.energy.price)
        for i, price in enumerate(sweep.axes.electricity_price or ()):
            if currency(price) != own:
                raise BuildError(f"sweep '{sweep.id}': electricity price '{format_quantity(price)}' is in "
                                 f"{currency(price)}, and facility '{hall.id}' of cluster '{cid}' prices in {own} "
                                 "(archgen converts no currency; docs/reliability.md, Cost)",
                                 where("axes", "electricity_price", i))
        for combo in combos:
            out[(key, *facility_levels(combo))] = facility_figures(specs, a, combo)
        if all(out[(key, *facility_levels(combo))][0] is None for combo in combos):
            _, why = usd_per_hour(analyse_cost(specs, a), cid)
            raise BuildError(f"sweep '{sweep.id}': axis '{given[0]}' changes the cost per token, and cluster '{cid}' "
                             f"gives none at any of its levels: {why} (docs/reliability.md, Cost)",
                             where("axes", given[0]))
    return out


def _switch_ports(a: ClusterAnalysis, specs: Specs, accelerator: str) -> SwitchPorts | None:
    """A switched domain's ports and links for the sweep's port rule (`SwitchPorts`); None without a switch part.

    The chip's links are `accelerator`'s `scale_up.links` where the domain runs on them (`own_links_domain`).
    """
    su = a.scale_up
    if su is None or not su.switch_ports or a.cluster.spec.scale_up is None:
        return None
    part = specs.get(accelerator)
    chip = (part.scale_up.links if isinstance(part, Accelerator) and part.scale_up is not None and
            own_links_domain(a.cluster.spec.scale_up) else 0)
    return SwitchPorts(su.switch_ports, su.links_per_accelerator, a.cluster.scale_up_link is not None, chip)


def _links_kept(cluster: str, base: Machine, specs: Specs, accelerator: str, swept: bool = False) -> str:
    """In words, where the cluster's scale-up links are not the swapped chip's own; else "" (newuser95).

    An accelerator axis keeps the fabric (`_swapped`), so an H200 put on a DGX B200 SuperPOD runs NVLink 5 at
    900 GB/s per direction, not its own NVLink 4 at 450 GB/s: its points are not an HGX H200's (Llama 3.1 70B FP8
    at tp 8 offline: 510 tokens/s per GPU there, 441 at a scale_up_bandwidth of x0.5).
    """
    part = specs.get(accelerator)
    if not isinstance(part, Accelerator) or part.scale_up is None or accelerator == base.hardware.accelerator:
        return ""
    own, theirs = part.scale_up.bandwidth.m_as("B/s"), base.hardware.scale_up_bandwidth
    if math.isclose(own, theirs, rel_tol=1e-6):
        return ""
    at = " at the cluster's own scale-up bandwidth (the scale-up bandwidth axis at x1)" if swept else ""
    return (f"The points of {accelerator} on {cluster}{at} run the cluster's scale-up links, {theirs / 1e9:,.4g} "
            f"GB/s per accelerator per direction, not {accelerator}'s own {part.scale_up.technology} at "
            f"{own / 1e9:,.4g} GB/s: "
            "an accelerator axis swaps the chip and keeps the fabric, so they are not that part's own system; a "
            "scale-up bandwidth axis, or a cluster of its own systems, gives its own links (docs/sweeps.md)")


def _swapped(base: Machine, specs: Specs, accelerator: str, at: Location | None) -> Machine:
    """`base` with its accelerators replaced by `accelerator`.

    The chip's figures change (compute, memory, caches), the fabric stays, and the cluster's IT power changes by the
    difference of the two parts' TDP for every accelerator in it. The cluster's cost per accelerator-hour prices its
    own systems, so a different chip's copy has none (its points give no cost per token).
    """
    acc, own = specs.get(accelerator), specs.get(base.hardware.accelerator)
    assert isinstance(own, Accelerator), "a cluster's hardware comes from an accelerator of the specs"
    if not isinstance(acc, Accelerator):
        known = [a.id for a in specs.of(Accelerator)]
        raise BuildError(f"no accelerator '{accelerator}'{did_you_mean(accelerator, known, lead='; ')}", at)
    chip = hardware_for(acc, scale_up_size=1)
    power = base.it_power + base.accelerators * float((acc.tdp - own.tdp).m_as("W")) * base.feed_per_watt
    # the cluster's prices are those of its own systems: a swapped chip's systems have none (no cost per token)
    cost = base.cost_per_accelerator_hour if acc.id == own.id else None
    return dataclasses.replace(base, hardware=base.hardware.with_chip(chip), it_power=power,
                               cost_per_accelerator_hour=cost)
