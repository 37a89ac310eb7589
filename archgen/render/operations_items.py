"""What a cluster's cost and reliability figures rest on that is assumed or missing, for its Open items.

Split from `render.operations` (review31: that module had grown past the 400-line limit with newuser64's cost sheet
and review30's borrowed-rate text); it formats what `archgen.analyse.cost` and `archgen.analyse.reliability` found.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.cost import PRICE_SPAN_MONTHS
from archgen.analyse.storage_cost import NO_PRICE, NOT_COSTED, not_costed
from archgen.open_item import OpenItem


def open_items(run: Any, a: Any) -> list[str]:
    """What the cost and reliability figures rest on that is assumed or missing, for Open items."""
    items: list[str] = []
    cost = run.operations.cost.get(a.cluster.path)
    if cost is not None and cost.assumed:
        items.append(OpenItem("aside", "Cost rests on assumed figures", ", ".join(cost.assumed), "replace with quotes"))
    if cost is not None and cost.unpriced:
        parts = [line.part for line in cost.unpriced if not line.no_media]
        tiers = [f"{line.part} x{line.quantity}" for line in cost.unpriced if line.no_media]
        if parts:
            items.append(OpenItem("aside", "Capex, TCO and cost per accelerator-hour and per token are not provided "
                                  "until these parts are priced", ", ".join(parts), "a Prices document or `price:`"))
        if tiers:
            items.append("Capex, TCO and cost per accelerator-hour and per token are not provided until these fabric "
                         "tiers name their link media (CAB003), whose cables and transceivers have no part to price: "
                         + ", ".join(tiers) + " links.")
    if cost is not None and cost.stale:
        items.append(OpenItem("check", f"Capex adds prices more than {PRICE_SPAN_MONTHS} months older than the newest "
                              f"({cost.compared[-1].date}), adjusted to no common date",
                              ", ".join(f"{line.part} ({line.date})" for line in cost.stale), "re-quote them",
                              "COST006"))
    if cost is not None and cost.unracked:
        items.append(OpenItem("check", "Space cost and capex leave out the rack space (rack position, enclosure, PDU) "
                              "of the switches placed in no rack",
                              ", ".join(f"{line.part} x{line.quantity}" for line in cost.unracked),
                              "place them in racks", "COST007"))
    if cost is not None and cost.accessories:
        items.append("Capex leaves out the accessories the bill of materials counts by rule, which have no catalog "
                     "part to price: " + ", ".join(f"{line.part} x{line.quantity}" for line in cost.accessories) + ".")
    storage = a.cluster.spec.storage
    left = not_costed(storage, cost.storage_priced) if cost is not None else ""
    if storage is not None and left:  # its appliances are in no BOM line: priced and powered only where it says so
        held = f"the checkpoint storage ({storage.capacity:~P}, {storage.write_bandwidth:~P} write)"
        items.append(
            f"Capex and IT power leave out {held}, which `storage:` places in no rack and gives no price: a larger "
            "or faster storage raises goodput and lowers cost per token here at no cost." if left == NOT_COSTED else
            f"Capex leaves out {held}, to which `storage:` gives no `price` (its draw is in IT power): a larger or "
            "faster storage lowers cost per token here without its price." if left == NO_PRICE else
            f"IT power and energy leave out {held}, to which `storage:` gives no `power` (its price is in capex): a "
            "larger or faster storage lowers cost per token here without its energy.")
    rel = run.operations.reliability.get(a.cluster.path)
    if rel is not None and rel.assumed:
        items.append("Reliability rests on assumed failure rates: " + ", ".join(rel.assumed) + ".")
    if rel is not None and rel.elsewhere:   # the largest borrow: every rate of the set, from another accelerator
        items.append("Reliability rests on rate sets measured on other accelerators: " + ", ".join(rel.elsewhere)
                     + ".")
    if rel is not None and rel.lent():
        items.append("Reliability rests on failure rates borrowed from another operator's fleet: "
                     + ", ".join(rel.lent()) + ".")
    return items


__all__ = ["open_items"]
