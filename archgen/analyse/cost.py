"""Cost: capex from the cluster's BOM, opex from its analysed load, TCO per year and per accelerator-hour.

- Prices: a `Prices` document's price of a part or rack where one of the cluster's proposal lists it
  (`analyse.price_scope`), else the part's own `price`.
- Capex: every BOM line (racks, systems, switches, shelves, PDUs, CDUs, transceivers and cable assemblies) at its
  price; a system's price includes what is fitted in it. One unpriced line and capex is not provided, nor is any
  figure that rests on it (`CAPEX_METRICS`, and a workload's `JOB_COST_METRICS`): never a capex that counts a part
  as free (COST002 names the parts). The checkpoint `storage:` is one more line where it is priced (a `Prices`
  document's price of its `id`, else its `price`); unpriced, it is left out, as before, and the documents say so
  (`storage_cost.not_costed`): never "not provided" for it.
- Energy: the average IT load (each system's and switch's `power.typical` where published, else `power.max`, plus
  optics, and the power shelves' conversion loss on both: at the rack feeds; plus the checkpoint storage's stated
  draw) for the facility's `utilisation` share of 8,766 h, the idle load (`power.idle` where a part states it,
  else its average draw: assumed) for the rest, x PUE (the hall's energy, `facility_energy_per_year`, MWh) x
  electricity price; the peak is the cluster's `it_power`.
- Capital is recovered over `depreciation_years` at `discount_rate` with the capital recovery factor
  r / (1 - (1 + r)^-n) (straight line, 1/n, at r = 0), less the present worth of the `residual_value` the hardware
  keeps at the end (`recovered_per_year`).
- TCO per year = recovered capital + energy + space (racks x space per rack per month x 12).
- Per accelerator-hour: TCO per year over every hour of every accelerator (owning), over the hours they are used
  (x 1 / utilisation) and over the goodput hours of the cluster's largest training job (x 1 / goodput); a job's
  cost per hour is the used-hour cost x its accelerators, and per token that over its goodput tokens per hour
  (training) or served tokens (inference).

The pipeline stage that runs this beside the reliability analysis, and adds goodput and cost per token to each
workload, is `analyse.operations_stage`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archgen import CODE_DATE
from archgen.analyse.bom import UNRACKED
from archgen.analyse.bom_line import CapexLine
from archgen.analyse.capex_bounds import left_out
from archgen.analyse.conversion import unpowered
from archgen.analyse.cost_load import accelerator_idle_bound, average_load, stated_lines
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.opex import Opex, breakeven, energy_cost, facility_energy, opex_metrics, other_opex
from archgen.analyse.price_scope import Offer, chosen, price_list
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.storage_cost import STORAGE_KIND, storage_name
from archgen.metrics import SPARE_RANGED
from archgen.model.cost import Price, dated_after
from archgen.model.field_words import said as field_said
from archgen.model.reliability import HOURS_PER_YEAR
from archgen.money import by_currency, currency
from archgen.open_item import Worded
from archgen.units import Q_, Q
from archgen.validate import Specs

#: A facility `cost:` that states no `utilisation`: every hour is taken as used (an assumed input, COST003).
UNSTATED_UTILISATION = "utilisation (not stated: every hour taken as used)"
#: One that states no `discount_rate`: capital costs nothing, 1/n a year (straight line; an assumed input, COST003).
UNSTATED_DISCOUNT_RATE = "discount rate (not stated: 0, straight-line depreciation)"

#: Cluster figures that rest on every BOM line's price: not provided while one is unpriced.
CAPEX_METRICS = ("capex", "capital_cost_per_year", "tco_per_year", "tco_per_accelerator_hour",
                 "tco_per_used_accelerator_hour", "tco_per_goodput_accelerator_hour",
                 "tco_per_goodput_accelerator_hour_low", "tco_per_goodput_accelerator_hour_high",
                 "tco_per_job_goodput_accelerator_hour", "tco_per_job_goodput_accelerator_hour_low",
                 "tco_per_job_goodput_accelerator_hour_high", "network_capex_share", "scale_out_capex_share")
#: A cluster's figures that rest on the capex too where its `cost:` states their inputs (`analyse.opex`): withheld
#: with the capex, never given without it.
STATED_ON_CAPEX = ("support_cost_per_year", "breakeven_utilisation")
#: A workload's figures that rest on its cluster's TCO.
JOB_COST_METRICS = SPARE_RANGED
#: A cluster's figures that rest on its facility's `cost:` (energy price, rent, depreciation and discount rate).
FACILITY_METRICS = ("energy_cost_per_year", "space_cost_per_year", "capital_recovery_factor", "capital_cost_per_year",
                    "tco_per_year", "tco_per_accelerator_hour", "tco_per_used_accelerator_hour",
                    "tco_per_goodput_accelerator_hour", "tco_per_goodput_accelerator_hour_low",
                    "tco_per_goodput_accelerator_hour_high", "tco_per_job_goodput_accelerator_hour",
                    "tco_per_job_goodput_accelerator_hour_low", "tco_per_job_goodput_accelerator_hour_high",
                    "breakeven_utilisation")
#: The most months a price in one cluster's cost may be older than its newest: prices further apart are at two price
#: levels, which one total must not add without adjusting them to one date (COST006; docs/reliability.md, Cost).
PRICE_SPAN_MONTHS = 12
#: BOM kinds that make up the network: switches, and transceivers and cable assemblies (`network_capex_share`).
NETWORK_KINDS = ("Switch", "Link")


@dataclass(frozen=True)
class Cost:
    """A cluster's capex, opex and TCO, and what they rest on."""

    cluster: str
    currency: str | None
    lines: tuple[CapexLine, ...]
    capex: Q | None
    power_average: Q
    power_peak: Q
    energy_per_year: Q | None
    space_per_year: Q | None
    capital_per_year: Q | None
    tco_per_year: Q | None
    per_accelerator_hour: Q | None
    problems: tuple[str, ...] = ()
    assumed: tuple[str, ...] = ()
    metrics: dict[str, Q] = field(default_factory=dict)
    power_idle: Q | None = None
    utilisation: float = 1.0
    recovery_factor: float | None = None
    no_opex: str = ""  # why the facility's figures and the TCO are not provided ("" where they are)
    no_power: str = ""  # why the load, energy and TCO are not provided: links without link media (`unpowered`)
    facility_energy: Q | None = None  # what the hall draws for the cluster in a year (MWh): IT energy x PUE
    scale_up_switch: str | None = None  # the scale-up (NVLink) switch part: in the network share, not the scale-out
    left_out: str = ""  # what the capex leaves out, a lower bound then ("" where nothing): `capex_bounds.left_out`
    opex: Opex | None = None  # support, licences and other opex the hall states, in the TCO (`analyse.opex`)
    breakeven: tuple[float, float] | None = None  # utilisation where owning costs the cloud's price; without energy
    idle_assumed: tuple[str, ...] = ()  # parts whose idle hours draw their average (no `power.idle`), utilisation < 1
    #: Those of `idle_assumed` whose idle hours draw less, the bound their accelerators' measured idle draw sets
    #: (`cost_load.accelerator_idle_bound`): still an upper bound.
    idle_bounded: tuple[str, ...] = ()
    #: The date a price dated after is taken as written wrongly (`archgen.CODE_DATE`) where the facility's cost states
    #: no date of its own (`cost.as_of`); None where it states one, which `checks.cost_dates.later_prices` judges by.
    known_until: str | None = None
    as_of: str = ""  # the date the facility's cost is for (`cost.as_of`); "" where it states none

    @property
    def unpriced(self) -> tuple[CapexLine, ...]:
        """BOM lines of catalog parts and racks without a price."""
        return tuple(line for line in self.lines if line.unit_price is None and line.priceable)

    def _unpriced_words(self, no_media: bool, said: bool = False) -> str:
        """The unpriced parts (or media-less links) as 'a x2, b x4', one entry per part, its lines' quantities summed.

        A switch some of whose units stand in no rack has two BOM lines (racked and unracked, COST007); the part is
        unpriced once, so it is named once, with the total. `said`: a media-less link's tier in a customer's words
        ("compute leaf-spine x64", not "compute leaf_spine").
        """
        total: dict[str, int] = {}
        later: dict[str, tuple[tuple[str, str], ...]] = {}   # a part priced only after the cost date: those prices
        for line in self.unpriced:
            if line.no_media == no_media:
                fabric, _, tier = line.part.rpartition(" ")
                part = f"{fabric} {field_said(tier)}" if said and no_media else line.part
                total[part] = total.get(part, 0) + line.quantity
                later[part] = later.get(part, ()) or line.later
        return ", ".join(f"{part} x{n}" + (f" (priced only after the cost date, {self.as_of}: {_listed(later[part])})"
                                           if later.get(part) else "") for part, n in total.items())

    def unpriced_names(self, said: bool = False) -> str:
        """The unpriced lines in words: 'unpriced parts a x2, b x4' and 'links without link media: compute x8'."""
        parts, links = self._unpriced_words(False), self._unpriced_words(True, said)
        return "; ".join(([f"unpriced parts {parts}"] if parts else []) +
                         ([f"links without link media: {links} (CAB003)"] if links else []))

    @property
    def withheld(self) -> str:
        """Why the capex and what rests on it are not provided ("" where they are)."""
        parts, links = self._unpriced_words(False), self._unpriced_words(True)
        pieces = ([f"unpriced parts ({parts}; COST002)"] if parts else []) + \
            ([f"links without link media ({links}; CAB003, COST002)"] if links else [])
        return f"{self.cluster}'s capex rests on {' and '.join(pieces)}" if pieces else ""

    @property
    def dated(self) -> tuple[CapexLine, ...]:
        """The priced lines, oldest price first (then by part), each with the date its price held."""
        return tuple(sorted((line for line in self.lines if line.month is not None),
                            key=lambda line: (line.month, line.date, line.part)))

    @property
    def unknowable(self) -> tuple[CapexLine, ...]:
        """Priced lines dated after `known_until`, this archgen's own date: likely a mistyped date (COST006)."""
        until = self.known_until
        return () if until is None else tuple(line for line in self.dated if dated_after(line.date, until))

    @property
    def compared(self) -> tuple[CapexLine, ...]:
        """The priced lines whose dates are compared with each other (`dated` less `unknowable`), oldest first.

        A price a typo dated in 2031 would otherwise be the newest, and every other price "older" than it.
        """
        unknowable = self.unknowable
        return tuple(line for line in self.dated if line not in unknowable)

    @property
    def price_dates(self) -> str:
        """The dates the capex rests on, oldest to newest ('2025-01 to 2025-03'; "" where no line is priced)."""
        dated = self.dated
        if not dated:
            return ""
        return dated[0].date if dated[0].date == dated[-1].date else f"{dated[0].date} to {dated[-1].date}"

    @property
    def stale(self) -> tuple[CapexLine, ...]:
        """Priced lines dated more than `PRICE_SPAN_MONTHS` before the newest price compared (COST006)."""
        dated = self.compared
        return tuple(line for line in dated if dated[-1].month - line.month > PRICE_SPAN_MONTHS)  # type: ignore[operator]

    @property
    def unracked(self) -> tuple[CapexLine, ...]:
        """Switches placed in no rack, whose rack position, enclosure and PDU nothing costs (COST007)."""
        return tuple(line for line in self.lines if line.unracked)

    @property
    def storage_priced(self) -> bool:
        """Whether the capex holds the cluster's checkpoint storage (its `price`, or a price list's of its `id`)."""
        return any(line.kind == STORAGE_KIND for line in self.lines)

    @property
    def accessories(self) -> tuple[CapexLine, ...]:
        """BOM lines counted by rule with no catalog part to price (rails, blanking panels, cords, patch cords)."""
        return tuple(line for line in self.lines if not line.priceable)

    @property
    def per_used_accelerator_hour(self) -> Q | None:
        """TCO per accelerator-hour in use: the owning cost over the facility's utilisation."""
        return None if self.per_accelerator_hour is None else self.per_accelerator_hour / self.utilisation

    def breakdown(self) -> dict[str, Q]:
        """Capex by kind of part (Rack, System, Switch, Link, ...), for the capex chart."""
        out: dict[str, Q] = {}
        for line in self.lines:
            if line.total is not None:
                out[line.kind] = out.get(line.kind, Q_(0, self.currency)) + line.total
        return dict(sorted(out.items(), key=lambda kv: -kv[1].m))


