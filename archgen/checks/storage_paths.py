"""REL010 to REL014: the path from the compute nodes to the checkpoint storage, and what it carries.

`checks/reliability.py` registers these checks (their docstrings say what each judges and how to fix it); this
module holds what they find. Split from it for its size.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.checkpoint_storage import (
    delivered_storage,
    node_storage_bandwidth,
    reaches_storage,
    storage_fabrics,
    unwired_path,
    uplink_bound,
)
from archgen.analyse.goodput import storage_side
from archgen.analyse.storage_demand import sample_readers
from archgen.build.clusters import placed_count
from archgen.checks.registry import Context, Violation
from archgen.display import figure
from archgen.model.field_words import said as field_said
from archgen.model.storage import Storage
from archgen.model.system import System
from archgen.open_item import customer_text
from archgen.units import Q_, Q


def storage_ports_over(ctx: Context) -> Iterator[Violation]:
    """REL010: the stated storage bandwidth over what the storage's ports on its fabrics pass at line rate."""
    for path, a, storage in _stored(ctx):
        side = storage_side(a)
        if side is None:
            continue
        for fid, stated, there in side.over:
            index = next(i for i, f in enumerate(a.cluster.spec.fabrics) if f.id == fid)
            yield Violation(path, a.cluster.spec.id, ("fabrics", index, "endpoints", "storage"),
                            f"fabric '{fid}' states {stated} storage port(s), but has {there} endpoint port(s) that "
                            f"are not compute nodes' (endpoints.extra, reserved, systems without accelerators): the "
                            f"storage is bounded by those {there}", Q_(stated, ""), Q_(there, ""))
        cap = Q_(side.bandwidth, "B/s").to("GB/s")
        fabrics = ", ".join(f"'{f}'" for f in side.fabrics)
        counted, said = "; ".join(side.counted), "; ".join(map(customer_text, side.counted))
        for key, stated_bw, verb in _over(storage, side.bandwidth):
            rest = (f" {figure(stated_bw)} exceeds the {side.ports} storage port(s) of fabric {fabrics} at their line "
                    f"rate, {figure(cap)}: checkpoints are {verb} at {figure(cap)} (storage ports: ")
            yield Violation(path, a.cluster.spec.id, ("storage", key), f"storage.{key}{rest}{counted})", stated_bw,
                            cap, public=f"{field_said('storage.' + key)}{rest}{said})")


def unwired_storage(ctx: Context) -> Iterator[Violation]:
    """REL012: checkpoint storage reached over no fabric of this design (`storage.external_network`)."""
    for path, a, storage in _stored(ctx):
        if not storage.external_network:
            continue
        found = unwired_path(ctx.design.specs, a)
        if found is None:
            if reaches_storage(a):
                rest = (f"{', '.join(repr(fa.fabric.spec.id) for fa in storage_fabrics(a))} of this design carry the "
                        "storage to the compute nodes: checkpoints are timed over them")
                yield Violation(path, a.cluster.spec.id, ("storage", "external_network"),
                                f"`storage.external_network` is stated, but fabric(s) {rest}, and the statement is "
                                "not used", public=f"an external storage network is named, but fabric(s) {rest}, "
                                                   "not over that network")
            continue
        role, parts, rate = found
        node = Q_(rate, "B/s").to("GB/s")
        jobs = [r.workload for r in ctx.workloads.values() if r.workload.training is not None
                and r.estimate is not None and f"cluster/{r.estimate.cluster}" == path]
        in_memory = bool(jobs) and all(w.checkpoint.in_memory for w in jobs)
        yield Violation(path, a.cluster.spec.id, ("storage", "external_network"),
                        "no fabric of role storage or converged takes a port of the compute nodes: "
                        + ("the storage's bandwidth per accelerator is" if in_memory else "checkpoints are")
                        + f" timed over each node's {role} NICs ({parts}) at {figure(node)} (every port at line rate, "
                        f"each card at most its host interface), on the network `storage.external_network` names "
                        f"({storage.external_network}), which this design does not build"
                        + ("; every training job on the cluster checkpoints in peer host memory "
                           f"(`checkpoint.in_memory`: {', '.join(sorted(w.id for w in jobs))}), so no checkpoint "
                           "is timed over it" if in_memory else ""), node, None,
                        severity="info" if in_memory else None,
                        public="no fabric of role storage or converged takes a port of the compute nodes: "
                        + ("the storage's bandwidth per accelerator is" if in_memory else "checkpoints are")
                        + f" timed over each node's {role} NICs ({parts}) at {figure(node)} (every port at line rate, "
                        f"each card at most its host interface), on the external storage network "
                        f"({storage.external_network}), which this design does not build"
                        + ("; every training job on the cluster checkpoints in peer host memory "
                           f"({', '.join(sorted(w.id for w in jobs))}), so no checkpoint is timed over it"
                           if in_memory else ""))


