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
from dataclasses import dataclass, field, replace

from archgen.analyse.network import ClusterAnalysis, compute_node, failed_node_takes
from archgen.analyse.rate_sets import (
    borrowed,
    borrowed_inputs,
    borrowed_range,
    combined,
    rates_of,
    scope_chain,
    unstated_of,
)
from archgen.model import CoolingUnit, Link, PowerShelf, Switch, System
from archgen.model.fabrics import Torus
from archgen.model.network import COPPER_MEDIA
from archgen.model.power import PDU
from archgen.model.reliability import FailureRate, FailureRates
from archgen.perf.train.poisson import poisson_interval
from archgen.units import Q_, Q
from archgen.validate import Specs

#: Classes whose failure takes out one node (the job restarts without it, or on a spare).
NODE_CLASSES = ("accelerator", "host", "nic", "software")
#: Classes whose failure needs a hardware repair of a node (what hot spares stand in for).
HARDWARE_CLASSES = ("accelerator", "host", "nic")
#: Classes whose failure takes a whole node out: a job on any accelerator of the node stops, so a job pays their
#: rate for every node it occupies, not for its share of the node's accelerators (a 1-GPU job on an 8-GPU server).
WHOLE_NODE = ("host", "nic", "software")
#: Default goodput a job's hot spares are sized to hold.
DEFAULT_GOODPUT_TARGET = 0.9


@dataclass(frozen=True)
class ClassRate:
    """One part class in a cluster: units, the rate each unit takes, and whether a failure interrupts a job."""

    name: str
    units: int
    rate: FailureRate | None
    interrupts: bool
    parts: tuple[str, ...] = ()
    exposure: float | None = None  # units the rate applies to (accelerators / per_accelerators); None: `units`

    @property
    def per_day(self) -> float:
        """Failures per day of all units of the class (0 without a rate)."""
        units = self.units if self.exposure is None else self.exposure
        return units * self.rate.per_year / 365.25 if self.rate is not None else 0.0

    @property
    def per_unit_year(self) -> float | None:
        """Failures per unit-year as counted here, so that units x this is the class's failures a year.

        A rate counted per server of n accelerators applies per accelerator: a 4-GPU tray takes half an 8-GPU server's.
        """
        return self.per_day * 365.25 / self.units if self.rate is not None and self.units else None


@dataclass(frozen=True)
class Domain:
    """A failure domain: what fails, how often in the cluster, and how many accelerators one failure removes."""

    name: str
    causes: str
    per_year: float
    accelerators: int
    repair: Q
    note: str = ""


