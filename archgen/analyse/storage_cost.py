"""A cluster's checkpoint storage in its cost and power: its draw where `storage.power` states it, and what is left out.

The storage stands in no rack, so the cabling's bill of materials holds none of it: its draw is added to the
cluster's IT power here (`max` to `it_power`, `typical`, else `max`, to `it_power_typical` and the average load),
outside every rack (no power shelf feeds it, so no shelf loss), and its price enters capex as one line
(`analyse.cost`). Where the block states no price or no power, `not_costed` says what cost per token and IT power
leave out (docs/reliability.md, "Checkpoint storage: price and power").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from archgen.analyse.network import ClusterAnalysis
from archgen.model.storage import Storage
from archgen.units import Q_, Q

#: What the model leaves out of a cluster's checkpoint storage (docs/reliability.md, "Cost"): it is in no rack and
#: its `storage:` states no price and no draw, so a larger or faster storage changes goodput and cost per token at no
#: cost; `archgen diff` and a sweep's document say so.
NOT_COSTED = ("checkpoint storage has no price or power in archgen (its storage block states none): capex, IT "
              "power and cost per token leave it out, so the change is costed at 0 and powered at 0")


#: What is left out where the storage block states a price and no power (the draw) or a power and no price.
NO_POWER = ("checkpoint storage has no power in archgen (its storage block states no `power`): IT power, energy and "
            "cost per token leave its draw out, so the change is powered at 0 (its price is in capex)")
NO_PRICE = ("checkpoint storage has no price in archgen (its storage block states no `price`, and no `Prices` "
            "document names its `id`): capex and cost per token leave it out, so the change is costed at 0 (its "
            "draw is in IT power)")
#: The capex line kind of a cluster's checkpoint storage (`analyse.bom_line.CapexLine.kind`).
STORAGE_KIND = "Storage"


def storage_draw(a: ClusterAnalysis, typical: bool = False, idle: bool = False) -> Q:
    """The checkpoint storage's maximum draw; 0 W where `storage.power` is not stated.

    With `typical`: its typical draw, else its maximum; with `idle`: its idle draw, else that typical draw.
    """
    storage = a.cluster.spec.storage
    power = storage.power if storage is not None else None
    if power is None:
        return Q_(0, "kW")
    if idle and power.idle is not None:
        return power.idle.to("kW")
    return (power.typical if (typical or idle) and power.typical is not None else power.max).to("kW")


def not_costed(storage: Storage | None, priced: bool) -> str:
    """What the cost and power figures leave out of `storage` ("" where its price and power are both stated).

    `priced`: whether the cluster's capex holds the storage (its `price`, or a `Prices` document's price of its `id`).
    A storage built from `appliance` parts leaves out nothing: its racks count their price and power (an unpriced
    appliance is an unpriced part, COST002).
    """
    if storage is None or storage.appliance is not None or (priced and storage.power is not None):
        return ""
    if priced:
        return NO_POWER
    return NO_PRICE if storage.power is not None else NOT_COSTED


def storage_name(storage: Storage) -> str:
    """The storage's capex line name: its `id`, else 'checkpoint-storage'."""
    return storage.id or "checkpoint-storage"


def shared_storage(group: Iterable[ClusterAnalysis], factor: float = 1.0,
                   draw: Callable[[ClusterAnalysis], Q] = storage_draw) -> tuple[Q, str]:
    """What summing `group`'s loads on one hall counts more than once, and a note naming it ("" where nothing).

    A checkpoint storage that several clusters of a hall state with the same `storage.id` and a `power` is one system
    (the id is what a `Prices` document prices it by), as an expansion's clusters share the site's file system: its
    draw is in each cluster's IT power, and the hall carries it once, its largest stated `max` x `factor` (1 for the
    feeds, UPS and plant; the PUE for the generator sets). The excess is every other cluster's share of it. `draw`:
    which of its draws (`storage_draw`: the maximum; its typical or idle draw for the hall's energy).
    """
    by_id: dict[str, list[tuple[str, Q]]] = {}
    for c in group:
        storage = c.cluster.spec.storage
        if storage is not None and storage.id is not None and storage.power is not None:
            by_id.setdefault(storage.id, []).append((c.cluster.spec.id, draw(c) * factor))
    excess, notes = Q_(0, "kW"), []
    for sid, rows in by_id.items():
        if len(rows) > 1:
            once = max(q for _, q in rows)
            excess = excess + sum((q for _, q in rows), Q_(0, "kW")) - once
            names = ", ".join(f"'{cid}'" for cid, _ in rows[:-1]) + f" and '{rows[-1][0]}'"
            notes.append(f"checkpoint storage '{sid}', stated by {names}, counted once at {once.to('kW'):.1f~P}")
    return excess.to("kW"), "; ".join(notes)
