"""COST006's dates: each price of a cluster's cost against every date it is judged by, one finding per old price.

A price on the bill of materials is judged against the newest price on it, the facility's cost date (`cost.as_of`)
and its electricity price's date (`cost.energy.date`); the electricity price against the newest part price and the
cost date. A price more than `PRICE_SPAN_MONTHS` older than any of them is in one warning that names every date
it misses, shared by prices that miss the same dates (weight67: a 2023 rack price beside 2025 quotes, a 2025
tariff and a 2025 cost date was three warnings, each naming it). A part listed on several lines (racked and
unracked switches) is one price.

Split from `checks.cost` for its size; `checks.cost.prices_of_one_date` (COST006) reports what these find.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator

from archgen import CODE_DATE, __version__
from archgen.analyse.bom_line import CapexLine
from archgen.analyse.cost import PRICE_SPAN_MONTHS, Cost
from archgen.checks.registry import Violation
from archgen.model import Cluster, Facility
from archgen.model.cost import dated_after, month_of
from archgen.open_item import Worded, customer_text

#: How a finding ends: what the capex does with old part prices (one, several), the TCO with an old electricity price;
#: where that figure is not provided (an unpriced part, COST002; a load of unknown draw), what it would do.
CAPEX_TAIL = ("the capex adds it as it is, adjusted to no common date",
              "the capex adds them as they are, adjusted to no common date")
TARIFF_TAIL = ("the TCO adds its energy cost to the capital as it is, adjusted to no common date",) * 2
CAPEX_UNSTATED = ("the capex, not provided here, would add it as it is, adjusted to no common date",
                  "the capex, not provided here, would add them as they are, adjusted to no common date")
TARIFF_UNSTATED = ("the TCO, not provided here, would add its energy cost to the capital as it is, adjusted to no "
                   "common date",) * 2


def old_prices(path: str, spec: Cluster, cost: Cost, facility: Facility | None) -> Iterator[Violation]:
    """COST006: the warnings of prices dated more than `PRICE_SPAN_MONTHS` before a date they are judged against.

    Each old price is in one warning, which names every such date, in the order newest part price, electricity
    price, cost date. Its end says what the capex or TCO does with it, or, where that figure is not provided, would do.
    """
    dated = cost.compared   # a price dated after this archgen's own date is named by `later_prices` alone
    if not dated:
        return
    newest = dated[-1]
    assert newest.month is not None  # dated lines have a month
    fc = facility.cost if facility is not None else None
    tariff = fc.energy.date if fc is not None else None
    tariff = None if tariff is None or _unknowable(tariff, cost) else tariff
    as_of = fc.as_of if fc is not None else None
    newest_ref = (newest.month, f"the newest price on the bill of materials ({newest.part}, {newest.date})")
    tariff_ref = [(month_of(tariff), tariff_name(facility))] if facility is not None and tariff is not None else []
    as_of_ref = [(month_of(as_of), Worded(f"{facility.id}'s cost date, {as_of} (`cost.as_of`)",
                                          f"{facility.id}'s cost date, {as_of}"))] \
        if facility is not None and as_of is not None else []
    capex = [(price_name(line), line.month) for line in one_per_price(dated)]
    yield from _old(path, spec, capex, [newest_ref, *tariff_ref, *as_of_ref],
                    CAPEX_TAIL if cost.capex is not None else CAPEX_UNSTATED)
    yield from _old(path, spec, [(name, month) for month, name in tariff_ref], [newest_ref, *as_of_ref],
                    TARIFF_TAIL if cost.tco_per_year is not None else TARIFF_UNSTATED)


def later_prices(path: str, spec: Cluster, cost: Cost, facility: Facility | None) -> Iterator[Violation]:
    """COST006: the warning of prices dated after the date the cost is for, or after this archgen's own, naming each.

    A quote dated after the date the cost is for (`cost.as_of`) is at a later price level than the cost claims, or its
    date is mistyped (newuser90: a price dated 2031 was taken, and only the spread between prices warned); it did not
    exist at that date, so the capex does not use it (money40: it was taken, and as the newest price every other was
    judged against it): the part takes its newest price held then, else is unpriced (`price_scope.chosen`). By day
    where both dates give one, else by month (`model.cost.dated_after`; review54: a quote a few days after the cost
    date in its month was not flagged). Where the cost states no date, a price dated after this archgen's own date
    (`archgen.CODE_DATE`, `Cost.known_until`) is one it cannot tell from a mistyped date (newuser98: a 2031 price
    among 2025 ones was taken as the newest, and every other price called older); it is named so, and the other
    prices are compared without it (`Cost.compared`). Both dates are the spec's or the code's, never the clock's
    (deterministic output).
    """
    fc = facility.cost if facility is not None else None
    tariff = fc.energy.date if fc is not None else None
    if facility is not None and fc is not None and fc.as_of is not None:
        later = [f"{part} ({date}" + (f", Prices {doc})" if doc else ")") for date, part, doc in   # set aside
                 sorted({(date, line.part, doc) for line in cost.lines for date, doc in line.later})]   # (`chosen`)
        parts = bool(later)
        later += [tariff_name(facility)] if tariff is not None and dated_after(tariff, fc.as_of) else []
        text = "{} " + f"{'is' if len(later) == 1 else 'are'} dated after " + "{}" + \
            "; a price of a later price level than the one the cost is for, or a date written wrongly" + \
            ("; a part's price dated after it is not used: the capex takes its newest price held then, and a part "
             "with none is unpriced (COST002)" if parts else "")
        when = Worded(f"{facility.id}'s cost date, {fc.as_of} (`cost.as_of`)", f"{facility.id}'s cost date, {fc.as_of}")
    else:
        later = [price_name(line) for line in one_per_price(cost.unknowable)]
        later += [tariff_name(facility)] if facility is not None and tariff is not None and \
            _unknowable(tariff, cost) else []
        one = len(later) == 1
        text = "{} " + f"{'is' if one else 'are'} dated after archgen {__version__}'s own date, {CODE_DATE}, and the " \
            f"cost states no date of its own: likely {'a date' if one else 'dates'} written wrongly (a mistyped " \
            f"year?); the other prices' dates are compared without {'it' if one else 'them'}. If " \
            f"{'it is' if one else 'they are'} right, give the facility's cost the date it is for" + "{}" + \
            "; prices are then judged against that date"
        when = Worded(" (`cost.as_of`)", "")
    if later:
        yield Violation(path, spec.id, (), text.format(", ".join(later), when),
                        public=text.format(", ".join(map(customer_text, later)), customer_text(when)))


def _unknowable(date: datetime.date | str, cost: Cost) -> bool:
    """Whether `date` is after this archgen's own date where the cost states none of its own (`Cost.known_until`)."""
    return cost.known_until is not None and dated_after(date, cost.known_until)


