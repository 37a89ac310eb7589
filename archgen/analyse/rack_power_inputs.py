"""The unconfirmed power figures a rack's power and heat rest on, for its requirements (newuser46).

A rack drafted from announcements (a Vera Rubin NVL72 at 4 x 1,800 W per tray, an AMD Helios at an assumed 2,000 W
per MI455X: every `tdp` and `power.max` listed under `unconfirmed:`) gave "rack/vr-nvl72 | Rack IT power | <= 200 kW
| 183.6 kW | met" in `gap` and the compliance matrix, the same as a rack of datasheet figures, though `check` names
them for a cluster (PWR012) and a requirement on an estimate names its part's unconfirmed figures (REQ005). A rack's
power, heat and the flows that carry it are computed from its parts' figures (`POWER_FIELDS`: a system's or
switch's draw, the `tdp` of the accelerator fitted in a system, the `power` of NICs added to a system's figure, a
shelf's efficiency); each such figure listed unconfirmed is an assumed input of those metrics (`analyse.assumed`),
so a requirement met on them reads "met (on assumed inputs: vr-compute-tray power.max (unconfirmed), ...)".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from archgen.model import NIC, Accelerator, CoolingUnit, Link, Part, PowerShelf, Switch, System

#: The power figures of each kind of part that a rack's or cluster's power is computed from (PWR012 names them).
POWER_FIELDS: tuple[tuple[type, tuple[str, ...]], ...] = (
    (System, ("power.max", "power.typical")), (Switch, ("power.max", "power.typical", "power_includes_optics")),
    (CoolingUnit, ("power",)), (Accelerator, ("tdp",)), (NIC, ("power",)), (PowerShelf, ("efficiency",)),
    (Link, ("power_per_end",)))

#: A rack's metrics computed from those figures: its draw, its input at the feeds, its heat and what carries it.
RACK_POWER_METRICS = ("it_power", "it_power_typical", "rack_load", "input_power", "heat_to_liquid", "heat_to_air",
                      "heat_to_rear_door", "coolant_flow", "air_flow")


#: Of those, the load the rack's parts draw, before the shelves' conversion loss. A part's `power.typical` is read
#: by `it_power_typical` alone: the draw, the input and the heat are the maximum's (`analyse.rack.Power`).
LOAD_METRICS = ("it_power", "it_power_typical", "rack_load")


def stated(part: Any, field: str) -> bool:
    """Whether `part` states the dotted `field` (a value, not None)."""
    value = part
    for name in field.split("."):
        value = getattr(value, name, None)
    return value is not None


def unconfirmed_power_fields(part: Part) -> tuple[str, ...]:
    """`part`'s power figures (`POWER_FIELDS`) that it states and lists unconfirmed."""
    return tuple(f for kind, fields in POWER_FIELDS if isinstance(part, kind) for f in fields
                 if part.is_unconfirmed(f) and stated(part, f))


def rack_power_inputs(racks: Mapping[str, Any], specs: Any) -> dict[str, dict[str, tuple[str, ...]]]:
    """By rack path, its power metrics (`RACK_POWER_METRICS`) with the unconfirmed power figures they rest on.

    `racks` are `analyse.rack.RackAnalysis` by path; `specs` resolves a system's accelerator and NICs. Only racks
    whose figures rest on some are given.
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for path, a in racks.items():
        words: dict[str, None] = {}
        shelves: dict[str, None] = {}   # a shelf's efficiency: its loss, at the feeds and in the heat only
        typical: dict[str, None] = {}   # a typical draw: `it_power_typical` only (the rest take `power.max`)
        for item in a.rack.items:
            part = item.part
            parts = [part]
            if isinstance(part, System):
                parts += [specs.get(part.accelerator)] if part.accelerator else []
                parts += [specs.get(n.part) for n in part.nics] if part.nic_power is not None else []
            for p in parts:
                for f in unconfirmed_power_fields(p) if isinstance(p, Part) else ():
                    held = shelves if isinstance(p, PowerShelf) else typical if f == "power.typical" else words
                    held[f"{p.id} {f} (unconfirmed)"] = None
        m = {k: (*words, *(typical if k == "it_power_typical" else ()), *(shelves if k not in LOAD_METRICS else ()))
             for k in RACK_POWER_METRICS if k in a.metrics}
        if m := {k: v for k, v in m.items() if v}:
            out[path] = m
    return out
