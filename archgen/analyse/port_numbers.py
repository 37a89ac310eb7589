"""How the port map numbers a switch tier's ports: down first, up after them, ``cage/lane`` in a shared cage.

A cage holds several ports where a breakout splits it or it is a twin-port cage. `analyse.portmap` names each
cable's switch ports with these (`PortNumbering.of` once per tier, `port_names` per cable); its module docstring
describes the numbering. Split from `analyse.portmap` at 399 lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.tiers import TierCount

__all__ = ["PortNumbering", "port_names", "ports_per_cage"]


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

    def name(p: int) -> str:
        if up:   # up ports follow the down cages: unsplit when they run faster than the down ports
            lanes = num.up_lanes
            cages, k = math.ceil(num.down / num.breakout), p - num.down - 1
            return f"{cages + k // lanes + 1}/{k % lanes + 1}" if lanes > 1 else str(cages + k + 1)
        return f"{(p - 1) // num.breakout + 1}/{(p - 1) % num.breakout + 1}" if num.breakout > 1 else str(p)
    first_name, last_name = name(nums[0]), name(nums[-1])
    if n == 1:
        text = first_name
    elif "/" in first_name and first_name.split("/")[0] == last_name.split("/")[0]:
        text = f"{first_name}-{last_name.split('/')[1]}"     # lanes of one cage: 33/1-4
    else:
        text = f"{first_name}-{last_name}"
    return f"{text} (past the {'up' if up else 'down'} ports)" if over else text
