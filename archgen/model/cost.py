"""Prices on parts and racks, and the running costs of a facility; every figure carries its basis and source.

`archgen.analyse.cost` turns them into capex, opex and TCO (docs/reliability.md, Cost).
"""

import datetime
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from archgen.model.field_types import Fraction, PositiveFraction, Pue, Years
from archgen.model.spec import Spec
from archgen.money import EnergyPrice, Money, MoneyRate


def _month_or_day(value: object) -> object:
    """A date as a spec gives one: a month ('2025-03') or a day ('2025-03-16'); anything else a validation error."""
    if isinstance(value, datetime.date):
        return value
    text = str(value)
    if len(text) == 7 and text[4] == "-" and text[:4].isdigit() and text[5:].isdigit() and 1 <= int(text[5:]) <= 12:
        return text
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"expected a date such as '2025-03' or '2025-03-16', got '{text}'") from None


#: A date as a spec gives one, a month ('2025-03') or a day ('2025-03-16'), checked by `_month_or_day`.
Month = Annotated[datetime.date | str, BeforeValidator(_month_or_day)]
#: `Month`, or None where the date may be left unstated.
OptionalMonth = Annotated[datetime.date | str | None,
                          BeforeValidator(lambda value: None if value is None else _month_or_day(value))]


class Price(Spec):
    """What one unit costs to buy, when, and on what basis."""

    capex: Money = Field(description="Purchase price of one unit with its currency, e.g. '515000 USD'.")
    date: Month = Field(description="When the price held, e.g. '2025-03' or '2025-03-16'.")
    basis: Literal["sourced", "assumed"] = Field(description="sourced (a quote or list price) or assumed.")
    source: str = Field(min_length=3, description="Where the price comes from, or how it was assumed.")
    rack: Literal["empty", "populated"] | None = Field(None, description=(
        "A rack's price only: what it covers. `empty`: the enclosure and busbar, the parts placed in it and its "
        "liquid fittings priced by their own ids; `populated`: the rack with its parts, which archgen cannot use "
        "(it prices the parts by their own ids, so they would count twice: COST004). Unstated, a price list's rack "
        "price beside the placed parts' own prices is a COST004 warning."))

    @property
    def month(self) -> int:
        """The month the price held, counted from year 0 (year x 12 + month - 1), to compare prices' dates."""
        return month_of(self.date)


def month_of(date: datetime.date | str) -> int:
    """A date's month counted from year 0 (year x 12 + month - 1): '2025-03' and '2025-03-16' are 24302."""
    text = str(date)
    return int(text[:4]) * 12 + int(text[5:7]) - 1


def dated_after(date: datetime.date | str, ref: datetime.date | str) -> bool:
    """Whether `date` is after `ref`: by day where both give a day, else by month (the precision the coarser gives).

    A quote of '2026-12-16' is after a cost date of '2026-12-01' (review54: compared by month, it was not); a quote
    of '2026-12' is after '2026-11-30' but not after '2026-12-01', since its month says no day.
    """
    if len(str(date)) == len(str(ref)) == len("2026-12-16"):
        return str(date) > str(ref)   # ISO days order as their text does
    return month_of(date) > month_of(ref)



class Energy(Spec):
    """The price of electricity and how much the facility adds for cooling and distribution."""

    price: EnergyPrice = Field(description="Price of electricity, e.g. '0.0895 USD/kWh'.")
    pue: Pue = Field(description="Power usage effectiveness: facility energy over IT energy, e.g. 1.3.")
    basis: Literal["sourced", "assumed"] = Field(description="Whether the figures are sourced or assumed.")
    source: str = Field(min_length=3, description="Where the price and PUE come from.")
    date: OptionalMonth = Field(None, description=(
        "When the price held, as a part's `price.date` is given, e.g. '2024-07' (the last month of a year-to-date "
        "average): COST006 judges it with the bill of materials' prices, so that the TCO does not add energy and "
        "capital of price levels more than 12 months apart unsaid. Unstated: the price is compared with no date."))


class Sunk(Spec):
    """Capital already spent on the site (the hall, its power and cooling plant): stated, never in the capex or TCO."""

    what: str = Field(min_length=3, description="What was paid for, e.g. 'hall shell, 2 MW of UPS and chillers'.")
    capex: Money = Field(description="What it cost, with its currency, e.g. '40000000 USD'.")
    date: Month = Field(description="When it was paid, e.g. '2021-06'.")
    basis: Literal["sourced", "assumed"] = Field(description="sourced (the books) or assumed.")
    source: str = Field(min_length=3, description="Where the figure comes from.")


class CloudPrice(Spec):
    """What renting one accelerator-hour of the same accelerator costs in a cloud: the price owning is compared with."""

    per_accelerator_hour: MoneyRate = Field(description=(
        "List price of one accelerator for one hour, with its currency, e.g. '10.5 USD/h' (an 8-GPU instance's hourly "
        "price over 8): the instance with the cluster's accelerator, on demand or at the term the buyer would sign."))
    date: Month = Field(description="When the price held, e.g. '2026-11'.")
    basis: Literal["sourced", "assumed"] = Field(description="sourced (a provider's price list or quote) or assumed.")
    source: str = Field(min_length=3, description="Where the price comes from: the provider, instance and page.")