def storage_uplinks_over(ctx: Context) -> Iterator[Violation]:
    """REL011: the stated storage bandwidth over what the storage fabric's leaf uplinks pass."""
    for path, a, storage in _stored(ctx):
        up = uplink_bound(a)
        if up is None:
            continue
        cap = Q_(up.bandwidth, "B/s").to("GB/s")
        how = "; ".join(f"'{fid}': {leaves} leaves, uplinks {figure(Q_(u, 'B/s').to('GB/s'))}"
                        for fid, leaves, u in up.fabrics)
        for key, stated_bw, verb in _over(storage, up.bandwidth):
            rest = (f" {figure(stated_bw)} exceeds what the leaf uplinks of the fabric(s) carrying storage pass, "
                    f"{figure(cap)} ({how}; U L / (L - 1), the storage's ports assumed spread over the leaves in "
                    f"proportion and every transfer striped over them): checkpoints are {verb} at no more than "
                    f"{figure(cap)}")
            yield Violation(path, a.cluster.spec.id, ("storage", key), f"storage.{key}{rest}", stated_bw, cap,
                            public=field_said(f"storage.{key}") + rest)




def _stored(ctx: Context) -> Iterator[tuple[str, Any, Storage]]:
    """(path, cluster analysis, its `storage:`) of each cluster that states checkpoint storage, in path order."""
    for path, a in sorted(ctx.clusters.items()):
        if a.cluster.spec.storage is not None:
            yield path, a, a.cluster.spec.storage


def _over(storage: Storage, bound: float) -> Iterator[tuple[str, Q, str]]:
    """(key, stated bandwidth in GB/s, "written" or "restored") of each of `storage`'s bandwidths above `bound`."""
    for key, stated_bw, verb in (("write_bandwidth", storage.figure("write_bandwidth"), "written"),
                                 ("read_bandwidth", storage.figure("read_bandwidth"), "restored")):
        if stated_bw.m_as("B/s") > bound * (1 + 1e-9):
            yield key, stated_bw.to("GB/s"), verb


def dataset_reads_over(ctx: Context, jobs: Iterator[tuple[str, Any, Any]]) -> Iterator[Violation]:
    """REL013: a job's dataset reads over the read bandwidth the storage gives it (a restore's, `Goodput`)."""
    for path, r, g in jobs:
        read = r.estimate.metrics.get("dataset_read_bandwidth") if r.estimate is not None else None
        bw = _storage_read(ctx, r, g)
        if read is None or bw <= 0:
            continue
        given = Q_(bw, "B/s").to("GB/s")
        if read > given:
            per, readers = r.workload.dataset.read_per_token, sample_readers(r.estimate.layout)
            each = f", read by {readers} ranks a sample" if readers > 1 else ""
            shared = ("the checkpoints it persists take" if r.workload.checkpoint.in_memory
                      else "the checkpoint writes and restores take")
            yield Violation(path, r.workload.id, ("dataset", "read_per_token"),
                            f"the data loaders read {figure(read)} ({per:~P} a token at "
                            f"{r.estimate.metrics['tokens_per_second'].m:,.0f} tokens/s{each}), more than the "
                            f"{figure(given)} the storage gives the job's {g.nodes} node(s): the GPUs wait for "
                            f"data (judged alone: {shared} the same bandwidth)",
                            read, given)