@dataclass(frozen=True)
class Reliability:
    """A cluster's failure model: class rates, failure domains, and what its parts lack."""

    cluster: str
    accelerators: int
    nodes: int
    per_node: int
    classes: tuple[ClassRate, ...]
    domains: tuple[Domain, ...]
    site_per_day: float
    rates_id: str
    unrated: tuple[str, ...] = ()
    unrated_units: dict[str, int] = field(default_factory=dict)   # units of each `unrated` entry (left out, REL004)
    assumed: tuple[str, ...] = ()
    metrics: dict[str, Q] = field(default_factory=dict)
    site: tuple[tuple[float, float], ...] = ()  # (events per day, s the hall is down) of each site event
    planned_per_accelerator_day: float = 0.0
    planned_duration: float = 0.0               # s
    borrowed: str = ""                          # the set's scope where the cluster's accelerator lies outside it
    borrowed_input: tuple[str, ...] = ()        # the point's sets, borrowed, in a few words each (`analyse.assumed`)
    unstated: str = ""                          # the sets whose source leaves the accelerator model unstated
    spread: tuple[Reliability, ...] = ()        # the model under every set the range spans (docs: Rate sets)
    chain: tuple[str, ...] = ()                 # the set and, through `base`, the sets it takes classes from

    def interval(self) -> tuple[float, float]:
        """(low, high) factors on the parts' interruption rate: the 95 % Poisson interval of the counted classes.

        The counted classes' rates add; their effective count is (sum r)^2 / sum(r^2 / n) (Welch-Satterthwaite).
        """
        hit = [c for c in self.classes if c.interrupts and c.per_day]
        counted = [(c.per_day, c.rate.events) for c in hit if c.rate is not None and c.rate.events]
        total, known = sum(c.per_day for c in hit), sum(r for r, _ in counted)
        if not counted:
            return 1.0, 1.0
        lo, hi = poisson_interval(known ** 2 / sum(r ** 2 / n for r, n in counted))
        return (total - known + known * lo) / total, (total - known + known * hi) / total

    def uncounted(self) -> tuple[str, ...]:
        """Interrupting classes whose rate states no `events`: their uncertainty is in no interval (not provided)."""
        return tuple(sorted({c.name for c in self.classes if c.interrupts and c.per_day and c.rate is not None
                             and not c.rate.events}))

    def band(self, accelerators: int, without: str = "") -> tuple[float, float]:
        """(low, high) interruptions per day of a job on `accelerators`, over the spread and Poisson intervals.

        `without` leaves one set out of the spread, and the sets that take classes from it through `base` (a
        figure judged against the sets not built from it).
        """
        ends = []
        for r in [r for r in self.spread if without not in (r.chain or (r.rates_id,))] or [self]:
            lo, hi = r.interval()
            parts = r.interrupts_per_day(accelerators) - r.site_per_day
            ends += [parts * lo + r.site_per_day, parts * hi + r.site_per_day]
        return min(ends), max(ends)

    def detection(self) -> float:
        """Mean detection time of a part's interruption (s), weighted by the interrupting classes' rates."""
        hit = [c for c in self.classes if c.interrupts and c.rate is not None and c.per_day]
        total = sum(c.per_day for c in hit)
        return sum(c.per_day * c.rate.detection.m_as("s") for c in hit if c.rate is not None) / total if total else 0.0

    def split(self) -> tuple[float, float]:
        """(interruptions per accelerator-day, per node-day) of the parts.

        Per accelerator: its own failures and its share of the shared parts; per node: the classes that take a whole
        node (`WHOLE_NODE`), per compute node of `per_node` accelerators.
        """
        hit = [c for c in self.classes if c.interrupts]
        node = sum(c.per_day for c in hit if c.name in WHOLE_NODE)
        other = sum(c.per_day for c in hit if c.name not in WHOLE_NODE)
        if not self.accelerators:
            return 0.0, 0.0
        if not self.per_node:
            return (node + other) / self.accelerators, 0.0
        return other / self.accelerators, node * self.per_node / self.accelerators

    def interrupts_per_day(self, accelerators: int) -> float:
        """Interruptions per day of a job on `accelerators` of the cluster.

        Its accelerators' own and their share of the shared parts, every whole node it occupies, the site's events.
        """
        per_acc, per_node = self.split()
        nodes = math.ceil(accelerators / self.per_node) if self.per_node else 0
        return per_acc * accelerators + per_node * nodes + self.site_per_day

    def node_hardware_per_day(self) -> float:
        """Failures per node and day that need a repair (accelerator, host, NIC)."""
        total = sum(c.per_day for c in self.classes if c.name in HARDWARE_CLASSES)
        return total / self.nodes if self.nodes else 0.0

    def node_repair_hours(self) -> float:
        """Mean repair time of a node's hardware failures, weighted by their rates (hours)."""
        hw = [c for c in self.classes if c.name in HARDWARE_CLASSES and c.rate is not None and c.per_day]
        total = sum(c.per_day for c in hw)
        return sum(c.per_day * c.rate.repair.m_as("h") for c in hw if c.rate is not None) / total if total else 0.0


