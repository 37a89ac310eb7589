"""NIC roles and the networks a cluster's nodes are built for: NET011 across fabrics, NET023-NET026, NET030; NET029.

`checks/network.py` and `checks/network_warnings.py` register the checks; this module holds what they find, and the
analysers' problems as violations (`fabric_problems`, `cluster_problems`) that their other checks read.

A reference design has several physical networks besides the compute fabric: NVIDIA's DGX SuperPOD has compute,
storage, in-band (front-end) and out-of-band management fabrics, and its nodes carry NICs for each. A cluster whose
NICs of a role attach to no fabric, or that has no management or front-end network at all, is incomplete, whatever
its compute fabric does. Both are warnings: a design may leave a network to others on purpose, and a waiver on the
finding's subject (`cluster/<id>/nics/<role>`, `cluster/<id>/network/<kind>`) says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.network import Problem, count, nic_ports
from archgen.analyse.nodes import compute_node
from archgen.analyse.tier_keys import unbuilt_keys
from archgen.checks.registry import Context, Violation
from archgen.units import Q_


def fabric_problems(ctx: Context, check_id: str) -> Iterator[Violation]:
    """The problems of check `check_id` that the fabric analysers found, one violation each.

    A NET001 on the tier whose ports per plane NET003 finds short (its `tier`, the top tier) is that shortfall seen
    on one switch: a 2-tier spine links every leaf, so more leaves than spine ports leave each spine short too. It
    follows from NET003 (`Violation.follows`, folded under it: `checks.cascade`), where newuser105's 16-SU OOB
    fabric printed "spine switches need 256 ports, sn4600c has 64" apart, though 3 tiers fix both.
    """
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            short = {p.tier for p in fa.problems if p.check == "NET003" and p.tier}
            for p in fa.problems:
                if p.check == check_id:
                    yield Violation(fa.fabric.path, c.cluster.spec.id, p.path, p.message, p.measured, p.limit,
                                    public=p.public,
                                    follows=fa.fabric.path if check_id == "NET001" and p.tier in short else "")


def cluster_problems(ctx: Context, check_id: str, extra: bool = False) -> Iterator[Violation]:
    """The cluster's (and scale-up domain's; with `extra`, the cabling's) problems of check `check_id`."""
    for c in ctx.clusters.values():
        problems: list[Problem] = list(c.problems)
        if c.scale_up is not None:
            problems += c.scale_up.problems
        if extra and c.cabling is not None:
            problems += c.cabling.problems
        for p in problems:
            if p.check == check_id:
                yield Violation(c.cluster.path, c.cluster.spec.id, p.path, p.message, p.measured, p.limit,
                                public=p.public)


def unbuilt_key_notes(ctx: Context) -> Iterator[Violation]:
    """NET025: the keys of a tier each fabric builds only at a larger size (`analyse.tier_keys.unbuilt_keys`)."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            for p in unbuilt_keys(fa):
                yield Violation(fa.fabric.path, c.cluster.spec.id, p.path, p.message, p.measured, p.limit,
                                public=p.public)


def nic_rate_problems(ctx: Context) -> Iterator[Violation]:
    """NET026: NIC ports faster than their fabric; a warning on a compute fabric, info on the others."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            for p in (p for p in fa.problems if p.check == "NET026"):
                yield Violation(fa.fabric.path, c.cluster.spec.id, p.path, p.message, p.measured, p.limit,
                                severity=None if fa.fabric.spec.role == "compute" else "info", public=p.public)


#: Fabric roles that carry a cluster's front-end (in-band) traffic: its own, or one converged with storage.
FRONT_END_ROLES = ("frontend", "converged")


def overused_nic_roles(ctx: Context) -> Iterator[Violation]:
    """NET011, across fabrics: the fabrics sharing a NIC role use more of its ports than a node has.

    A role a single fabric overuses is reported for that fabric (`analyse.fabric`), not again here.
    """
    for c in ctx.clusters.values():
        for nt in c.nodes:
            used: dict[str, float] = {}
            alone: set[str] = set()
            for fa in c.fabrics:
                role = fa.fabric.spec.nic_role or fa.fabric.spec.role
                n = fa.ports_per_node.get(nt.part.id, 0)
                split = nic_ports(ctx.design, nt.part, role, fa.fabric.spec.nic_breakout)   # after `nic_breakout`
                used[role] = used.get(role, 0) + (n * nic_ports(ctx.design, nt.part, role) / split if split else n)
                if n > split:
                    alone.add(role)       # already reported for that fabric
            for role, n in sorted(used.items()):
                have = nic_ports(ctx.design, nt.part, role)
                if n > have and have and role not in alone:
                    which = ", ".join(f"'{fa.fabric.spec.id}'" for fa in c.fabrics if fa.ports_per_node.get(
                        nt.part.id) and (fa.fabric.spec.nic_role or fa.fabric.spec.role) == role)
                    hint = "" if nt.part.accelerators else (
                        "; a fabric attaches every system with ports of its NIC role: name the systems that attach "
                        "in `endpoints.systems` of the fabrics that should not reach this one")
                    yield Violation(c.cluster.path, c.cluster.spec.id, ("fabrics",),
                                    f"{nt.part.id}: the fabrics ({which}) use {n:g} NIC ports of role '{role}', it has "
                                    f"{have}{hint}", count(n), count(have))


