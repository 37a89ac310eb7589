"""COST: prices, currencies and the basis of a cluster's capex and TCO (docs/reliability.md, Cost).

A cluster's capex complete and in one currency, its prices' basis and dates, its switches racked and its checkpoint
storage costed whole; the price lists themselves (COST004) are `checks.price_lists`', split from here for its size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from archgen.analyse.bom_line import CapexLine
from archgen.analyse.cost import Cost
from archgen.analyse.hall_storage import differing
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.storage_cost import NO_POWER, NO_PRICE, not_costed
from archgen.checks import price_lists  # noqa: F401 (registers COST004: the price lists, each price resolved once)
from archgen.checks.cost_dates import dates_note, later_prices, old_prices
from archgen.checks.registry import Context, Violation, check
from archgen.model import Cluster
from archgen.money import money_text


def _costs(ctx: Context) -> Iterator[tuple[str, Cluster, Cost]]:
    """(cluster path, cluster spec, cost) of every cluster the COST stage analysed."""
    for path, cost in sorted(ctx.operations.cost.items()):
        yield path, ctx.clusters[path].cluster.spec, cost


@check("COST001", "cost.currency")
def one_currency(ctx: Context) -> Iterator[Violation]:
    """A cluster's prices and facility costs are in one currency.

    archgen does not convert currencies, so capex and TCO are not computed across two. The message names what is
    priced in each currency: the parts and racks (with the `Prices` list of each) and the facility's energy price
    and rent, the first five of each currency, then how many more.

    Fix: give every price of the cluster's parts, racks and facility in one currency.
    """
    for path, spec, cost in _costs(ctx):
        for problem in cost.problems:
            yield Violation(path, spec.id, (), str(problem), public=getattr(problem, "public", ""))


@check("COST002", "cost.unpriced", severity="warning")
def parts_priced(ctx: Context) -> Iterator[Violation]:
    """Every line of a cluster's bill of materials has a price, so that its capex is complete.

    A cluster with an unpriced part or rack has no capex, TCO or cost per accelerator-hour, and its workloads no
    cost per token: a figure that counted the part as free would pass a cost requirement it may fail. Requirements
    on those figures are not provided. The links of a fabric tier that names no link media (CAB003) are unpriced
    too: they have no part on the bill of materials, and counting them as free would leave out their cables and
    transceivers. A part priced only after the facility's `cost.as_of` is unpriced at that date, its prices named.

    Fix: price the parts and racks listed: a `Prices` document (a quote or price book, overlaying the catalog) or
    `price:` on each (basis `sourced` with a quote, or `assumed` with a note); name the link media of each tier
    listed (`links.access`, `links.leaf_spine`, `links.spine_core`).
    """
    for path, spec, cost in _costs(ctx):
        if cost.unpriced:
            what = "capex, TCO and cost per accelerator-hour and per token not provided: "
            yield Violation(path, spec.id, (), what + cost.unpriced_names(), public=what + cost.unpriced_names(True))


@check("COST003", "cost.assumed", severity="info")
def prices_sourced(ctx: Context) -> Iterator[Violation]:
    """A cluster's capex and TCO rest on sourced prices (assumed ones are listed in its documents' open items).

    Fix: replace the assumed prices with quotes (`basis: sourced`, `source:` the quote).
    """
    for path, spec, cost in _costs(ctx):
        if cost.assumed:
            yield Violation(path, spec.id, (), f"cost rests on assumed figures: {', '.join(cost.assumed)}")


@check("COST005", "cost.free_part", severity="warning")
def parts_not_free(ctx: Context) -> Iterator[Violation]:
    """No part or rack on a cluster's bill of materials is priced at 0, which counts it as free in the capex.

    A zero is a price, so the capex, TCO, cost per token and network share are computed with the part free of
    charge. An assumed zero (a placeholder left in a price list) is a warning; a sourced one (a quote that includes
    the part in another line's price) is information, so that it is seen where the capex is read. Each part is named
    once, with its count over the bill of materials and, where some stand in racks and some in none, how many of each.

    Fix: give the part its price (a `Prices` document or `price:`); where a quote includes it in another line,
    keep the zero with `basis: sourced` and a `source` that names that line.
    """
    for path, spec, cost in _costs(ctx):
        free: dict[tuple[str, str, str, str], list[CapexLine]] = {}   # one entry per part, list and basis
        for line in cost.lines:
            if (price := line.unit_price) is not None and price.m == 0:
                free.setdefault((line.part, line.basis, line.listed, money_text(price)), []).append(line)
        for basis in ("assumed", "sourced"):
            named = [f"{part} x{sum(x.quantity for x in lines)} at {zero} ({basis}"
                     + (f", Prices {listed}" if listed else "") + _where(lines) + ")"
                     for (part, b, listed, zero), lines in free.items() if b == basis]
            if named:
                yield Violation(path, spec.id, (), "capex counts as free: " + ", ".join(named),
                                severity="warning" if basis == "assumed" else "info")


def _where(lines: list[CapexLine]) -> str:
    """Where a part's lines stand, where some are placed in racks and some in none ('; 96 placed, 96 in no rack')."""
    if len({x.unracked for x in lines}) < 2:
        return ""
    placed = sum(x.quantity for x in lines if not x.unracked)
    return f"; {placed} placed, {sum(x.quantity for x in lines) - placed} in no rack"


@check("COST006", "cost.price_dates", severity="warning")
def prices_of_one_date(ctx: Context) -> Iterator[Violation]:
    """A cluster's prices hold within 12 months of each other, so that its capex adds prices of one price level.

    Every price carries the date it held. archgen adds prices as they are and adjusts none to a common date, as a
    cost estimate must before it adds them (GAO Cost Estimating and Assessment Guide, "Inflation Adjustments": cost
    data must be expressed in like terms, in one base year). Prices within 12 months of each other are taken as
    one base year; an older one is at another price level, which archgen has no index to adjust. Where no price is
    old, the dates a cost rests on, oldest to newest, are stated as information; a price more than 12 months older
    than the newest is a warning that names it.

    Where the facility's `cost:` states the date the cost is for (`as_of`), a price dated more than 12 months before
    it is a warning too, by the same rule: it is at an older price level than the one the cost is for. A price (or
    the electricity price) dated after it is a warning that names it: a later price level, or a mistyped date; a
    part's price so dated is not used (its newest held then is, else it is unpriced: COST002); by day
    where both dates give one, else by month (a quote of 2026-12-16 is after 2026-12-01, one of 2026-12 is not). That
    date is the spec's, never the clock's, so a run's output stays the same on any day. Unstated, prices are compared
    with each other (a quote whose every line is five years old is then one base year, stated as information), and
    a price dated after the archgen that runs was dated (`archgen.CODE_DATE`, printed in the warning; no earlier than
    any date in its shipped catalog) is a warning that names it as a date likely written wrongly, such as a mistyped
    year: the other prices are compared without it, so that a price a typo dates in 2031 does not make every other
    one "older". The code's date, not the clock's, keeps one version's output the same on any day; a price that is
    right but newer than the archgen that runs is judged once the cost states `as_of`.

    The facility's electricity price is a price of the TCO too: where it states its `date` (`cost.energy.date`), a
    tariff more than 12 months older than the newest part price, part prices more than 12 months older than the
    tariff, or a tariff more than 12 months before `as_of` is a warning by the same rule, and the information names
    its date.

    Each old price is one warning, which names every date it is more than 12 months older than (the newest part
    price, the electricity price, the cost date), however many lines of the bill of materials list it. Where the
    capex or the TCO is not provided (an unpriced part: COST002), the warning says what it would add, not that it does.

    Fix: re-quote the old prices, or restate them at the newest price's date (`date:` and `capex:` of the part's
    `price:` or its `Prices` line; `date:` and `price:` of the facility's `cost.energy`), with the adjustment in
    `source:`.
    """
    for path, spec, cost in _costs(ctx):
        if not cost.dated and not any(line.later for line in cost.lines):   # a price set aside is named
            continue
        facility = cost_facility(ctx.clusters[path])[0]   # on a site of halls, theirs (hall30)
        old = [*old_prices(path, spec, cost, facility), *later_prices(path, spec, cost, facility)]
        yield from old or [Violation(path, spec.id, (), dates_note(cost, facility), severity="info")]


@check("COST007", "cost.unracked", severity="warning")
def switches_racked(ctx: Context) -> Iterator[Violation]:
    """Every switch on a cluster's bill of materials stands in a rack, so that its rack space is costed.

    The space cost is per rack position and a rack's price covers its enclosure and power distribution, so a switch
    that no rack holds (a tier with no `rack:`, or more switches than its racks hold: NET012, CAB004) takes no rack
    position in the space cost and no enclosure or PDU in the capex: its rack space would read as free. Its own
    price and power are counted. The warning names the switches, their count and the rack units they take.

    Switches are counted per placement, tier by tier, as the cabling places them (`analyse.placement.unplaced`;
    CAB004 gives their runs the floor's longest length), not per part over the cluster: where another tier's racks
    hold spare slots of the same part, the bill of materials counts a tier's unplaced switches as those, so the
    capex and space cost price positions the fabric does not use for them; a second warning says so.

    Fix: place the switches in racks (the tier's `rack:`, with a rack type that holds them, counted in the cluster's
    units), so that their racks are costed like any other.
    """
    specs = ctx.design.specs
    for path, spec, cost in _costs(ctx):
        named = []
        for line in cost.unracked:
            part = specs.get(line.part)
            height = getattr(getattr(part, "mechanical", None), "height", None)
            named.append(f"{line.part} x{line.quantity}" + (f" ({(height * line.quantity).m_as('U'):g} U)"
                                                             if height is not None else ""))
        if named:
            racks = ctx.clusters[path].cluster.rack_total
            yield Violation(path, spec.id, (), f"the switches placed in no rack, {', '.join(named)}, have no rack "
                                               f"position in the space cost ({racks} rack{'s' * (racks != 1)}) and no "
                                               "enclosure or PDU "
                                               "in the capex: their rack space is not costed")
        counted = Counter({line.part: line.quantity for line in cost.unracked})
        yield from _placed_elsewhere(path, spec, ctx.clusters[path], counted)


def _placed_elsewhere(path: str, spec: Cluster, a: ClusterAnalysis, counted: Counter) -> Iterator[Violation]:
    """COST007 for the switches a tier places in no rack that the bill of materials counts in other tiers' slots.

    `counted` holds, by switch part, those the bill of materials itself has no rack for (the first warning's).
    """
    loose = a.cabling.unplaced_switches if a.cabling is not None else ()
    for part in sorted({sid for _, _, sid, _ in loose}):
        tiers = [(f, t, n) for f, t, sid, n in loose if sid == part]
        total = sum(n for _, _, n in tiers)
        extra = total - counted[part]
        if extra <= 0:
            continue
        held = sorted(rid for rid in a.cluster.rack_counts
                      if any(item.part.id == part for item in a.cluster.rack_types[rid].items))
        named = ", ".join(f"fabric '{f}' {t} x{n}" for f, t, n in tiers)
        verb = "is" if extra == 1 else "are"
        which = f"{extra} {part} of those" if extra == total else f"{extra} of the {total} {part}"   # newuser96
        yield Violation(path, spec.id, (), f"{which} placed in no rack by their tier ({named}) "
                                           f"{verb} counted on the bill of materials as the spare {part} slots of "
                                           f"the '{', '.join(held)}' racks, where no tier puts them: the capex and "
                                           "space cost price those positions, not the switches' own, and their "
                                           "runs take the floor's longest length (CAB004)")


@check("COST008", "cost.storage_half", severity="warning")
def storage_costed_whole(ctx: Context) -> Iterator[Violation]:
    """A cluster's checkpoint storage states both its price and its power, or neither.

    With both, the storage is in the capex, TCO and costs per hour and per token, and its draw in IT power,
    facility power and energy (docs/reliability.md, "Checkpoint storage: price and power"). With neither, the
    documents say it is left out, as they did before these inputs existed. With one only, half of it is costed: a
    larger or faster storage is charged its price and not its energy, or its energy and not its price, and the
    cost per token reads lower than the storage makes it. It is a warning, not an error, since the stated half is a
    real figure; the documents' Open items and `archgen diff` say which half is left out.

    Fix: give the storage's `power` (`max`, and `typical` where published, with basis and source) beside its
    `price`, or its `price` (or a `Prices` document's price of its `id`) beside its `power`.
    """
    for path, spec, cost in _costs(ctx):
        left = not_costed(spec.storage, cost.storage_priced)
        if left == NO_POWER:
            yield Violation(path, spec.id, ("storage",), "checkpoint storage states a `price` and no `power`: its "
                                                         "price is in capex, but IT power, facility power and energy "
                                                         "leave its draw out, so cost per token reads low",
                            public="checkpoint storage states a price and no power draw: its price is in capex, "
                                   "but IT power, facility power and energy leave its draw out, so cost per token "
                                   "reads low")
        elif left == NO_PRICE:
            yield Violation(path, spec.id, ("storage",), "checkpoint storage states a `power` and no `price` (nor "
                                                         "does a `Prices` document price its `id`): its draw is in "
                                                         "IT power and energy, but capex and TCO leave its price out, "
                                                         "so cost per token reads low",
                            public="checkpoint storage states a power draw and no price: its draw is in IT power and "
                                   "energy, but capex and TCO leave its price out, so cost per token reads low")


@check("COST009", "cost.shared_storage", severity="warning")
def shared_storage_differs(ctx: Context) -> Iterator[Violation]:
    """Clusters of one hall that state a checkpoint storage under one `storage.id` give it the same figures.

    One id in one hall is one system (docs/clusters.md: an expansion's clusters share the site's file system): its
    draw is counted once in the hall's load at the largest stated `power.max`, and the hall's capex once at the
    largest price (`analyse.hall_storage`). Figures that differ cannot all be that system's.

    Fix: state the one system's figures in every cluster, or give two systems two ids.
    """
    for path, (sid, words) in sorted(differing(ctx.clusters).items()):
        spec = ctx.clusters[path].cluster.spec
        head = f"checkpoint storage '{sid}' is stated with other figures by another cluster of its hall: "
        yield Violation(path, spec.id, ("storage",), f"{head}{words}; one id is one system",
                        public=f"{head}{words.public}; one id is one system")
