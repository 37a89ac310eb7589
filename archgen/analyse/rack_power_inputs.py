"""The unconfirmed power figures a rack's power and heat rest on, for its requirements (newuser46).

A rack drafted from announcements (a Vera Rubin NVL72 at 4 x 1,800 W per tray, an AMD Helios at an assumed 2,000 W
per MI455X: every `tdp` and `power.max` listed under `unconfirmed:`) gave "rack/vr-nvl72 | Rack IT power | <= 200 kW
| 183.6 kW | met" in `gap` and the compliance matrix, the same as a rack of datasheet figures, though `check` names
them for a cluster (PWR012) and a requirement on an estimate names its part's unconfirmed figures (REQ005). A rack's
power, heat and the flows that carry it are computed from its parts' figures (`POWER_FIELDS`: a system's or
switch's draw, the `tdp` of the accelerator fitted in a system, the `power` of NICs added to a system's figure, a
shelf's efficiency; the heat to liquid only the liquid-cooled parts' draws and their `cooling.liquid_fraction`,
which the heat to air shares: `LIQUID_METRICS`); each such figure listed unconfirmed is an assumed input of those
metrics (`analyse.assumed`), so a requirement met on them reads "met (on assumed inputs: vr-compute-tray power.max
(unconfirmed), ...)".

A cluster's power is its racks' and more (`cluster_power_inputs`): the same rule over the parts of its bill of
materials, so "cluster/vr-1152 it_power 3.16 MW met" names the figures it rests on as its racks' requirements do.
Its racks' own draw, the network's and the optics' exclude a shelf's efficiency (no conversion loss in them); the
network and optics power name only the fabrics' switches (not the scale-up trays, which they leave out) and links.
A figure at maximum draw does not rest on a part's `power.typical`; a typical one (`it_power_typical`, a cluster's
average power and the energy built on it) rests on both, the maximum standing in where no typical is published.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from archgen.analyse.optics import unconfirmed_optics
from archgen.analyse.rack import unconfirmed_weight
from archgen.cache import Memo
from archgen.model import NIC, Accelerator, CoolingUnit, Link, Part, PowerShelf, Switch, System

#: The power figures of each kind of part that a rack's or cluster's power is computed from (PWR012 names them).
POWER_FIELDS: tuple[tuple[type, tuple[str, ...]], ...] = (
    (System, ("power.max", "power.typical")), (Switch, ("power.max", "power.typical", "power_includes_optics")),
    (CoolingUnit, ("power",)), (Accelerator, ("tdp",)), (NIC, ("power",)), (PowerShelf, ("efficiency",)),
    (Link, ("power_per_end",)))

#: A rack's metrics computed from those figures: its draw, its input at the feeds, its heat and what carries it.
RACK_POWER_METRICS = ("it_power", "it_power_typical", "rack_load", "input_power", "feed_load", "heat_to_liquid",
                      "heat_to_air", "heat_to_rear_door", "coolant_flow", "air_flow")


#: Of those, the ones its liquid heat makes: the liquid-cooled systems' and switches' maximum draw x their
#: `cooling.liquid_fraction` (`analyse.cdu_units.liquid_heat`), carried at the loop's ΔT. No shelf's loss, no optics
#: nor air-cooled part enters them; each part's unconfirmed liquid fraction does (coolinputs42).
LIQUID_METRICS = ("heat_to_liquid", "coolant_flow")
#: Of those, the ones the air takes: the input less the liquid heat, so they rest on both (the liquid fractions too).
AIR_METRICS = ("heat_to_air", "heat_to_rear_door", "air_flow")
#: The field of a placed system or switch that splits its heat between liquid and air.
LIQUID_FRACTION = "cooling.liquid_fraction"

#: Of those, the load the rack's parts draw, before the shelves' conversion loss. A part's `power.typical` is read
#: by `it_power_typical` alone: the draw, the input and the heat are the maximum's (`analyse.power_chain.Power`).
LOAD_METRICS = ("it_power", "it_power_typical", "rack_load")

#: A cluster's metrics computed from its parts' power figures: its draw, the facility's power and energy, the hall's
#: headrooms (`metrics.py`, `metrics_facility.py`).
CLUSTER_POWER_METRICS = ("it_power_racks", "it_power", "shelf_loss", "it_power_typical_racks", "it_power_typical",
                         "network_power", "optics_power", "power_average", "power_idle", "facility_power",
                         "facility_power_peak", "cdu_power", "rack_cooling_power", "it_capacity_headroom",
                         "cooling_headroom", "ups_headroom", "generator_headroom", "facility_energy_per_year",
                         "energy_cost_per_year", "carbon_per_year", "market_carbon_per_year", "water_per_year")
#: The rack's and cluster's metrics at typical draw (`power.typical`, else `power.max`); the others at maximum draw.
TYPICAL_METRICS = ("it_power_typical", "it_power_typical_racks", "power_average", "power_idle",
                   "facility_energy_per_year", "energy_cost_per_year", "carbon_per_year", "market_carbon_per_year",
                   "water_per_year")
#: A job's figures built on its cluster's power, and the cluster metric each takes its share of: the average power
#: (`analyse.job_energy`) or the maximum IT power (`job_it_energy`, `run_figures.run_energy`); they rest on
#: what that rests on.
JOB_ENERGY_METRICS = {"facility_energy_per_million_tokens": "power_average", "job_energy": "power_average",
                      "job_carbon": "power_average", "job_market_carbon": "power_average",
                      "job_water": "power_average", "job_it_energy": "it_power", "job_power_swing": "it_power"}
#: Of those, the ones without the shelves' conversion loss (at the equipment).
CLUSTER_LOAD_METRICS = ("it_power_racks", "it_power_typical_racks", "network_power", "optics_power")
#: Of those, the ones only the network's parts enter: the fabrics' switches and the links (`network_power`).
NETWORK_METRICS = {"network_power": (Switch, Link), "optics_power": (Link,)}


def stated(part: Any, field: str) -> bool:
    """Whether `part` states the dotted `field` (a value, not None)."""
    value = part
    for name in field.split("."):
        value = getattr(value, name, None)
    return value is not None


#: Of `POWER_FIELDS`, the draws a bill of materials line's power is (a part's maximum, a CDU's or NIC's power, a link
#: end's): a shelf's efficiency, a typical draw or whether a switch's figure holds its optics make no line's power.
BOM_DRAWS = ("power.max", "power", "power_per_end", "tdp")
#: Of a part that states a typical draw, the draws a figure at typical draw sums: that one in place of its maximum.
TYPICAL_DRAWS = ("power.typical", "power", "power_per_end", "tdp")


def draw_unconfirmed(part: Any, specs: Any) -> bool:
    """Whether the draw a BOM line gives `part` sums a figure listed unconfirmed (`unconfirmed_draws`)."""
    return isinstance(part, Part) and bool(unconfirmed_draws(part, specs))


def unconfirmed_draws(part: Part, specs: Any, typical: bool = False) -> tuple[tuple[str, str], ...]:
    """(part id, field) of each draw (`BOM_DRAWS`) `part`'s draw sums or is built on that its part lists unconfirmed.

    Its own, and those of the parts `power_parts` names: the NICs a system's maximum adds to its `power.max`
    (`power_includes_nics: false`) and the accelerator whose `tdp` it is built on. The same parts a requirement on
    the rack's or cluster's power names (REQ005, `rack_power_inputs`): one rule, so a BOM line, a rack's IT power
    and the figures built on them are marked "(unconfirmed)" where that requirement reads "met (on assumed inputs:
    ...)" for their draws. `specs` resolves the accelerator and NICs. `typical`: the draws a figure at typical draw
    sums instead (`it_power_typical`): a part's `power.typical` where it states one, else its maximum.
    """
    return tuple((p.id, f) for p in power_parts(part, specs) for f in unconfirmed_power_fields(p)
                 if f in (TYPICAL_DRAWS if typical and stated(p, "power.typical") else BOM_DRAWS))


def unconfirmed_power_fields(part: Part) -> tuple[str, ...]:
    """`part`'s power figures (`POWER_FIELDS`) that it states and lists unconfirmed (once a process for a part)."""
    known = UNCONFIRMED.get(id(part))
    if known is not None and known[0] is part:
        return known[1]
    return UNCONFIRMED.put(id(part), (part, tuple(f for kind, fields in POWER_FIELDS if isinstance(part, kind)
                                                  for f in fields if part.is_unconfirmed(f) and stated(part, f))))[1]


