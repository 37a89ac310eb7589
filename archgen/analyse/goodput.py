"""A training job's checkpoints, interruptions and goodput on its cluster, with their spread (docs/reliability.md).

The closed forms are `archgen.perf.train.goodput`'s, shared with sweeps; this module feeds them a cluster's failure
model (`archgen.analyse.reliability`), its checkpoint storage and its nodes' NICs and host links, and states the range
of every figure over the catalog's published rate sets and each set's Poisson confidence interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.network import ClusterAnalysis, compute_node, nic_bandwidth
from archgen.analyse.reliability import DEFAULT_GOODPUT_TARGET, Reliability
from archgen.model.fabrics import Torus, checkpoint_role
from archgen.model.workload import Model, Workload
from archgen.perf.hw.arch import Arch
from archgen.perf.train.goodput import Failures, JobGoodput, ettr, job_goodput, with_unblocked
from archgen.units import Q_, Q
from archgen.validate import Specs


@dataclass(frozen=True)
class Goodput(JobGoodput):
    """A training job's checkpoints, interruptions and goodput (perf.train.goodput.JobGoodput) with its size."""

    accelerators: int = 0
    checkpoint_size: float = 0.0  # B
    band: dict[str, tuple[float, float]] = field(default_factory=dict)  # (low, high) over rate sets and intervals
    #: Where the blocking time is assumed (REL008): the same job with no blocking at all, the other end of what the
    #: unknown copy rate allows (the figures above charge the whole write).
    unblocked: JobGoodput | None = None
    #: Whether the range spans the job's placement (`failure_ends`): it leaves idle trays in scale-up domains of
    #: several nodes, and runs on more than one of them.
    placements: bool = False

    def curve(self, intervals: list[float]) -> list[float]:
        """Goodput at each checkpoint interval (s), for the goodput-vs-interval chart."""
        return [ettr(t, self.blocking, self.restart + self.wait, self.mtti) for t in intervals]


def checkpoint_bytes(model: Model, bytes_per_parameter: float) -> float:
    """Checkpoint size: the model's parameters x bytes per parameter."""
    return Arch.from_model(model).params() * bytes_per_parameter


def storage_fabrics(a: ClusterAnalysis) -> tuple[FabricAnalysis, ...]:
    """The fabrics that carry a cluster's storage traffic: those of its `checkpoint_role`, or none."""
    role = checkpoint_role(fa.fabric.spec.role for fa in a.fabrics)
    return tuple(fa for fa in a.fabrics if fa.fabric.spec.role == role) if role else ()


@dataclass(frozen=True)
class StorageSide:
    """The ports a cluster's storage takes on the fabrics that carry it, and the bandwidth they carry."""

    ports: int
    bandwidth: float                      # B/s, one direction
    fabrics: tuple[str, ...]
    #: What was counted as the storage's, per fabric, in words: `endpoints.storage`, or (assumed) every endpoint of
    #: a storage fabric that is not a compute node, listed.
    counted: tuple[str, ...] = ()
    #: Fabrics whose `endpoints.storage` exceeds the ports that are not compute nodes': (fabric, stated, there).
    over: tuple[tuple[str, int, int], ...] = ()


def _other_ports(a: ClusterAnalysis, fa: FabricAnalysis) -> list[tuple[str, int]]:
    """A fabric's endpoints that are not compute nodes, as (what, ports).

    `extra`, each `reserved`, and the ports of placed systems without accelerators (storage servers).
    """
    spec = fa.fabric.spec
    out = [("endpoints.extra", spec.endpoints.extra)] + [(f"reserved '{r.name}'", r.ports) for r in spec.reserved]
    out += [(f"{nt.part.id} {nt.count} x {fa.ports_per_node[nt.part.id]}", nt.count * fa.ports_per_node[nt.part.id])
            for nt in a.nodes if not nt.part.accelerators and fa.ports_per_node.get(nt.part.id)]
    return [(what, n) for what, n in out if n]


