"""Prices: the pydantic field types for money and the currency a money quantity carries.

Each currency of `units.CURRENCIES` is its own dimension of the one registry (`archgen.units`), since no rate
converts them; a field declared in USD accepts any one of them in its place, and a price without one is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic_core import PydanticCustomError

from archgen.pint_import import pint
from archgen.unit_definitions import CURRENCIES
from archgen.unit_hints import decimals_hint, money_hint
from archgen.units import Q_, Dim, Q, format_quantity, name_dimensions, parse_quantity

#: What `units.parse_quantity` and `quantity_text` expect of a quantity they cannot read, and what a money field says
#: in its place: its own label and example ('an amount of money such as '515000 USD''), not a power's.
QUANTITY_FORM = "'<number> <unit>' such as '132 kW'"
MONEY_FORM = "{expected} such as '{example}'"


class CurrencyDim(Dim):
    """A `Dim` for prices: `unit` is written in USD, and any currency of `CURRENCIES` is accepted in its place."""

    def validate(self, value: Any) -> pint.Quantity:
        """Parse `value`; it must carry one currency and otherwise have the dimension of `unit`.

        An amount refused as a quote prints it ('$400,000', '400k USD', '€5000') is told how to write it
        (`unit_hints.money_hint`), with this field's example rather than a quantity's ('132 kW'); so is one with more
        decimals than its currency has ('5.000 EUR', `unit_hints.decimals_hint`).
        """
        try:
            q = self._money(value)
        except PydanticCustomError as e:
            quote = quote_error(value, self.label, self.example) if isinstance(value, str) else None
            if quote is not None:
                error = quote
            elif e.type == "quantity_parse" and QUANTITY_FORM in e.message_template:   # 'about 5000 USD'
                error = PydanticCustomError(e.type, e.message_template.replace(QUANTITY_FORM, MONEY_FORM), {
                    **(e.context or {}), "expected": self.label, "example": self.example})
            else:
                raise
            raise error from None
        if isinstance(value, str) and invoiced(q) and (refused := decimals_error(value, self.label, self.example)):
            raise refused   # '5.000 EUR'; a requirement's target only on an amount metric (`model.requirements`)
        return q

    def _money(self, value: Any) -> pint.Quantity:
        q = parse_quantity(value)
        cur = currency(q)
        if cur is None:
            raise PydanticCustomError(
                "quantity_currency", "expected {expected} with a currency ({known}) such as '{example}', got '{got}'",
                {"expected": self.label, "known": ", ".join(CURRENCIES), "example": self.example,
                 "got": format_quantity(q)})
        super().validate(q / Q_(1, cur) * Q_(1, "USD"))  # dimension and bounds, as if in USD
        return q


Money = Annotated[Q, CurrencyDim("USD", ge=0, le=1e12, label="an amount of money", example="515000 USD")]
EnergyPrice = Annotated[Q, CurrencyDim("USD/kWh", ge=0, le=1e3, label="a price of energy", example="0.09 USD/kWh")]
#: A cost per any time (a rent per month, a licence per year, a cloud price per hour), so labelled: "a cost per month"
#: called '4 USD/h' a cost per month (newuser98: an hourly rate given as a part's capex).
MoneyRate = Annotated[Q, CurrencyDim("USD/month", ge=0, le=1e10, label="a cost per unit of time",
                                     example="1500 USD/month")]


def quote_error(text: str, expected: str = "an amount of money",
                example: str = "515000 USD") -> PydanticCustomError | None:
    """The error for money written as a quote prints it ('$400,000', '400k USD'), with how to write it; else None.

    The one message and hint (`unit_hints.money_hint`) of a money field (`CurrencyDim`) and a requirement's target
    (`model.target.Target.parse`: '<= $10M'), so that both say the same of the same text (leftover39).
    """
    hint = money_hint(text, CURRENCIES)
    return _refused(text, expected, example, hint) if hint else None


def decimals_error(text: str, expected: str, example: str = "515000 USD") -> PydanticCustomError | None:
    """The error for an amount with more decimals than its currency has ('5.000 EUR'), with how to write it; else None.

    The one message and hint (`unit_hints.decimals_hint`) of a money field (`CurrencyDim`) and of a requirement's
    target on an amount of money (`model.requirements`: '<= 5.000 EUR' on capex, money40).
    """
    hint = decimals_hint(text)
    return _refused(text, expected, example, hint) if hint else None


def _refused(text: str, expected: str, example: str, hint: str) -> PydanticCustomError:
    return PydanticCustomError("quantity_currency", "expected {expected} such as '{example}', got '{got}'",
                               {"expected": expected, "example": example, "got": text.strip(), "hint": hint})


def invoiced(q: Q) -> bool:
    """Whether `q` is an amount of money, or one per a month or longer (a rent, a licence per year).

    Such an amount is an invoice's line, in the currency's minor unit (`unit_hints.MINOR_UNITS`); a price per hour
    or per kWh may be finer. The one rule of a money field and of a metric's (`metric.Metric.amount`).
    """
    cur = currency(q)
    per = Q_(1, q.units) / Q_(1, cur) if cur else None   # 1, or 1/year for 'USD/year'
    return per is not None and (per.dimensionless or (per.check("1/[time]") and per.to("1/month").magnitude <= 1))


def currency(q: Q) -> str | None:
    """The currency of a money quantity (or of a price per unit of something), or None."""
    dims = q.dimensionality
    found = [c for c in CURRENCIES if dims.get(f"[currency_{c.lower()}]", 0)]
    return found[0] if len(found) == 1 else None


def money_text(q: Q) -> str:
    """An amount as a finding names it, to the whole unit, grouped, with its currency: '515,000 USD'."""
    return f"{q.m:,.0f} {currency(q)}"


def by_currency(named: Iterable[tuple[str, Q]], few: int = 5) -> str:
    """Names grouped by their amount's currency, each once, the first `few` of each: 'EUR: a, b; USD: c and 3 more'.

    Currencies by name, names in the order given (an amount of no one currency under "no currency").
    """
    groups: dict[str, list[str]] = {}
    for name, q in named:
        names = groups.setdefault(currency(q) or "no currency", [])
        if name not in names:
            names.append(name)
    return "; ".join(f"{cur}: {', '.join(names[:few])}" + (f" and {len(names) - few} more" if len(names) > few else "")
                     for cur, names in sorted(groups.items()))


name_dimensions([Money, EnergyPrice, MoneyRate])  # "'5 USD' which is an amount of money"
