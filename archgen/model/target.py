"""A requirement's target: a comparator and a limit (``"<= 132 kW"``), parsed, compared and measured against."""

import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

import numpy as np
from pydantic import GetCoreSchemaHandler, ValidationInfo, ValidatorFunctionWrapHandler, WrapValidator
from pydantic_core import PydanticCustomError, core_schema

from archgen import metrics
from archgen.money import currency, decimals_error, quote_error
from archgen.units import Q, format_quantity, parse_quantity, ureg

_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt, "==": operator.eq}
_TARGET = re.compile(r"^\s*(<=|>=|==|<|>)\s*(\S.*?)\s*$")


@dataclass(frozen=True)
class Target:
    """A comparator and a limit: ``<= 132 kW`` or ``>= 0.4``.

    `written` is the limit as the requirement wrote it where its metric read it as another quantity (``400 EUR/month``
    on a cost per year, read as ``4800 EUR``: `metric.Metric.as_limit`); None where the limit is as written. `said`
    is the limit's own text where it was read from text (``20000000 USD/year``, ``4e2 EUR/month``), "" where it was
    given as a quantity. `per` is the time a limit on money per an hour is for (``h``: `metric.Metric.money_rate`),
    shown after it (``<= 2.5 USD/h``). None of these takes part in judging, nor in equality: the limit is judged.
    """

    op: str
    limit: Q
    written: Q | None = field(default=None, compare=False)
    said: str = field(default="", compare=False)
    per: str = field(default="", compare=False)

    @property
    def converted(self) -> bool:
        """Whether the limit's number is not the one written: ``400 EUR/month`` read as ``4800 EUR``.

        Not ``2.5 USD/h`` read as ``2.5 USD`` on a cost per accelerator-hour: the metric's own time, the same number.
        """
        return self.written is not None and self.written.magnitude != self.limit.magnitude

    @property
    def key(self) -> tuple[str, float, str]:
        """What the target asks, to tell two apart: its comparator and its limit in base units, to 12 figures.

        ``<= 4800 EUR`` and ``<= 400 EUR/month`` on a cost per year are one target (REQ003 and `archgen diff` read
        them so; cost41 found them compared by their text), as are ``<= 4.8 kEUR`` and ``<= 4800 EUR``; the figures
        past the twelfth are a conversion's float noise.
        """
        base = self.limit.to_base_units()
        return (self.op, float(f"{float(base.magnitude):.12g}"), f"{base.units}")

    def read_as(self, limit: Q, per: str = "") -> "Target":
        """This target with `limit`, its own read in its metric's dimension, keeping the limit as written (`written`).

        Itself where `limit` is its own limit and `per` its own (`model.requirements`: a limit its metric takes as it
        is written). `per`: the time of a cost per hour the limit is for (`metrics.limit_per`).
        """
        if limit is self.limit and per == self.per:
            return self
        return Target(self.op, limit, self.written if limit is self.limit else self.limit, self.said, per)

    @property
    def as_written(self) -> str:
        """The limit as the requirement wrote it: its own text, or that of its quantity where it was given as one.

        Its own text: ``400 EUR per month``, ``4e2 EUR/month``; a quantity as `format_quantity` writes it.
        newuser102: "as written" showed the limit as `format_quantity` writes it (both of those as ``400 EUR/month``),
        and documents grouped its digits (``20,000,000 USD/year``; `render.fmt.grouped_numbers` now leaves it be).
        """
        return self.said or format_quantity(self.limit if self.written is None else self.written)

    def met_by(self, value: Q) -> bool:
        """Whether `value` satisfies the target (the caller has checked the dimensions agree)."""
        return bool(_OPS[self.op](value.to(self.limit.units).magnitude, self.limit.magnitude))

    def met_by_each(self, values: Q) -> np.ndarray:
        """`met_by` for a quantity whose magnitude is an array (many sweep points at once): a bool array."""
        return np.asarray(_OPS[self.op](values.to(self.limit.units).magnitude, self.limit.magnitude), dtype=bool)

    def in_units(self, value: Q) -> Q:
        """`value` in the limit's unit, as a requirement's value is shown; unchanged for a dimensionless limit."""
        return value if self.limit.dimensionless else value.to(self.limit.units)

    def headroom(self, value: Q) -> Q:
        """How far `value` is from the limit, signed so that positive is headroom and negative a shortfall.

        ``<=`` and ``<``: limit - value; ``>=`` and ``>``: value - limit; ``==``: -|value - limit| (an equality
        has no headroom, only a deviation, so a met ``==`` target has 0). In the limit's unit; for a limit on an
        offset temperature scale (°C, °F), a temperature difference in K. A strict target (``<``, ``>``) is not
        met at a headroom of 0.
        """
        limit = self.limit.magnitude
        shown = float(value.to(self.limit.units).magnitude)
        diff = {"<=": limit - shown, "<": limit - shown, ">=": shown - limit, ">": shown - limit,
                "==": 0.0 - abs(shown - limit)}[self.op]  # 0.0 - 0.0 is 0.0, where -abs(0.0) is -0.0
        if offset(self.limit):
            return ureg.Quantity(diff, "delta_degC" if self.limit.units == ureg.degC else "delta_degF").to("K")
        return ureg.Quantity(diff, self.limit.units)

    def margin(self, value: Q) -> float | None:
        """The headroom relative to the limit, headroom / |limit|: ``<= 132 kW`` at 131.6 kW is +0.003.

        None where the limit is zero, or on an offset temperature scale, whose zero is arbitrary (the headroom in
        K says more).
        """
        limit = float(self.limit.magnitude)
        if limit == 0 or offset(self.limit):
            return None
        return float(self.headroom(value).to(self.limit.units).magnitude) / abs(limit)

    def __str__(self) -> str:
        """``<= 132 kW``; a converted limit with the limit as written: ``<= 4800 EUR (as written: 400 EUR/month)``.

        A converted limit reads to six significant figures (``<= 2281.54 USD (as written: 20000000 USD/year)``, not
        2281.5423226100843): the written one beside it is exact.
        """
        per = f"/{self.per}" if self.per else ""   # '<= 2.5 USD/h' on a cost per accelerator-hour, not '<= 2.5 USD'
        if not self.converted or self.written is None:
            return f"{self.op} {format_quantity(self.limit)}{per}"
        near = ureg.Quantity(float(f"{float(self.limit.magnitude):.6g}"), self.limit.units)   # as `display.significant`
        return f"{self.op} {format_quantity(near)}{per} (as written: {self.as_written})"

    @classmethod
    def parse(cls, value: Any) -> "Target":
        """Parse ``"<= 132 kW"``, ``">= 0.4"`` or ``"== 72"``, or a `Target` as `model_dump()` gives it.

        pydantic dumps the dataclass in Python mode as ``{"op": ">=", "limit": <Quantity(0.35)>}``; that reads back as
        the same target (a limit given as text or a number there is read as in the text form), so that
        ``Workload.model_validate(job.model_dump())`` is the job (newuser43's trial).
        """
        if isinstance(value, Target):
            return value
        if isinstance(value, Mapping) and set(value) - {"written", "said", "per"} == {"op", "limit"} and \
                value["op"] in _OPS:
            if isinstance(value["limit"], ureg.Quantity):
                return cls(value["op"], value["limit"], value.get("written"), str(value.get("said") or ""),
                           str(value.get("per") or ""))
            value = f"{value['op']} {value['limit']}"
        m = _TARGET.match(value) if isinstance(value, str) else None
        if not m:
            raise PydanticCustomError("target", "expected a comparator and a value such as '<= 132 kW', got '{v}'",
                                      {"v": value})
        op, text = m.groups()
        try:
            limit = ureg.Quantity(float(text), "dimensionless")
        except ValueError:
            limit = _limit(text)
        return cls(op, limit, said=text)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls.parse, serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"),
            json_schema_input_schema=core_schema.str_schema(pattern=r"^\s*(<=|>=|==|<|>)"))


