"""Where a training job's checkpoints go: the fabrics and ports of a cluster's storage and what they carry.

The storage's ports on the fabrics of its `checkpoint_role` (stated, or assumed on a storage fabric, REL010), a
compute node's bandwidth to storage, what the stated `storage:` delivers to all nodes at once, and why a job has
nowhere to write (REL006). `archgen.analyse.goodput` feeds these to the job's goodput (and re-exports them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.network import ClusterAnalysis, compute_node
from archgen.analyse.nodes import nic_ports, nic_ports_rate
from archgen.model.fabrics import checkpoint_role
from archgen.model.system import System
from archgen.model.workload import Workload
from archgen.open_item import Worded
from archgen.validate import Specs


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
        has = f" {stated}" + (f", of which the fabric has {there}" if stated > there else "")
        return min(stated, there), Worded(f"'{fa.fabric.spec.id}' endpoints.storage{has}",
                                          f"'{fa.fabric.spec.id}' stated storage ports{has}"), there
    if fa.fabric.spec.role != "storage":
        return None
    listed = [(f"{what} {n}" if what.startswith("endpoints") else f"{what} ({n})" if what.startswith("reserved")
               else what, f"extra endpoints {n}" if what.startswith("endpoints") else "") for what, n in others]
    head = f"every endpoint of '{fa.fabric.spec.id}' that is not a compute node"
    return there, Worded(f"{head} ({', '.join(w for w, _ in listed) or 'none'}), assumed the storage's "
                         "(endpoints.storage states how many are)",
                         f"{head} ({', '.join(p or w for w, p in listed) or 'none'}), assumed the storage's (how "
                         "many are is not stated)"), there


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
    """Why the storage's ports bound no bandwidth (`storage_side` is None), in words; "" where they do.

    A `Worded` where it names the key left unstated: a customer reads "states no storage ports".
    """
    fabrics = storage_fabrics(a)
    if not fabrics:
        return "no fabric of role storage or converged carries it"
    for fa in fabrics:
        side = _storage_ports(a, fa)
        if side is None:
            return Worded(*(f"fabric '{fa.fabric.spec.id}' ({fa.fabric.spec.role}) states no {key}, so which of "
                            "its ports are the storage's is not said"
                            for key in ("endpoints.storage", "storage ports")))
        if side[0] <= 0:
            return f"fabric '{fa.fabric.spec.id}' has no storage port (no endpoint that is not a compute node)"
    return ""


@dataclass(frozen=True)
class UplinkBound:
    """What the leaf uplinks of the fabrics carrying storage let the nodes write to it, all at once (B/s)."""

    bandwidth: float
    #: Per fabric bounded (two tiers or more): (fabric id, leaves holding endpoints per plane, uplink B/s).
    fabrics: tuple[tuple[str, int, float], ...]


def uplink_bound(a: ClusterAnalysis) -> UplinkBound | None:
    """The most storage traffic the leaf tier of the fabrics carrying storage passes (B/s, one direction).

    A parallel file system stripes a node's checkpoint over every storage port, so a leaf holding n_i of the N node
    ports and s_i of the S storage ports sends W (n_i / N)(1 - s_i / S) up its uplinks u_i. The placement of the
    storage ports on the leaves is not stated: the one that keeps most traffic on its leaf spreads them in
    proportion (n_i / N = s_i / S = 1 / L over the L leaves holding endpoints), and summing over the leaves gives
    W (1 - 1/L) <= U, the leaf tier's uplinks: W <= U L / (L - 1), an upper bound (storage on leaves of its own
    carries less). One tier bounds nothing (every port on one switch); over several fabrics, the sum. The spine
    tier of a three-tier fabric is not judged. None where no fabric carrying storage has two tiers or more.
    """
    found: list[tuple[str, int, float]] = []
    total = 0.0
    for fa in storage_fabrics(a):
        leaf = fa.tier("leaf")
        if fa.topology != "fat-tree" or fa.tiers_used < 2 or leaf is None or leaf.used_switches < 2:
            return None
        uplinks = leaf.used_switches * leaf.up * leaf.up_speed.m_as("B/s") * fa.planes
        found.append((fa.fabric.spec.id, leaf.used_switches, float(uplinks)))
        total += uplinks * leaf.used_switches / (leaf.used_switches - 1)
    return UplinkBound(float(total), tuple(found)) if found else None


def storage_cap(a: ClusterAnalysis) -> float:
    """The most the fabrics carrying storage pass to it (B/s), infinite where nothing bounds it.

    Its own ports (`storage_side`) and the leaf uplinks (`uplink_bound`), whichever is less.
    """
    side, up = storage_side(a), uplink_bound(a)
    return min(side.bandwidth if side is not None else math.inf, up.bandwidth if up is not None else math.inf)


def node_storage_bandwidth(specs: Specs, a: ClusterAnalysis) -> float:
    """A compute node's bandwidth to storage (B/s), one direction.

    Its ports on the fabrics that carry storage (`storage_fabrics`) at their line rate: a storage fabric of two
    400G ports per node gives 800 Gb/s even where the node's storage NICs have four ports (the other two on the
    front end) or run faster than the fabric. Where no such fabric reaches the node, its storage NICs' line rate;
    without storage NICs, its converged or compute NICs. Each card carries at most its host interface
    (`nic_ports_rate`: four 400G ports on two PCIe Gen5 x16 cards give 126 GB/s, not 200 GB/s).
    """
    node = compute_node(a.nodes)
    if node is not None:
        wired = sum(node_fabric_rate(specs, a, fa) for fa in storage_fabrics(a))
        if wired > 0:
            return float(wired)
        path = unwired_path(specs, a)
        if path is not None:
            return path[2]
    return 0.0


def node_fabric_rate(specs: Specs, a: ClusterAnalysis, fa: FabricAnalysis) -> float:
    """What a compute node's ports on fabric `fa` carry (B/s, one direction): each card at most its host interface.

    The fabric's ports per node at its line rate, spread over the node's NICs of its role (`nic_ports_rate`); 0
    without a compute node or ports on it. The storage network table shows it beside the line rate.
    """
    node = compute_node(a.nodes)
    if node is None:
        return 0.0
    s = fa.fabric.spec
    return nic_ports_rate(specs, node.part, s.nic_role or s.role, fa.ports_per_node.get(node.part.id, 0),
                          s.speed.m_as("B/s"), s.nic_breakout)


def reaches_storage(a: ClusterAnalysis) -> bool:
    """Whether a fabric that carries storage (`storage_fabrics`) takes a port of the cluster's compute node."""
    node = compute_node(a.nodes)
    return node is not None and any(fa.ports_per_node.get(node.part.id, 0) for fa in storage_fabrics(a))


