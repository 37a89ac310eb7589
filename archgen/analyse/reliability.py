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
from dataclasses import dataclass, field

from archgen.analyse.network import ClusterAnalysis, compute_node, nic_bandwidth
from archgen.model import CoolingUnit, Link, PowerShelf, Switch, System
from archgen.model.network import COPPER_MEDIA
from archgen.model.power import PDU
from archgen.model.reliability import DEFAULT_RATES, FailureRate, FailureRates
from archgen.perf.arch import Arch
from archgen.perf.goodput import daly, ettr, spare_wait
from archgen.units import Q_, Q
from archgen.validate import Specs

#: Classes whose failure takes out one node (the job restarts without it, or on a spare).
NODE_CLASSES = ("accelerator", "host", "nic", "software")
#: Classes whose failure needs a hardware repair of a node (what hot spares stand in for).
HARDWARE_CLASSES = ("accelerator", "host", "nic")
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

    @property
    def per_day(self) -> float:
        """Failures per day of all units of the class (0 without a rate)."""
        return self.units * self.rate.per_year / 365.25 if self.rate is not None else 0.0


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
    assumed: tuple[str, ...] = ()
    metrics: dict[str, Q] = field(default_factory=dict)

    def interrupts_per_day(self, accelerators: int) -> float:
        """Interruptions per day of a job on `accelerators` of the cluster (its share of every interrupting part)."""
        share = accelerators / self.accelerators if self.accelerators else 0.0
        return sum(c.per_day for c in self.classes if c.interrupts) * share + self.site_per_day

    def node_hardware_per_day(self) -> float:
        """Failures per node and day that need a repair (accelerator, host, NIC)."""
        total = sum(c.per_day for c in self.classes if c.name in HARDWARE_CLASSES)
        return total / self.nodes if self.nodes else 0.0

    def node_repair_hours(self) -> float:
        """Mean repair time of a node's hardware failures, weighted by their rates (hours)."""
        hw = [c for c in self.classes if c.name in HARDWARE_CLASSES and c.rate is not None and c.per_day]
        total = sum(c.per_day for c in hw)
        return sum(c.per_day * c.rate.repair.m_as("h") for c in hw) / total if total else 0.0


def rates_of(specs: Specs, cluster: ClusterAnalysis) -> FailureRates | None:
    """The cluster's `FailureRates` set (its own, or the shipped default); None when missing (REF reports it)."""
    rid = cluster.cluster.spec.failure_rates or DEFAULT_RATES
    found = specs.get(rid)
    return found if isinstance(found, FailureRates) else None


