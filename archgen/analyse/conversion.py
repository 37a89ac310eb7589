"""Power-shelf conversion losses: a cluster's IT power at the rack feeds, on one basis for every design.

A part's `power.max` (or typical, or idle draw) is what it takes from the supply it plugs into. Behind PDUs that is
the AC feed itself; behind power shelves it is the shelves' DC busbar, and the shelves draw `1 / efficiency` times
that from the feeds (`PowerShelf.efficiency`). A rack's `input_power` has always counted the shelves' loss; the
cluster's figures (`it_power`, `it_power_typical`, the cost's average and idle load, facility power and the hall's
headroom) add it here (`shelf_loss`), so that a shelf-fed rack (GB200 NVL72) and PDU-fed ones (DGX B200, MI355X)
are both counted at their AC feeds. The loss covers the systems and switches on the busbar and the optics no part's
figure holds in those racks (each instance's own, `analyse.optics.instance_optics`; none for a cluster too large
to expand into instances). Rack CDUs on a busbar are no IT load, so their share of the loss is left out, as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from archgen.analyse.cdu_power import cluster_cdu_power
from archgen.analyse.facility import facility_metrics
from archgen.analyse.feeding import Pick, busbar_flags, port_share, shelf_efficiency, stated
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.optics import instance_optics
from archgen.build import RackDesign
from archgen.model import Switch, System
from archgen.model.system import max_draw, typical_draw
from archgen.units import Q_, Q

Draw = Callable[[System | Switch], Q]

#: A cluster's figures that rest on its IT power, and its fabrics' (`FABRIC_POWER_METRICS`): not provided where a
#: fabric tier names no link media (CAB003), whose transceivers' draw is then unknown, as its capex is not (COST002).
POWER_METRICS = ("it_power", "it_power_typical", "shelf_loss", "facility_power", "facility_power_peak",
                 "it_capacity_headroom", "cooling_headroom", "network_power", "optics_power", "power_average",
                 "power_idle", "energy_cost_per_year", "facility_energy_per_year", "tco_per_year",
                 "tco_per_accelerator_hour", "tco_per_used_accelerator_hour", "tco_per_goodput_accelerator_hour",
                 "tco_per_goodput_accelerator_hour_low", "tco_per_goodput_accelerator_hour_high",
                 "tco_per_job_goodput_accelerator_hour", "tco_per_job_goodput_accelerator_hour_low",
                 "tco_per_job_goodput_accelerator_hour_high")
FABRIC_POWER_METRICS = ("network_power", "optics_power")


def unpowered(a: ClusterAnalysis) -> str:
    """Why a cluster's IT power is not provided: the fabric tiers whose links name no link media ("" where none)."""
    tiers = [f"{t.fabric} {t.tier} x{t.links}" for t in (a.cabling.tiers if a.cabling is not None else ())
             if t.no_media]
    return (f"{a.cluster.spec.id}'s IT power rests on links without link media ({', '.join(tiers)}; CAB003): "
            "their transceivers' draw is unknown") if tiers else ""


def range_end(end: int) -> Pick:
    """A shelf's low (`end` 0) or high (1) efficiency where it states a range, else its stated efficiency."""
    return lambda shelf: shelf.efficiency_range[end] if shelf.efficiency_range is not None else shelf.efficiency


def shelf_loss(a: ClusterAnalysis, draw: Draw = max_draw, pick: Pick = stated) -> Q:
    """Conversion loss of the power shelves of every rack instance of a cluster at `draw` (default maximum).

    `pick` chooses each shelf's efficiency: its stated one, or an end of its range (`range_end`; PWR012).
    """
    return (_parts_loss(a, draw, pick) + _optics_loss(a, pick)).to("kW")