def unwired_path(specs: Specs, a: ClusterAnalysis) -> tuple[str, str, float] | None:
    """(NIC role, NIC parts, B/s per node) a compute node is taken to reach storage over where no fabric carries it.

    Its storage NICs, else its converged or compute NICs, every port at line rate (each card at most its host
    interface). None where a fabric that carries storage takes a port of the node (`reaches_storage`), or the node
    has no NIC. Checkpoints to `storage:` use it only where `storage.external_network` says who builds that network
    (REL012 says the figures rest on it; else REL006, not provided); in-memory checkpoints use it to reach peers.
    """
    node = compute_node(a.nodes)
    if node is None or reaches_storage(a):
        return None
    for role in ("storage", "converged", "compute"):
        ports = nic_ports(specs, node.part, role)
        if ports:
            parts = ", ".join(sorted({slot.part for slot in node.part.nics if slot.role == role}))
            return role, parts, nic_ports_rate(specs, node.part, role, ports, None)
    return None


def delivered_storage(specs: Specs, a: ClusterAnalysis) -> tuple[float, float] | None:
    """(write, read) storage bandwidth (B/s) the cluster's compute nodes get when all of them write or read at once.

    The stated `storage:` figures, bounded by the storage's own ports (`storage_side`, REL010), by the leaf uplinks
    of the fabrics carrying it (`uplink_bound`, REL011) and by the compute nodes' ports to storage
    (`node_storage_bandwidth` × nodes), as a checkpoint of every accelerator is written.
    None without `storage:`.
    """
    storage = a.cluster.spec.storage
    if storage is None:
        return None
    cap = storage_cap(a)
    links = node_storage_bandwidth(specs, a) * sum(nt.count for nt in a.nodes if nt.part.accelerators)
    bound = min(cap, links) if links > 0 else cap
    return (min(storage.figure("write_bandwidth").m_as("B/s"), bound),
            min(storage.figure("read_bandwidth").m_as("B/s"), bound))


