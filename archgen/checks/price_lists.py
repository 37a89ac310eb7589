"""COST004: the `Prices` documents, each part and rack they price resolved once across the run's lists.

Split from `archgen.checks.cost` for its size (`MODULE_PARTS`), which imports this module, so COST's checks register
together: a price under an id that names nothing, a part priced differently by two lists, a fitted part's price, a
rack's price beside the parts placed in it (`rack: empty` / `populated`), a checkpoint storage's id; its information
on a list's lines that price nothing here is `checks.price_lines`'.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from archgen.analyse.fittings import FIELD_PATH, NOT_PROVIDED
from archgen.analyse.price_scope import apart, one_proposal, prices_cluster
from archgen.checks.price_lines import other_proposals, priced_nothing
from archgen.checks.registry import Context, Violation, check
from archgen.errors import did_you_mean
from archgen.model import Part, Rack, System
from archgen.model.cost import Price
from archgen.model.prices import Prices
from archgen.money import money_text
from archgen.units import Q

#: The id of each "not provided" fitting line (`liquid-manifold`, ...) and the rack field that would state it.
UNSTATED = {pid: field for field, (pid, _) in NOT_PROVIDED.items()}

#: COST004's fix where a rack's price may be the populated rack's: the team's, left out of the customer's words.
EMPTY_FIX = " (state `rack: empty` on a price of the empty rack)"


def _fitted(ctx: Context) -> dict[str, set[str]]:
    """The systems of the clusters' bills of materials that each fitted part (accelerator, NIC) is fitted in."""
    out: dict[str, set[str]] = {}
    for cost in ctx.operations.cost.values():
        for line in cost.lines:
            system = ctx.design.specs.get(line.part)
            if isinstance(system, System):
                for part in ([system.accelerator] if system.accelerator else []) + [s.part for s in system.nics]:
                    out.setdefault(part, set()).add(system.id)
    return out


def _rack_contents_priced_besides(ctx: Context) -> dict[tuple[str, str], str]:
    """By (price list, rack id): the rack's placed parts priced at their own `price:` beside the list's rack price.

    Only where no list prices any of its placed parts: a list that prices the rack and some of what it holds has
    split the rack as its quote does.
    """
    out: dict[tuple[str, str], str] = {}
    for path, cost in ctx.operations.cost.items():
        lines = {line.part: line for line in cost.lines}
        for line in cost.lines:
            rack = ctx.clusters[path].cluster.rack_types.get(line.part) if line.kind == "Rack" else None
            quoted = line.unit_price
            if rack is None or not line.listed or quoted is None:
                continue
            held = Counter(item.part.id for item in rack.items)
            if any(lines[p].listed for p in held if p in lines):
                continue
            own: list[tuple[str, int, Q]] = [(p, n, price) for p, n in sorted(held.items())
                                             if p in lines and (price := lines[p].unit_price) is not None]
            if own:
                total = sum((price * n for _, n, price in own[1:]), own[0][2] * own[0][1])
                out[(line.listed, line.part)] = (
                    f"{line.part} is priced {money_text(quoted)} here as the empty rack (enclosure and busbar), "
                    "and the parts placed in it are priced besides it at their own price: "
                    + ", ".join(f"{p} x{n} at {money_text(price)}" for p, n, price in own)
                    + f" ({money_text(total)} a rack); if this is the populated rack's price, they are counted twice")
                # the team's fix, which the customer's words (this text) leave out
                out[(line.listed, line.part)] += EMPTY_FIX
    return out


