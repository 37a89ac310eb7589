"""Reliability and goodput: failure rates from the BOM, failure domains, checkpoints, Young/Daly and ETTR.

Formulas (docs/reliability.md states each with its source and limits):

- Failures are independent and exponential (Poisson): a job's interruption rate is the sum, over the part classes
  whose failure stops it, of rate per unit x units it runs on (Kokolis et al., HPCA 2025: MTTF = 1 / (N r_f)).
  The job's share of shared parts (switches, links, CDUs) is its share of the cluster's accelerators.
- MTTI = 1 / interruption rate.
- Young (1974): tau = sqrt(2 delta M). Daly (2006), eq. 37: tau = sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3
  + (delta / 2M) / 9] - delta for delta < 2M, else M.
- Daly (2006), expected wall time of a job of solve time Ts: Tw = M e^(R/M) (e^((tau + delta)/M) - 1) Ts / tau;
  goodput (effective training time ratio, ETTR) = Ts / Tw.
- Hot spares: nodes in repair are Poisson with mean N lambda MTTR; after a hardware failure, a restart waits for
  the mean repair time unless a spare is free, i.e. with probability P(1 + X > s), X ~ Poisson(N lambda MTTR).
"""

from __future__ import annotations

import math
from dataclasses import replace

from archgen.analyse.failure_model import HARDWARE_CLASSES, NODE_CLASSES, ClassRate, Domain, Reliability
from archgen.analyse.network import ClusterAnalysis, compute_node, compute_torus, failed_node_takes
from archgen.analyse.rate_sets import (
    borrowed,
    borrowed_inputs,
    borrowed_range,
    combined,
    counted,
    rates_of,
    scope_chain,
    unstated_of,
)
from archgen.analyse.spare_parts import YEAR_S, stock_lines
from archgen.model import CoolingUnit, Link, PowerShelf, Switch, System
from archgen.model.fabrics import Torus
from archgen.model.network import COPPER_MEDIA
from archgen.model.part_classes import LENDS
from archgen.model.power import PDU
from archgen.model.reliability import FailureRates
from archgen.units import Q_, Q
from archgen.validate import Specs


