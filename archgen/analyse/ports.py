"""Which ports of a switch one fabric tier uses: port groups, ranges and breakouts, in closed form.

A switch declares port groups (its main `ports` and any `port_groups`: count, native speed, cage, lanes, allowed
breakouts). A fat-tree tier may give ports to its two roles: `down` (toward endpoints or the tier below) and `up`
(toward the tier above), each a group, a range or count of its ports and a breakout. OCP's OPG-256 rail leaf is the
example: a 64 x 800G Tomahawk-5 box with ports 1-32 broken out 2 x 400G to the GPUs and ports 33-64 native 800G
uplinks (OCP-OCDAI-training-fabric, compositions/OPG-256/clos-ro--.../topology-map.yaml, `switch_port_zones`).

Rules (each a `Problem` with code "ports", reported by NET019, or "speed" for NET016):

* a group must exist on the switch; a range must lie inside it; two roles taking ports of one group must not
  overlap or take more than it has, and `up` may not leave `down` no port of a group they share (an `up` without
  ports takes the whole group less what `down` takes: with no `down` ports, nothing was left for the endpoints);
* a breakout must be one the group allows (when it lists `breakouts`), and a `down` breakout's rate is the
  fabric's line rate; without one, the fabric rate must divide the native rate (the split the old single-group
  model took);
* fixed `uplinks` (without `up`) come from another group whose native rate carries `uplink_speed` (an SN2201's
  QSFP28 ports beside its RJ45), else from the down group: then they take ⌈uplinks / (native / uplink speed)⌉ of
  its ports, so uplinks count against the radix (before, 32 fixed uplinks sat beside all 128 ports of a QM9700
  at 200G).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from archgen.analyse.nodes import count
from archgen.model import Switch
from archgen.model.network import Ports, parse_breakout
from archgen.model.tiers import PortUse
from archgen.units import Q_, Q


@dataclass(frozen=True)
class Problem:
    """Something that makes a fabric unbuildable or inconsistent, with the ID of the NET check that reports it."""

    check: str
    path: tuple
    message: str
    measured: Q | None = None
    limit: Q | None = None
    #: The same fact in a customer's words where `message` names spec keys (`checks.registry.Violation.public`).
    public: str = ""
    #: The tier it is about where `path` names none: NET003 at `tiers` names the top tier, whose ports per plane fall
    #: short; NET001 at the fabric's `switch` names the tier whose switches lack ports (`analyse.network.infeasible`).
    tier: str = ""


@dataclass(frozen=True)
class TierPorts:
    """The ports one tier's switch offers: radix and breakout at the tier's rate, and a fixed split where given.

    Attributes:
        radix: Ports at the tier's rate: the down group's ports x breakout when the split is left to the
            oversubscription; down + up when the split is fixed (so the radix check covers the uplinks).
        breakout: Logical ports per physical port of the down group (0 when the rate exceeds the port's).
        down: Down ports when the split is fixed, else None.
        up: Up ports when the split is fixed (an `up` assignment or fixed `uplinks`), else None.
        up_speed: Rate of those uplinks (None: the fabric's or the tier's `uplink_speed`).
        group: The down group.
        problems: What does not fit.
        unassigned: Ports no role takes: the rest of the groups the roles use (a `down`/`up` range short of the
            group), at the role's breakout, and `idle`: the switch's ports are the radix plus these.
        idle: Ports of the groups no role uses (an SN2201's QSFP28 ports when no uplinks come from them), once each
            at their native rate, as the datasheet counts them; part of `unassigned`.
        up_breakout: Uplinks one physical port of the up group carries when the split is fixed (an `up` breakout,
            or fixed `uplinks` split from faster ports by rate), else 1.
    """

    radix: int
    breakout: int
    down: int | None = None
    up: int | None = None
    up_speed: Q | None = None
    group: Ports | None = None
    problems: tuple[Problem, ...] = field(default_factory=tuple)
    unassigned: int = 0
    idle: int = 0
    up_breakout: int = 1


def idle_ports(switch: Switch, *used: Ports) -> int:
    """Physical ports of the switch's groups that none of `used` is: free ports, once each at their native rate."""
    return sum(g.count for g in switch.groups if not any(g is u for u in used))


def up_ports(capacity: float, over: float) -> int:
    """⌊capacity / over⌋ with the ratio as it was written: '5:3' is exactly 5/3.

    The spec's ratio arrives as a float, and 1 + 5/3 is a hair above 8/3 in binary, so a plain floor split a
    64-port switch at 5:3 into 41 down and 23 up (41:23, more oversubscribed than asked) instead of 40 and 24.
    """
    exact = Fraction(capacity).limit_denominator(10**6) / Fraction(over).limit_denominator(10**6)
    return math.floor(exact)


def _gbps(q: Q) -> float:
    return float(q.m_as("Gbit/s"))


def _group(switch: Switch, use: PortUse | None, here: tuple, problems: list[Problem]) -> Ports:
    name = use.group if use is not None else None
    group = switch.group(name)
    if group is None:
        problems.append(Problem("NET019", here + ("group",), f"{switch.id} has no port group '{name}' (groups: "
                                f"{', '.join(g.name for g in switch.groups)})"))
        return switch.ports
    return group


def _breakout(switch: Switch, group: Ports, use: PortUse | None, rate: Q, role: str, here: tuple,
              problems: list[Problem], switch_at: tuple | None = None) -> int:
    """Logical ports per physical port of `group` for this role at `rate` (0: the rate exceeds the port).

    A split the spec does not write (no `breakout`) that the switch does not allow is found at the key naming the
    switch (`switch_at`), the value to change, else at `here`.
    """
    native = _gbps(group.speed)
    if use is not None and use.breakout is not None:
        n, each = parse_breakout(use.breakout)
        allowed = ", ".join(group.breakouts) or f"any whole split of {native:g}G"
        if abs(n * each - native) > 1e-6 or not group.allows(n):
            problems.append(Problem("NET019", here + ("breakout",), f"{switch.id} port group '{group.name}' "
                                    f"({native:g}G) does not allow breakout {use.breakout}: expected one of "
                                    f"{allowed}", count(n), None))
        if role == "down" and abs(each - _gbps(rate)) > 1e-6:
            problems.append(Problem("NET019", here + ("breakout",), f"breakout {use.breakout} gives {each:g}G "
                                    f"ports; this tier's links run at {_gbps(rate):g}G: expected "
                                    f"{native / _gbps(rate):g}x{_gbps(rate):g}G", Q_(each, "Gbit/s"), rate))
        return n
    ratio = native / _gbps(rate)
    if ratio < 1 - 1e-9:
        return 0
    n = max(1, round(ratio))
    if role == "down" and group.breakouts and not group.allows(n):
        problems.append(Problem("NET019", switch_at or here, f"{_gbps(rate):g}G ports on {switch.id}'s "
                                f"{native:g}G group '{group.name}' need a {n}x{_gbps(rate):g}G breakout, which it does "
                                f"not allow: expected one of {', '.join(group.breakouts)}", count(n), None))
    return n


def _span(group: Ports, use: PortUse | None, here: tuple, problems: list[Problem]) -> tuple[int, int] | None:
    """(first, last) ports of a range or count inside `group`, or None for the default."""
    if use is None or (n := use.count()) is None:  # no `ports`: the default
        return None
    span = use.span() or (1, n)
    if span[1] > group.count:
        problems.append(Problem("NET019", here + ("ports",), f"ports {use.ports} are beyond port group "
                                f"'{group.name}' ({group.count} ports): expected ports within 1-{group.count}",
                                count(span[1]), count(group.count)))
    return span


def tier_ports(switch: Switch | None, down_use: PortUse | None, up_use: PortUse | None, rate: Q,
               uplinks: int | None, uplink_speed: Q | None, here: tuple,
               switch_at: tuple | None = None) -> TierPorts:
    """The ports a tier's switch offers at `rate` (see the module docstring for the rules).

    Args:
        switch: The tier's switch part (None: unresolved, reported elsewhere).
        down_use: The tier's `down` assignment.
        up_use: The tier's `up` assignment.
        rate: Line rate of the links below the tier (the fabric speed at the leaf).
        uplinks: Fixed uplinks per switch (`uplinks`), or None.
        uplink_speed: Their rate (`uplink_speed`), or None for `rate`.
        here: Field path of the tier in the Cluster document.
        switch_at: Field path of the key that names the switch (`BoundFabric.switch_path`), where a finding about
            the switch itself points; None: `here`.
    """
    if switch is None:
        return TierPorts(0, 1)
    problems: list[Problem] = []
    g_down = _group(switch, down_use, here + ("down",), problems)
    b_down = _breakout(switch, g_down, down_use, rate, "down", here + ("down",), problems, switch_at)
    down_span = _span(g_down, down_use, here + ("down",), problems)
    if up_use is None and uplinks is None:
        phys = (down_span[1] - down_span[0] + 1) if down_span else g_down.count
        fixed_down = phys * b_down if down_span else None
        idle = idle_ports(switch, g_down)
        return TierPorts(phys * b_down, b_down, fixed_down, None, None, g_down, tuple(problems),
                         max(g_down.count - phys, 0) * b_down + idle, idle)
    # uplinks: an `up` assignment, or fixed `uplinks` from another group that carries them, else the down group
    up_rate = uplink_speed or rate
    if up_use is not None:
        g_up = _group(switch, up_use, here + ("up",), problems)
        b_up = 1 if up_use.breakout is None else _breakout(switch, g_up, up_use, up_rate, "up", here + ("up",),
                                                          problems)
        if up_use.breakout is not None:
            up_rate = Q_(_gbps(g_up.speed) / max(b_up, 1), "Gbit/s")
        elif uplink_speed is None:
            up_rate = g_up.speed
        up_span = _span(g_up, up_use, here + ("up",), problems)
    else:
        others = [g for g in switch.groups if g is not g_down and _gbps(g.speed) >= _gbps(up_rate) - 1e-9]
        g_up = others[0] if others else g_down
        b_up = max(1, int(_gbps(g_up.speed) // _gbps(up_rate))) if _gbps(g_up.speed) >= _gbps(up_rate) else 0
        up_span = None
    if b_up == 0:
        groups = ", ".join(f"{g.name} {_gbps(g.speed):g}G" for g in switch.groups)
        problems.append(Problem("NET019", here + ("uplink_speed",), f"{switch.id} has no port group that runs "
                                f"{_gbps(up_rate):g}G uplinks (groups: {groups})", up_rate, g_up.speed))
        b_up = 1
    if up_use is not None and up_use.ports is None and uplinks is not None:
        up_phys = math.ceil(uplinks / b_up)
    elif up_span is not None:
        up_phys = up_span[1] - up_span[0] + 1
    elif uplinks is not None:
        up_phys = math.ceil(uplinks / b_up)
    else:  # `up` names a group without ports: all of it, less what `down` takes from it
        up_phys = g_up.count - ((down_span[1] - down_span[0] + 1 if down_span else 0) if g_up is g_down else 0)
    up = uplinks if uplinks is not None else up_phys * b_up
    if uplinks is not None and up_phys * b_up < uplinks:
        problems.append(Problem("NET019", here + ("uplinks",), f"{uplinks} uplinks need {math.ceil(uplinks / b_up)} "
                                f"ports of group '{g_up.name}'", count(uplinks), count(up_phys * b_up)))
    # down ports: the range given, else what the uplinks leave of a shared group
    if down_span is not None:
        down_phys = down_span[1] - down_span[0] + 1
    else:
        down_phys = g_down.count - (up_phys if g_up is g_down else 0)
    if g_up is g_down:
        taken = down_phys + up_phys
        overlap = down_span and up_span and not (down_span[1] < up_span[0] or up_span[1] < down_span[0])
        if overlap and up_use is not None and down_use is not None:  # a span is a `use`'s
            problems.append(Problem("NET019", here + ("up", "ports"), f"up ports {up_use.ports} overlap down ports "
                                    f"{down_use.ports} in group '{g_down.name}': expected separate ranges"))
        elif taken > g_down.count:
            problems.append(Problem("NET001", here + ("up" if up_use is not None else "uplinks",),
                                    f"{down_phys} down + {up_phys} up ports of {switch.id}'s group '{g_down.name}' "
                                    f"exceed its {g_down.count}", count(taken), count(g_down.count)))
        elif down_phys <= 0 and up_use is not None:  # a tier without down ports would take no endpoints at all
            problems.append(Problem("NET019", here + ("up",), f"`up` takes all {g_down.count} ports of "
                                    f"{switch.id}'s group '{g_down.name}' and leaves none for `down`: expected "
                                    f"`ports` for both roles (e.g. down: {{ports: '1-{g_down.count // 2}'}}, up: "
                                    f"{{ports: '{g_down.count // 2 + 1}-{g_down.count}'}}), or no `up`, so that "
                                    f"the oversubscription splits the group", count(0), count(1),
                                    public=f"the uplinks take all {g_down.count} ports of {switch.id}'s group "
                                    f"'{g_down.name}' and leave none for the downlinks: the ports are to be divided "
                                    "between the two"))
    down = max(down_phys, 0) * b_down
    # ports no role takes: the rest of the down group, and of a separate up group, each at its breakout
    left_down = g_down.count - max(down_phys, 0) - (up_phys if g_up is g_down else 0)
    left_up = 0 if g_up is g_down else g_up.count - up_phys
    idle = idle_ports(switch, g_down, g_up)
    unassigned = max(left_down, 0) * b_down + max(left_up, 0) * b_up + max(up_phys * b_up - up, 0) + idle
    return TierPorts(down + up, b_down, down, up, up_rate, g_down, tuple(problems), unassigned, idle, b_up)


def role_groups(switch: Switch, down_use: PortUse | None, up_use: PortUse | None, uplinks: int | None = None,
                uplink_speed: Q | None = None) -> tuple[Ports, Ports]:
    """The port groups a tier's switch gives to its `down` and `up` roles (the rules of `tier_ports`)."""
    down = switch.group(down_use.group if down_use else None) or switch.ports
    if up_use is not None:
        return down, switch.group(up_use.group) or down
    if uplinks is not None and uplink_speed is not None:
        others = [g for g in switch.groups if g is not down and _gbps(g.speed) >= _gbps(uplink_speed) - 1e-9]
        return down, others[0] if others else down
    return down, down