#: `unconfirmed_power_fields` by part (frozen; kept, so that no other object takes its `id`): a pipeline run asked it
#: about each placed part once per metric, some 95 times (about 0.4 ms of a check case's run, pipe31).
UNCONFIRMED = Memo[tuple[Part, tuple[str, ...]]](4096)


def power_parts(part: Part, specs: Any) -> list[Part]:
    """`part` and the parts whose power figures its draw is built on: a system's accelerator, the NICs it adds."""
    parts = [part]
    if isinstance(part, System):
        parts += [specs.get(part.accelerator)] if part.accelerator else []
        parts += [specs.get(n.part) for n in part.nics] if part.nic_power is not None else []
    return [p for p in parts if isinstance(p, Part)]


def _named(p: Part, metric: str) -> dict[str, None]:
    """`p`'s unconfirmed power figures that `metric` rests on (`power.typical` only for `TYPICAL_METRICS`)."""
    return dict.fromkeys(f"{p.id} {f} (unconfirmed)" for f in unconfirmed_power_fields(p)
                         if f != "power.typical" or metric in TYPICAL_METRICS)


def fraction_unconfirmed(part: System | Switch) -> bool:
    """Whether `part` states its `cooling.liquid_fraction` and lists it unconfirmed (its heat split rests on it)."""
    return "liquid_fraction" in part.cooling.model_fields_set and part.is_unconfirmed(LIQUID_FRACTION)