def capital_recovery(rate: float, years: float) -> float:
    """Capital recovery factor r / (1 - (1 + r)^-n); 1/n at r = 0.

    The annuity that repays a loan of 1 over n years at rate r (HOMER Energy's definition; Wikipedia, "Capital
    recovery factor": 10 % over 10 years gives 0.163).
    """
    return 1 / years if rate == 0 else rate / (1 - (1 + rate) ** -years)


def recovered_per_year(rate: float, years: float, residual: float) -> float:
    """Capital recovered per year per unit of capex, a share `residual` of it worth that at the end of `years`.

    The annual worth of a first cost P less a salvage value S: P (A/P, i, n) − S (A/F, i, n) = (P − S (1 + i)^−n)
    x the capital recovery factor (Blank and Tarquin, Engineering Economy, section 6.2: 50,000 USD, 5,000 USD
    salvage after 5 years at 10 %: 12,371 USD a year); (1 − S) / n at i = 0, straight-line depreciation to S.
    """
    return capital_recovery(rate, years) * (1 - residual * (1 + rate) ** -years)


def analyse_cost(specs: Specs, a: ClusterAnalysis) -> Cost | None:
    """Capex, opex and TCO of a cluster; None when nothing in it carries a price and its facility no cost."""
    facility, site = cost_facility(a)   # on a site of halls, theirs (hall30)
    fc = facility.cost if facility is not None else None
    as_of = fc.as_of if fc is not None else None   # a price dated after it is set aside (`price_scope.chosen`)
    listed = price_list(specs, a.cluster.spec.id)
    lines: list[CapexLine] = []
    for line, part in stated_lines(specs, a):
        if line.kind == "Rack":
            rack = a.cluster.rack_types.get(line.part)
            part = rack.spec if rack is not None else None
        taken, later = chosen(_offers(listed, line.part, getattr(part, "price", None)), as_of)
        price, doc = taken or (None, "")
        lines.append(CapexLine(line.part, line.kind, line.quantity, price.capex if price else None,
                               price.basis if price else "", price.source if price else "", part is not None, doc,
                               date=str(price.date) if price else "", month=price.month if price else None,
                               unracked=line.note == UNRACKED, later=_dates(later)))
    storage = a.cluster.spec.storage   # the checkpoint storage, where priced: its list's price first, as a part's
    if storage is not None and storage.appliance is not None:   # its appliances are racked parts, priced as such
        storage = None
    taken, later = chosen(_offers(listed, storage.id or "", storage.price), as_of) if storage else (None, ())
    if storage is not None and (taken is not None or later):   # priced only after the cost date: unpriced then
        price, doc = taken or (None, "")
        lines.append(CapexLine(storage_name(storage), STORAGE_KIND, 1, price.capex if price else None,
                               price.basis if price else "", price.source if price else "", listed=doc,
                               date=str(price.date) if price else "", month=price.month if price else None,
                               later=_dates(later)))
    # a tier that names no link media has no line in the BOM: its links are unpriced, not free (CAB003 for reach)
    lines += [CapexLine(f"{t.fabric} {t.tier}", "Link", t.links, None, no_media=True)
              for t in (a.cabling.tiers if a.cabling is not None else ()) if t.no_media]
    if fc is None and all(line.unit_price is None for line in lines):
        return None
    problems: list[str] = []   # a `Worded` each: COST001's message and its customer words
    currencies = {currency(line.unit_price) for line in lines if line.unit_price is not None}
    if fc is not None:
        currencies |= {currency(fc.energy.price), currency(fc.space_per_rack)}
    if (cc := a.cluster.spec.cost) is not None:   # its rates too: a licence in EUR beside USD prices is COST001
        # not the cloud price: it is in no total, only compared with them (`opex.breakeven`, review48)
        currencies |= {currency(q) for q in (cc.licence_per_accelerator, cc.licence_per_node, cc.other_opex)
                       if q is not None}
    cur = currencies.pop() if len(currencies) == 1 else None
    several = "prices in several currencies ({}); archgen does not convert them: give every price in one currency"
    if cur is None:   # COST001 names the lines of each currency (newuser27: 4 EUR lines among 15 USD ones)
        named = [(line.part + (f" (Prices {line.listed})" if line.listed else ""), line.unit_price)
                 for line in lines if line.unit_price is not None]
        if fc is not None and facility is not None:
            named += [(f"{facility.id} energy price", fc.energy.price), (f"{facility.id} rent", fc.space_per_rack)]
        if cc is not None:   # the cluster's own rates (`analyse.opex`)
            named += [(f"{a.cluster.spec.id} cost.{key}", q) for key, q in (
                ("licence_per_accelerator", cc.licence_per_accelerator), ("licence_per_node", cc.licence_per_node),
                ("other_opex", cc.other_opex)) if q is not None]
        problems.append(Worded(several.format(by_currency(named)), f"prices in several currencies "
                               f"({by_currency(named)}); they are not converted, so no capex or TCO is computed"))
    several = several.format(", ".join(sorted(c for c in currencies if c)))
    assumed = sorted({f"{line.part} price" for line in lines if line.basis == "assumed"})
    if fc is not None and facility is not None:   # fc is the facility's cost
        assumed += [f"{facility.id} {what}" for what, basis in (("energy price and PUE", fc.energy.basis),
                                                                ("space cost and depreciation", fc.basis))
                    if basis == "assumed"]
        assumed += [f"{facility.id} {words}" for key, words in (("discount_rate", UNSTATED_DISCOUNT_RATE),
                                                                 ("utilisation", UNSTATED_UTILISATION))
                    if key not in fc.model_fields_set]   # 0 and 1: the lowest cost, unless the hall says
    if storage is not None and storage.power is not None and storage.power.basis == "assumed":
        assumed.append(f"{storage_name(storage)} draw")
    average, peak = average_load(specs, a), a.metrics.get("it_power", Q_(0, "kW"))
    utilisation = fc.utilisation if fc is not None else 1.0
    idle, idle_assumed = average_load(specs, a, idle=True)
    idle_assumed = idle_assumed if utilisation < 1 else []   # no idle hours: nothing rests on their draw
    bounded = [p for p in idle_assumed if accelerator_idle_bound(specs, specs.get(p)) is not None]
    if plain := [p for p in idle_assumed if p not in bounded]:
        assumed.append(f"idle draw of {', '.join(plain)} (taken as their average draw)")
    if bounded:
        assumed.append(f"idle draw of {', '.join(bounded)} (at most their maximum with each accelerator at its "
                       "measured idle draw instead of its TDP)")
    priced = [line.total for line in lines if line.total is not None]
    complete = not any(line.unit_price is None and line.priceable for line in lines)
    capex = sum(priced[1:], priced[0]).to(cur) if priced and cur and complete else None
    no_opex = "" if fc is not None else site.get("cost") or (
        f"facility '{facility.id}' gives no `cost:` (energy price and PUE, rent, depreciation and discount rate)"
        if facility is not None else f"cluster '{a.cluster.spec.id}' names no facility, so no energy price or rent")
    load = average * utilisation + idle * (1 - utilisation)
    until = CODE_DATE if as_of is None else None   # a stated cost date is judged by instead
    # a load that leaves out links' optics of unknown draw is no energy figure (`conversion.unpowered`)
    mwh = None if fc is None or unpowered(a) else facility_energy(load, fc)
    if cur is None:
        return Cost(a.cluster.spec.id, None, tuple(lines), None, average, peak, None, None, None, None, None,
                    tuple(problems), tuple(assumed), power_idle=idle, utilisation=utilisation, known_until=until,
                    as_of=str(as_of or ""),
                    no_opex=f"{several} (COST001)", facility_energy=mwh, idle_assumed=tuple(idle_assumed),
                    idle_bounded=tuple(bounded),
                    metrics={} if mwh is None else {"facility_energy_per_year": mwh})
    energy = space = capital = tco = per_hour = crf = extra = even = None
    if fc is not None:
        energy = None if mwh is None else energy_cost(load, fc, cur)
        space = (fc.space_per_rack * a.cluster.rack_total * Q_(1, "year")).to(cur)
        crf = capital_recovery(fc.discount_rate, fc.depreciation_years)
        extra = other_opex(cc, capex, a.accelerators, a.node_count, cur)
        if capex is not None and energy is not None:
            capital = capex * recovered_per_year(fc.discount_rate, fc.depreciation_years, fc.residual_value)
            tco = capital + energy + space + extra.total(cur)
            even = breakeven(capital + space + extra.total(cur), average, idle, fc, cc, a.accelerators,
                             HOURS_PER_YEAR, cur)
            if a.accelerators:
                per_hour = tco / (a.accelerators * HOURS_PER_YEAR)
    cost = Cost(a.cluster.spec.id, cur, tuple(lines), capex, average, peak, energy, space, capital, tco, per_hour,
                tuple(problems), tuple(assumed), power_idle=idle, utilisation=utilisation, recovery_factor=crf,
                no_opex=no_opex, no_power=unpowered(a), facility_energy=mwh,
                left_out=left_out(lines, a.cabling.bom if a.cabling is not None else ()) if capex is not None else "",
                scale_up_switch=a.cluster.scale_up_switch.id if a.cluster.scale_up_switch is not None else None,
                opex=extra, breakeven=even, idle_assumed=tuple(idle_assumed), idle_bounded=tuple(bounded),
                known_until=until, as_of=str(as_of or ""))
    cost.metrics.update(cost_metrics(cost))
    return cost


