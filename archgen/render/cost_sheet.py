"""A cluster's cost as a sheet a finance reader can audit: `cost.csv` and the workbook's `cost` sheet.

The document's Cost section gives the totals; this table gives every input and every step between them, one row
each, in the order `archgen.analyse.cost` computes them: each capex line (quantity x unit price), the capex, then
the facility's inputs (electricity price, PUE, the average and idle IT load, utilisation, hours a year, racks, rent,
depreciation years, discount rate, residual value) and the figures made from them (energy, space, capital
recovery factor, capital per year, TCO per year and per accelerator-hour, then per goodput hour and each job's cost
per hour and per million tokens). In the workbook each computed amount is a live formula over the
cells above it (`Formula`), so a reader can change the tariff or the PUE and see the TCO move; in the CSV, which
holds no formulas, it is the number archgen computed, and the "How computed" column says the formula in words.
It computes nothing that `analyse.cost` did not: each formula gives back the figure `check` reports
(`tests/render/test_cost_sheet.py`). newuser64: the workbook a finance analyst opened had no price at all (BOM,
requirements, cabling, port map); the capex and TCO were only in the document's text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from archgen.analyse.capex_bounds import NOT_PRICED
from archgen.analyse.cost import Cost
from archgen.analyse.job_energy import upper_bound_words
from archgen.analyse.opex import ITEMS
from archgen.analyse.site_cost import cost_facility
from archgen.model.reliability import HOURS_PER_YEAR
from archgen.money import currency
from archgen.render.blocks import Column, Formula, Table
from archgen.units import Q

COLUMNS = (Column("Item"), Column("Kind"), Column("Qty", digits=0, align="right"),
           Column("Unit price", digits=2, align="right"), Column("Amount", digits=4, align="right"),
           Column("Unit"), Column("How computed"), Column("Basis"), Column("Price date"), Column("Source"))
#: The sheet's columns by letter, as the formulas name them (row 1 is the heading, so a table row i is sheet row i+2).
QTY, PRICE, AMOUNT = "C", "D", "E"


def not_in_tco(cost: Cost) -> str:
    """What the TCO leaves out, in words ("" where the cluster's `cost:` states every opex item): `analyse.opex`."""
    left = cost.opex.left_out if cost.opex is not None else tuple(words for _, words in ITEMS)
    return "; ".join(left)


def not_in_tco_text(cost: Cost) -> str:
    """The cost paragraph's sentence on what the TCO leaves out, or what it holds beyond capital, energy and space."""
    left = not_in_tco(cost)
    held = ", ".join(name for name, v in (("support", cost.opex and cost.opex.support),
                                          ("software licences", cost.opex and cost.opex.licences),
                                          ("other opex", cost.opex and cost.opex.other)) if v is not None)
    said = f"The TCO holds the {held} the cluster's `cost:` states. " if held else ""
    return said + (f"The TCO leaves out {left}: not provided, never counted as 0; state them to compare proposals "
                   "that price them differently." if left else "The TCO leaves out no opex item archgen has an "
                   "input for.")


class _Rows:
    """The sheet's rows, each amount's cell address kept by name for the formulas below it."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []
        self.cell: dict[str, str] = {}

    def add(self, key: str, item: str, amount: Any, unit: str, how: str, basis: str = "", source: str = "",
            kind: str = "", qty: Any = None, price: Any = None, date: str = "") -> None:
        self.rows.append((item, kind, qty, price, amount, unit, how, basis, date, source))
        self.cell[key] = f"{AMOUNT}{len(self.rows) + 1}"

    def formula(self, expr: str, value: float) -> Formula:
        """`expr` with each {name} replaced by that row's cell, as a formula holding `value`."""
        return Formula("=" + expr.format(**self.cell), value)


def cost_sheet(cost: Cost, a: Any, metrics: Mapping[str, Mapping[str, Q]] | None = None,
               jobs: tuple[str, ...] = (), whose: str = "") -> Table | None:
    """The cost table of cluster analysis `a` (None where its prices are in several currencies: COST001).

    `metrics`: the run's, by object path, whose cluster goodput and `jobs` (the ids of the workloads on the cluster)
    add the cost per goodput accelerator-hour and each job's cost per hour and per million tokens (`_per_job`).
    `whose`: the job whose goodput the cluster's is, in words (`Operations.goodput_job`), said on its row.
    """
    cur = cost.currency
    if cur is None:
        return None
    r = _Rows()
    first = 2
    for line in cost.lines:
        price = line.unit_price.to(cur).m if line.unit_price is not None else None
        row = len(r.rows) + 2
        amount = None if price is None else Formula(f"={QTY}{row}*{PRICE}{row}", price * line.quantity)
        how = "Qty x unit price" if price is not None else (
            "unpriced: the capex is not provided (COST002)" if line.priceable else NOT_PRICED)
        r.add(f"line{row}", line.part, amount, cur, how, line.basis + (f" (Prices {line.listed})" if line.listed
                                                                        else ""),
              line.source, line.kind, line.quantity, price, line.date)
    last = len(r.rows) + 1
    if cost.capex is None:
        r.add("capex", "Capex", None, cur, f"not provided: {cost.withheld or 'no priced line'}")
        return _table(r, cur)
    r.add("capex", "Capex", Formula(f"=SUM({AMOUNT}{first}:{AMOUNT}{last})", cost.capex.to(cur).m), cur,
          "sum of the lines above (a system's price includes what is fitted in it)" + (
              f"; a lower bound: {cost.left_out}" if cost.left_out else ""))
    facility = cost_facility(a)[0]   # on a site of halls, theirs (hall30)
    fc = facility.cost if facility is not None else None
    if facility is None or fc is None or cost.energy_per_year is None or cost.space_per_year is None:
        r.add("energy", "Energy, space and TCO", None, cur, f"not provided: {cost.no_opex or cost.no_power}")
        return _table(r, cur)
    energy, src = fc.energy, f"{facility.id} cost.energy"
    r.add("price", "Electricity price", energy.price.to(f"{cur}/kWh").m, f"{cur}/kWh", "stated", energy.basis,
          energy.source)
    r.add("pue", "PUE", energy.pue, "", "stated: facility energy over IT energy", energy.basis, src)
    bound = upper_bound_words(a.typical_from_max)
    r.add("average", "Average IT load", cost.power_average.to("kW").m, "kW",
          "typical draw where a part states one, else its maximum, plus optics and the power shelves' loss, at the "
          "rack feeds" + (f"; {bound}" if bound else ""))
    idle = cost.power_idle if cost.power_idle is not None else cost.power_average
    r.add("idle", "Idle IT load", idle.to("kW").m, "kW", "each part's stated idle draw, else its average draw (a "
          "system's maximum with its accelerators at their measured idle draw, where less)")
    r.add("u", "Utilisation", cost.utilisation, "", "stated" if "utilisation" in fc.model_fields_set else
          "not stated: every hour taken as used (assumed)", fc.basis, f"{facility.id} cost.utilisation")
    r.add("hours", "Hours per year", HOURS_PER_YEAR, "h", "365.25 days x 24 h")
    r.add("energy", "Energy per year", r.formula("({average}*{u}+{idle}*(1-{u}))*{hours}*{pue}*{price}",
                                                 cost.energy_per_year.to(cur).m), cur,
          "(average load x utilisation + idle load x (1 - utilisation)) x hours x PUE x price"
          + ("; an upper bound, as the average load is" if bound else ""))
    r.add("racks", "Racks", a.cluster.rack_total, "", "rack positions of the design")
    r.add("rent", "Space per rack and month", fc.space_per_rack.to(f"{cur}/month").m, f"{cur}/month", "stated",
          fc.basis, fc.source)
    r.add("space", "Space per year", r.formula("{racks}*{rent}*12", cost.space_per_year.to(cur).m), cur,
          "racks x rent x 12 months")
    r.add("years", "Depreciation years", fc.depreciation_years, "years", "stated", fc.basis, fc.source)
    r.add("rate", "Discount rate", fc.discount_rate, "per year", "stated" if "discount_rate" in fc.model_fields_set
          else "not stated: 0, straight-line depreciation (assumed)", fc.basis, fc.source)
    if cost.recovery_factor is None or cost.capital_per_year is None or cost.tco_per_year is None:
        return _table(r, cur)
    r.add("crf", "Capital recovery factor", r.formula("IF({rate}=0,1/{years},{rate}/(1-(1+{rate})^-{years}))",
                                                      cost.recovery_factor), "per year",
          "r / (1 - (1 + r)^-n): the level yearly payment that repays 1 over n years at rate r")
    residual = fc.residual_value
    r.add("residual", "Residual value at the end", residual, "of the capex", "stated (resale value when the "
          "depreciation years end)" if "residual_value" in fc.model_fields_set else
          "not stated: 0, nothing recovered at the end", fc.basis, fc.source)
    r.add("capital", "Capital recovered per year", r.formula("{capex}*{crf}*(1-{residual}*(1+{rate})^-{years})",
                                                             cost.capital_per_year.to(cur).m), cur,
          "capex x capital recovery factor x (1 - residual x (1 + r)^-n): the capex less the present worth of "
          "the residual value, repaid over n years at rate r")
    cc = a.cluster.spec.cost   # the cluster's own running costs and cloud price (`analyse.opex`)
    terms = _opex_rows(r, cost, a, cc, cur)
    left = not_in_tco(cost)
    r.add("tco", "TCO per year", r.formula("{capital}+{energy}+{space}" + "".join(f"+{{{t}}}" for t in terms),
                                           cost.tco_per_year.to(cur).m), cur,
          "capital + energy + space" + "".join(f" + {t}" for t in terms) + " per year"
          + (f"; not in it: {left}" if left else ""))
    life = cost.tco_per_year.to(cur).m * fc.depreciation_years
    r.add("life", "TCO over the depreciation years", r.formula("{tco}*{years}", life), cur,
          "TCO per year x depreciation years, not discounted")
    r.add("financing", "Of which cost of capital", r.formula("{capital}*{years}-{capex}*(1-{residual})",
                                                             cost.capital_per_year.to(cur).m * fc.depreciation_years
                                                             - cost.capex.to(cur).m * (1 - residual)), cur,
          "capital recovered over the years less the capex less its residual value (0 at a discount rate of 0)")
    for x in fc.sunk:   # paid before: stated, in no formula above
        r.add(f"sunk{len(r.rows)}", f"Sunk: {x.what}", x.capex.m, currency(x.capex) or "",
              "paid before this decision: not in the capex, the capital per year or the TCO", x.basis, x.source,
              date=str(x.date))
    if cost.per_accelerator_hour is not None and a.accelerators:
        if "n" not in r.cell:
            r.add("n", "Accelerators", a.accelerators, "", "of the design")
        r.add("owned", "TCO per accelerator-hour (owned)", r.formula("{tco}/({n}*{hours})",
                                                                     cost.per_accelerator_hour.to(cur).m), f"{cur}/h",
              "TCO per year / (accelerators x hours)")
        r.add("used", "TCO per used accelerator-hour", r.formula("{owned}/{u}",
                                                                 cost.per_accelerator_hour.to(cur).m
                                                                 / cost.utilisation), f"{cur}/h",
              "owned hour / utilisation")
        _cloud(r, cost, cc, cur)
        _per_job(r, cur, cost.per_accelerator_hour.to(cur).m / cost.utilisation, metrics or {}, a.cluster.path,
                 jobs, whose)
    return _table(r, cur)


def _opex_rows(r: _Rows, cost: Cost, a: Any, cc: Any, cur: str) -> list[str]:
    """The support, licence and other opex rows (`analyse.opex`); the keys of those in the TCO, stated ones only."""
    opex, how = cost.opex, "not stated: not provided, left out of the TCO (never 0)"
    if opex is None:
        return []
    basis, src = (cc.basis, cc.source) if cc is not None else ("", "")
    share = cc.support if cc is not None else None
    r.add("share", "Support per year, share of the capex", share, "per year",
          "stated (cost.support)" if share is not None else how, basis, src)
    r.add("support", "Support per year", None if opex.support is None else
          r.formula("{capex}*{share}", opex.support.to(cur).m), cur, "capex x share" if opex.support is not None
          else how)
    r.add("n", "Accelerators", a.accelerators, "", "of the design")
    r.add("nodes", "Nodes", a.node_count, "", "systems with accelerators, of the design")
    rates = (("lica", "n", "Licences per accelerator and year", cc.licence_per_accelerator if cc else None),
             ("licn", "nodes", "Licences per node and year", cc.licence_per_node if cc else None))
    for key, _, item, rate in rates:
        r.add(key, item, None if rate is None else rate.to(f"{cur}/year").m, f"{cur}/year",
              "stated" if rate is not None else how, basis, src)
    stated = [f"{{{k}}}*{{{n}}}" for k, n, _, rate in rates if rate is not None]
    r.add("licences", "Licences per year", None if opex.licences is None else
          r.formula("+".join(stated), opex.licences.to(cur).m), cur, "per accelerator x accelerators + per node x "
          "nodes (the stated ones)" if opex.licences is not None else how)
    r.add("other", "Other opex per year", None if opex.other is None else opex.other.to(cur).m, cur,
          "stated (staff, insurance, taxes, spares)" if opex.other is not None else how, basis, src)
    return [key for key in ("support", "licences", "other") if getattr(opex, key) is not None]


def _cloud(r: _Rows, cost: Cost, cc: Any, cur: str) -> None:
    """The cloud list price and the breakeven utilisation against it, as a formula (`analyse.opex.breakeven`)."""
    if cc is None or cc.cloud is None or cost.breakeven is None or "average" not in r.cell:
        return
    price = cc.cloud.per_accelerator_hour.to(f"{cur}/h").m
    r.add("cloud", "Cloud price per accelerator-hour", price, f"{cur}/h", "stated", cc.cloud.basis,
          cc.cloud.source, date=str(cc.cloud.date))
    fixed = "({tco}-{energy})"   # capital + space + other opex
    idle = "{idle}*{hours}*{pue}*{price}"
    spread = "({average}-{idle})*{hours}*{pue}*{price}"
    value = cost.breakeven[0]
    r.add("breakeven", "Breakeven utilisation against the cloud", r.formula(
        f"({fixed}+{idle})/({{cloud}}*{{n}}*{{hours}}-{spread})", value) if value != float("inf") else None, "",
          "(capital + space + other opex + idle energy) / (cloud price x accelerators x hours - (energy used - "
          "energy idle)): where the used hour costs the cloud price; above 1, never" + (
              "" if value != float("inf") else "; infinite: the price does not cover a used hour's extra energy"))


def _per_job(r: _Rows, cur: str, used: float, metrics: Mapping[str, Mapping[str, Q]], cluster: str,
             jobs: tuple[str, ...], whose: str = "") -> None:
    """The rows from the used hour (`used`) to what a finance reader decides on (newuser85), as formulas.

    The cost per goodput accelerator-hour (the used hour over the goodput of the cluster's largest training job),
    then per job that has a cost per token: its accelerators, its tokens per second (a training job's before
    goodput, and its goodput), its cost per hour (used hour x accelerators) and per million tokens (that over its
    tokens per hour, x 10^6). `tests/render/test_cost_sheet.py` holds each to what `check` reports.
    """
    goodput = metrics.get(cluster, {}).get("goodput")
    if goodput is not None and goodput.m > 0:
        r.add("g", "Goodput (the cluster's largest training job)", goodput.m, "", "estimated (Reliability and "
              "availability; its range there)" + (f"; {whose}" if whose else ""))
        r.add("gh", "TCO per goodput accelerator-hour", r.formula("{used}/{g}", used / goodput.m), f"{cur}/h",
              "used hour / goodput; the value: its range over goodput's is under Cost")
    for i, job in enumerate(jobs):
        m = metrics.get(f"workload/{job}", {})
        per_hour, per_million, tps = m.get("job_cost_per_hour"), m.get("cost_per_million_tokens"), \
            m.get("tokens_per_second")
        if per_hour is None or per_million is None or tps is None or not used:
            continue
        k = f"job{i}"   # a cell's key: an id may hold '.', which str.format reads as an attribute
        r.add(f"{k}n", f"{job}: accelerators", round(per_hour.to(cur).m / used), "", "the job's")
        r.add(f"{k}tps", f"{job}: tokens per second", tps.m_as("1/s"), "1/s", "estimated (Performance)")
        made, g = f"{{{k}tps}}", m.get("goodput")
        if g is not None:
            r.add(f"{k}g", f"{job}: goodput", g.m, "", "estimated (Reliability and availability)")
            made += f"*{{{k}g}}"
        r.add(f"{k}hour", f"{job}: cost per hour", r.formula(f"{{used}}*{{{k}n}}", per_hour.to(cur).m), f"{cur}/h",
              "used hour x the job's accelerators")
        r.add(f"{k}million", f"{job}: cost per million tokens",
              r.formula(f"{{{k}hour}}/({made}*3600)*1000000", per_million.to(cur).m), cur,
              "cost per hour / tokens per hour" + (" (goodput tokens: tokens per second x goodput)"
                                                   if g is not None else "") + " x 10^6"
              + ("; the value: its range over goodput's and the spares' is under Performance" if g is not None
                 else ""))


def _table(r: _Rows, cur: str) -> Table:
    return Table("cost", f"Cost: every input and step ({cur})", COLUMNS, tuple(r.rows))


__all__ = ["cost_sheet", "not_in_tco", "not_in_tco_text"]