def _on_metric(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Target:
    """A requirement's target, refused where it bounds an amount of money with more decimals than its currency has.

    money40: '<= 5.000 EUR' on capex was read as 5 EUR, though no amount in EUR has three decimals (its dot most
    likely groups thousands) and a price field refused it (`money.CurrencyDim`). Only the requirement's metric tells
    an amount (capex, a cost per year, a job's cost: `Metric.amount`) from a price per accelerator-hour or per token,
    which may be finer ('<= 2.321 USD'); a limit of another dimension is left to `requirements.metric_problem`.
    """
    target = handler(value)
    metric = metrics.amount(str(info.data.get("metric", "")))
    m = _TARGET.match(value) if isinstance(value, str) else None
    if metric is not None and m is not None and metric.accepts(metric.as_limit(target.limit)) and \
            (error := decimals_error(m[2], f"{metric.said} as an amount of money")):
        raise error
    return target


#: A requirement's target: a `Target` judged against the requirement's metric, declared before it (`_on_metric`).
RequirementTarget = Annotated[Target, WrapValidator(_on_metric)]


def _limit(text: str) -> Q:
    """A target's limit as text: a quantity, or refused with a money field's message and hint (`money.quote_error`).

    Money written as a quote prints it ('$10M', '400k USD', '10M USD') is refused so whether pint cannot read it or
    reads it as something else (10 USD·molar); before (leftover39) a target took the quantity form's message or the
    dimension's, and none of a money field's hints.
    """
    try:
        limit = parse_quantity(text)
    except PydanticCustomError:
        if (quote := quote_error(text)) is not None:
            raise quote from None
        raise
    if currency(limit) is not None and (quote := quote_error(text)) is not None:
        raise quote
    return limit


def offset(q: Q) -> bool:
    """Whether a quantity is on an offset scale (°C, °F), where ratios mean nothing."""
    return q.units in (ureg.degC, ureg.degF)