def unwired_nic_roles(ctx: Context) -> Iterator[Violation]:
    """NET023: per cluster and node type, each NIC role with ports that no fabric's `nic_role` (or `role`) uses."""
    for c in ctx.clusters.values():
        for nt in c.nodes:
            roles = sorted({slot.role for slot in nt.part.nics})
            for role in roles:
                have = nic_ports(ctx.design, nt.part, role)
                used = sum(fa.ports_per_node.get(nt.part.id, 0) for fa in c.fabrics
                           if (fa.fabric.spec.nic_role or fa.fabric.spec.role) == role)
                if have and not used:
                    parts = ", ".join(sorted({s.part for s in nt.part.nics if s.role == role}))
                    yield Violation(f"{c.cluster.path}/nics/{role}", c.cluster.spec.id, ("fabrics",),
                                    f"{nt.part.id}: its {have} NIC port(s) of role '{role}' ({parts}) attach to no "
                                    f"fabric, so {have * nt.count} port(s) on {nt.count} node(s) are wired to "
                                    f"nothing this design builds", count(have * nt.count), count(0))


def missing_networks(ctx: Context) -> Iterator[Violation]:
    """NET024: per cluster, no fabric of role `management`, none of a front-end role, or a front end with no way out.

    A front-end fabric (`FRONT_END_ROLES`) that marks no `reserved` ports `north_south` is an info finding: its
    ports to the site core are not counted, nor its bandwidth out of the cluster.
    """
    for c in ctx.clusters.values():
        roles = {fa.fabric.spec.role for fa in c.fabrics}
        if "management" not in roles:
            yield Violation(f"{c.cluster.path}/network/management", c.cluster.spec.id, ("fabrics",),
                            "no out-of-band management network: no fabric has role 'management', so the nodes' BMCs "
                            "and the switches' management ports connect to nothing this design builds")
        if not roles & set(FRONT_END_ROLES):
            yield Violation(f"{c.cluster.path}/network/frontend", c.cluster.spec.id, ("fabrics",),
                            "no front-end (in-band) network: no fabric has role 'frontend' or 'converged', so "
                            "users, schedulers and storage services reach the nodes over nothing this design builds")
        for fa in (fa for fa in c.fabrics if fa.fabric.spec.role in FRONT_END_ROLES):
            if not any(r.north_south for r in getattr(fa.fabric.spec, "reserved", ())):
                yield Violation(f"{fa.fabric.path}/north-south", c.cluster.spec.id, fa.fabric.owner_path,
                                f"front end '{fa.fabric.spec.id}' states no north-south ports (`reserved` entries "
                                "with `north_south: true`): its links to the site core, their optics and its "
                                "bandwidth out of the cluster are not provided", severity="info",
                                public=f"front end '{fa.fabric.spec.id}': its links out of the cluster (north-south)"
                                       " are not provided")


def other_compute_fabrics(ctx: Context) -> Iterator[Violation]:
    """NET030: per cluster, each compute fabric (or, without one, converged fabric) the scale-out path does not read.

    The performance model runs a cluster's traffic between scale-up domains over one fabric, its first of role
    `compute` (else its first `converged` one: `analyse.network.analyse_cluster`); a second one, such as a plane
    written as a fabric of its own, carries nothing in any estimate, so the bandwidth per accelerator an estimate
    uses is the first fabric's alone.
    """
    for c in ctx.clusters.values():
        carriers = [fa for fa in c.fabrics if fa.fabric.spec.role in ("compute", "converged")]
        if not carriers:
            continue
        role = "compute" if any(fa.fabric.spec.role == "compute" for fa in carriers) else "converged"
        same = [fa for fa in carriers if fa.fabric.spec.role == role]
        read, rest = same[0], same[1:]
        if not rest:
            continue
        rid = read.fabric.spec.id
        used = c.scale_out.bandwidth.to("Gbit/s") if c.scale_out is not None else None
        total = sum((fa.metrics["injection_per_accelerator"] for fa in same
                     if "injection_per_accelerator" in fa.metrics), Q_(0, "Gbit/s")).to("Gbit/s")
        figures = (f": estimates run at {used.magnitude:,.0f} Gb/s per accelerator, where the {len(same)} {role} "
                   f"fabrics inject {total.magnitude:,.0f} Gb/s together" if used is not None else "")
        for fa in rest:
            said = (f"a second fabric of role '{role}': the scale-out path the performance model runs between "
                    f"scale-up domains is '{rid}' alone, so '{fa.fabric.spec.id}' carries nothing in any "
                    f"estimate{figures}")
            yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("role",),
                            f"{said}; parallel planes over the same NICs are one fabric with `planes: N` (and "
                            f"`nic_breakout` where each NIC port splits over them)",
                            used, total if used is not None else None, public=said)


def mixed_accelerators(ctx: Context) -> Iterator[Violation]:
    """NET029 (`checks.network_warnings.one_accelerator`): a cluster's nodes of more than one kind of accelerator."""
    for path, c in sorted(ctx.clusters.items()):
        kinds: dict[str, list[Any]] = {}
        for nt in c.nodes:
            if nt.part.accelerator and nt.part.accelerators:
                kinds.setdefault(nt.part.accelerator, []).append(nt)
        main = compute_node(c.nodes)
        if len(kinds) < 2 or main is None:
            continue
        each = "; ".join(f"{acc} x{sum(nt.part.accelerators * nt.count for nt in nts)} in "
                         + ", ".join(f"{nt.part.id} x{nt.count}" for nt in nts) for acc, nts in sorted(kinds.items()))
        yield Violation(path, c.cluster.spec.id, ("layout",),
                        f"mixes accelerators ({each}): its analyses take {main.part.accelerator} of {main.part.id}, "
                        "the node type holding most of them, for the whole cluster (failure rates, goodput, "
                        "checkpoint times, scale-up switches), its per-accelerator figures mix both kinds, and no "
                        "workload can be estimated on it (PERF003); make each kind a cluster of its own in the same "
                        "hall")