def _offers(listed: dict[str, list[Offer]], ref: str, own: Price | None) -> list[Offer]:
    """The prices of part (or storage) `ref`: its lists' by document id, then its own `price`."""
    return [*listed.get(ref, ()), *([(own, "")] if own is not None else [])]


def _listed(later: tuple[tuple[str, str], ...]) -> str:
    """Prices set aside in words: '2031-01', '2027-01 in Prices vendorb-quote and 2028-03'."""
    return " and ".join(date + (f" in Prices {doc}" if doc else "") for date, doc in later)


def _dates(offers: tuple[Offer, ...]) -> tuple[tuple[str, str], ...]:
    """Prices set aside as a line keeps them (`CapexLine.later`): (date, list) each."""
    return tuple((str(price.date), doc) for price, doc in offers)


def cost_metrics(c: Cost) -> dict[str, Q]:
    """The cost figures as named quantities (amounts in the cluster's currency)."""
    m: dict[str, Q] = {"power_average": c.power_average}
    if c.power_idle is not None and c.utilisation < 1:
        m["power_idle"] = c.power_idle
    if c.recovery_factor is not None:
        m["capital_recovery_factor"] = Q_(c.recovery_factor, "")
    if c.facility_energy is not None:
        m["facility_energy_per_year"] = c.facility_energy
    for name, value in (("capex", c.capex), ("energy_cost_per_year", c.energy_per_year),
                        ("space_cost_per_year", c.space_per_year), ("capital_cost_per_year", c.capital_per_year),
                        ("tco_per_year", c.tco_per_year), ("tco_per_accelerator_hour", c.per_accelerator_hour),
                        ("tco_per_used_accelerator_hour", c.per_used_accelerator_hour)):
        if value is not None:
            m[name] = value
    m.update(opex_metrics(c.opex, c.breakeven))
    if c.capex is not None and c.capex.m > 0:
        network = [(line.part, line.total) for line in c.lines if line.kind in NETWORK_KINDS and line.total is not None]
        m["network_capex_share"] = (sum((t for _, t in network), Q_(0, c.currency)) / c.capex).to("")
        # Epoch AI's cluster-level interconnect: the fabrics, without the scale-up switch trays of a rack-scale system
        out = (t for part, t in network if part != c.scale_up_switch)
        m["scale_out_capex_share"] = (sum(out, Q_(0, c.currency)) / c.capex).to("")
    return m