def appliances_short(ctx: Context) -> Iterator[Violation]:
    """REL014: a storage built from `appliance` states more than the appliances its cluster's racks place give.

    The placed count is every rack instance's slots of that part (rack types x their counts); each stated figure is
    held to that count x the part's `storage:` figure. A System without `storage:` figures, or one no rack of the
    cluster places, is reported at `storage.appliance`; an id that names no System is REF001/REF002's (review42).
    """
    for path, a, storage in _stored(ctx):
        ref = storage.appliance
        part = ctx.design.specs.get(ref) if ref is not None else None
        if not isinstance(part, System):
            continue
        figures = part.storage
        if figures is None:
            yield Violation(path, a.cluster.spec.id, ("storage", "appliance"),
                            f"'{ref}' is a System with no `storage:` figures (capacity, read and write bandwidth), so "
                            "the storage cannot be held to it",
                            public=f"the storage appliance '{ref}' states no capacity or bandwidth of its own, so the "
                            "storage's figures are not checked against its hardware")
            continue
        placed = placed_count(a.cluster.rack_counts, a.cluster.rack_types, part.id)
        if not placed:
            yield Violation(path, a.cluster.spec.id, ("storage", "appliance"),
                            f"no rack of the cluster places '{ref}', so the storage's rack units, weight, power and "
                            "price are counted nowhere: place the appliances in a rack of its `layout`",
                            public=f"no rack of the cluster holds the storage appliance '{ref}', so its space, weight, "
                            "power and price are counted nowhere")
            continue
        for key, unit in (("capacity", "TB"), ("write_bandwidth", "GB/s"), ("read_bandwidth", "GB/s")):
            if key in a.cluster.storage_derived:   # left out: the appliances' sum, said where the storage is shown
                continue
            stated, each = storage.figure(key).to(unit), getattr(figures, key).to(unit)
            gives = f"({placed} x {figure(each)} = {figure(placed * each)})"
            if stated > placed * each * (1 + 1e-9):
                yield Violation(path, a.cluster.spec.id, ("storage", key),
                                f"{key} {figure(stated)} is more than the {placed} '{ref}' the racks place give "
                                f"{gives}",
                                stated, placed * each,
                                public=f"the storage's stated {key.replace('_', ' ')} of {figure(stated)} is more than "
                                f"the {placed} '{ref}' appliances in its racks give {gives}")
            elif stated < placed * each * (1 - 1e-9):
                yield Violation(path, a.cluster.spec.id, ("storage", key),
                                f"{key} {figure(stated)} is less than the {placed} '{ref}' the racks place give "
                                f"{gives}: "
                                "the stated figure is used (leave it out to take the appliances' sum)",
                                stated, placed * each, severity="info",
                                public=f"the storage's stated {key.replace('_', ' ')} of {figure(stated)} is less than "
                                f"the {placed} '{ref}' appliances in its racks give {gives}; the stated figure is used")


def _storage_read(ctx: Context, r: Any, g: Any) -> float:
    """The read bandwidth (B/s) the storage gives a job's nodes: its restore's (`Goodput.read_bandwidth`).

    An in-memory job restores from its peers' host memory, not the storage, yet its data loaders read the storage
    all the same (review40: REL013 skipped such a job): the storage's delivered read rate (`delivered_storage`)
    bounded by the job's nodes' ports to storage, as a restore from the storage is (`perf.train.goodput`).
    """
    if not r.workload.checkpoint.in_memory:
        return float(g.read_bandwidth)
    a = ctx.clusters.get(f"cluster/{r.estimate.cluster}")
    both = delivered_storage(ctx.design.specs, a) if a is not None else None
    if a is None or both is None:
        return 0.0
    links = node_storage_bandwidth(ctx.design.specs, a) * g.nodes
    return min(both[1], links) if links > 0 else both[1]
