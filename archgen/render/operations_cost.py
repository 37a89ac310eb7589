"""The cluster document's "Cost" section and its capex chart.

They format what `archgen.analyse.cost` computed (docs/reliability.md, Cost); they compute nothing. Split from
`render.operations` (fin9: that module had reached 398 of its 400 lines), which hands `cost_section` and `capex_chart`
on to the cluster document with the reliability section.
"""

from __future__ import annotations

import math
from typing import Any

from matplotlib.figure import Figure as Chart

from archgen import display
from archgen.analyse.capex_bounds import NOT_PRICED
from archgen.analyse.cost import PRICE_SPAN_MONTHS
from archgen.analyse.goodput_notes import LARGEST_RULE
from archgen.analyse.job_energy import upper_bound_words
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.unracked import unracked_words
from archgen.metrics import unbounded
from archgen.money import currency
from archgen.render import alt_text, fmt
from archgen.render.blocks import Column, Figure, Para, Section, Table
from archgen.render.cost_sheet import not_in_tco_text


def residual_words(a: Any) -> str:
    """What the capital per year recovers at the end of the depreciation years, in words (newuser85)."""
    fc = a.cluster.facility.cost if a.cluster.facility is not None else None
    if fc is None:
        return ""
    if "residual_value" not in fc.model_fields_set:
        return ("; it counts no resale value at the end of those years (the hall's `cost.residual_value` is not "
                "stated: 0)")
    return (f", less a residual value of {fmt.number(fc.residual_value * 100, 1)} % of the capex at their end "
            "(`cost.residual_value`), worth that x (1 + r)^−n today")


def stated_terms(a: Any) -> tuple[str, str, str]:
    """The hall's PUE and electricity price, its rent, and its depreciation years and discount rate, in words.

    Each as the cost paragraph gives it after its name (" (1.2 and 0.08 USD per kWh)", ", 5 years at 8 % a year");
    "" where the hall states no cost. A unit's slash is said "per" in this prose (Typst broke "USD/" over "kWh" at a
    line's end in the customer PDF; templates/document.typ now keeps any short slash word whole, review53, so the
    words are a choice of wording, no longer the fix). Before (newuser90), the paragraph named them and
    gave none, so the capital recovery factor and the TCO could not be followed from the document (only cost.csv
    held them).
    """
    facility, _ = cost_facility(a)
    fc = facility.cost if facility is not None else None
    if fc is None:
        return "", "", ""
    price = fc.energy.price
    energy = f" ({fc.energy.pue:g} and {price.m:g} {f'{price.units:~P}'.replace('/', ' per ')})"
    rent = f" at {fmt.q(fc.space_per_rack, digits=0).replace('/', ' per ')} for a rack position"
    years = f", {fc.depreciation_years:g} years at {fc.discount_rate * 100:g} % a year"
    return energy, rent, years


