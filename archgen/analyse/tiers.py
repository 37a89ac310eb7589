"""The switch tiers of one fat-tree plane in closed form: the tier split, the leaves, and a fixed leaf count.

The spines, pods and cores above the leaves are in `archgen.analyse.upper_tiers`. `archgen.analyse.fabric` sizes a
fabric with these; the formulas and their sources are in its docstring. Every count is a formula over the plane's
demand (ports, rail groups), never a loop over switches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem, TierPorts, tier_ports, up_ports
from archgen.build import BoundFabric
from archgen.model import Switch
from archgen.model.fabrics import FatTree
from archgen.units import Q


@dataclass(frozen=True)
class TierCount:
    """Switches of one tier of one plane and how their ports are used."""

    name: str
    switch: Switch | None
    speed: Q
    assigned: int
    breakout: int
    down: int
    up: int
    up_speed: Q
    switches: int
    down_used: int
    up_used: int
    spare: int = 0
    unassigned: int = 0
    #: Ports used on the tier's fullest switch where the sizing knows it (a leaf: its fullest leaf's access ports
    #: and its uplinks; a 3-tier spine: its fullest pod's), else 0 and the even spread stands for it.
    busiest: int = 0
    #: Uplinks one physical port carries (`TierSplit.up_split`): an `up` breakout, or uplinks split from faster
    #: ports by rate; 1 at a top tier, which has no up ports.
    up_split: int = 1

    @property
    def radix(self) -> int:
        """Ports per switch at the tier's rates: those its roles take (`assigned`) and those none takes."""
        return self.assigned + self.unassigned

    @property
    def ports(self) -> int:
        """The switch's ports as its datasheet counts them, every port group, whatever their breakout (0: none).

        `radix` counts them after breakout at the tier's rates, which need not be a count the switch is sold in: a
        Tomahawk 5 rail leaf of 32 ports at 2x400G and 32 at 800G has 64 ports, 96 at those rates (topo36).
        """
        return sum(g.count for g in self.switch.groups) if self.switch is not None else 0

    @property
    def cabled(self) -> str:
        """The ports as cabled, each role's ports and breakout: '32 × 2x400G down, 32 × 800G up', and any free."""
        roles = [(self.down, self.breakout, self.speed, "down"), (self.up, self.up_split, self.up_speed, "up")]
        runs = [(math.ceil(n / max(b, 1)), max(b, 1), rate, role) for n, b, rate, role in roles if n]
        free = self.ports - sum(n for n, *_ in runs)
        words = [f"{n} × {f'{b}x' if b > 1 else ''}{rate.m_as('Gbit/s'):g}G {role}" for n, b, rate, role in runs]
        return ", ".join(words + ([f"{free} free"] if free > 0 else []))

    @property
    def ports_used(self) -> int:
        """Ports in use over the tier (down and up)."""
        return self.down_used + self.up_used

    @property
    def ports_total(self) -> int:
        """Ports the tier's switches have at the tier's rates (the radix counts fixed uplinks too)."""
        return self.switches * self.radix

    @property
    def used_switches(self) -> int:
        """Switches that carry traffic: all but the spares."""
        return self.switches - self.spare

    @property
    def max_used_per_switch(self) -> int:
        """Most ports used on any one switch of the tier: its fullest switch's where known, else the even spread.

        The even spread is rounded up, spares' down ports left out. Leaves fill in order, so it understated a fullest
        leaf (`busiest`): the GB300 SU's storage leaves hold 128, 128 and 32 ports on 128 uplinks each, 256 on the
        first, not 672 / 3 = 224 (spine31).
        """
        if self.busiest:
            return self.busiest
        if self.spare and self.used_switches:
            return math.ceil(self.down_used / self.used_switches) + math.ceil(self.up_used / self.switches)
        return math.ceil(self.ports_used / self.switches) if self.switches else 0


def _ports(fabric: BoundFabric, tier: str, speed: Q, uplinks: bool = False) -> TierPorts:
    """The ports of `tier`'s switch at `speed` (`archgen.analyse.ports`); its `up` role only where asked."""
    spec = getattr(fabric.spec, tier)
    return tier_ports(fabric.tiers[tier].switch, spec.down, spec.up if uplinks else None, speed,
                      spec.uplinks if uplinks else None, spec.uplink_speed if uplinks else None,
                      fabric.owner_path + (tier,), fabric.switch_path(tier))