class FacilityCost(Spec):
    """The running and financing costs of a hall."""

    energy: Energy = Field(description="Electricity price and PUE.")
    space_per_rack: MoneyRate = Field(description="Space, power and cooling capacity rented per rack position and "
                                                  "month, e.g. '1500 USD/month'.")
    depreciation_years: Years = Field(description="Years over which capital is recovered, e.g. 5 or '5 years' (a "
                                                  "time: '60 months' is 5), from 28 days to 30 years: a life of "
                                                  "hours or days ('5 h') is refused as a slip for years.")
    discount_rate: Fraction = Field(0.0, description="Yearly cost of capital, e.g. 0.08; 0 is straight-"
                                                              "line depreciation. Unstated: 0, the lowest capital "
                                                              "cost, named as an assumed input (COST003, REQ005).")
    residual_value: Fraction = Field(0.0, description=(
        "Share of the capex the hardware is worth when the depreciation years end (its resale or trade-in value), "
        "e.g. 0.1: the capital recovered per year is (capex − residual x capex x (1 + r)^-n) x the capital recovery "
        "factor, the annual worth of a first cost less its salvage value. Unstated: 0, nothing is recovered at the "
        "end, which the cost paragraph and the cost sheet say."))
    utilisation: PositiveFraction = Field(1.0, description="Share of hours the cluster runs jobs; the average "
                                                            "load runs that share, the rest the idle load: each "
                                                            "part's `power.idle`, else its average draw or a "
                                                            "system's maximum with its accelerators at their "
                                                            "measured idle draw (assumed, COST003), so energy is an "
                                                            "upper bound. Unstated: 1, "
                                                            "every hour used, the lowest cost per used hour, named "
                                                            "as an assumed input (COST003, REQ005).")
    basis: Literal["sourced", "assumed"] = Field(description="Whether space, depreciation and rate are sourced.")
    source: str = Field(min_length=3, description="Where they come from.")
    sunk: tuple[Sunk, ...] = Field((), description=(
        "Capital already spent on the site (a hall built and paid for): stated beside the cost in the documents and "
        "the cost sheet, never in the capex, the capital per year or the TCO, since no decision on the cluster "
        "changes it. Its running cost is still `space_per_rack` (0 where the owner charges the cluster none, which "
        "the documents then say)."))
    as_of: OptionalMonth = Field(None, description=(
        "The date the cost is for, e.g. '2026-12' (the buyer's decision or the quote's due date): a price on the "
        "bill of materials dated more than 12 months before it is a COST006 warning (a price of another price "
        "level, which archgen adjusts to no date), and so is one dated after it, which is not used: a part takes "
        "its newest price held at that date (a `Prices` list's before its own; of two lists at two dates, the "
        "newer: a price history, not a COST004 conflict), and one priced only later is unpriced then (COST002). "
        "Unstated: prices are compared "
        "with each other, and one dated after the archgen that runs (its own date, printed in the warning) is "
        "named as a date likely written wrongly; never with today's date, so a run's output stays the same."))


class ClusterCost(Spec):
    """What a cluster costs to run beyond the hall's energy and space, and the cloud price it is compared with.

    The cluster's own, not the hall's: a support contract, licences and a cloud price are those of its parts and
    accelerator, and two clusters in one hall differ in them (`analyse.opex`; docs/reliability.md, Cost).
    """

    support: Fraction | None = Field(None, description=(
        "Yearly hardware support and maintenance contracts as a share of the capex, e.g. 0.08 (a vendor's quote of "
        "its yearly support price over the hardware's): support per year = capex x it, in the TCO. Unstated: not "
        "provided, never 0: the TCO leaves it out and the cost paragraph and the cost sheet say so. No default: the "
        "share is each vendor's and each contract's."))
    licence_per_accelerator: MoneyRate | None = Field(None, description=(
        "Software licences per accelerator and year, e.g. '4500 USD/year' (NVIDIA AI Enterprise's subscription per "
        "GPU): x the accelerators, in the TCO. Unstated: not provided, and said as support is."))
    licence_per_node: MoneyRate | None = Field(None, description=(
        "Software licences per node (a system with accelerators) and year, e.g. '1200 USD/year' (an operating "
        "system's or a scheduler's subscription): x the nodes, in the TCO. Unstated: not provided, and said."))
    other_opex: MoneyRate | None = Field(None, description=(
        "Every other running cost of the cluster per year, e.g. '350000 USD/year' (staff, insurance, taxes, a spare-"
        "parts stock): in the TCO as stated. Unstated: not provided, and said."))
    cloud: CloudPrice | None = Field(None, description=(
        "The cloud list price of an accelerator-hour of the same accelerator, to compare owning with: the "
        "`breakeven_utilisation` at which the TCO per used accelerator-hour equals it. Unstated: no comparison."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether support, licences and other opex are sourced.")
    source: str = Field(min_length=3, description="Where they come from (a quote, a price list, the buyer's books).")