def _heat_named(p: Part, metric: str, liquid: set[str], fractions: dict[str, str]) -> tuple[str, ...]:
    """`_named`, with the rack's heat split: the liquid heat names only the liquid parts' draws, and its fraction.

    The liquid heat (`LIQUID_METRICS`) names only the draws (`BOM_DRAWS`) of the parts in `liquid` (the liquid-cooled
    ones and what their draw is built on); it and the air's (`AIR_METRICS`) name the part's liquid fraction
    (`fractions`, by part id, where it is unconfirmed: `fraction_unconfirmed`). The documents' marks on the same
    figures follow the same parts (`analyse.unconfirmed_share.rack_shares`, one rule): the liquid heat's only the
    liquid-cooled parts' draws and fractions, so a rack whose one unconfirmed draw is an air-cooled switch's leaves
    its heat to liquid plain. They differ in what they give, not in what they decide: this names the figures, the
    mark says how much of the heat rests on them (the draws x fractions of the parts that do).
    """
    draws = (f"{p.id} {f} (unconfirmed)" for f in unconfirmed_power_fields(p) if p.id in liquid and f in BOM_DRAWS)
    named = tuple(draws if metric in LIQUID_METRICS else _named(p, metric))
    return named + ((fractions[p.id],) if p.id in fractions and metric in LIQUID_METRICS + AIR_METRICS else ())


def _shelves_last(parts: dict[str, Part]) -> dict[str, Part]:
    """`parts` in their order, the power shelves after the rest (their efficiency is named last)."""
    return dict(sorted(parts.items(), key=lambda kv: isinstance(kv[1], PowerShelf)))