def _old(path: str, spec: Cluster, prices: list[tuple[str, int | None]], refs: list[tuple[int, str]],
         tail: tuple[str, str]) -> Iterator[Violation]:
    """The warnings of `prices` (name, month) older than some of `refs` by more than the span, naming those dates.

    Prices that miss the same dates share one warning ('n1 (2019-11), r1 (2019-11) are ...'), so each old price is
    in one warning only.
    """
    missing: dict[tuple[str, ...], list[str]] = {}
    for name, month in prices:
        assert month is not None  # dated lines have a month
        missed = tuple(ref for at, ref in refs if at - month > PRICE_SPAN_MONTHS)
        if missed:
            missing.setdefault(missed, []).append(name)
    for missed, names in missing.items():
        one = len(names) == 1
        text = "{} " + f"{'is' if one else 'are'} more than {PRICE_SPAN_MONTHS} months older than " + "{}; " + \
            tail[0 if one else 1]
        yield Violation(path, spec.id, (), text.format(", ".join(names), _and(list(missed))),
                        public=text.format(", ".join(map(customer_text, names)),
                                           _and([customer_text(m) for m in missed])))


def one_per_price(lines: Iterable[CapexLine]) -> list[CapexLine]:
    """The lines with one per price: a part listed on several lines at one date and list is one price."""
    return list({(line.part, line.date, line.listed): line for line in lines}.values())


def dates_note(cost: Cost, facility: Facility | None) -> str:
    """The dates a cost rests on, as the information states them where no price is old.

    "prices on the bill of materials are dated 2025-01 to 2025-03 (oldest to newest); hall-air's electricity price is
    dated 2024-07", or "... are all dated 2025-01".
    """
    dated = cost.dated
    dates = (f"dated {cost.price_dates} (oldest to newest)" if dated[-1].date != dated[0].date
             else f"all dated {dated[-1].date}")
    fc = facility.cost if facility is not None else None
    tariff = f"; {facility.id}'s electricity price is dated {fc.energy.date}" \
        if facility is not None and fc is not None and fc.energy.date is not None else ""
    return f"prices on the bill of materials are {dates}{tariff}"


def tariff_name(facility: Facility) -> Worded:
    """The electricity price as COST006 names it: "hall-air's electricity price (2024-07, `cost.energy.date`)".

    A `Worded`: a customer reads it without the key, "hall-air's electricity price (2024-07)".
    """
    assert facility.cost is not None  # only called on a facility whose energy price is dated
    said = f"{facility.id}'s electricity price ({facility.cost.energy.date}"
    return Worded(f"{said}, `cost.energy.date`)", f"{said})")   # the customer's words without the key


def price_name(line: CapexLine) -> str:
    """A priced line as COST006 names it: 'r1 (2023-02)', 'qm9700 (2026-11, Prices vendorb-quote)'."""
    return f"{line.part} ({line.date}" + (f", Prices {line.listed})" if line.listed else ")")


def _and(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