def _storage_ports(a: ClusterAnalysis, fa: FabricAnalysis) -> tuple[int, str, int] | None:
    """(ports, what they are in words, ports that are not compute nodes') of the storage on one fabric.

    `endpoints.storage` where stated; else, on a fabric of role `storage`, every endpoint that is not a compute
    node (an assumption, said in words); else None: a converged fabric's other ports serve more than storage.
    """
    others = _other_ports(a, fa)
    there = sum(n for _, n in others)
    stated = fa.fabric.spec.endpoints.storage
    if stated is not None:
        return min(stated, there), f"'{fa.fabric.spec.id}' endpoints.storage {stated}" + (
            f", of which the fabric has {there}" if stated > there else ""), there
    if fa.fabric.spec.role != "storage":
        return None
    listed = ", ".join(f"{what} {n}" if what.startswith("endpoints") else f"{what} ({n})" if what.startswith(
        "reserved") else what for what, n in others)
    return there, (f"every endpoint of '{fa.fabric.spec.id}' that is not a compute node ({listed or 'none'}), "
                   "assumed the storage's (endpoints.storage states how many are)"), there


def storage_side(a: ClusterAnalysis) -> StorageSide | None:
    """The storage's ports on the fabrics that carry it (`storage_fabrics`), and what they carry at line rate.

    A fabric's `endpoints.storage` where it states one (bounded by the endpoints that are not compute nodes, which
    `over` records where exceeded); else, on a fabric of role `storage`, every endpoint that is not a compute node:
    appliances stated as a count (`endpoints.extra`, `reserved`) and placed systems without accelerators (storage
    servers) with their ports on it, which `counted` says was assumed. The stated storage bandwidth reaches the
    compute nodes through those ports at the fabric's line rate, and no faster. None where no fabric carries
    storage, or one of them gives no such port: a converged fabric that states no `endpoints.storage` (its other
    ports serve the front end too, and which are the storage's is not said), or one with none at all.
    """
    sides = [(fa, _storage_ports(a, fa)) for fa in storage_fabrics(a)]
    if not sides or any(side is None or side[0] <= 0 for _, side in sides):
        return None
    found = [(fa, side) for fa, side in sides if side is not None]
    return StorageSide(sum(n for _, (n, _, _) in found),
                       float(sum(n * fa.fabric.spec.speed.m_as("B/s") for fa, (n, _, _) in found)),
                       tuple(fa.fabric.spec.id for fa, _ in found),
                       tuple(words for _, (_, words, _) in found),
                       tuple((fa.fabric.spec.id, fa.fabric.spec.endpoints.storage or 0, there)
                             for fa, (_, _, there) in found if (fa.fabric.spec.endpoints.storage or 0) > there))


def unbounded_why(a: ClusterAnalysis) -> str:
    """Why the storage's ports bound no bandwidth (`storage_side` is None), in words; "" where they do."""
    fabrics = storage_fabrics(a)
    if not fabrics:
        return "no fabric of role storage or converged carries it"
    for fa in fabrics:
        side = _storage_ports(a, fa)
        if side is None:
            return (f"fabric '{fa.fabric.spec.id}' ({fa.fabric.spec.role}) states no endpoints.storage, so which "
                    "of its ports are the storage's is not said")
        if side[0] <= 0:
            return f"fabric '{fa.fabric.spec.id}' has no storage port (no endpoint that is not a compute node)"
    return ""


def node_storage_bandwidth(specs: Specs, a: ClusterAnalysis) -> float:
    """A compute node's bandwidth to storage (B/s), one direction.

    Its ports on the fabrics that carry storage (`storage_fabrics`) at their line rate: a storage fabric of two
    400G ports per node gives 800 Gb/s even where the node's storage NICs have four ports (the other two on the
    front end) or run faster than the fabric. Where no such fabric reaches the node, its storage NICs' line rate;
    without storage NICs, its converged or compute NICs.
    """
    node = compute_node(a.nodes)
    if node is not None:
        wired = sum(fa.ports_per_node.get(node.part.id, 0) * fa.fabric.spec.speed.m_as("B/s")
                    for fa in storage_fabrics(a))
        if wired > 0:
            return float(wired)
        for role in ("storage", "converged", "compute"):
            nic = nic_bandwidth(specs, node.part, role)
            if nic.m > 0:
                return nic.m_as("B/s")
    return 0.0