def analyse_reliability(specs: Specs, a: ClusterAnalysis) -> Reliability:
    """Units per part class from the cluster's BOM, their rates, and the cluster's failure domains."""
    rates = rates_of(specs, a)
    classes: dict[str, dict] = {}
    unrated: set[str] = set()
    assumed: set[str] = set()

    def add(name: str, part: object, units: int, interrupts: bool = True) -> None:
        own = getattr(part, "reliability", None)
        rate = own or (rates.classes.get(name) if rates else None)
        key = name if interrupts else f"{name} (management)"  # management gear: failures are repairs, not stops
        entry = classes.setdefault(key, {"name": name, "units": 0, "per_day": 0.0, "rates": [], "parts": set(),
                                         "interrupts": True})
        if rate is None:
            unrated.add(f"{name} ({getattr(part, 'id', name)})")
            return
        if rate.basis == "assumed":
            assumed.add(name if own is None else f"{name} ({part.id})")
        entry["units"] += units
        entry["per_day"] += units * rate.per_year / 365.25
        entry["rates"].append((units, rate))
        entry["parts"].add(getattr(part, "id", name))
        entry["interrupts"] = entry["interrupts"] and interrupts and rate.interrupts

    for nt in a.nodes:
        if nt.part.accelerators:
            acc = specs.get(nt.part.accelerator) if nt.part.accelerator else None
            add("accelerator", acc, nt.part.accelerators * nt.count)
            add("host", nt.part, nt.count)
            add("software", nt.part, nt.count)
        for slot in nt.part.nics:
            add("nic", specs.get(slot.part), slot.count * nt.count, interrupts=slot.role != "management")
    redundant = _redundancy(a)
    roles = {fa.fabric.spec.id: fa.fabric.spec.role for fa in a.fabrics}
    management = {t.switch.id for fa in a.fabrics if fa.fabric.spec.role == "management" for t in fa.tiers
                  if t.switch is not None}
    for t in a.cabling.tiers if a.cabling is not None else ():
        for pid, n in sorted(t.modules.items()):
            part = specs.get(pid)
            if isinstance(part, Link) and n:
                add("cable" if part.media in COPPER_MEDIA else "transceiver", part, n,
                    interrupts=roles.get(t.fabric) != "management")
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
    out = tuple(ClassRate(e["name"], e["units"], _combined(e["rates"]), e["interrupts"], tuple(sorted(e["parts"])))
                for _, e in sorted(classes.items()) if e["units"])
    facility = a.cluster.facility
    site = sum(ev.per_year for ev in facility.site_events) / 365.25 if facility is not None else 0.0
    if facility is not None and any(ev.basis == "assumed" for ev in facility.site_events):
        assumed.add("site events")
    node = compute_node(a.nodes)
    per_node = node.part.accelerators if node is not None else 0
    rel = Reliability(a.cluster.spec.id, a.accelerators, a.node_count, per_node, out,
                      _domains(a, out, per_node, redundant, site), site,
                      rates.id if rates else "", tuple(sorted(unrated)), tuple(sorted(assumed)))
    rel.metrics.update(cluster_metrics(rel))
    return rel


def _combined(rates: list[tuple[int, FailureRate]]) -> FailureRate | None:
    """One rate standing for several parts of a class: their unit-weighted rate and repair time."""
    if not rates:
        return None
    if len(rates) == 1:
        return rates[0][1]
    units = sum(n for n, _ in rates)
    per_year = sum(n * r.per_year for n, r in rates) / units
    repair = sum(n * r.per_year * r.repair.m_as("h") for n, r in rates) / max(per_year * units, 1e-30)
    basis = "sourced" if all(r.basis == "sourced" for _, r in rates) else "assumed"
    return FailureRate(fit=per_year / 8766.0 * 1e9, repair=Q_(repair, "h"), basis=basis,
                       source="; ".join(sorted({r.source for _, r in rates})),
                       interrupts=all(r.interrupts for _, r in rates))


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
                                                      have.interrupts or c.interrupts, have.parts + c.parts)

    def yearly(*names: str) -> float:
        return sum(by[n].per_day for n in names if n in by) * 365.25

    def repair(*names: str) -> Q:
        hw = [by[n] for n in names if n in by and by[n].rate is not None]
        total = sum(c.per_day for c in hw)
        hours = sum(c.per_day * c.rate.repair.m_as("h") for c in hw) / total if total else 0.0
        return Q_(hours, "h")

    out = [Domain("node", "accelerator, host, NIC, software", yearly(*NODE_CLASSES), per_node,
                  repair(*HARDWARE_CLASSES), "the node (tray) is drained; its accelerators leave the job")]
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
        if hit is not None and leaves is not None and rate is not None:
            out.append(Domain(f"leaf ({fa.fabric.spec.id})", f"{fa.fabric.spec.switch} leaf switch",
                              leaves.m * rate.per_year, int(hit.m), rate.repair,
                              "accelerators whose ports on this fabric go through one leaf"))
        if fa.planes > 1:
            out.append(Domain(f"plane ({fa.fabric.spec.id})", "a whole plane", 0.0, fa.accelerators, Q_(0, "h"),
                              f"bandwidth lost: 1/{fa.planes}; not a rate of its own"))
    racks = max(a.cluster.rack_total, 1)
    rack_acc = a.accelerators // racks if a.accelerators else 0
    per_rack = max((sum(p.part.accelerators for p in r.items if isinstance(p.part, System))
                    for r in a.cluster.rack_types.values()), default=rack_acc)
    for name, label in (("power_shelf", "power shelf"), ("pdu", "PDU / feed")):
        if name in by:
            lost = 0 if redundant.get(name) else per_rack
            out.append(Domain(label, label, yearly(name), lost, repair(name),
                              "redundant: a repair, no accelerator lost" if lost == 0 else "the rack stops"))
    if "cdu" in by and by["cdu"].units:
        served = 0 if redundant.get("cdu") else a.accelerators // by["cdu"].units
        out.append(Domain("CDU", "coolant distribution unit", yearly("cdu"), served, repair("cdu"),
                          "redundant: a repair, no accelerator lost" if served == 0 else
                          "the racks it cools stop (accelerators / CDUs)"))
    if site_per_day:
        out.append(Domain("site", "facility site events", site_per_day * 365.25, a.accelerators, Q_(0, "h"),
                          "every job in the hall"))
    return tuple(out)


