"""COST006's dates: the bill of materials' prices against the facility's cost date and its electricity price's date.

Split from `checks.cost` for its size; `checks.cost.prices_of_one_date` (COST006) reports what these find.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from archgen.analyse.cost import PRICE_SPAN_MONTHS, CapexLine, Cost
from archgen.checks.registry import Violation
from archgen.model import Cluster, Facility
from archgen.model.cost import month_of


def older_than_as_of(path: str, spec: Cluster, cost: Cost, facility: Facility | None) -> Iterator[Violation]:
    """COST006 for prices dated more than `PRICE_SPAN_MONTHS` before the facility's `cost.as_of`, where stated.

    The electricity price's `date` is judged by the same rule.
    """
    fc = facility.cost if facility is not None else None
    if facility is None or fc is None or fc.as_of is None:
        return
    limit = month_of(fc.as_of)
    old = [line for line in cost.dated if line.month is not None and limit - line.month > PRICE_SPAN_MONTHS]
    tail = "the capex adds them as they are, adjusted to no common date"
    if old:
        yield Violation(path, spec.id, (), f"{dated_names(old)} {'is' if len(old) == 1 else 'are'} dated more than "
                                           f"{PRICE_SPAN_MONTHS} months before {facility.id}'s cost date, "
                                           f"{fc.as_of} (`cost.as_of`); {tail}")
    tariff = fc.energy.date
    if tariff is not None and limit - month_of(tariff) > PRICE_SPAN_MONTHS:
        yield Violation(path, spec.id, (), f"{tariff_name(facility)} is dated more than {PRICE_SPAN_MONTHS} months "
                                           f"before its cost date, {fc.as_of} (`cost.as_of`); the TCO adds its "
                                           "energy cost as it is, adjusted to no common date")


def tariff_name(facility: Facility) -> str:
    """The electricity price as COST006 names it: "hall-air's electricity price (2024-07, `cost.energy.date`)"."""
    assert facility.cost is not None  # only called on a facility whose energy price is dated
    return f"{facility.id}'s electricity price ({facility.cost.energy.date}, `cost.energy.date`)"


def tariff_apart(path: str, spec: Cluster, cost: Cost, facility: Facility | None) -> tuple[list[Violation], str]:
    """COST006 for an electricity price far from the bill of materials' prices, and its date for the information.

    Far: more than `PRICE_SPAN_MONTHS` apart. The date in words is "" where the price is not dated.
    The TCO adds energy per year to capital per year, so the tariff is one more price of the cost: older than the
    newest part price by more than the span, it is at another price level; newer than part prices by more than the
    span, they are. Neither is adjusted (newuser64: EIA's July 2024 tariff beside January 2025 prices, 6 months apart).
    """
    fc = facility.cost if facility is not None else None
    if facility is None or fc is None or fc.energy.date is None or not cost.dated:
        return [], ""
    tariff, newest = month_of(fc.energy.date), cost.dated[-1]
    out = []
    assert newest.month is not None  # dated lines have a month
    if newest.month - tariff > PRICE_SPAN_MONTHS:
        out.append(Violation(path, spec.id, (), f"{tariff_name(facility)} is more than {PRICE_SPAN_MONTHS} months "
                                                f"older than the newest price on the bill of materials "
                                                f"({newest.part}, {newest.date}); the TCO adds its energy cost to "
                                                "the capital as they are, adjusted to no common date"))
    old = [line for line in cost.dated if line.month is not None and tariff - line.month > PRICE_SPAN_MONTHS]
    if old:
        out.append(Violation(path, spec.id, (), f"{dated_names(old)} {'is' if len(old) == 1 else 'are'} more than "
                                                f"{PRICE_SPAN_MONTHS} months older than {tariff_name(facility)}; the "
                                                "TCO adds the capital to its energy cost as they are, adjusted to no "
                                                "common date"))
    return out, f"; {facility.id}'s electricity price is dated {fc.energy.date}"


def dated_names(lines: Iterable[CapexLine]) -> str:
    """Priced lines as COST006 names them: 'r1 (2023-02), qm9700 (2026-11, Prices vendorb-quote)'."""
    return ", ".join(f"{line.part} ({line.date}" + (f", Prices {line.listed})" if line.listed else ")")
                     for line in lines)