#: A training job's figures that need somewhere to write its checkpoints: `storage:`, or peer memory over NICs.
CHECKPOINT_METRICS = ("checkpoint_write_time", "checkpoint_blocking_time", "checkpoint_restore_time",
                      "checkpoint_interval", "restart_time", "goodput", "goodput_low", "goodput_high",
                      "goodput_tokens_per_second", "goodput_tokens_per_second_low",
                      "goodput_tokens_per_second_high", "goodput_time_to_train", "goodput_time_to_train_low",
                      "goodput_time_to_train_high", "spares", "spare_power", "spare_space",
                      *(f"{n}_{end}" for n in ("restart_time", "spares", "spare_power", "spare_space")
                        for end in ("low", "high")))


def no_checkpoint_target(specs: Specs, a: ClusterAnalysis, workload: Workload) -> str | None:
    """Why a training job on cluster `a` has no goodput: its checkpoints have nowhere to go (REL006); else None.

    A `Worded`: its customer words (`customer_text`) name no spec key and give the team no instruction, as REL006's
    finding does (`Violation.public`) and the figures it withholds do (`archgen gap --audience customer`, pocleft43).
    """
    cluster = a.cluster.spec
    if workload.checkpoint.in_memory:
        return None if node_storage_bandwidth(specs, a) > 0 else Worded(*(
            f"checkpoints go to peer host memory{key}, but the nodes of cluster '{cluster.id}' have no storage, "
            "converged or compute NIC to send them over" for key in (" (`checkpoint.in_memory`)", "")))
    if cluster.storage is None:
        return Worded(*(f"cluster '{cluster.id}' gives no checkpoint {key}" for key in ("`storage:`", "storage")))
    return unbuilt_storage(specs, a) or unwired_storage(a)


def unbuilt_storage(specs: Specs, a: ClusterAnalysis) -> str | None:
    """Why the storage's figures left out to its `appliance` are none (REL014 names it); None where they are not.

    The build derives each figure a storage built from an appliance leaves out as the placed count x the part's
    figure (`build.clusters.appliance_storage`): 0 where no rack places the part or it is no System with `storage:`
    figures. Those zeros are no bandwidth of a storage, so what rests on them is not provided (review43: before,
    0 GB/s per accelerator was given as a figure, and goodput said only "nowhere to go"). A `Worded`: the customer's
    words without the check's id (`Violation.public`).
    """
    storage, derived = a.cluster.spec.storage, a.cluster.storage_derived
    if storage is None or storage.appliance is None or not derived or any(
            storage.figure(n).magnitude > 0 for n in derived):
        return None
    part = specs.get(storage.appliance)
    where = ("which no rack of it places" if isinstance(part, System) and part.storage is not None
             else "which states no capacity or bandwidth of its own")
    names = [n.replace("_", " ") for n in derived]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    said = (f"cluster '{a.cluster.spec.id}' takes its storage's {listed} from the appliances '{storage.appliance}', "
            f"{where}, so it has none")
    return Worded(f"{said} (REL014)", said)


def unwired_storage(a: ClusterAnalysis) -> str | None:
    """Why the stated `storage:` is out of the compute nodes' reach, in words; None where it is not.

    A compute node reaches its storage over a fabric of role storage or converged that takes a port of it
    (`reaches_storage`), or, where `storage.external_network` says who builds one outside the design, over that
    network at its NICs' line rate (`unwired_path`, REL012). Neither: the stated bandwidth reaches the nodes over
    nothing the design builds or names, and the write time is not the storage's to set, nor the compute NICs' (a job
    does not checkpoint over its training fabric unless a design says so). A `Worded`, as `no_checkpoint_target`.
    """
    storage, node = a.cluster.spec.storage, compute_node(a.nodes)
    if storage is None or node is None or storage.external_network or reaches_storage(a):
        return None
    return Worded(f"cluster '{a.cluster.spec.id}' states `storage:`, but no fabric of role storage or converged takes "
                  "a port of its compute nodes, and `storage.external_network` does not say who builds the network "
                  "they reach it over (add that fabric, or name its builder there)",
                  f"cluster '{a.cluster.spec.id}' states its checkpoint storage, but no fabric of role storage or "
                  "converged takes a port of its compute nodes, and the design does not say who builds the network "
                  "they reach it over")