def cluster_metrics(rel: Reliability) -> dict[str, Q]:
    """A job on the whole cluster: interruptions per day and MTTI; failures per year of every part."""
    per_day = rel.interrupts_per_day(rel.accelerators)
    m = {"interruptions_per_day": Q_(per_day, "1/day"),
         "failures_per_year": Q_(sum(c.per_day for c in rel.classes) * 365.25 + rel.site_per_day * 365.25, "1/year")}
    if per_day > 0:
        m["mtti"] = Q_(24 / per_day, "h")
    return m


@dataclass(frozen=True)
class Goodput:
    """A training job's checkpoints, interruptions and goodput."""

    accelerators: int
    nodes: int
    interruptions_per_day: float
    mtti: float                  # s
    checkpoint_size: float       # B
    write_bandwidth: float       # B/s
    read_bandwidth: float        # B/s
    write_time: float            # s
    restore_time: float          # s
    interval: float              # s, used
    optimum: float               # s, Daly
    restart: float               # s, without waiting for repairs
    wait: float                  # s, mean wait for a repair per interruption with the spares available
    goodput: float
    spares_needed: int | None    # to hold the target; None where no number of spares does
    spares_available: int
    target: float
    notes: tuple[str, ...] = ()

    def curve(self, intervals: list[float]) -> list[float]:
        """Goodput at each checkpoint interval (s), for the goodput-vs-interval chart."""
        return [ettr(t, self.write_time, self.restart + self.wait, self.mtti) for t in intervals]


def checkpoint_bytes(model: object, bytes_per_parameter: float) -> float:
    """Checkpoint size: the model's parameters x bytes per parameter."""
    return Arch.from_model(model).params() * bytes_per_parameter


def node_storage_bandwidth(specs: Specs, a: ClusterAnalysis) -> float:
    """A compute node's storage NIC bandwidth (B/s); without storage NICs, its converged or compute NICs."""
    node = compute_node(a.nodes)
    if node is not None:
        for role in ("storage", "converged", "compute"):
            nic = nic_bandwidth(specs, node.part, role)
            if nic.m > 0:
                return nic.m_as("B/s")
    return 0.0


def job_bandwidth(specs: Specs, a: ClusterAnalysis, nodes: int) -> tuple[float, float, str]:
    """Checkpoint write and read bandwidth of a job on `nodes` nodes (B/s), and a note of which bound holds.

    The storage system's bandwidth, capped by the nodes' storage NICs (without one, the converged or compute NICs).
    """
    links = node_storage_bandwidth(specs, a) * nodes
    storage = a.cluster.spec.storage
    if storage is None:
        return links, links, "no `storage:` given: the nodes' storage NICs bound checkpoint traffic"
    write, read = storage.write_bandwidth.m_as("B/s"), storage.read_bandwidth.m_as("B/s")
    if links and links < write:
        return links, min(links, read), "the job's storage NICs bound checkpoint writes"
    return write, min(read, links) if links else read, ""