def rack_power_parts(a: Any, links: Mapping[str, tuple[Part, ...]]) -> list[Any]:
    """The parts rack analysis `a`'s power sums: those placed in it, then `links`' for it.

    `links`: by rack path, the links with an unconfirmed `power_per_end` whose ends its optics hold
    (`analyse.optics.unconfirmed_optics`), as a cluster's power names its links (`cluster_power_parts`). One rule for
    REQ005 (`rack_power_inputs`) and the rack's footnote (`render.tables.unconfirmed_footnote`).
    """
    return [*(item.part for item in a.rack.items), *links.get(a.rack.path, ())]


def rack_power_inputs(racks: Mapping[str, Any], specs: Any,
                      links: Mapping[str, tuple[Part, ...]] | None = None) -> dict[str, dict[str, tuple[str, ...]]]:
    """By rack path, its power metrics (`RACK_POWER_METRICS`) with the unconfirmed power figures they rest on.

    `racks` are `analyse.rack.RackAnalysis` by path; `specs` resolves a system's accelerator and NICs; `links` the
    links its optics hold with an unconfirmed draw (`rack_power_parts`). Only racks resting on some are given.
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for path, a in racks.items():
        parts = _shelves_last({p.id: p for part in rack_power_parts(a, links or {}) for p in power_parts(part, specs)})
        cooled = {p.id: p for p in (item.part for item in a.rack.items) if isinstance(p, System | Switch)}
        liquid = {p.id for c in cooled.values() if c.cooling.liquid_fraction > 0 for p in power_parts(c, specs)}
        fractions = {pid: f"{pid} {LIQUID_FRACTION} (unconfirmed)" for pid, p in cooled.items()
                     if fraction_unconfirmed(p)}
        # a shelf's efficiency: its loss, at the feeds and in the heat only
        m = {k: tuple(w for p in parts.values() if not (isinstance(p, PowerShelf) and k in LOAD_METRICS)
                      for w in _heat_named(p, k, liquid, fractions)) for k in RACK_POWER_METRICS if k in a.metrics}
        if m := {k: v for k, v in m.items() if v}:
            out[path] = m
    return out


def cluster_power_inputs(clusters: Mapping[str, Any], specs: Any) -> dict[str, dict[str, tuple[str, ...]]]:
    """By cluster path, its power metrics (`CLUSTER_POWER_METRICS`) with the unconfirmed power figures they rest on.

    `clusters` are `analyse.network.ClusterAnalysis` by path. The parts are its bill of materials' (with what a
    system's draw is built on, `power_parts`); a link only where some of its ends draw outside a node's maximum, as
    PWR012 names them (`checks.power_figures.unconfirmed_power`). Only clusters whose figures rest on some are given.
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for path, a in clusters.items():
        parts = _shelves_last(cluster_power_parts(a, specs))
        m: dict[str, tuple[str, ...]] = {}
        for k in CLUSTER_POWER_METRICS:   # the cost stage's (average power, energy) are not in `a.metrics` yet
            m[k] = tuple(w for p in parts.values()
                         if not (isinstance(p, PowerShelf) and k in CLUSTER_LOAD_METRICS)
                         and in_metric(a, p, k) for w in _named(p, k))
        if m := {k: v for k, v in m.items() if v}:
            out[path] = m
    return out


def cluster_power_parts(a: Any, specs: Any) -> dict[str, Part]:
    """By id, the parts cluster analysis `a`'s power is computed from.

    Its BOM's parts (rack lines aside), with what a system's draw is built on (`power_parts`); a link only where some
    of its ends draw outside a node's maximum.
    """
    parts: dict[str, Part] = {}
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if isinstance(part, Part) and not (isinstance(part, Link) and line.quantity <= line.in_parent):
            parts.update({p.id: p for p in power_parts(part, specs)})
    return parts


def in_metric(a: Any, part: Part, metric: str) -> bool:
    """Whether cluster `a`'s `metric` sums `part`'s figures.

    All do, but the network's and optics' power (`NETWORK_METRICS`) sum only the fabrics' switches (not the scale-up
    trays, which they leave out) and links.
    """
    kinds = NETWORK_METRICS.get(metric)
    scale_up = a.cluster.spec.scale_up
    return kinds is None or (isinstance(part, kinds) and part.id != (scale_up.switch if scale_up else None))


