"""CAB012's findings: a cage whose logical ports would take more than one module.

Split from `checks/cabling.py`, which registers the check. A cage holds one module (or one cable end): a NIC port
split by the fabric's `nic_breakout`, a twin-port cage (`per_cage`) and a switch port broken out by its tier all
leave through that one module, so it must carry every logical port of its cage. The cabling counts modules per end
as ⌈links / ports per module⌉ (`analyse.link_ends._ports_per_module`); a module that carries fewer ports than its
cage holds is counted more than once per cage, which no cage takes (review47: 576 single-port 800G DR4 modules in
the 288 one-port 1.6T cages of a Vera Rubin SU's ConnectX-9 NICs).

The logical ports of a cage: at a node, `analyse.link_ends.node_cage_ports` (the NIC slot's or part's `per_cage`
times the fabric's `nic_breakout` split); at a switch's `down` ports, the group's `per_cage` times the tier's
breakout; at its `up` ports, the group's `per_cage` times the uplinks one port carries (an `up` breakout, or
uplinks split from faster ports by rate; review49). Only the link tiers the fabric built (`fa.links`), as the cabling
counts them: a `spine_core` option of a `tiers: auto` fabric that built 2 tiers carries no link (review50). Fat trees
and rail-only fabrics only: a torus's and a dragonfly's ends are not judged, which an info finding on each such fabric
with link options says (`unjudged`; review50), where before they were passed over without a word.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from archgen.analyse.link_ends import SWITCH_ENDS, _ports_per_module, link_speed, node_cage_ports
from archgen.analyse.network import count
from archgen.analyse.ports import role_groups
from archgen.build.fabrics import LinkOption
from archgen.checks.media_ends import lane_g
from archgen.checks.registry import Context, Violation
from archgen.model.fabrics import LINK_TIERS
from archgen.model.field_words import said
from archgen.units import Q


def _switch_cage_ports(fa, tier_name: str, role: str) -> tuple[int, str] | None:
    """(logical ports per cage, what the cage is) at a switch tier's `down` or `up` ports; None without a switch."""
    t, spec = fa.tier(tier_name), getattr(fa.fabric.spec, tier_name, None)
    if t is None or t.switch is None or spec is None:
        return None
    down, up = role_groups(t.switch, getattr(spec, "down", None), getattr(spec, "up", None),
                           getattr(spec, "uplinks", None), getattr(spec, "uplink_speed", None))
    group = down if role == "down" else up
    # a down port's split is the tier's breakout; an up port's, the uplinks its physical port carries as the sizing
    # split them (`tiers.TierSplit.up_split`)
    split = max(1, t.breakout) if role == "down" else t.up_split
    rate = t.speed if role == "down" else t.up_speed
    if split > 1 and split * float(rate.m_as("Gbit/s")) > float(group.speed.m_as("Gbit/s")) + 1e-6:
        return None   # a breakout the port cannot give is NET019's finding
    return group.per_cage * split, f"{t.switch.id} port group '{group.name}' ({group.cage or 'cage not stated'})"


def _node_cage(ctx: Context, c, fa) -> tuple[int, str]:
    """(logical ports per cage, what the cage is) at the node end of a fabric's access links."""
    role = fa.fabric.spec.nic_role or fa.fabric.spec.role
    nics = sorted({slot.part for nt in c.nodes if fa.ports_per_node.get(nt.part.id)
                   for slot in nt.part.nics if slot.role == role})
    split = fa.fabric.spec.nic_breakout
    what = f"{', '.join(nics) or 'node'} NIC cage{f' (nic_breakout {split})' if split else ''}"
    return node_cage_ports(c.nodes, fa), what


def _node_modules(c, fa, key: str, part: str) -> int:
    """Modules of `part` the cabling counts at the node ends of a fabric's `key` links (0 where none)."""
    tiers = c.cabling.tiers if c.cabling is not None else ()
    return next((t.node_modules.get(part, 0) for t in tiers if (t.fabric, t.tier) == (fa.fabric.spec.id, key)), 0)


def _cage_ends(ctx: Context, c, fa) -> Iterator[tuple[str, Q, LinkOption, str, Any, tuple[int, str]]]:
    """(link tier, line rate, option, 'a' or 'b', end, its cage) for each end of a fat tree's built link tiers.

    The link tiers the fabric built (`fa.links`), as the cabling counts them; an end whose cage is unknown (no
    switch, or a breakout the port cannot give) is left out.
    """
    topology = fa.fabric.spec.topology
    if topology not in ("fat-tree", "rail-only"):
        return
    for key, tier in LINK_TIERS[topology].items():
        if key not in fa.links or key not in SWITCH_ENDS or tier not in fa.fabric.tiers:
            continue
        lower, upper = SWITCH_ENDS[key]
        speed = link_speed(fa, key)
        cages = {"a": _node_cage(ctx, c, fa) if lower is None else _switch_cage_ports(fa, lower, "up"),
                 "b": _switch_cage_ports(fa, upper, "down")}
        for opt in fa.fabric.tiers[tier].links:
            for tag, end in (("a", opt.a), ("b", opt.b)):
                if (cage := cages[tag]) is not None:
                    yield key, speed, opt, tag, end, cage


def unjudged(c, fa) -> Iterator[Violation]:
    """An info finding on a torus or dragonfly fabric with link options: its ends' cages are not judged."""
    topology = fa.fabric.spec.topology
    if topology in ("fat-tree", "rail-only") or not any(t.links for t in fa.fabric.tiers.values()):
        return
    text = (f"{topology} fabric '{fa.fabric.spec.id}': the modules per cage of its link ends are not judged (fat-tree "
            "and rail-only ends only); the cabling counts its modules as links / ports per module, so a module "
            "carrying fewer ports than its cage holds is the designer's to check")
    yield Violation(fa.fabric.path, c.cluster.spec.id, (), text, severity="info")


def cage_overfills(ctx: Context) -> Iterator[Violation]:
    """Each fat-tree link option end whose module carries fewer logical ports than the cage it plugs into holds."""
    seen: set[tuple] = set()
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            yield from unjudged(c, fa)
            for key, speed, opt, tag, end, (held, what) in _cage_ends(ctx, c, fa):
                carried = _ports_per_module(end, speed)
                if carried >= held:
                    continue
                modules = math.ceil(held / carried)
                lanes = f", {end.lanes} lanes" if end.lanes else ""
                counted = _node_modules(c, fa, key, end.id) if tag == "a" and key == "access" else 0
                tally = (f" (the cabling counts {counted} of them for {math.ceil(counted * carried / held)} cages)"
                         if counted else "")
                text = (f"{end.id} ({lane_g(end.rate)}{lanes}) carries {carried} of the {held} {lane_g(speed)} "
                        f"ports of one {what}: {modules} modules would share one cage{tally}; expected one module "
                        f"carrying {held} x {lane_g(speed)} (a twin-port or breakout module of "
                        f"{lane_g(speed * held)})")
                path = opt.path + (() if opt.a.id == opt.b.id else (tag,))
                if (fa.fabric.path, path, text) in seen:   # one option at both ends: said once
                    continue
                seen.add((fa.fabric.path, path, text))
                yield Violation(fa.fabric.path, c.cluster.spec.id, path, f"{key}: {text}",
                                count(modules), count(1), public=f"{said(key)}: {text}")