def goodput(rel: Reliability, a: ClusterAnalysis, specs: Specs, workload: object, model: object,
            accelerators: int) -> Goodput | None:
    """Checkpoint size, write/restore time, Daly interval, restart and goodput of a training workload."""
    cp = workload.checkpoint
    per_node = rel.per_node or 1
    nodes = math.ceil(accelerators / per_node)
    per_day = rel.interrupts_per_day(accelerators)
    mtti = 86400 / per_day if per_day > 0 else math.inf
    size = checkpoint_bytes(model, cp.bytes_per_parameter)
    write_bw, read_bw, note = job_bandwidth(specs, a, nodes)
    if write_bw <= 0:
        return None
    delta, restore = size / write_bw, size / read_bw
    optimum = daly(delta, mtti) if mtti != math.inf else math.inf
    interval = cp.interval.m_as("s") if cp.interval is not None else optimum
    restart = cp.restart.m_as("s") + restore
    lam = rel.node_hardware_per_day() / 86400
    repair = rel.node_repair_hours() * 3600
    in_repair = nodes * lam * repair
    hw_share = lam * nodes / (per_day / 86400) if per_day > 0 else 0.0  # share of interruptions needing a repair

    def wait(spares: int) -> float:
        return spare_wait(hw_share, repair, in_repair, spares)

    available = max(rel.nodes - nodes, 0)
    target = cp.goodput_target or DEFAULT_GOODPUT_TARGET
    needed = None
    for s in range(0, max(available, 0) + 4 * math.ceil(in_repair + 3 * math.sqrt(in_repair)) + 2):
        if ettr(daly(delta, mtti) if mtti != math.inf else 1.0, delta, restart + wait(s), mtti) >= target:
            needed = s
            break
    value = ettr(interval, delta, restart + wait(available), mtti) if interval != math.inf else 1.0
    notes = (note,) if note else ()
    return Goodput(accelerators, nodes, per_day, mtti, size, write_bw, read_bw, delta, restore,
                   interval if interval != math.inf else 0.0, optimum if optimum != math.inf else 0.0,
                   restart, wait(available), value, needed, available, target, notes)


def workload_metrics(g: Goodput, rel: Reliability, a: ClusterAnalysis, tokens_per_second: Q | None,
                     tokens: float | None) -> dict[str, Q]:
    """A training workload's reliability metrics."""
    m: dict[str, Q] = {
        "interruptions_per_day": Q_(g.interruptions_per_day, "1/day"),
        "checkpoint_size": Q_(g.checkpoint_size, "B").to("TB"),
        "checkpoint_write_time": Q_(g.write_time, "s"), "checkpoint_restore_time": Q_(g.restore_time, "s"),
        "restart_time": Q_(g.restart + g.wait, "s").to("min"), "goodput": Q_(g.goodput, ""),
    }
    if g.mtti != math.inf:
        m["mtti"] = Q_(g.mtti, "s").to("h")
    if g.interval:
        m["checkpoint_interval"] = Q_(g.interval, "s").to("min")
    if g.spares_needed is not None:
        m["spares"] = Q_(g.spares_needed, "")
        node = compute_node(a.nodes)
        if node is not None:
            m["spare_power"] = (node.part.power.max * g.spares_needed).to("kW")
            m["spare_space"] = (node.part.mechanical.height * g.spares_needed).to("U")
    if tokens_per_second is not None:
        m["goodput_tokens_per_second"] = tokens_per_second * g.goodput
        if tokens:
            m["time_to_train"] = (Q_(tokens, "") / tokens_per_second).to("day")
            if g.goodput > 0:
                m["goodput_time_to_train"] = (Q_(tokens, "") / tokens_per_second / g.goodput).to("day")
    return m