def analyse_reliability(specs: Specs, a: ClusterAnalysis, rates: FailureRates | None = None,
                        spread: bool = True) -> Reliability:
    """Units per part class from the cluster's BOM, their rates, and the cluster's failure domains.

    A cluster that names no `failure_rates` also gets the model under every `FailureRates` set (`spread`), so
    that each figure carries its range over the published sets. `spread=False` makes such an entry: the figures a
    range reads of it (`Reliability.band`, `goodput_range.failure_ends`: its classes, site events, planned stops and
    chain), not the point's own domains, metrics, spare stock, borrowed words or largest job, which no one reads of
    an entry (they were 40 % of a check case's reliability, computed for each of the twelve sets, pipe31).
    """
    rates = rates or rates_of(specs, a)
    chain = scope_chain(specs, rates)
    classes: dict[str, dict] = {}
    unrated: dict[str, int] = {}
    assumed: set[str] = set()
    lead_set = next((r for r in chain if r.turnaround is not None), None)   # the set's turnaround, else its base's
    lead = lead_set.turnaround if lead_set is not None else None

    def add(name: str, part: object, units: int, interrupts: bool = True, accelerators: int = 0) -> None:
        own = getattr(part, "reliability", None)
        rate = own or next((r.classes[name] for r in chain if name in r.classes), None)
        lender = LENDS.get(name, "") if rate is None else ""   # spares23: a scale-up tray takes the switch rate
        rate = rate or next((r.classes[lender] for r in chain if lender in r.classes), None)
        key = name if interrupts else f"{name} (management)"  # management gear: failures are repairs, not stops
        entry = classes.setdefault(key, {"name": name, "units": 0, "exposure": 0.0, "rates": [], "parts": set(),
                                         "interrupts": True, "failures": 0.0, "pipeline": 0.0, "untimed": set(),
                                         "assumed_lead": set(), "lead_sources": set(), "lender": ""})
        if rate is None:
            label = f"{name} ({getattr(part, 'id', name)})"
            unrated[label] = unrated.get(label, 0) + units
            return
        if rate.basis == "assumed" or lender:
            assumed.add(name if own is None else f"{name} ({getattr(part, 'id', name)})")
        entry["lender"] = entry["lender"] or lender
        # a rate the source measured per server of n accelerators applies per accelerator, whatever the node size
        exposure = accelerators / rate.per_accelerators if rate.per_accelerators and accelerators else units
        entry["units"] += units
        entry["exposure"] += exposure
        entry["rates"].append((exposure, rate))
        entry["parts"].add(getattr(part, "id", name))
        turnaround = rate.turnaround or lead   # the spare-parts stock's lead time (`analyse.spare_parts`)
        entry["failures"] += exposure * rate.per_year
        if turnaround is None:
            entry["untimed"].add(getattr(part, "id", name))
        else:
            entry["pipeline"] += exposure * rate.per_year * turnaround.m_as("s") / YEAR_S
            said = rate if rate.turnaround is not None else lead_set   # whose turnaround: its basis and source
            if said is None or said.turnaround_basis == "assumed":
                entry["assumed_lead"].add(getattr(part, "id", name))
            else:
                entry["lead_sources"].add(said.turnaround_source)
        entry["interrupts"] = entry["interrupts"] and interrupts and rate.interrupts

    for nt in a.nodes:
        acc_n = nt.part.accelerators * nt.count
        if nt.part.accelerators:
            acc = specs.get(nt.part.accelerator) if nt.part.accelerator else None
            add("accelerator", acc, acc_n)
            add("host", nt.part, nt.count, accelerators=acc_n)
            add("software", nt.part, nt.count, accelerators=acc_n)
        for slot in nt.part.nics:  # every NIC the system holds (a DGX H100: 8 compute + 2 storage); BMC: a repair
            add("nic", specs.get(slot.part), slot.count * nt.count, interrupts=slot.role != "management")
    redundant = _redundancy(a)
    roles = {fa.fabric.spec.id: fa.fabric.spec.role for fa in a.fabrics}
    management = {t.switch.id for fa in a.fabrics if fa.fabric.spec.role == "management" for t in fa.tiers
                  if t.switch is not None}
    for t in a.cabling.tiers if a.cabling is not None else ():
        for pid, n in sorted(t.modules.items()):
            part = specs.get(pid)
            if isinstance(part, Link) and n and (part.media in COPPER_MEDIA or part.is_module):  # not a passive end
                add("cable" if part.media in COPPER_MEDIA else "transceiver", part, n,
                    interrupts=roles.get(t.fabric) != "management")
        if t.no_media:   # no part to rate: left out, as a part with no rate (REL004), never counted as none
            label = f"cables and transceivers ({t.fabric} {t.tier} links, no link media)"
            unrated[label] = unrated.get(label, 0) + t.links
    link, su = a.cluster.scale_up_link, a.scale_up   # a backplane's links are in no cable tier (`switched_cables`)
    if link is not None and link.media == "copper-backplane" and su is not None and su.links_needed * su.domains:
        add("backplane", link, su.links_needed * su.domains)   # none without a domain (a rack-id typo: NET008)
    trays = a.cluster.spec.scale_up.switch if a.cluster.spec.scale_up is not None else None
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if isinstance(part, Switch):   # an NVL72's NVLink switch trays: a class of their own (spares23)
            add("scale_up_switch" if part.id == trays else "switch", part, line.quantity,
                interrupts=part.id not in management)
        elif isinstance(part, PowerShelf):
            add("power_shelf", part, line.quantity, interrupts=not redundant.get("power_shelf", False))
        elif isinstance(part, PDU):
            add("pdu", part, line.quantity, interrupts=not redundant.get("pdu", False))
        elif isinstance(part, CoolingUnit):
            add("cdu", part, line.quantity, interrupts=not redundant.get("cdu", False))
    out = tuple(ClassRate(e["name"], e["units"], combined(e["rates"]), e["interrupts"], tuple(sorted(e["parts"])),
                          e["exposure"], e["lender"]) for _, e in sorted(classes.items()) if e["units"])
    facility = a.cluster.facility
    events = tuple((ev.per_year / 365.25, ev.duration.m_as("s")) for ev in (facility.site_events if facility else ()))
    site = sum(n for n, _ in events)
    if facility is not None and any(ev.basis == "assumed" for ev in facility.site_events):
        assumed.add("site events")
    node = compute_node(a.nodes)
    per_node = node.part.accelerators if node is not None else 0
    planned = next((r.planned for r in chain if r.planned is not None), None)
    rel = Reliability(a.cluster.spec.id, a.accelerators, a.node_count, per_node, out,
                      _domains(a, out, per_node, redundant, events) if spread else (), site,
                      rates.id if rates else "", tuple(sorted(unrated)), dict(sorted(unrated.items())),
                      tuple(sorted(assumed)), site=events,
                      planned_per_accelerator_day=planned.per_year / 365.25 / planned.per_accelerators
                      if planned and planned.scope == "node" else 0.0,
                      planned_duration=planned.duration.m_as("s") if planned else 0.0,
                      planned_per_day=planned.per_year / 365.25 if planned and planned.scope == "cluster" else 0.0,
                      chain=tuple(r.id for r in chain), counts=counted(chain),
                      counted_as=(rates.counts or "") if rates else "",
                      no_stockout=rates.no_stockout if rates else 0.95)
    if not spread:                                 # an entry of another's spread: the figures its range reads
        return rel
    rel = replace(rel, borrowed=borrowed(specs, a, rates),
                  spread=tuple(analyse_reliability(specs, a, s, spread=False) for s in specs.of(FailureRates))
                  if not a.cluster.spec.failure_rates else (),
                  stock=stock_lines(classes.values(), rates.no_stockout if rates else 0.95))
    # a class rate the set borrows from another operator's figure (`FailureRate.operator`): that it carries over is
    # assumed, as for a set measured on another accelerator (Llama 3's set takes Alibaba HPN's ToR rate for switches)
    lent = tuple(dict.fromkeys(f"{c.name} failure rate (measured by {c.rate.operator}; '{giver}' borrows it)"
                               for c in out if c.interrupts and c.per_day and c.rate is not None and c.rate.operator
                               and (giver := next((r.id for r in chain if c.name in r.classes), ""))))
    elsewhere = borrowed_inputs(specs, a, rates)
    rel = replace(rel, elsewhere=elsewhere, borrowed_input=elsewhere + lent, unstated=unstated_of(specs, a, chain))
    if rel.spread:  # the range borrows every set measured on another accelerator: say which
        every = list(specs.of(FailureRates))
        rel = replace(rel, borrowed=borrowed_range(specs, a, every), unstated=unstated_of(specs, a, every))
    size, why = largest_job(a)
    rel = replace(rel, largest_job=size, largest_why=why)
    rel.metrics.update(cluster_metrics(rel))
    return rel