def cost_section(run: Any, a: Any) -> Section | None:
    """Capex by kind and part, opex from the average and peak load, TCO per year and per accelerator-hour."""
    cost = run.operations.cost.get(a.cluster.path)
    if cost is None or cost.currency is None:
        return None
    cur, m = cost.currency, a.metrics
    used = f"TCO per used accelerator-hour (utilisation {fmt.number(cost.utilisation * 100, 0)} %)"
    at_max = "" if cost.no_power or not a.typical_from_max else " (an upper bound: maximum draw, see above)"
    low = ", a lower bound" if cost.left_out else ""   # the capex leaves parts out (cost31)
    rows = (("Capex" + low, cost.capex), ("Capital recovered per year" + low, cost.capital_per_year),
            ("Energy per year" + at_max, cost.energy_per_year),
            ("Space per year" + (f" ({loose}: their rack positions are not in it)" if (loose := unracked_words(m))
                                 else ""), cost.space_per_year),
            *_opex_rows(cost, low),
            ("TCO per year" + (" (its energy an upper bound" + (", its capex a lower bound)" if low else ")")
                               if at_max else low), cost.tco_per_year),
            *((f"Sunk, not in the TCO: {x.what}", x.capex) for x in _sunk(a) if currency(x.capex) == cur))
    hourly = (("TCO per accelerator-hour (owned)" + low, cost.per_accelerator_hour, ""),
              (used + low, cost.per_used_accelerator_hour, ""),
              ("TCO per goodput accelerator-hour" + low, m.get("tco_per_goodput_accelerator_hour"),
               "tco_per_goodput_accelerator_hour"),
              ("TCO per goodput hour of the job's own accelerators" + low,
               m.get("tco_per_job_goodput_accelerator_hour"), "tco_per_job_goodput_accelerator_hour"))
    ranged = [title for title, value, name in hourly if value is not None and _range(m, name, cur) != "—"]
    idle = "" if cost.utilisation >= 1 or cost.no_power else (
        f", and for the {fmt.number((1 - cost.utilisation) * 100, 0)} % of hours it idles at "
        f"{fmt.q(cost.power_idle, 'kW', 1)} (each part's stated idle draw, else its average draw or, for a system "
        "whose accelerators' idle draw is measured, its maximum with them idle: assumed, an upper bound)")
    recovery = "" if cost.recovery_factor is None else (
        f" The capital recovery factor is {fmt.number(cost.recovery_factor, 4)} per year, r / (1 − (1 + r)^−n), the "
        "annuity that repays the capex over the depreciation years at the discount rate" + residual_words(a) + ".")
    share, out = m.get("network_capex_share"), m.get("scale_out_capex_share")
    network = "" if share is None or out is None else (
        f" Switches, transceivers and cables are {fmt.number(share.m_as('') * 100, 1)} % of the capex, the "
        f"scale-up switch trays included; the cluster interconnect without them (every fabric's switches, "
        f"transceivers and cables) is {fmt.number(out.m_as('') * 100, 1)} %, the basis on which Epoch AI puts "
        "cluster-level interconnect at 9-13 % of the amortised cost of frontier training runs (Cottier et al. 2024, "
        "arXiv:2405.21015).")
    lower = "" if not low else (f" Capex is a lower bound, and so are the TCO and every cost per accelerator-hour "
                                f"and per token on it: {cost.left_out}. A target it meets below its limit is at "
                                "risk, one it misses is not met (docs/reliability.md, Cost).")
    withheld = lower + ("" if not cost.withheld else (
        f" Capex, TCO and cost per accelerator-hour are not provided: {cost.withheld}.")) + (
        "" if not cost.no_opex else f" Energy, space, TCO and cost per accelerator-hour are not provided: "
                                    f"{cost.no_opex}.") + (
        "" if not cost.no_power else f" IT power, energy and TCO are not provided: {cost.no_power}.")
    average, peak = (None, None) if cost.no_power else (cost.power_average, cost.power_peak)
    energy, rent, years = stated_terms(a)
    bound = f", {words}" if average is not None and (words := upper_bound_words(a.typical_from_max)) else ""
    dates = "" if not cost.price_dates else (
        (f" The prices are dated {cost.price_dates} (oldest to newest)" if " to " in cost.price_dates
         else f" Every price is dated {cost.price_dates}")
        + ("" if not cost.stale else f"; {len(cost.stale)} of them more than {PRICE_SPAN_MONTHS} months older than "
                                     "the newest, and none adjusted to another date (COST006)") + ".")
    section = Section("cost", "Cost").add(
        Para(f"Capex from the bill of materials at each part's price (a Prices document's where one lists the "
             f"part); energy at the average IT load {fmt.q(average, 'kW', 1)} (peak {fmt.q(peak, 'kW', 1)}) for "
             f"the hours the cluster is used{idle}, times the facility's "
             f"PUE and electricity price{energy}{bound}; space{rent}; capital recovered over the depreciation years "
             f"at the discount rate{years} (docs/reliability.md, Cost).{recovery}{network}{withheld}{dates}"
             f"{sunk_words(a)} Every price carries its basis; assumed ones are listed under Open items. "
             f"{not_in_tco_text(cost)} Every input and step is in cost.csv and the workbook's 'cost' sheet (formulas "
             "there)."),
        # totals on assumed prices in whole currency units (cents would claim a precision the prices lack), the
        # rates per accelerator-hour, a few units each, in cents
        Table("cost-summary", f"Cost summary ({cur})", (Column("Item"), Column("Amount", digits=0, align="right")),
              tuple((name, value.to(cur).m if value is not None else None) for name, value in rows)),
        Table("cost-hourly", f"Cost per accelerator-hour ({cur}/h)", (Column("Item"),
                                                                      Column("Amount", digits=2, align="right"),
                                                                      Column("Range", align="right")),
              tuple((name, value.to(cur).m if value is not None else None,
                     _range(m, metric, cur) if value is not None else "—") for name, value, metric in hourly)),
        Table("capex", f"Capex by part ({cur})", (Column("Part"), Column("Kind"), Column("Qty", digits=0,
                                                                                        align="right"),
                                                   Column("Unit price", digits=0, align="right"),
                                                   Column("Total", digits=0, align="right"), Column("Basis"),
                                                   Column("Price date")),
              tuple((line.part, line.kind, line.quantity, line.unit_price.m if line.unit_price is not None else None,
                     line.total.m if line.total is not None else None, _basis(line), line.date or None)
                    for line in cost.lines)))
    if (whose := run.operations.goodput_job.get(a.cluster.path)) and any(v is not None for _, v, n in hourly if n):
        section.add(Para(f"The goodput of the cost per goodput hour is {whose}; the rule: {LARGEST_RULE}."))
    if ranged:   # what the Range column spans, as the performance section says of its Band column
        section.add(Para(f"Range of {', '.join(ranged)}: the {display.RANGE_BASIS}, from goodput_high "
                         "to goodput_low (the goodput of the cluster's largest training job, under Reliability and "
                         "availability); a target met at the amount but not at the range's far end is at risk."))
    if cloud := cloud_words(cost, a, low, at_max):
        section.add(Para(cloud))
    if cost.capex is not None:
        section.add(Figure("fig-capex", "capex", f"Capex by kind of part ({cur})", alt_text.capex(cost)))
    return section