def delivered_storage(specs: Specs, a: ClusterAnalysis) -> tuple[float, float] | None:
    """(write, read) storage bandwidth (B/s) the cluster's compute nodes get when all of them write or read at once.

    The stated `storage:` figures, bounded by the storage's own ports (`storage_side`, REL010) and by the compute
    nodes' ports to storage (`node_storage_bandwidth` × nodes), as a checkpoint of every accelerator is written.
    None without `storage:`.
    """
    storage = a.cluster.spec.storage
    if storage is None:
        return None
    side = storage_side(a)
    cap = side.bandwidth if side is not None else math.inf
    links = node_storage_bandwidth(specs, a) * sum(nt.count for nt in a.nodes if nt.part.accelerators)
    bound = min(cap, links) if links > 0 else cap
    return min(storage.write_bandwidth.m_as("B/s"), bound), min(storage.read_bandwidth.m_as("B/s"), bound)


#: A cluster's storage figures per accelerator (`storage_metrics`), not provided without `storage:`.
STORAGE_METRICS = ("storage_write_bandwidth_per_accelerator", "storage_read_bandwidth_per_accelerator")


def storage_metrics(specs: Specs, a: ClusterAnalysis) -> dict[str, Q]:
    """The storage bandwidth each accelerator gets (`delivered_storage` over the accelerators); empty without one."""
    both = delivered_storage(specs, a)
    if both is None or not a.accelerators:
        return {}
    return {name: Q_(bw / a.accelerators, "B/s").to("GB/s") for name, bw in zip(STORAGE_METRICS, both, strict=True)}


#: A training job's figures that need somewhere to write its checkpoints: `storage:`, or peer memory over NICs.
CHECKPOINT_METRICS = ("checkpoint_write_time", "checkpoint_blocking_time", "checkpoint_restore_time",
                      "checkpoint_interval", "restart_time", "goodput", "goodput_low", "goodput_high",
                      "goodput_tokens_per_second", "goodput_time_to_train", "spares", "spare_power", "spare_space")


def no_checkpoint_target(specs: Specs, a: ClusterAnalysis, workload: Workload) -> str | None:
    """Why a training job on cluster `a` has no goodput: its checkpoints have nowhere to go (REL006); else None."""
    cluster = a.cluster.spec
    if workload.checkpoint.in_memory:
        return None if node_storage_bandwidth(specs, a) > 0 else (
            f"checkpoints go to peer host memory (`checkpoint.in_memory`), but the nodes of cluster '{cluster.id}' "
            "have no storage, converged or compute NIC to send them over")
    return None if cluster.storage is not None else f"cluster '{cluster.id}' gives no checkpoint `storage:`"