@dataclass(frozen=True)
class TierSplit:
    """One tier's switch ports split into down and up (`split`), with its ports plan and what does not fit.

    `up_split` is the uplinks one physical port carries: the `up` breakout or fixed uplinks' split
    (`TierPorts.up_breakout`), ⌊native / s_up⌋ where uplinks at another rate are split from the down group, the
    down breakout where whole cages go up, and 1 at a top tier. The cabling's cage check (CAB012) and the
    breakout-cage count read it from here.
    """

    plan: TierPorts
    down: int
    up: int
    up_speed: Q
    problems: tuple[Problem, ...] = ()
    up_split: int = 1

    @property
    def radix(self) -> int:
        """Ports at the tier's rate: down + up where the split is fixed by ports, else the whole group."""
        fixed = self.plan.down is not None or self.plan.up is not None
        return self.down + self.up if fixed and self.up else self.plan.radix

    @property
    def unassigned(self) -> int:
        """Ports of the switch that neither role takes (`archgen.analyse.ports.TierPorts.unassigned`)."""
        return self.plan.unassigned


def fat_tree(fabric: BoundFabric) -> FatTree:
    """The spec of a fabric this module sizes: only a fat tree has leaf, spine and core tiers."""
    spec = fabric.spec
    assert isinstance(spec, FatTree), f"{spec.id} is a {spec.topology} fabric, not a fat tree"
    return spec