def add_power_inputs(assumed: dict[str, dict[str, tuple[str, ...]]], racks: Mapping[str, Any],
                     clusters: Mapping[str, Any], specs: Any) -> None:
    """Add to `assumed` (by path and metric) the racks' and clusters' unconfirmed power figures, after what it holds."""
    for inputs in (rack_power_inputs(racks, specs, unconfirmed_optics(clusters)), cluster_power_inputs(clusters, specs),
                   rack_loop_inputs(racks)):
        for path, metrics in inputs.items():
            have = assumed.setdefault(path, {})
            for k, words in metrics.items():
                have[k] = tuple(dict.fromkeys((*have.get(k, ()), *words)))


#: A rack's metrics computed from its own figure groups (`Rack.assumed_figures`), with the group and the figures of
#: it each rests on: the coolant flow carries the liquid heat at the loop's ΔT, the air flow the air heat at the air
#: path's, and the weight and floor load hold the enclosure's empty weight (over its footprint); the inlets a rack
#: accepts are its loop's supply and its air class as stated (newuser84).
LOOP_METRICS = {"coolant_flow": ("cooling.liquid", ("delta_t", "coolant")), "air_flow": ("cooling.air", ("delta_t",)),
                "weight": ("form_factor", ("weight",)), "floor_load": ("form_factor", ("weight", "width", "depth")),
                "coolant_supply": ("cooling.liquid", ("supply",)), "air_inlet_max": ("cooling.air", ("class",))}


def rack_loop_inputs(racks: Mapping[str, Any]) -> dict[str, dict[str, tuple[str, ...]]]:
    """By rack path, its metrics (`LOOP_METRICS`) with the figures of its own they rest on that it marks unconfirmed.

    A requirement on the coolant flow met at an assumed ΔT (COOL016) reads "met (on assumed inputs: r
    cooling.liquid.delta_t (unconfirmed))", as one on the heat names its parts' unconfirmed power figures; one on the
    air flow names an assumed air ΔT (COOL017), one on the weight or floor load an assumed empty weight (MECH005)
    and each placed part's weight that its catalog entry marks unconfirmed (a placeholder: weight67).
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for path, a in racks.items():
        marked = {at: named for at, _, named in a.rack.spec.assumed_figures()}
        m = {k: tuple(f"{a.rack.spec.id} {at}.{f} (unconfirmed)" for f in figures if f in marked.get(at, ()))
             for k, (at, figures) in LOOP_METRICS.items() if k in a.metrics}
        weights = tuple(f"{pid} mechanical.weight (unconfirmed)" for pid, _, _ in unconfirmed_weight(a.rack))
        m.update({k: m.get(k, ()) + weights for k in ("weight", "floor_load") if k in a.metrics})
        if m := {k: v for k, v in m.items() if v}:
            out[path] = m
    return out


def add_job_power_inputs(assumed: dict[str, dict[str, tuple[str, ...]]], workloads: Mapping[str, Any]) -> None:
    """Give each job's energy (`JOB_ENERGY_METRICS`) the unconfirmed power figures of the cluster power it is built on.

    `workloads` are the pipeline's `WorkloadResult`s by path; `assumed` already holds the clusters' figures
    (`add_power_inputs`), so a requirement on a job's energy names them as one on the cluster's energy does.
    """
    for path, r in workloads.items():
        est = r.estimate
        cluster = assumed.get(f"cluster/{est.cluster}", {}) if est is not None else {}
        for k, power in JOB_ENERGY_METRICS.items():
            if (words := cluster.get(power, ())) and k in est.metrics:
                have = assumed.setdefault(path, {})
                have[k] = tuple(dict.fromkeys((*have.get(k, ()), *words)))