def spare_domain_nodes(a: ClusterAnalysis, per_node: int) -> int:
    """Nodes that a failed node takes out with it: the unit a hot spare must come in (1: any idle node).

    A scale-up domain of several nodes (an NVL72 rack of 18 trays) is spared by an idle tray inside it or a whole
    idle domain. A torus through OCSes is re-formed cube by cube: a failed tray's cube leaves the slice and the
    OCSes join an idle cube in its place, so a spare is a whole idle cube (TPU v4: 4x4x4 chips, 16 trays of 4;
    Jouppi et al., ISCA 2023, section 2; Zu et al., "Resiliency at Scale: Managing Google's TPUv4 Machine Learning
    Supercomputer", NSDI 2024: OCS reconfiguration routes around machine failures).
    """
    su = a.cluster.spec.scale_up
    if su is not None and per_node and su.size > per_node:
        return su.size // per_node
    carriers = [f for f in a.cluster.spec.fabrics if f.role in ("compute", "converged")]
    fabric = min(carriers, key=lambda f: f.role != "compute", default=None)  # the compute fabric first
    if isinstance(fabric, Torus) and fabric.ocs is not None and per_node:
        return max(math.prod(fabric.ocs.cube) // per_node, 1)
    return 1


def failures_of(rel: Reliability, specs: Specs, a: ClusterAnalysis) -> Failures:
    """What a job on part of the cluster needs for its goodput: the same figures for `check` and for sweeps."""
    storage = a.cluster.spec.storage
    node = compute_node(a.nodes)
    host = node.part.host_memory if node is not None else None
    domain = spare_domain_nodes(a, rel.per_node)
    per_acc, per_node = rel.split()
    side = storage_side(a)
    cap = side.bandwidth if side is not None else math.inf   # the storage's own ports on its fabric
    return Failures(per_acc, rel.site, rel.per_node, rel.nodes, rel.node_hardware_per_day(),
                    rel.node_repair_hours() * 3600, min(storage.write_bandwidth.m_as("B/s"), cap) if storage else 0.0,
                    min(storage.read_bandwidth.m_as("B/s"), cap) if storage else 0.0, node_storage_bandwidth(specs, a),
                    rel.detection(), host.link.m_as("B/s") * host.efficiency if host is not None else 0.0, domain,
                    rel.planned_per_accelerator_day, rel.planned_duration, per_node)


def failure_ends(rel: Reliability, specs: Specs, a: ClusterAnalysis) -> tuple[Failures, ...]:
    """The failure figures a goodput's range spans, for `check` and for sweeps.

    Every rate set of `rel.spread` (`rel` alone where the design states its set), each at both ends of its 95 %
    Poisson interval (`Reliability.interval`); where a scale-up domain spans several nodes, each also with the job's
    idle trays packed into one domain, not spread evenly over its domains (`Failures.packed`).
    """
    ends = []
    for r in rel.spread or (rel,):
        f = failures_of(r, specs, a)
        ends += [replace(f, per_accelerator_day=f.per_accelerator_day * k, per_node_day=f.per_node_day * k,
                         node_hw_per_day=f.node_hw_per_day * k) for k in r.interval()]
    if ends and ends[0].domain_nodes > 1:
        ends += [replace(f, packed=True) for f in ends]
    return tuple(ends)


#: What a goodput's range spans besides the failure figures where a scale-up domain spans several nodes.
PLACEMENT_SPANNED = ("the job's placement in its scale-up domains, its idle trays spread evenly over them (the value) "
                     "or packed into one")


def spanned(rel: Reliability) -> str:
    """The failure figures a reliability figure's range spans (`failure_ends`), in words."""
    return (f"the published rate sets {', '.join(r.rates_id for r in rel.spread)} and their 95 % Poisson intervals"
            if rel.spread else f"the '{rel.rates_id or 'none'}' rate set's 95 % Poisson interval (the design states "
            "its set)")


#: What a goodput's range spans besides the failure figures where the blocking time is assumed (`with_unblocked`).
BLOCKING_SPANNED = ("the checkpoint's blocking time from the whole write (the nodes give no `host_memory.link`) to "
                    "none, goodput_high's end (REL008)")


def rate_sets(rel: Reliability, placements: bool = False) -> str:
    """Which rate set a goodput's central value uses and what its range spans (`failure_ends`), in words."""
    over = (f"the published rate sets {', '.join(r.rates_id for r in rel.spread)} and their 95 % Poisson intervals"
            if rel.spread else "that set's 95 % Poisson interval (the design states its set)")
    return (f"goodput from the '{rel.rates_id or 'none'}' rate set; its range (goodput_low, goodput_high) spans {over}"
            + (", and, for a job that leaves idle trays in the scale-up domains it runs on, the trays' placement "
               "(spread evenly, the value, or packed into one domain)" if placements else ""))


def goodput(rel: Reliability, a: ClusterAnalysis, specs: Specs, workload: Workload, model: Model,
            accelerators: int) -> Goodput | None:
    """Checkpoint size, write/restore time, Daly interval, restart and goodput of a training workload.

    None when the checkpoint has nowhere to go (no `storage:` and not in memory: REL006).
    """
    cp = workload.checkpoint
    size = checkpoint_bytes(model, cp.bytes_per_parameter)
    target = cp.goodput_target or DEFAULT_GOODPUT_TARGET
    central = failures_of(rel, specs, a)
    job = job_goodput(central, cp, size, accelerators, target)
    if job is None:
        return None
    # REL008: where the copy's rate is unknown, the blocking time lies anywhere from the whole write to none
    unblocked = job_goodput(replace(central, host_link=math.inf), cp, size, accelerators, target) \
        if job.blocking_assumed else None
    spread = with_unblocked(failure_ends(rel, specs, a), job.blocking_assumed)
    ends = [e for e in (job_goodput(f, cp, size, accelerators, target) for f in spread) if e is not None]
    band = {name: (min(getattr(e, name) for e in ends), max(getattr(e, name) for e in ends))
            for name in ("per_day", "mtti", "goodput")}
    return Goodput(**{f.name: getattr(job, f.name) for f in fields(job)}, accelerators=accelerators,
                   checkpoint_size=size, band=band, unblocked=unblocked,
                   placements=job.nodes > central.domain_nodes > 1 and job.nodes % central.domain_nodes != 0)


def unblocked_metrics(g: Goodput, rel: Reliability, a: ClusterAnalysis, tokens_per_second: Q | None,
                      tokens: float | None) -> dict[str, Q]:
    """`workload_metrics` of the same job with no blocking at all: the other end where the blocking is assumed.

    Empty where the blocking time is known (`Goodput.unblocked` is None).
    """
    if g.unblocked is None:
        return {}
    other = replace(g, **{f.name: getattr(g.unblocked, f.name) for f in fields(JobGoodput)}, unblocked=None)
    return workload_metrics(other, rel, a, tokens_per_second, tokens)


#: Why an asynchronous or in-memory checkpoint's blocking time is not provided where the nodes give no host link.
BLOCKING_UNKNOWN = ("the nodes give no `host_memory.link`, so the checkpoint's copy to host memory has no rate; "
                    "goodput charges the whole write instead, an upper bound (REL008)")
#: Why a training job has no `spares` (nor their power and space): no number of them holds its goodput target.
NO_SPARES = ("no number of hot spares holds the goodput target {target:g}: the failure rate and checkpoint cost alone "
             "leave goodput below it (REL003)")
#: Why a training job's restart time is not provided where the spare model is outside its validity (REL009).
SPARES_OVERRUN = ("{m:.3g} of the job's nodes are in repair on average, more than its {s} hot spare(s): the spare "
                  "model (M/M/inf) is outside its validity and its wait for a repair is no figure to stand behind "
                  "(REL009)")
#: Why a figure is unsettled where the checkpoint's blocking time is assumed (REL008): what its two ends are.
BLOCKING_ENDS = ("the first with training stopped for the whole checkpoint write, the second with no stop at all; "
                 "the nodes give no `host_memory.link`, so the copy to host memory that stops training has no rate "
                 "(REL008)")


def unsettled(figures: dict[str, Q], other: dict[str, Q]) -> dict[str, tuple[Q, str]]:
    """The figures that take another value at the other end of the blocking time (`unblocked_metrics`), with why."""
    return {name: (q, BLOCKING_ENDS) for name, q in other.items()
            if name in figures and q != figures[name] and not name.endswith(("_low", "_high"))}


def still_withheld(g: Goodput) -> list[tuple[tuple[str, ...], str]]:
    """The figures of a job with a goodput that are not provided all the same, with why.

    The blocking time where it is assumed (REL008: the whole write charged in its place), and the spares where no
    number of them holds the goodput target (REL003), rather than "the job has no spares", and the restart time where
    more nodes are in repair than the job has spares (REL009: its wait for a repair is outside the spare model).
    """
    out: list[tuple[tuple[str, ...], str]] = []
    if g.blocking_assumed:
        out.append((("checkpoint_blocking_time",), BLOCKING_UNKNOWN))
    if g.spares_overrun:
        out.append((("restart_time",), SPARES_OVERRUN.format(m=g.in_repair, s=g.spares_available)))
    if g.spares_needed is None:
        out.append((("spares", "spare_power", "spare_space"), NO_SPARES.format(target=g.target)))
    return out


def cluster_unsettled(job: dict[str, tuple[Q, str]], used: Q | None) -> dict[str, tuple[Q, str]]:
    """A cluster's unsettled figures from those of its largest training job (`unsettled`), whose goodput it takes.

    `used` is the cluster's cost per used accelerator-hour, over the goodput for the cost per goodput hour.
    """
    out: dict[str, tuple[Q, str]] = {k: job[k] for k in ("goodput", "checkpoint_interval") if k in job}
    if "goodput" in out and used is not None and out["goodput"][0].m > 0:
        out["tco_per_goodput_accelerator_hour"] = (used / out["goodput"][0].m, out["goodput"][1])
    return out


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
    if g.band["mtti"][1] != math.inf:
        m["mtti_low"], m["mtti_high"] = Q_(g.band["mtti"][0], "s").to("h"), Q_(g.band["mtti"][1], "s").to("h")
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