def _opex_rows(cost: Any, low: str) -> list[tuple[str, Any]]:
    """The cost summary's rows of the cluster's stated opex (`analyse.opex`); one not stated says it is left out."""
    if cost.opex is None:
        return []
    rows = []
    for name, key, title in (("support", "support", "Support per year"),
                             ("licences", "licence_per_accelerator", "Software licences per year"),
                             ("other", "other_opex", "Other opex per year")):
        value = getattr(cost.opex, name)
        unpriced = name == "support" and cost.opex.unpriced_support
        said = (low if name == "support" else "") if value is not None else \
            f" ({cost.opex.share * 100:g} % of the capex, which is not provided)" if unpriced else \
            f" (not stated: `cost.{key}`, left out of the TCO)"
        rows.append((title + said, value))
    return rows


def cloud_words(cost: Any, a: Any, low: str, at_max: str) -> str:
    """The cloud comparison in words: the hall's cloud price and the breakeven utilisation ("" without a price)."""
    cc = a.cluster.spec.cost
    if cc is None or cc.cloud is None:
        return ""
    p, cur = cc.cloud, cost.currency
    if cost.breakeven is None:   # a stated price is never dropped without a word (review48)
        own = currency(p.per_accelerator_hour) or cur
        why = "the TCO is not provided (above), so neither is the breakeven utilisation" if own == cur else \
            f"it is in {own} and the prices in {cur}, and archgen converts no currency"
        return (f"The cloud list price of {fmt.number(p.per_accelerator_hour.to(f'{own}/h').m, 2)} {own} per "
                f"accelerator-hour ({p.source}, {p.date}, {p.basis}) is not compared: {why}.")
    value, bare = cost.breakeven
    used = cost.per_used_accelerator_hour
    at = "" if value == math.inf else f"{fmt.number(value * 100, 1)} %"
    said = (f"Against the cloud list price of {fmt.number(p.per_accelerator_hour.to(f'{cur}/h').m, 2)} {cur} per "
            f"accelerator-hour ({p.source}, {p.date}, {p.basis}), owning breaks even at a utilisation of {at}" if at
            else f"The cloud list price of {fmt.number(p.per_accelerator_hour.to(f'{cur}/h').m, 2)} {cur} per "
                 f"accelerator-hour ({p.source}, {p.date}, {p.basis}) does not cover a used hour's extra energy")
    said += (": the TCO per used accelerator-hour equals the cloud's price there, (capital + space + other opex + "
             "idle energy) / (price × accelerators × 8,766 h − (energy used − energy idle))")
    if value > 1:
        said += "; above 100 %, owning costs more per used hour than the cloud at any utilisation"
    elif used is not None:
        said += (f"; at the hall's utilisation of {fmt.number(cost.utilisation * 100, 0)} % a used hour costs "
                 f"{fmt.number(used.to(cur).m, 2)} {cur}")
    if low:
        said += "; the capex being a lower bound, the breakeven may be higher"
    if at_max:
        said += (f"; its energy being at maximum draw, an upper bound, it may be lower, down to "
                 f"{fmt.number(bare * 100, 1)} % with no energy cost")
    return said + " (docs/reliability.md, Cost)."


