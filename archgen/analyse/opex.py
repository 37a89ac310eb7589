"""Running costs beyond energy and space, and the utilisation at which owning costs what the cloud charges.

- **Other opex** (cost32, newuser85 item 8): the cluster's `cost:` may state yearly support and maintenance as a share
  of the capex (`support`), software licences per accelerator and per node and year, and every other running cost
  per year (`other_opex`). Each stated one is a line of the TCO; an unstated one is *not provided*, never 0, and the
  TCO says it leaves it out (`left_out`). No default: a support share is each vendor's and contract's.
- **Breakeven utilisation** against a cloud list price p per accelerator-hour (the cluster's `cost.cloud`): the
  utilisation u at which the TCO per used accelerator-hour equals p. With F the TCO's fixed part per year (capital,
  space and the other opex), E1 the energy per year at every hour used and E0 with every hour idle (energy is
  E0 + (E1 − E0) u), N accelerators and H = 8,766 h, TCO(u) / (N H u) = p gives u* = (F + E0) / (p N H − (E1 − E0)).
  Above 1 (or with no positive denominator, infinite), owning costs more per used hour than the cloud at every
  utilisation.
  Without energy (the other end where energy is at maximum draw, an upper bound): F / (p N H).

The TCO is an equivalent annual cost: the capital recovery factor turns the capex into the level yearly payment that
repays it at the discount rate, so it is already discounted; a net present value over the years would be the same
cost stated another way (TCO per year / the capital recovery factor), so none is added (docs/reliability.md, Cost).
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.model.cost import ClusterCost, FacilityCost
from archgen.model.reliability import HOURS_PER_YEAR
from archgen.money import currency
from archgen.units import Q_, Q

#: The opex items a hall's `cost:` may state, each with the words the TCO uses where it leaves one out.
ITEMS = (("support", "support and maintenance contracts (`cost.support` not stated)"),
         ("licences", "software licences (`cost.licence_per_accelerator` and `licence_per_node` not stated)"),
         ("other", "other running costs: staff, insurance, taxes, a spare-parts stock (`cost.other_opex` not stated)"))


@dataclass(frozen=True)
class Opex:
    """The stated running costs per year beyond energy and space (None where not stated), in the cost's currency."""

    support: Q | None
    licences: Q | None
    other: Q | None
    share: float | None = None   # the stated `cost.support`, kept where the capex it multiplies is not provided

    @property
    def left_out(self) -> tuple[str, ...]:
        """What the TCO leaves out, in words: the items not stated (a stated support share on no capex: as such)."""
        return tuple(self.unpriced_support or words if key == "support" else words
                     for key, words in ITEMS if getattr(self, key) is None)

    @property
    def unpriced_support(self) -> str:
        """'' unless `cost.support` is stated and its capex is not: then that, in words (review48)."""
        if self.support is not None or self.share is None:
            return ""
        return (f"support and maintenance contracts (`cost.support` states {self.share * 100:g} % of the capex, "
                "which is not provided)")

    def total(self, cur: str) -> Q:
        """The stated items' sum per year (0 where none is stated)."""
        return sum((v for v in (self.support, self.licences, self.other) if v is not None), Q_(0, cur))


def other_opex(cc: ClusterCost | None, capex: Q | None, accelerators: int, nodes: int, cur: str) -> Opex:
    """The stated support (capex x share: None without a capex), licences and other opex per year, in `cur`."""
    if cc is None:
        return Opex(None, None, None)
    year = Q_(1, "year")
    support = None if cc.support is None or capex is None else (capex * cc.support).to(cur)
    per = [(cc.licence_per_accelerator, accelerators), (cc.licence_per_node, nodes)]
    licences = None if all(rate is None for rate, _ in per) else \
        sum(((rate * n * year).to(cur) for rate, n in per if rate is not None), Q_(0, cur))
    other = None if cc.other_opex is None else (cc.other_opex * year).to(cur)
    return Opex(support, licences, other, cc.support)


def facility_energy(load: Q, fc: FacilityCost, hours: float = HOURS_PER_YEAR) -> Q:
    """What the hall draws for an IT load over `hours` (a year: 8,766 h): load x hours x the annual PUE."""
    return (load * Q_(hours, "h") * fc.energy.pue).to("MWh")


def energy_cost(load: Q, fc: FacilityCost, cur: str, hours: float = HOURS_PER_YEAR) -> Q:
    """What that energy costs at the facility's price, in `cur`: the TCO's energy line and the breakeven's E0, E1."""
    return (facility_energy(load, fc, hours) * fc.energy.price).to(cur)


def breakeven(fixed: Q, average: Q, idle: Q, fc: FacilityCost, cc: ClusterCost | None, accelerators: int,
              hours: float, cur: str) -> tuple[float, float] | None:
    """The breakeven utilisation u* and its value with no energy cost, by the module docstring's formula.

    `fixed`: capital + space + other opex per year; `average` and `idle`: the IT load with a job running and with
    none, whose energy per year (`energy_cost`, as the TCO's) is E1 and E0; None where the cluster's `cost:`
    states no cloud price.
    Infinite where the cloud price does not cover the energy a used hour adds over an idle one.
    """
    if cc is None or cc.cloud is None or not accelerators or currency(cc.cloud.per_accelerator_hour) != cur:
        return None   # a price in another currency is not compared: archgen converts none (`cloud_words` says so)
    revenue = (cc.cloud.per_accelerator_hour * accelerators * Q_(hours, "h")).to(cur).m   # p N H
    spread = energy_cost(average - idle, fc, cur, hours).m   # E1 - E0
    start = (fixed.to(cur) + energy_cost(idle, fc, cur, hours)).m   # F + E0
    value = start / (revenue - spread) if revenue > spread else float("inf")
    return value, fixed.to(cur).m / revenue if revenue > 0 else float("inf")


def opex_metrics(opex: Opex | None, even: tuple[float, float] | None) -> dict[str, Q]:
    """The stated opex items per year and the breakeven utilisation, as the cluster's metrics."""
    items = {} if opex is None else {name: v for name, v in (
        ("support_cost_per_year", opex.support), ("licence_cost_per_year", opex.licences),
        ("other_opex_per_year", opex.other)) if v is not None}
    return items | ({} if even is None else {"breakeven_utilisation": Q_(even[0], "")})
