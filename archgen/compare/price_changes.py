"""The stated prices that differ between BASE and HEAD (`compare.diff.compare`'s price rows): added, removed, changed.

A price removed from a rack that no cluster places moved no metric, so `diff` read "No differences" (newuser65's
trial: `specs/racks/dgx-h100-4.yaml` losing its enclosure price); in a cluster it shows only through the capex and
cost figures it leaves not provided. Each document's own `price` and each entry of a `Prices` list is compared as
stated, by document id (and part id in a list), on the documents both sides hold, and every entry of a `Prices`
list that one side alone holds, as added or removed: a quote is the input a buyer's pull request adds, and it has
no metric of its own to be listed by. Before (newuser103), adding a quote that priced the MI355X and TPU v4 parts
moved 56 metrics with no price listed, and moving the same prices from the parts into a quote read "11 stated
price(s) changed (11 removed)", every head cell "—", though each part was priced as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.errors import Location
from archgen.model.cost import Price
from archgen.model.prices import Prices
from archgen.validate import Specs
from archgen.waivers import object_path


@dataclass(frozen=True)
class PriceChange:
    """A price one side states and the other does not, or states otherwise (None: not stated there)."""

    object: str     # the object path of the document that states it (a price list's: 'prices/<id>')
    part: str       # the id priced: the document's own, or the part a price list names
    base: Price | None
    head: Price | None
    location: Location | None   # HEAD's `price`, else BASE's

    @property
    def kind(self) -> str:
        """'added', 'removed' or 'changed'."""
        return "added" if self.base is None else "removed" if self.head is None else "changed"


def _stated(specs: Specs) -> dict[tuple[str, str], tuple[Price | None, Location | None]]:
    """Every document's price (None where it states none) and every price-list entry, by (object, part)."""
    out: dict[tuple[str, str], tuple[Price | None, Location | None]] = {}
    for doc_id, doc in sorted(specs.items.items()):
        if isinstance(doc, Prices):
            for part, price in sorted(doc.prices.items()):
                out[(f"prices/{doc_id}", part)] = (price, specs.locate(doc_id, ("prices", part)))
        elif "price" in type(doc).model_fields:
            out[(object_path(doc), doc_id)] = (getattr(doc, "price", None), specs.locate(doc_id, ("price",)))
    return out


def price_changes(base: Specs, head: Specs) -> tuple[PriceChange, ...]:
    """The prices added, removed or changed on the documents both sides hold, and in price lists one side holds."""
    before, after = _stated(base), _stated(head)
    held = {o for o, _ in before} & {o for o, _ in after}
    out = []
    for key in sorted(k for k in set(before) | set(after) if k[0] in held or k[0].startswith("prices/")):
        (old, _), (new, there) = before.get(key, (None, None)), after.get(key, (None, None))
        if old != new:
            out.append(PriceChange(*key, old, new, there if new is not None else before[key][1]))
    return tuple(out)