def largest_job(a: ClusterAnalysis) -> tuple[int, str]:
    """(accelerators, why) of the largest job the cluster's spec lets run, where fewer than all; else (0, '').

    A compute torus whose `dims` hold fewer chips than the cluster is the largest slice a job runs on (a TPU v5p
    pod's 8,960 chips, whose largest slice is 16x16x24 = 6,144: Google Cloud TPU v5p documentation); the rest of the
    pod runs other slices, so a figure for "a job on every accelerator" would describe a job that cannot run.
    """
    torus = compute_torus(a)
    if torus is None or not torus.dims or math.prod(torus.dims) >= a.accelerators:
        return 0, ""
    return math.prod(torus.dims), f"the '{torus.id}' torus's {'x'.join(str(d) for d in torus.dims)} slice"


def _redundancy(a: ClusterAnalysis) -> dict[str, bool]:
    """Whether every rack type of the cluster has redundant power shelves, PDUs and CDUs."""
    shelves = pdus = cdus = True
    for rack in a.cluster.rack_types.values():
        power, liquid = rack.spec.power, rack.spec.cooling.liquid
        shelves = shelves and (power.shelves is None or power.shelves.redundancy != "N")
        pdus = pdus and (power.pdus is None or power.pdus.redundancy != "N")
        cdus = cdus and (liquid is None or liquid.cdu_redundancy != "N")
    return {"power_shelf": shelves, "pdu": pdus, "cdu": cdus}