def _sunk(a: Any) -> tuple[Any, ...]:
    """The sunk capital its hall's `cost:` states (`FacilityCost.sunk`)."""
    hall = cost_facility(a)[0]   # on a site of halls, theirs (hall30)
    fc = hall.cost if hall is not None else None
    return fc.sunk if fc is not None else ()


def sunk_words(a: Any) -> str:
    """The hall's sunk capital as the cost paragraph states it ("" where it states none), and a rent of 0."""
    facility = cost_facility(a)[0]   # on a site of halls, theirs (hall30)
    fc = facility.cost if facility is not None else None
    if facility is None or fc is None:
        return ""
    hall = facility.id
    paid = "; ".join(f"{x.what}, {fmt.number(x.capex.m, 0)} {currency(x.capex)} ({x.date}, {x.basis})"
                     for x in fc.sunk)
    said = f" Not in the capex or the TCO: {hall}'s sunk capital, paid before this decision ({paid})." if paid else ""
    if fc.space_per_rack.m == 0:
        said += f" {hall} charges no rent per rack position: the space cost is 0" + (
            ", its building being sunk." if paid else ", and no sunk capital is stated for it.")
    return said


def _range(m: Any, name: str, cur: str) -> str:
    """The range of the cost metric `name` (its `_low` to `_high`) in `cur`, as `check` gives it, or "—" without one.

    An infinite end (goodput's low end is 0) reads `metric.unbounded`'s reason, never a number (nu41cost: the cost
    table showed "TCO per goodput accelerator-hour 39.62" alone where check gave 13.56 to no upper bound).
    """
    low, high = (m.get(f"{name}_{end}") for end in ("low", "high")) if name else (None, None)
    if low is None or high is None:
        return "—"
    return " to ".join(unbounded(name) if v.m == math.inf else fmt.number(v.to(cur).m, 2) for v in (low, high))


def _basis(line: Any) -> str:
    """A capex line's basis as the table shows it: the price list it comes from, or why it has no price."""
    if line.unit_price is None:
        return "unpriced" if line.priceable else NOT_PRICED
    shared = f"; {line.shared}" if line.shared else ""   # a storage other clusters of the hall price too
    return line.basis + (f" (Prices {line.listed})" if line.listed else "") + shared


def capex_chart(cost: Any) -> Chart:
    """Capex by kind of part, as horizontal bars."""
    parts = cost.breakdown()
    fig = Chart(figsize=(7.0, 0.6 + 0.35 * max(len(parts), 1)))
    ax = fig.subplots()
    names = list(parts)[::-1]
    values = [parts[n].m / 1e6 for n in names]
    ax.barh(names, values, color="#4a90d9")
    for y, v in enumerate(values):
        ax.text(v, y, f" {v:,.2f}", va="center", fontsize=7)
    ax.set_xlabel(f"million {cost.currency}")
    ax.grid(axis="x", color="#dddddd", linewidth=0.5)
    fig.tight_layout()
    return fig
