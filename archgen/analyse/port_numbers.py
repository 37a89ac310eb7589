"""How the port map numbers a switch tier's ports: down first, up after them, ``cage/lane`` in a shared cage.

A cage holds several ports where a breakout splits it or it is a twin-port cage. `analyse.portmap` names each
cable's switch ports with these (`PortNumbering.of` once per tier, `port_names` per cable); its module docstring
describes the numbering. Split from `analyse.portmap` at 399 lines. `tier_switches` gives each link of a tier its
switches, as the port map names them, and `ports_past` the switches that take more links than they have down or up
ports (CAB013): the port map writes those "(past the down ports)".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.placement import access_ports
from archgen.analyse.tier_cabling import TierRuns
from archgen.analyse.tiers import TierCount
from archgen.topology import tier_pairs

__all__ = ["TIER_ENDS", "PortNumbering", "PortsPast", "port_names", "ports_past", "ports_per_cage", "switch_name",
           "tier_switches"]

#: The tiers below and above each link tier of a fat tree (None: the access tier's nodes and other ends).
TIER_ENDS: dict[str, tuple[str | None, str]] = {"access": (None, "leaf"),
                                               "leaf_spine": ("leaf", "spine"), "spine_core": ("spine", "core")}


@dataclass(frozen=True)
class PortNumbering:
    """How a switch tier numbers its ports, as plain integers: down and up ports, down breakout, lanes per up cage."""

    down: int
    up: int
    breakout: int
    up_lanes: int

    @classmethod
    def of(cls, fa: FabricAnalysis, tier: str | None) -> PortNumbering | None:
        """The numbering of `tier` of `fa` (None where the fabric has no such tier), worked out once per tier.

        Up ports follow the down cages, unsplit when they run faster than the down ports: an up cage holds
        ``breakout x speed / up_speed`` lanes.
        """
        t = fa.tier(tier) if tier is not None else None
        if t is None:
            return None
        ratio = float((t.speed / t.up_speed).to("").magnitude) if t.up_speed.magnitude else 1.0   # a top tier
        twin = ports_per_cage(t)   # a twin-port cage's ports are written cage/port, as a split cage's lanes
        return cls(t.down, t.up, t.breakout * twin, max(1, round(t.breakout * ratio)) * (twin if ratio == 1 else 1))


def ports_per_cage(t: TierCount) -> int:
    """Ports of one physical cage in the port group a tier's down ports use (1 where not known).

    2 on a twin-port OSFP switch (QM9700: "Each OSFP port consists of 2 logical InfiniBand ports", NVIDIA QM97XX
    User Manual, https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces): which cage a cable goes into.
    """
    if t.switch is None:
        return 1
    native = t.speed * max(t.breakout, 1)
    group = next((g for g in (t.switch.ports, *t.switch.port_groups) if g.speed == native), None)
    return group.per_cage if group is not None else 1


def port_names(num: PortNumbering | None, device: str, up: bool, n: int, counters: dict) -> str:
    """The next `n` ports of a switch: down ports from 1, up ports from down + 1; ``cage/lane`` with a breakout."""
    if num is None:
        return "—"
    key = (device, int(up))
    first = counters.get(key, 0)
    counters[key] = first + n
    base = num.down if up else 0
    nums = [base + first + i + 1 for i in range(n)]
    over = nums[-1] > (num.down + num.up if up else num.down)
    first_name, last_name = _name(num, up, nums[0]), _name(num, up, nums[-1])
    if n == 1:
        text = first_name
    elif "/" in first_name and first_name.split("/")[0] == last_name.split("/")[0]:
        text = f"{first_name}-{last_name.split('/')[1]}"     # lanes of one cage: 33/1-4
    else:
        text = f"{first_name}-{last_name}"
    return f"{text} (past the {_side(up)} ports)" if over else text


def port_legs(num: PortNumbering | None, device: str, up: bool, n: int,
              counters: dict) -> tuple[str, tuple[str, ...]]:
    """`port_names`' text for the next `n` ports of a switch, and each port's own name (a split cable's legs)."""
    if num is None:
        return "—", ("—",) * n
    first = counters.get((device, int(up)), 0)
    base, top = (num.down, num.down + num.up) if up else (0, num.down)
    return port_names(num, device, up, n, counters), tuple(
        _name(num, up, p) + (f" (past the {_side(up)} ports)" if p > top else "")
        for p in range(base + first + 1, base + first + n + 1))


def _name(num: PortNumbering, up: bool, p: int) -> str:
    """Port `p` (1-based over down then up ports) as written: ``cage/lane`` where a cage holds several."""
    if up:   # up ports follow the down cages: unsplit when they run faster than the down ports
        lanes = num.up_lanes
        cages, k = math.ceil(num.down / num.breakout), p - num.down - 1
        return f"{cages + k // lanes + 1}/{k % lanes + 1}" if lanes > 1 else str(cages + k + 1)
    return f"{(p - 1) // num.breakout + 1}/{(p - 1) % num.breakout + 1}" if num.breakout > 1 else str(p)


def _side(up: bool) -> str:
    return "up" if up else "down"


def switch_name(fabric: str, tier: str, index: int) -> str:
    """A switch as the port map names it: ``<fabric>-<tier>-<n>``, n over all planes (plane-major, 1-based)."""
    return f"{fabric}-{tier}-{index + 1:02d}"


def tier_switches(a: ClusterAnalysis, fa: FabricAnalysis, tr: TierRuns) -> tuple[np.ndarray | None, np.ndarray,
                                                                                   np.ndarray]:
    """Per link row of a fat tree tier's runs: its lower switch (None on the access tier), its upper one, its links.

    Switches are indexed over all planes, plane after plane. An access run's leaf is the cabling's own
    (`TierRuns.b_switch`), else `placement.access_ports`' (a leaf index past the plane's on its last leaf); a
    switch tier's pairs are `topology.tier_pairs`', an upper index past the tier's on its last switch, as
    `analyse.portmap` numbers them.
    """
    low, up = TIER_ENDS[tr.tier]
    if low is None:
        if tr.b_switch is not None:
            return None, tr.b_switch, np.ones(len(tr.b_switch), dtype=np.int64)
        _, _, plane, leaf = access_ports(a.cluster, fa)
        n_leaves = fa.tier_at("leaf").switches
        return None, plane * n_leaves + np.minimum(leaf, max(n_leaves - 1, 0)), np.ones(len(leaf), dtype=np.int64)
    lo, hi, w = tier_pairs(fa.shape, tr.tier)
    n_low, n_up = fa.tier_at(low).switches, fa.tier_at(up).switches
    hi = np.minimum(hi, max(n_up - 1, 0))
    return (np.concatenate([p * n_low + lo for p in range(fa.planes)]),
            np.concatenate([p * n_up + hi for p in range(fa.planes)]), np.tile(w, fa.planes))


@dataclass(frozen=True)
class PortsPast:
    """A switch of a fabric cabled to more links than it has down (or up) ports, and the port map's names of those."""

    fabric: FabricAnalysis
    switch: str
    up: bool
    links: int
    ports: int
    past: str   # the ports past them, as the port map numbers them ('25/1-32/2')


def ports_past(a: ClusterAnalysis) -> list[PortsPast]:
    """Every switch of the cluster's wired fat trees whose cabled links run past its down or up ports (CAB013).

    The port map numbers a switch's down ports 1 .. down and its up ports after them (`port_names`): a switch
    cabled to more links than those ports would be given ports it does not have on that side, an uplink port for a
    node's cable (review54: a rack in no unit cabled to a leaf past the plane's, on the last leaf's uplinks). Counted
    from the cabling's runs (`tier_switches`), not the port map, so no cable rows are built for it.
    """
    if a.cabling is None:
        return []
    fabrics = {fa.fabric.spec.id: fa for fa in a.fabrics if fa.topology == "fat-tree"}
    used: dict[tuple[str, str, bool], np.ndarray] = {}   # (fabric, tier, up) -> links per switch
    for tr in a.cabling.runs:
        fa = fabrics.get(tr.fabric)
        if fa is None:
            continue
        lower, upper, links = tier_switches(a, fa, tr)
        low, up = TIER_ENDS[tr.tier]
        for tier, ends, is_up in ((up, upper, False), (low, lower, True)):
            if tier is not None and ends is not None and len(ends):
                counted = np.bincount(ends[ends >= 0], weights=links[ends >= 0]).astype(np.int64)
                before = used.get((tr.fabric, tier, is_up), np.zeros(0, dtype=np.int64))
                size = max(len(before), len(counted))
                used[(tr.fabric, tier, is_up)] = np.pad(before, (0, size - len(before))) + \
                    np.pad(counted, (0, size - len(counted)))
    out = []
    for (fid, tier, is_up), per_switch in used.items():
        fa = fabrics[fid]
        t = fa.tier_at(tier)
        have = t.up if is_up else t.down
        num = PortNumbering.of(fa, tier)
        for i in np.flatnonzero(per_switch > have).tolist():
            name, n = switch_name(fid, tier, i), int(per_switch[i])
            past = port_names(num, name, is_up, n - have, {(name, int(is_up)): have})
            out.append(PortsPast(fa, name, is_up, n, have, past.removesuffix(f" (past the {_side(is_up)} ports)")))
    return out