@check("COST004", "cost.price_list")
def price_list_resolves(ctx: Context) -> Iterator[Violation]:
    """A `Prices` document prices parts and racks that exist, and each at one price across the run's lists.

    A price under an id that names nothing prices nothing (the part it meant stays unpriced); where two lists price
    one part differently, the first by document id is used and the other is reported here. Where every costed
    cluster a list prices states its cost date (`cost.as_of`), the newest price held then is used
    (`analyse.price_scope.chosen`), so two prices whose dates tell which is newer (by day where both give one, else
    by month) are a price history, not a conflict: information names them and the one used; two of one date (or a
    month and a day in it) are still an error. Lists of two proposals
    (two folders named on the command line: `analyse.price_scope`) price no cluster in common and never disagree. A
    price of a part fitted in a system on a cluster's bill of materials (an accelerator, a NIC) is not counted,
    since the system's price is the price of what is fitted in it: a warning says so. A rack's price is the empty
    rack's (enclosure and busbar; its liquid fittings are parts of their own); where a list prices a rack and none
    of the parts placed in it, which keep their own prices, a warning says that a quote for the populated rack would
    count them twice, unless the price states `rack: empty` (a quote for the enclosure); one that states
    `rack: populated` is an error, as is `rack:` on a part's price. A price list may price parts and library racks
    this design does not use (information names them: `checks.price_lines`). A list never prices the clusters of another
    proposal; where it lists parts on one's bill of materials, information says so. A line the bill of materials
    counts by rule with no catalog part (`rail-kit`, `blanking-panel-1u`, a power cord, a fibre cord: the ids the
    BOM and the port map give them) is priced by that id. A cluster's checkpoint storage is priced by its
    `storage.id`, which must name no catalog part or rack (the price would price both); one built from
    `storage.appliance` parts is priced by those parts' prices, and a warning says a price of its `id` is not
    counted.

    Fix: correct the id (a catalog part's, a rack's, a BOM line's or a checkpoint storage's `storage.id`), or keep
    one price per part (remove it from one list, or make the two entries agree, or date them apart and state the
    cost's `as_of`); price a fitted part into its
    system's price; split a populated rack's quote into the empty rack and the parts placed in it, each priced in the
    list, or state `rack: empty` on a price that is the enclosure's.
    """
    specs = ctx.design.specs
    first: dict[str, list[tuple[str, Price]]] = {}   # by part: the lists before, each with its price
    dates = [(cost.cluster, cost.as_of) for cost in ctx.operations.cost.values()]   # "" where the cost states none
    billed = {line.part for cost in ctx.operations.cost.values() for line in cost.lines}
    taken = {(line.part, line.listed) for cost in ctx.operations.cost.values() for line in cost.lines}   # as_of
    counted = {line.part for cost in ctx.operations.cost.values() for line in cost.accessories}   # by rule (cost31)
    fitted = _fitted(ctx)
    twice = _rack_contents_priced_besides(ctx)
    stores = {s.id for a in ctx.clusters.values() if (s := a.cluster.spec.storage) is not None and s.id}
    racked = {s.id: s.appliance for a in ctx.clusters.values()   # review42: its appliances' own prices count it
              if (s := a.cluster.spec.storage) is not None and s.id and s.appliance is not None}
    for doc in sorted(specs.of(Prices), key=lambda d: d.id):
        priced = [date for cluster, date in dates if prices_cluster(specs, doc.id, cluster)]
        dated = bool(priced) and all(priced)   # every cluster it prices costed at a stated date: the dates pick
        for part, price in doc.prices.items():
            where = (f"prices/{doc.id}", doc.id, ("prices", part))
            catalog = (isinstance(specs.get(part), Part | Rack) or part in specs.shelf   # a library rack: unused
                       or part in counted)
            if part in racked and not catalog:
                yield Violation(*where, f"{part} is a checkpoint storage built from '{racked[part]}' appliances "
                                        "(`storage.appliance`), which its racks price by that part's id: this price "
                                        "is not counted in any capex", severity="warning")
            elif part in stores and catalog:
                yield Violation(*where, f"{part} names a catalog part or rack and a cluster's checkpoint storage "
                                        "(`storage.id`): this price would price both")
            elif not catalog and (field := UNSTATED.get(part)):   # newuser90: an id a lower bound's note names
                yield Violation(*where, f"{part} is the line of a rack that does not state its `{FIELD_PATH[field]}`: "
                                        "no count, so no price costs it; name the part (a catalog Accessory) and its "
                                        "count there, and price that part", public=f"{part} stands for the "
                                        f"{NOT_PROVIDED[field][1].lower()} of a rack that does not state them: no "
                                        "count, so no price costs them")
                continue
            elif not catalog and part not in stores:
                known = [k for k, d in specs.items.items() if isinstance(d, Part | Rack)] + sorted(stores | counted)
                yield Violation(*where, f"{part} is no catalog part or rack, nor a line the bill of materials counts "
                                        f"by rule{did_you_mean(part, known, lead='; ')}")
                continue
            if part in fitted and part not in billed:
                yield Violation(*where, f"{part} is fitted in {', '.join(sorted(fitted[part]))}, whose price includes "
                                        "it: this price is not counted in any capex", severity="warning")
            if price.rack is not None and not isinstance(specs.get(part), Rack) and part not in specs.shelf:
                yield Violation(*where, f"'rack: {price.rack}' states what a rack's price covers; {part} is no rack")
            elif price.rack == "populated":
                said = f"{part} is priced {money_text(price.capex)} here as the populated rack, and "
                yield Violation(*where, said + "archgen prices the parts placed in a rack by their own ids: they would "
                                        "be counted twice", public=said + "the parts placed in it are priced by their "
                                        "own ids too: they would be counted twice")
            elif (doc.id, part) in twice and price.rack is None:   # `rack: empty`: the enclosure, as stated
                said = twice[(doc.id, part)]
                yield Violation(*where, said, severity="warning", public=said.removesuffix(EMPTY_FIX))
            rivals = [o for o in first.get(part, ()) if one_proposal(specs, o[0], doc.id)]   # not another proposal's
            other = next((o for o in rivals if not (dated and apart(o[1], price))), None)   # the date picks: no rival
            if other is not None and other[1] != price:
                yield Violation(*where, f"{part} is priced {price.capex:~P} here and {other[1].capex:~P} in "
                                        f"Prices '{other[0]}'" + (", which is used" if (part, doc.id) not in taken
                                                                  else "; this one, held at the cost date, is used"))
            elif dated and (told := next((o for o in rivals if o[1] != price and apart(o[1], price)), None)):
                # a history only with a price its date tells apart; one of this date was said on that list
                yield Violation(*where, _history(part, (doc.id, price), told, taken), severity="info")
            first.setdefault(part, []).append((doc.id, price))
        yield from other_proposals(ctx, doc)
        yield from priced_nothing(ctx, doc, billed | counted | stores | set(fitted))


def _history(part: str, this: tuple[str, Price], other: tuple[str, Price], taken: set[tuple[str, str]]) -> str:
    """COST004's information on two lists that price a part at two dates a cost date picks between (not a conflict).

    Which of them the cost takes, where it takes one of them: a third list's, or neither (both dated after the cost
    date, or the part on no bill of materials), is left unsaid.
    """
    (here, price), (there, theirs) = this, other
    used = "; this one is used" if (part, here) in taken else f"; the one in Prices '{there}' is used" \
        if (part, there) in taken else ""
    return (f"{part} is priced {price.capex:~P} here ({price.date}) and {theirs.capex:~P} in Prices '{there}' "
            f"({theirs.date}): a price history, not a conflict, since the cost date takes the newest price held "
            f"then{used}")