def feed_per_watt(a: ClusterAnalysis) -> float:
    """Watts at the rack feeds per watt more on each accelerator, the mean over the cluster's accelerators.

    An accelerator in a system on a shelf's busbar adds 1 / the shelves' efficiency at the feeds, as `shelf_loss`
    counts its draw; one behind PDUs adds 1 / its PSUs' efficiency where the system states it (`psus.efficiency`;
    its `power.max` is at its AC input, its PSUs' loss inside it, review50), else its own watt, without the PSUs' loss
    (a lower bound: 80 PLUS Titanium's 96 % at half load, 230 V internal redundant, would add 4.2 %; the program's
    table as https://www.tomshardware.com/uk/reviews/80-plus-psu-efficiency,4848-2.html prints it). A sweep's `tdp`
    and `accelerator` levels move `it_power`, at the feeds, by it (review48: the GB300 row at 2,000 W read 740.7 kW
    at its feeds, the shelves' 5.3 kW left out). 1 with none. The conversion after either stage (a tray's DC-DC
    converters, the chips' voltage regulators) no spec states, and neither path counts it.
    """
    count = weighted = 0.0
    for rid, n in sorted(a.cluster.rack_counts.items()):
        rack = a.cluster.rack_types.get(rid)
        if rack is None:
            continue
        eff = shelf_efficiency(rack)
        for p, on in zip(rack.items, busbar_flags(rack), strict=True):
            if isinstance(p.part, System) and p.part.accelerators:
                k = p.part.accelerators * n
                stage = (eff or 1.0) if on else psu_efficiency(p.part)   # the shelves', else the system's PSUs'
                count, weighted = count + k, weighted + k / stage
    return weighted / count if count else 1.0


def psu_efficiency(system: System) -> float:
    """A system's stated PSU efficiency (`power.psus.efficiency`), else 1: its own watt, the PSUs' loss left out."""
    psus = system.power.psus
    return psus.efficiency if psus is not None and psus.efficiency is not None else 1.0


def _parts_loss(a: ClusterAnalysis, draw: Draw, pick: Pick) -> Q:
    """The shelves' loss on the systems and switches on their busbars, at `draw`, over every rack instance."""
    total = Q_(0, "kW")
    for rid, n in sorted(a.cluster.rack_counts.items()):
        rack = a.cluster.rack_types.get(rid)
        eff = shelf_efficiency(rack, pick) if rack is not None else None
        if rack is None or eff is None:
            continue
        fed = busbar_flags(rack)
        busbar = sum((draw(p.part) for p, on in zip(rack.items, fed, strict=True)
                      if on and isinstance(p.part, System | Switch)), Q_(0, "kW"))
        total = total + busbar * n * (1 / eff - 1)
    return total


def _optics_loss(a: ClusterAnalysis, pick: Pick = stated) -> Q:
    """The shelves' loss on the optics the rack instances hold beyond their parts' figures (switch ports, NICs).

    It depends on no part's draw, so `at_feeds` takes it once for the maximum and the typical figure. The shelves'
    efficiency and busbar share are a rack type's, taken once per type, summed per instance in instance order.
    """
    per_type: dict[str, tuple[float, float] | None] = {}  # rack id: (busbar share, 1 / eff - 1); None: no shelves
    total = 0.0
    for inst, w in zip(a.cluster.instances, instance_optics(a).tolist(), strict=True):
        rid = inst.rack.spec.id
        if rid not in per_type:
            eff = shelf_efficiency(inst.rack, pick)
            per_type[rid] = None if eff is None else (_busbar_optics_share(inst.rack), 1 / eff - 1)
        factors = per_type[rid]
        if factors is not None and w:
            total += w * factors[0] * factors[1]
    return Q_(total, "W").to("kW")


def at_feeds(clusters: dict[str, ClusterAnalysis]) -> dict[str, ClusterAnalysis]:
    """Each cluster with its shelves' loss in its IT power (maximum and typical) and the facility figures after it.

    Every cluster gets `shelf_loss` (0 W where no rack has shelves), so a document can say what basis it used, and
    `cdu_power` where it buys in-row CDUs that all state their draw.
    """
    out: dict[str, ClusterAnalysis] = {}
    for path, a in clusters.items():
        m = dict(a.metrics)
        optics = _optics_loss(a)
        loss = (_parts_loss(a, max_draw, stated) + optics).to("kW")  # shelf_loss(a), the optics' share taken once
        typical = (_parts_loss(a, typical_draw, stated) + optics).to("kW")
        m["shelf_loss"] = loss
        if "it_power" in m:
            m["it_power"] = (m["it_power"] + loss).to("kW")
            m.update(facility_metrics(a, m["it_power"]))
        if "it_power_typical" in m:
            m["it_power_typical"] = (m["it_power_typical"] + typical).to("kW")
        cdu = cluster_cdu_power(a)
        if cdu is not None and cdu.m:   # in-row CDUs, each stating its draw (`analyse.cdu_power`)
            m["cdu_power"] = cdu
        out[path] = replace(a, metrics=m)
    return out


def _busbar_optics_share(rack: RackDesign) -> float:
    """Share of a rack's optics on its shelves' busbar: all but the switch ports of parts on PDUs or external."""
    off = [not flag for flag in busbar_flags(rack)]
    return 1 - port_share(rack, off)
