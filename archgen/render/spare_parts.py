"""The reliability section's spare-parts stock and a job's interruptions by part class (issue 22).

Formats what `archgen.analyse.spare_parts` and `archgen.analyse.failure_model.Reliability.by_class` computed
(docs/reliability.md, Spare-parts stock; Interruptions by part class); computes nothing.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.goodput_range import few_count, few_why
from archgen.analyse.spare_parts import no_turnaround
from archgen.display import near_one
from archgen.render.blocks import Column, Para, Table
from archgen.units import Q_

#: Where no part class states a replenishment turnaround: the stock is not provided, never sized to a default.
NO_STOCK = ("Spare-parts stock: not provided. How many accelerators, trays, switch trays, NICs and optics to hold on "
            "site rests on the time to get a failed part replaced (an RMA or resupply turnaround), which no input "
            "states (`turnaround` of a part's `reliability:`, of a class of the FailureRates set, or of the set); "
            "the failures per year above are the demand such a stock must cover. Hot spares (idle nodes that take "
            "a failed node's place at once) are the job table's.")
#: How the stock is sized, in words (`analyse.spare_parts`).
METHOD = ("Stock: the fewest units s with P(X <= s) at least {level:g} %, X ~ Poisson(failures a year x turnaround), "
          "the replacements on order at a random time (Palm's theorem; Sherbrooke, METRIC, Operations Research 1968; "
          "one replacement ordered per failure); 'no stock-out' is P(X <= s), that no failed unit waits for a spare, "
          "and the fill rate P(X <= s - 1), that a failure finds one on the shelf. Failures are independent at the "
          "set's rates, every unit of the class, interrupting or not (a host's rate may count operations that "
          "consume no part: Llama 3's 46 host interruptions include 32 host maintenances, so its stock is an upper "
          "bound); the turnaround's spread needs no input (Palm's theorem rests on its mean alone); a batch of "
          "failures from one event and a part repaired back into the stock are not modelled.")


def stock_blocks(rel: Any) -> list[Any]:
    """The spare-parts stock table and how it is sized, or `NO_STOCK` where no class states a turnaround."""
    if not any(line.stock is not None for line in rel.stock):
        return [Para(NO_STOCK)]
    rows = tuple((line.name, line.units, line.per_year,
                  Q_(line.turnaround, "s").to("day") if line.turnaround is not None else None, line.lead_basis,
                  line.demand,
                  line.stock, *(None if p is None else near_one(p) for p in (line.no_stockout, line.fill_rate)),
                  f"not provided: {no_turnaround(line)}" if line.stock is None else
                  "" if line.per_year else "rated at no failures: nothing to stock, no fill rate")
                 for line in rel.stock)
    cols = (Column("Class"), Column("Units", digits=0, align="right"),
            Column("Failures / year", digits=1, align="right"), Column("Turnaround", "day", 1, "right"),
            Column("Turnaround basis"),
            Column("Demand over turnaround", digits=2, align="right"), Column("Stock", digits=0, align="right"),
            Column("No stock-out", digits=3, align="right"), Column("Fill rate", digits=3, align="right"),
            Column("Note"))
    return [Table("spare-stock", f"Spare-parts stock per part class, sized to a {rel.no_stockout * 100:g} % chance of "
                  "no stock-out", cols, rows), Para(METHOD.format(level=rel.no_stockout * 100))]


def by_class_blocks(rel: Any) -> list[Any]:
    """A job on every accelerator: interruptions per day by part class, each with its count's 95 % interval.

    A class or part whose interval rests on fewer than `FEW_EVENTS` failures is marked "few events", as a rate set
    is where a range spans it, and a paragraph after the table says why (issue 22: Llama 3's NIC class, 7 events).
    """
    found = rel.by_class(rel.accelerators)
    if not found:
        return []
    total = sum(row[1] for row in found)
    lent = {c.name: c.lender for c in rel.classes if c.lender}
    parts: dict[str, list[tuple[Any, ...]]] = {}
    for name, sub, n, per_day, lo, hi in rel.by_subclass(rel.accelerators):   # spares23: inside the class's row
        events = next(c.rate.events for c in rel.classes if c.name == name and c.rate is not None and c.rate.split)
        parts.setdefault(name, []).append((f"{name}: {sub}", per_day, lo, hi, Q_(per_day / total, "") if total
                                           else None, _few(n, f"inside {name}: {n} of its {events} counted failures")))
    rows: tuple[tuple[Any, ...], ...] = ()
    for name, per_day, lo, hi, counted in found:
        note = _count_note(lo, counted)
        if name in lent:
            note = f"{note + '; ' if note else ''}rate not stated: the set's {lent[name]} rate stands in"
        note = _few(rel.class_events(name) if lo is not None else None, note)
        rows += ((name, per_day, lo, hi, Q_(per_day / total, "") if total else None, note), *parts.get(name, ()))
    table = Table("interruptions-by-class", f"Interruptions per day of a job on all {rel.accelerators:,} "
                  "accelerators by part class, with the 95 % Poisson interval of each class's own count",
                  (Column("Class"), Column("Per day", digits=3, align="right"),
                   Column("95 % low", digits=3, align="right"), Column("95 % high", digits=3, align="right"),
                   Column("Share", "percent", 1, "right"), Column("Note")), rows)
    few = [row[0] for row in rows if row[-1].startswith(FEW)]
    return [table, *([Para(f"Few events ({', '.join(few)}): {few_why('class')}; the threshold is the rate sets' "
                           "(docs/reliability.md, Few events).")] if few else [])]


#: How a row whose interval rests on fewer than `FEW_EVENTS` failures is marked (`few_count`'s words).
FEW = "few events: "


def _few(n: float | None, note: str) -> str:
    """`note` with the few-event mark first ('few events: 7'), where the row's count `n` is below `FEW_EVENTS`."""
    said = few_count(n).strip(" ()")
    return "; ".join(w for w in (said, note) if w)


def _count_note(low: float | None, counted: float) -> str:
    """What a class's interval covers: nothing where no count is stated, or only the counted rates' share."""
    if low is None:
        return "no count stated: its uncertainty is not provided"
    if counted < 1 - 1e-9:
        return (f"counted rates carry {counted * 100:.0f} % of it; the interval holds the rest at its point "
                "(no count stated for it)")
    return ""