def split(fabric: BoundFabric, tier: str, speed: Q, top: bool) -> TierSplit:
    """Down and up ports of `tier`'s switch at `speed`: one rule for leaves, spines and cores.

    The top tier has no up ports (all its ports face down; `up` there is refused at validation or by
    `top_tier_ports`). Below it: `up` ports (or fixed `uplinks`) fix the split; `down` ports alone fix the down
    side and the oversubscription o sets the up ports beside them, u = ⌊d·s / (o·s_up)⌋ at the uplink rate
    s_up, which must fit in the rest of the down group (NET001); neither: u = ⌊k/(1+o)⌋, d = k − u, in whole cages
    where the ports break out b ways (u = b·⌊(k/b)/(1+o)⌋: a 64-cage SN5610 at 4 x 200G and 2:1 takes 84 up, 21
    cages, not 85, which split a cage between roles and made the spines divide 85), or with
    `uplink_speed` at another rate than the down ports, the group's physical ports split by bandwidth (`_by_rate`).
    Uplinks faster than the group's ports are NET019 at `uplink_speed`.
    """
    spec, fab = getattr(fabric.spec, tier), fat_tree(fabric)
    plan = _ports(fabric, tier, speed, uplinks=not top)
    problems = list(plan.problems)
    up_speed = spec.uplink_speed or plan.up_speed or speed
    if top:
        return TierSplit(plan, plan.down if plan.down is not None else plan.radix, 0, up_speed, tuple(problems))
    if plan.up is not None:
        assert plan.down is not None, "a fixed split fixes both sides (ports.tier_ports)"
        problems += _unread_ratio(fabric, tier, plan, speed, up_speed)
        return TierSplit(plan, plan.down, plan.up, up_speed, tuple(problems), plan.up_breakout)
    over = spec.oversubscription or fab.oversubscription
    group, switch = plan.group, fabric.tiers[tier].switch
    per_port = int(group.speed.m_as("Gbit/s") // up_speed.m_as("Gbit/s")) if group is not None else 1
    if switch is not None and group is not None and not per_port and up_speed != speed:   # else NET016
        problems.append(Problem("NET019", fabric.owner_path + (tier, "uplink_speed"), f"{up_speed:~P} uplinks on "
                                f"{switch.id}'s {group.speed:~P} group '{group.name}': expected at most "
                                f"{group.speed:~P}, or `up` ports of a faster group", up_speed, group.speed))
    if plan.down is None and group is not None and per_port and plan.breakout and up_speed != speed:
        return _by_rate(plan, speed, up_speed, per_port, over, problems)
    if plan.down is None:   # whole cages up where the ports break out: no cage split between down and up roles
        b = plan.breakout if plan.breakout > 1 and plan.radix % plan.breakout == 0 else 1
        up = up_ports(plan.radix // b, 1 + over) * b
        return TierSplit(plan, plan.radix - up, up, up_speed, tuple(problems), b)
    up = up_ports(plan.down * speed.m_as("Gbit/s") / up_speed.m_as("Gbit/s"), over)
    per_port = max(per_port, 1)
    left = (group.count - math.ceil(plan.down / max(plan.breakout, 1))) if group is not None else 0
    if switch is not None and group is not None and math.ceil(up / per_port) > left:   # a switch has a group
        problems.append(Problem("NET001", fabric.owner_path + (tier, "down"), f"{plan.down} down ports at "
                                f"{over:g}:1 need {up} up ports, {math.ceil(up / per_port)} of {switch.id}'s group "
                                f"'{group.name}'; {max(left, 0)} are left beside the down ports",
                                count(math.ceil(up / per_port)), count(max(left, 0))))
    rest = max(left - math.ceil(up / per_port), 0) * max(plan.breakout, 1)   # beside the down and up ports
    return TierSplit(replace(plan, unassigned=rest + plan.idle), plan.down, up, up_speed, tuple(problems), per_port)


def _unread_ratio(fabric: BoundFabric, tier: str, plan: TierPorts, speed: Q, up_speed: Q) -> list[Problem]:
    """NET019 where a tier states `oversubscription` beside `up` ports or `uplinks` that give another split.

    The ports fix the split, so the ratio would be read by nothing: a spine of 48 down and 16 up ports at 800G
    stated "6:1" was built 3:1 without a word (newuser91). A ratio that the ports agree with (it would give the same
    up ports, u = ⌊d·s / (o·s_up)⌋) is only said twice, and passes.
    """
    over, down, up = getattr(fabric.spec, tier).oversubscription, plan.down or 0, plan.up or 0
    capacity = down * speed.m_as("Gbit/s") / up_speed.m_as("Gbit/s")
    if over is None or not up or up_ports(capacity, over) == up:
        return []
    fixed = "`up` ports" if getattr(fabric.spec, tier).up is not None else "`uplinks`"
    built = f"{down} down x {speed.m_as('Gbit/s'):g}G over {up} up x {up_speed.m_as('Gbit/s'):g}G"
    want = up_ports(capacity, over)
    return [Problem("NET019", fabric.owner_path + (tier, "oversubscription"),
                    f"{tier}.oversubscription {over:g}:1 is not what its {fixed} give: {built} is "
                    f"{capacity / up:.3g}:1, and the {fixed} fix the split, so the ratio would be read by nothing: "
                    f"leave out {tier}.oversubscription, or give {want} up ports for {over:g}:1",
                    count(capacity / up), count(over),
                    public=f"the {tier} switches' stated oversubscription {over:g}:1 is not what their ports give "
                    f"({built}, {capacity / up:.3g}:1)")]


def _by_rate(plan: TierPorts, speed: Q, up_speed: Q, per_port: int, over: float, problems: list) -> TierSplit:
    """The group's P physical ports split by bandwidth, for uplinks at another rate than the down ports.

    A physical port carries b down ports at s or n = ⌊native / s_up⌋ uplinks at s_up, so c_up = ⌊P·b·s /
    (b·s + o·n·s_up)⌋ go up (⌊P/(1+o)⌋ at one rate): a 64 x 800G Tomahawk 5 at 400G down, 800G up, 1:1 is 64
    down and 32 up, OCP OPG-256's split (before, 64 of its 128 400G ports were called 800G uplinks).
    """
    phys, b = plan.group.count if plan.group is not None else 0, plan.breakout
    s, s_up = speed.m_as("Gbit/s"), up_speed.m_as("Gbit/s")
    c_up = up_ports(phys * b * s, b * s + over * per_port * s_up)
    down, up = (phys - c_up) * b, c_up * per_port
    return TierSplit(replace(plan, radix=down + up), down, up, up_speed, tuple(problems), per_port)


def two_tier_leaves(fabric: BoundFabric) -> int:
    """The most leaves per plane that 2 tiers join: a top-tier spine's ports at the leaves' uplink rate.

    `tiers: auto` builds a core once a plane needs more leaves than this.
    """
    below = split(fabric, "leaf", fat_tree(fabric).speed, False)
    return split(fabric, "spine", below.up_speed, True).radix


@dataclass(frozen=True)
class PlaneDemand:
    """Ports one plane's leaves take (endpoints, nodes, nodes in groups, others, reserved) and its rail groups."""

    rail_optimized: bool
    endpoints: int
    nodes: int
    grouped: int
    others: int
    reserved: int
    rails: int
    groups: int
    group_domains: int
    #: Access ports of each group of racks whose leaves stand among them (`leaf.serves_racks`); () if unset.
    racks: tuple[int, ...] = ()
    #: The unit whose instances are the rail groups (`fabric.group`, or the unit holding the most nodes); "" if none.
    unit: str = ""

    def leaves(self, down: int) -> tuple[int, int, int]:
        """Leaves, leaves per group instance and rails per leaf (rack groups: ⌈ports / down⌉ each), for `down` ports."""
        if down <= 0:
            return 0, 0, 0
        if self.racks:   # the other ports on the groups' free ports, then leaves of their own
            local, rest = sum(math.ceil(p / down) for p in self.racks), self.endpoints + self.reserved
            return local + math.ceil(max(rest - local * down, 0) / down), 0, 0
        if not (self.rail_optimized and self.groups and self.group_domains):
            return math.ceil(self.endpoints / down), 0, 0
        rpl = max(down // self.group_domains, 1)  # 1 where a group's domains outnumber the down ports
        per_group = (math.ceil(self.rails / rpl) if self.group_domains <= down
                     else self.rails * math.ceil(self.group_domains / down))
        rest = max(self.nodes - self.grouped, 0) + self.others
        spare = self.groups * per_group * down - self.grouped - self.reserved
        extra_leaves = math.ceil(max(rest - max(spare, 0), 0) / down)
        return self.groups * per_group + extra_leaves, per_group, rpl

    def busiest_leaf(self, down: int, access: int, rpl: int) -> int:
        """Access ports on the fullest leaf of one plane, whose down:up is the leaf tier's oversubscription.

        Leaves fill in order (`FabricAnalysis.leaf_endpoints`): the first holds min(d, ports). A rail leaf holds
        its rails of every domain of its group (rails per leaf x domains); a leaf among racks (`leaf.serves_racks`)
        its group's ports; each with the other and reserved ports that take its free ports at most.
        """
        if self.racks:
            return min(down, max(self.racks) + max(access - sum(self.racks), 0))
        if self.rail_optimized and self.groups and self.group_domains and rpl:
            rail = min(rpl, self.rails) * self.group_domains if self.group_domains <= down else down
            return min(down, rail + max(access - self.grouped, 0))
        return min(down, access)

    def reach(self, leaves: int, down: int) -> int:
        """Endpoint ports `leaves` leaves of `down` ports take at full growth.

        Whole rail groups where the leaves are sized by group (each group's rails x domains on its leaves, which may
        leave down ports free), else every down port.
        """
        _, per_group, _ = self.leaves(down)
        return leaves // per_group * self.rails * self.group_domains if per_group else leaves * down

    def why(self, down: int) -> str:
        """How the leaves of `down` access ports are counted (for a message)."""
        need, per_group, _ = self.leaves(down)
        if self.racks:
            return (f"{len(self.racks)} group(s) of racks of {', '.join(str(p) for p in sorted(set(self.racks)))} "
                    f"ports, {down} per leaf, the ports of other racks on their free ports or leaves of their own")
        if not per_group:
            return f"{self.endpoints} endpoint ports / {down} down ports, rounded up"
        extra = need - self.groups * per_group
        return (f"{self.groups} group(s) of {self.group_domains} scale-up domains x {per_group} rail leaves for "
                f"{self.rails} rails" + (f", + {extra} for the ports outside the groups" if extra else ""))


def leaf_tier(fabric: BoundFabric, demand: PlaneDemand, access: int) -> tuple[int, TierCount, int, int, list]:
    """Tiers used, one plane's leaves, leaves per group instance, rails per leaf, and the leaves' problems.

    The leaves are derived from the demand, or fixed by `leaf.count`: fewer than derived is a problem (the
    endpoints that do not fit are left out of the used ports), more are spare leaves.
    """
    spec, here, problems = fat_tree(fabric), fabric.owner_path, list[Problem]()
    fixed = spec.leaf.count
    leaf_sw = fabric.tiers["leaf"].switch
    plan = _ports(fabric, "leaf", spec.speed, uplinks=True)
    b_leaf = plan.breakout
    if leaf_sw is not None and b_leaf == 0:
        native = plan.group.speed if plan.group is not None else leaf_sw.ports.speed
        problems.append(Problem("NET016", here + ("speed",), f"{leaf_sw.id} ports run at {native:~P}, "
                                f"slower than the fabric's {spec.speed:~P}", spec.speed, native))
    if spec.tiers == "auto":  # the fewest tiers that fit: one leaf, or no more leaves than a spine has ports
        below = split(fabric, "leaf", spec.speed, False)
        one = max(fixed or 0, demand.leaves(split(fabric, "leaf", spec.speed, True).down)[0])
        two = max(fixed or 0, demand.leaves(below.down)[0])
        tiers_used = 1 if one <= 1 else 2 if 0 < two <= two_tier_leaves(fabric) else 3
    else:
        tiers_used = int(spec.tiers)
    s_leaf = split(fabric, "leaf", spec.speed, tiers_used == 1)
    down, up, up_speed, k_leaf = s_leaf.down, s_leaf.up, s_leaf.up_speed, s_leaf.radix
    problems += s_leaf.problems
    need, per_group, rpl = demand.leaves(down)
    leaves = need if fixed is None else fixed
    if fixed is not None and leaves < need and tiers_used > 1:
        problems.append(Problem("NET018", here + ("leaf", "count"),
                                f"{fixed} leaves per plane are fewer than the {need} the endpoints need: "
                                f"{demand.why(down)}", count(fixed), count(need)))
    elif leaves and access > leaves * down:
        problems.append(Problem("NET009", here + (("reserved",) if demand.reserved else ()),
                                f"{access} access ports per plane ({demand.endpoints} endpoints + {demand.reserved}"
                                f" reserved) exceed the {leaves * down} leaf down ports",
                                count(access), count(leaves * down)))
    # spares: leaves beyond those the endpoints need and the reserved ports fill (a leaf taking reserved ports is used)
    spare = max(leaves - max(need, math.ceil(access / down) if down else 0), 0)
    if tiers_used == 1 and need > 1 and access > k_leaf:
        short = f"one tier holds {k_leaf} ports; {access} are needed: use 2 tiers"
        problems.append(Problem("NET003", here + ("tiers",), short + media_needed(spec, "leaf_spine"), count(access),
                                count(k_leaf), public=_public(short, spec), tier="leaf"))
    elif tiers_used == 1 and need > 1:   # the ports fit one leaf, but each group takes leaves of its own
        own = f"each instance of unit '{demand.unit}' takes leaves of its own: " if demand.unit and per_group else ""
        apart = (f"one tier is one leaf, but its {access} ports take {need} leaves ({own}{demand.why(down)}), which "
                 "only a spine tier joins: use 2 tiers")
        problems.append(Problem("NET003", here + ("tiers",), apart + media_needed(spec, "leaf_spine"), count(need),
                                count(1), public=_public(apart, spec), tier="leaf"))
    busiest = demand.busiest_leaf(down, access, rpl) + (up if tiers_used > 1 else 0)
    leaf = TierCount("leaf", leaf_sw, spec.speed, k_leaf, b_leaf, down, up, up_speed, leaves,
                     min(access, leaves * down), leaves * up if tiers_used > 1 else 0, spare, s_leaf.unassigned,
                     busiest, s_leaf.up_split)
    return tiers_used, leaf, per_group, rpl, problems


#: The links below each tier of links a fabric adds: those whose media, listed, show the user lists media.
_BELOW = {"leaf_spine": ("access",), "spine_core": ("access", "leaf_spine")}


def media_needed(spec: FatTree, link: str, public: bool = False) -> str:
    """What NET003's "use N tiers" adds for the new tier's links `link`: their media, where the fabric lists none.

    Said where the fabric lists media for its links below (`_BELOW`) and none for these; "" else. `public`: without
    the key, in a customer's words (`Problem.public`).

    One wording for every tier added (`upper_tiers._core_needed` for the cores): the compute fabric of newuser105's
    16-SU GB200 SuperPOD, told "use 3 tiers" alone, checked clean with its 9,216 spine-core links on no media (CAB003).
    """
    listed = any(getattr(spec.links, k, ()) for k in _BELOW[link]) and not getattr(spec.links, link, ())
    key = "" if public else f" (`links.{link}`)"
    return f", with link media for the {link.replace('_', '-')} links{key}" if listed else ""


def _public(words: str, spec: FatTree) -> str:
    """A 1-tier NET003's `Problem.public`: `words` and the media, without the key; "" where no key is named."""
    return words + media_needed(spec, "leaf_spine", True) if media_needed(spec, "leaf_spine") else ""
