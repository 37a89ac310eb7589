"""NIC roles and the networks a cluster's nodes are built for: NET011 across fabrics, NET023 and NET024.

`checks/network.py` registers the three checks; this module holds what they find, and the analysers' problems as
violations (`fabric_problems`, `cluster_problems`) that its other checks read.

A reference design has several physical networks besides the compute fabric: NVIDIA's DGX SuperPOD has compute,
storage, in-band (front-end) and out-of-band management fabrics, and its nodes carry NICs for each. A cluster whose
NICs of a role attach to no fabric, or that has no management or front-end network at all, is incomplete, whatever
its compute fabric does. Both are warnings: a design may leave a network to others on purpose, and a waiver on the
finding's subject (`cluster/<id>/nics/<role>`, `cluster/<id>/network/<kind>`) says so.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import Problem, count, nic_ports
from archgen.checks.registry import Context, Violation


def fabric_problems(ctx: Context, check_id: str) -> Iterator[Violation]:
    """The problems of check `check_id` that the fabric analysers found, one violation each."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            for p in fa.problems:
                if p.check == check_id:
                    yield Violation(fa.fabric.path, c.cluster.spec.id, p.path, p.message, p.measured, p.limit,
                                    public=p.public)


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
    """NET024: per cluster, no fabric of role `management`, and none of a front-end role (`FRONT_END_ROLES`)."""
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