def node_word(a: ClusterAnalysis, per_node: int) -> str:
    """What the cluster's node is, in the failure-domain table's words: 'tray' or 'server'.

    A tray is one of several nodes of a scale-up domain (a GB200 NVL72's compute tray) or wires part of a torus on its
    board (a TPU v4 tray); any other node is a server (newuser103: a DGX B200 read "node (tray)").
    """
    su, node = a.cluster.spec.scale_up, compute_node(a.nodes)
    return "tray" if (su is not None and su.size > per_node) or (node is not None and node.part.torus_block) \
        else "server"


def _domains(a: ClusterAnalysis, classes: tuple[ClassRate, ...], per_node: int, redundant: dict[str, bool],
             site: tuple[tuple[float, float], ...]) -> tuple[Domain, ...]:
    """The failure-domain table: from the real topology, accelerators removed per failure."""
    by: dict[str, ClassRate] = {}
    for c in classes:  # a class and its management share, together
        have = by.get(c.name)
        by[c.name] = c if have is None else ClassRate(c.name, have.units + c.units, have.rate or c.rate,
                                                      have.interrupts or c.interrupts, have.parts + c.parts,
                                                      (have.exposure or have.units) + (c.exposure or c.units))

    def yearly(*names: str) -> float:
        return sum(by[n].per_day for n in names if n in by) * 365.25

    def repair(*names: str) -> Q:
        hw = [by[n] for n in names if n in by and by[n].rate is not None]
        total = sum(c.per_day for c in hw)
        hours = sum(c.per_day * c.rate.repair.m_as("h") for c in hw if c.rate is not None) / total if total else 0.0
        return Q_(hours, "h")

    takes = failed_node_takes(a, per_node)  # the unit spares come in too (`spare_domain_nodes`): one rule for both
    word = node_word(a, per_node)
    out = [Domain("node", "accelerator, host, NIC, software", yearly(*NODE_CLASSES), per_node * takes,
                  repair(*HARDWARE_CLASSES), f"the node ({word}) is drained; its accelerators leave the job"
                  if takes == 1 else f"the node ({word}) is drained and its OCS cube of {takes} {word}s leaves the "
                  "slice; the OCSes join an idle cube in its place")]
    su = a.cluster.spec.scale_up
    tray = by.get("scale_up_switch")
    if su is not None and su.switch is not None and tray is not None:
        scale_switches = su.switches * (su.size and a.accelerators // su.size)
        rate = tray.rate
        out.append(Domain("scale-up domain", f"{su.switch} (one of {su.switches} per domain)",
                          scale_switches * rate.per_year if rate else 0.0, su.size, rate.repair if rate else Q_(0, "h"),
                          "assumed to stop the domain's job until it restarts at reduced NVLink bandwidth"))
    for fa in a.fabrics:
        hit = fa.metrics.get("failure.leaf.accelerators_affected")
        leaves = fa.metrics.get("leaf.switches")
        rate = by["switch"].rate if "switch" in by else None
        if hit is not None and leaves is not None and rate is not None and not isinstance(fa.fabric.spec, Torus):
            mgmt = fa.fabric.spec.role == "management"  # out-of-band: a leaf failure stops no job
            lost = fa.metrics.get("failure.leaf.ports_lost")
            served = int(lost.m) if lost is not None else 0
            out.append(Domain(f"leaf ({fa.fabric.spec.id})", f"{fa.fabric.spec.switch} leaf switch",
                              leaves.m * rate.per_year, 0 if mgmt else int(hit.m), rate.repair,
                              f"out-of-band: the {served} management ports it serves (node BMCs, switch and PDU "
                              "management) are unreachable until the repair; no job stops" if mgmt else
                              "accelerators whose ports on this fabric go through one leaf"))
        if fa.planes > 1:
            out.append(Domain(f"plane ({fa.fabric.spec.id})", "a whole plane", 0.0, fa.accelerators, Q_(0, "h"),
                              f"bandwidth lost: 1/{fa.planes}; not a rate of its own"))
    racks = max(a.cluster.rack_total, 1)
    rack_acc = a.accelerators // racks if a.accelerators else 0
    span = su.racks if su is not None else 1   # a rack of a multi-rack domain stops the whole domain's job
    per_rack = span * max((sum(p.part.accelerators for p in r.items if isinstance(p.part, System))
                           for r in a.cluster.rack_types.values()), default=rack_acc)
    stops = "the rack stops" if span == 1 else f"the rack stops, and with it its {span}-rack scale-up domain's job"
    for name, label in (("power_shelf", "power shelf"), ("pdu", "PDU / feed")):
        if name in by:
            stopped = 0 if redundant.get(name) else per_rack
            out.append(Domain(label, label, yearly(name), stopped, repair(name),
                              "redundant: a repair, no accelerator lost" if stopped == 0 else stops))
    if "cdu" in by and by["cdu"].units:
        served = 0 if redundant.get("cdu") else a.accelerators // by["cdu"].units
        out.append(Domain("CDU", "coolant distribution unit", yearly("cdu"), served, repair("cdu"),
                          "redundant: a repair, no accelerator lost" if served == 0 else
                          "the racks it cools stop (accelerators / CDUs)"))
    if site_per_day := sum(n for n, _ in site):   # down for the events' mean duration (it read 0 h for a 48 h outage)
        down = sum(n * d for n, d in site) / site_per_day
        out.append(Domain("site", "facility site events", site_per_day * 365.25, a.accelerators,
                          Q_(down / 3600, "h"), "every job in the hall"))
    return tuple(out)


def job_interruptions(rel: Reliability, accelerators: int) -> dict[str, Q]:
    """A job's interruptions per day and MTTI on `accelerators` of the cluster, with their range (`band`)."""
    per_day = rel.interrupts_per_day(accelerators)
    low, high = rel.band(accelerators)
    m = {"interruptions_per_day": Q_(per_day, "1/day"), "interruptions_per_day_low": Q_(low, "1/day"),
         "interruptions_per_day_high": Q_(high, "1/day")}
    if per_day > 0:
        m["mtti"] = Q_(24 / per_day, "h")
    if low > 0:
        m["mtti_low"], m["mtti_high"] = Q_(24 / high, "h"), Q_(24 / low, "h")
    return m | job_breakdown(rel, accelerators)


def job_breakdown(rel: Reliability, accelerators: int) -> dict[str, Q]:
    """A job's interruptions per day by part class, each with its count's 95 % interval, and the confidence interval.

    `interruptions_per_day.<class>` (`_low`, `_high`: Garwood's interval of the class's own count, left out where
    it states none: no zero-width range stands for an uncertainty not known), and `interruptions_per_day_ci_low`/
    `_ci_high`, `mtti_ci_low`/`_ci_high`: the 95 % interval from the point set's own counts
    (`Reliability.own_band`), left out where no interrupting class states a count.
    """
    m: dict[str, Q] = {}
    for name, per_day, lo, hi, _ in rel.by_class(accelerators):
        m |= {f"interruptions_per_day.{name}{end}": Q_(v, "1/day") for end, v in (("", per_day), ("_low", lo),
                                                                                 ("_high", hi)) if v is not None}
    if rel.interval() != (1.0, 1.0):
        low, high = rel.own_band(accelerators)
        m |= {"interruptions_per_day_ci_low": Q_(low, "1/day"), "interruptions_per_day_ci_high": Q_(high, "1/day")}
        if low > 0:
            m |= {"mtti_ci_low": Q_(24 / high, "h"), "mtti_ci_high": Q_(24 / low, "h")}
    return m


def cluster_metrics(rel: Reliability) -> dict[str, Q]:
    """A job on the whole cluster (its largest, `job_size`): interruptions per day and MTTI; every part's failures."""
    stock = {f"spare_{what}.{line.name}": Q_(value, "") for line in rel.stock
             for what, value in (("stock", line.stock), ("demand", line.demand)) if value is not None}
    return {**job_interruptions(rel, rel.job_size), **stock, "failures_per_year": Q_(
        sum(c.per_day for c in rel.classes) * 365.25 + rel.site_per_day * 365.25, "1/year")}