def analyse_reliability(specs: Specs, a: ClusterAnalysis, rates: FailureRates | None = None,
                        spread: bool = True) -> Reliability:
    """Units per part class from the cluster's BOM, their rates, and the cluster's failure domains.

    A cluster that names no `failure_rates` also gets the model under every `FailureRates` set (`spread`), so
    that each figure carries its range over the published sets.
    """
    rates = rates or rates_of(specs, a)
    chain = scope_chain(specs, rates)
    classes: dict[str, dict] = {}
    unrated: dict[str, int] = {}
    assumed: set[str] = set()

    def add(name: str, part: object, units: int, interrupts: bool = True, accelerators: int = 0) -> None:
        own = getattr(part, "reliability", None)
        rate = own or next((r.classes[name] for r in chain if name in r.classes), None)
        key = name if interrupts else f"{name} (management)"  # management gear: failures are repairs, not stops
        entry = classes.setdefault(key, {"name": name, "units": 0, "exposure": 0.0, "rates": [], "parts": set(),
                                         "interrupts": True})
        if rate is None:
            label = f"{name} ({getattr(part, 'id', name)})"
            unrated[label] = unrated.get(label, 0) + units
            return
        if rate.basis == "assumed":
            assumed.add(name if own is None else f"{name} ({getattr(part, 'id', name)})")
        # a rate the source measured per server of n accelerators applies per accelerator, whatever the node size
        exposure = accelerators / rate.per_accelerators if rate.per_accelerators and accelerators else units
        entry["units"] += units
        entry["exposure"] += exposure
        entry["rates"].append((exposure, rate))
        entry["parts"].add(getattr(part, "id", name))
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
    link, su = a.cluster.scale_up_link, a.scale_up   # a backplane's links are in no cable tier (`switched_cables`)
    if link is not None and link.media == "copper-backplane" and su is not None and su.links_needed * su.domains:
        add("backplane", link, su.links_needed * su.domains)   # none without a domain (a rack-id typo: NET008)
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if isinstance(part, Switch):
            add("switch", part, line.quantity, interrupts=part.id not in management)
        elif isinstance(part, PowerShelf):
            add("power_shelf", part, line.quantity, interrupts=not redundant.get("power_shelf", False))
        elif isinstance(part, PDU):
            add("pdu", part, line.quantity, interrupts=not redundant.get("pdu", False))
        elif isinstance(part, CoolingUnit):
            add("cdu", part, line.quantity, interrupts=not redundant.get("cdu", False))
    out = tuple(ClassRate(e["name"], e["units"], combined(e["rates"]), e["interrupts"], tuple(sorted(e["parts"])),
                          e["exposure"]) for _, e in sorted(classes.items()) if e["units"])
    facility = a.cluster.facility
    events = tuple((ev.per_year / 365.25, ev.duration.m_as("s")) for ev in (facility.site_events if facility else ()))
    site = sum(n for n, _ in events)
    if facility is not None and any(ev.basis == "assumed" for ev in facility.site_events):
        assumed.add("site events")
    node = compute_node(a.nodes)
    per_node = node.part.accelerators if node is not None else 0
    planned = next((r.planned for r in chain if r.planned is not None), None)
    rel = Reliability(a.cluster.spec.id, a.accelerators, a.node_count, per_node, out,
                      _domains(a, out, per_node, redundant, site), site,
                      rates.id if rates else "", tuple(sorted(unrated)), dict(sorted(unrated.items())),
                      tuple(sorted(assumed)), site=events,
                      planned_per_accelerator_day=planned.per_year / 365.25 / planned.per_accelerators if planned
                      else 0.0, planned_duration=planned.duration.m_as("s") if planned else 0.0,
                      borrowed=borrowed(specs, a, rates), chain=tuple(r.id for r in chain),
                      spread=tuple(analyse_reliability(specs, a, s, spread=False) for s in specs.of(FailureRates))
                      if spread and not a.cluster.spec.failure_rates else ())
    rel = replace(rel, borrowed_input=borrowed_inputs(specs, a, rates), unstated=unstated_of(specs, a, chain))
    if rel.spread:  # the range borrows every set measured on another accelerator: say which
        every = list(specs.of(FailureRates))
        rel = replace(rel, borrowed=borrowed_range(specs, a, every), unstated=unstated_of(specs, a, every))
    rel.metrics.update(cluster_metrics(rel))
    return rel


def _redundancy(a: ClusterAnalysis) -> dict[str, bool]:
    """Whether every rack type of the cluster has redundant power shelves, PDUs and CDUs."""
    shelves = pdus = cdus = True
    for rack in a.cluster.rack_types.values():
        power, liquid = rack.spec.power, rack.spec.cooling.liquid
        shelves = shelves and (power.shelves is None or power.shelves.redundancy != "N")
        pdus = pdus and (power.pdus is None or power.pdus.redundancy != "N")
        cdus = cdus and (liquid is None or liquid.cdu_redundancy != "N")
    return {"power_shelf": shelves, "pdu": pdus, "cdu": cdus}


def _domains(a: ClusterAnalysis, classes: tuple[ClassRate, ...], per_node: int, redundant: dict[str, bool],
             site_per_day: float) -> tuple[Domain, ...]:
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
    out = [Domain("node", "accelerator, host, NIC, software", yearly(*NODE_CLASSES), per_node * takes,
                  repair(*HARDWARE_CLASSES), "the node (tray) is drained; its accelerators leave the job" if takes == 1
                  else f"the node (tray) is drained and its OCS cube of {takes} trays leaves the slice; the OCSes "
                  "join an idle cube in its place")]
    su = a.cluster.spec.scale_up
    if su is not None and su.switch is not None and "switch" in by:
        scale_switches = su.switches * (su.size and a.accelerators // su.size)
        rate = by["switch"].rate
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
    if site_per_day:
        out.append(Domain("site", "facility site events", site_per_day * 365.25, a.accelerators, Q_(0, "h"),
                          "every job in the hall"))
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
    return m


def cluster_metrics(rel: Reliability) -> dict[str, Q]:
    """A job on the whole cluster: interruptions per day and MTTI; failures per year of every part."""
    return {**job_interruptions(rel, rel.accelerators), "failures_per_year": Q_(
        sum(c.per_day for c in rel.classes) * 365.25 + rel.site_per_day * 365.25, "1/year")}
