"""Quantity operations a pipeline run makes thousands of times, to pint's last bit without its per-call cost.

pint builds a Quantity for each `q.m_as(unit)` (through `q.to(unit)`) and each term of a `sum`, and checks units
and dimensions at every step; in `archgen check specs/` these were a fifth of the pipeline's CPU (issue 25). Each
function here makes the registry call pint makes, on the same magnitudes, so every figure keeps its bits and its
magnitude type (tests/test_units.py holds them to pint's own results).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from archgen.pint_import import pint

__all__ = ["added", "adding_alike", "m_as", "scaling_by_numbers"]


@functools.lru_cache(maxsize=4096)
def _parsed(text: str, registry: Any) -> Any:
    """`to_units_container(text, registry)`: the registry's preprocessors and parse, a pure function of the text."""
    return pint.util.to_units_container(text, registry)


def m_as(self: pint.Quantity, units: Any) -> Any:
    """`Quantity.m_as`: the magnitude `self.to(units)` holds, by the same conversion, without building that Quantity.

    The registry's Quantity takes it in place of pint's (`archgen.units`). A unit given as text is parsed once.
    """
    reg = self._REGISTRY
    other = _parsed(units, reg) if type(units) is str else pint.util.to_units_container(units, reg)
    return self._convert_magnitude_not_inplace(other)


def added(start: pint.Quantity, terms: Iterable[pint.Quantity]) -> pint.Quantity:
    """`sum(terms, start)` to the last bit, with one Quantity built instead of one per term.

    As pint's addition (`PlainQuantity._add_sub`): a term in the running total's unit adds its magnitude, another
    adds its magnitude converted to that unit; a term of another dimension raises. Offset or delta units, and any
    term that is not multiplicative, take pint's own addition.
    """
    units, total = start._units, start.magnitude
    plain = not start._get_non_multiplicative_units() and not start._get_delta_units()
    for q in terms:
        if plain and q._units == units:
            total = total + q.magnitude
        elif plain and not q._get_non_multiplicative_units():
            total = total + q._convert_magnitude_not_inplace(units)  # `q.to(units).magnitude`, no Quantity
        else:
            done = start.__class__(total, units) + q
            units, total = done._units, done.magnitude
            plain = not done._get_non_multiplicative_units() and not done._get_delta_units()
    return start.__class__(total, units)


def scaling_by_numbers(cls: Any) -> None:
    """Give the registry's Quantity class `cls` pint's own product and quotient by a plain number, without its checks.

    pint's `_mul_div` with a number multiplies (divides) the magnitude and keeps the unit, after offset-unit and
    operand-type checks and the registry's optional unit reductions. For a Quantity without offset units times a
    float or int, or a float magnitude over a float, that is `magnitude * number` in the same unit; anything else
    (offset units, arrays, numpy scalars, bools, Quantities, int division) goes to pint. Nothing changes where the
    registry reduces or converts results (`auto_reduce_dimensions`, `autoconvert_to_preferred`).
    """
    reg = cls._REGISTRY
    if getattr(reg, "auto_reduce_dimensions", False) or getattr(reg, "autoconvert_to_preferred", False):
        return
    pint_mul, pint_div = cls.__mul__, cls.__truediv__

    def mul(self: Any, other: Any) -> Any:
        if (type(other) is float or type(other) is int) and not self._get_non_multiplicative_units():
            return self.__class__(self._magnitude * other, self._units)
        return pint_mul(self, other)

    def div(self: Any, other: Any) -> Any:
        if type(other) is float and type(self._magnitude) is float and not self._get_non_multiplicative_units():
            return self.__class__(self._magnitude / other, self._units)
        return pint_div(self, other)

    cls.__mul__ = cls.__rmul__ = mul
    cls.__truediv__ = div


def adding_alike(cls: Any) -> None:
    """Give the registry's Quantity class `cls` pint's own sum of two Quantities in one unit, without its checks.

    pint's `_add_sub` adds the magnitudes and keeps the unit where both operands are in the same multiplicative
    unit, after operand-type, logarithmic-unit and dimension checks. That case is done here; any other (another
    unit, offset or logarithmic units, a number, a datetime) goes to pint.
    """
    pint_add = cls.__add__

    def add(self: Any, other: Any) -> Any:
        if type(other) is type(self) and other._units == self._units and not self._get_non_multiplicative_units():
            return self.__class__(self._magnitude + other._magnitude, self._units)
        return pint_add(self, other)

    cls.__add__ = add
