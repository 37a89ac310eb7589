"""Quantity operations a pipeline run makes thousands of times, to pint's last bit without its per-call cost.

pint builds a Quantity for each `q.m_as(unit)` (through `q.to(unit)`) and each term of a `sum`, and checks units
and dimensions at every step; in `archgen check specs/` these were a fifth of the pipeline's CPU (issue 25). Each
function here makes the registry call pint makes, on the same magnitudes, so every figure keeps its bits and its
magnitude type (tests/test_units.py holds them to pint's own results).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from archgen.pint_import import pint

__all__ = ["added", "adding_alike", "building_directly", "comparing_alike", "converting_by_factor", "m_as",
           "scaling_by_numbers"]


@functools.lru_cache(maxsize=4096)
def _parsed(text: str, registry: Any) -> Any:
    """`to_units_container(text, registry)`: the registry's preprocessors and parse, a pure function of the text."""
    return pint.util.to_units_container(text, registry)


#: id of a registry's cache (pint's `_cache`, which a context that redefines a unit swaps) -> (that cache,
#: {(src, dst): conversion factor, or None for pint's own path}, {units: whether every unit is multiplicative},
#: {units: whether no unit is a delta unit}).
_MEMOS: dict[int, tuple[Any, dict[tuple[Any, Any], Any], dict[Any, bool], dict[Any, bool]]] = {}


def _memos(reg: Any) -> tuple[Any, dict[tuple[Any, Any], Any], dict[Any, bool], dict[Any, bool]]:
    """What is remembered of the units of `reg` as it stands now (its current cache)."""
    cache = reg._cache
    held = _MEMOS.get(id(cache))
    if held is None or held[0] is not cache:
        held = _MEMOS[id(cache)] = (cache, {}, {}, {})
    return held


def _multiplicative(q: Any) -> bool:
    """`not q._get_non_multiplicative_units()` (no offset unit in `q`), found once per units and registry cache."""
    known = _memos(q._REGISTRY)[2]
    units = q._units
    plain = known.get(units)
    if plain is None:
        plain = known[units] = not q._get_non_multiplicative_units()
    return plain


def _without_delta(q: Any) -> bool:
    """`not q._get_delta_units()` (no delta unit in `q`), found once per units and registry cache."""
    known = _memos(q._REGISTRY)[3]
    units = q._units
    plain = known.get(units)
    if plain is None:
        plain = known[units] = not q._get_delta_units()
    return plain


#: The factor of a pair of equal units: the magnitude itself, as pint's `convert` returns it.
_SAME = object()


def _factor(reg: Any, src: Any, dst: Any) -> Any:
    """The factor converting units `src` to `dst` of `reg`, remembered once found.

    `_SAME` for equal units; None where pint's own conversion must answer: an offset unit, or two dimensions (pint
    then raises).
    """
    factors, key = _memos(reg)[1], (src, dst)
    factor = factors.get(key, factors)
    if factor is factors:
        if src == dst:
            factor = _SAME
        elif not all(map(reg._is_multiplicative, src)) or not all(map(reg._is_multiplicative, dst)):
            factor = None
        else:
            factor = reg._get_conversion_factor(src, dst)
            factor = None if isinstance(factor, pint.DimensionalityError) else factor
        factors[key] = factor
    return factor


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
    plain = _multiplicative(start) and not start._get_delta_units()
    for q in terms:
        if plain and q._units == units:
            total = total + q.magnitude
        elif plain and _multiplicative(q):
            total = total + q._convert_magnitude_not_inplace(units)  # `q.to(units).magnitude`, no Quantity
        else:
            done = start.__class__(total, units) + q
            units, total = done._units, done.magnitude
            plain = _multiplicative(done) and not done._get_delta_units()
    return start.__class__(total, units)


def scaling_by_numbers(cls: Any) -> None:
    """Give the registry's Quantity class `cls` pint's own product and quotient by a plain number, without its checks.

    pint's `_mul_div` with a number multiplies (divides) the magnitude and keeps the unit, after offset-unit and
    operand-type checks and the registry's optional unit reductions. For a Quantity without offset units times a
    float or int, or a float magnitude over a float, that is `magnitude * number` in the same unit; with another
    such Quantity (a float or int magnitude times one, a float over a float: pint casts ints to divide them), the
    magnitudes' product or quotient in the product or quotient of the units (`_mul_div`, when neither operand has an
    offset unit; suitespeed40: 57,000 quotients in half the suite's costliest files). Anything else (offset units,
    arrays, numpy scalars, bools, int division) goes to pint. Nothing changes where the registry reduces or converts
    results (`auto_reduce_dimensions`, `autoconvert_to_preferred`).
    """
    reg = cls._REGISTRY
    if getattr(reg, "auto_reduce_dimensions", False) or getattr(reg, "autoconvert_to_preferred", False):
        return
    pint_mul, pint_div = cls.__mul__, cls.__truediv__

    def mul(self: Any, other: Any) -> Any:
        if (type(other) is float or type(other) is int) and _multiplicative(self):
            return self.__class__(self._magnitude * other, self._units)
        if (type(other) is cls and (type(m := self._magnitude) is float or type(m) is int)
                and (type(n := other._magnitude) is float or type(n) is int)
                and _multiplicative(self) and _multiplicative(other)):
            return self.__class__(m * n, self._units * other._units)
        return pint_mul(self, other)

    def div(self: Any, other: Any) -> Any:
        if type(other) is float and type(self._magnitude) is float and _multiplicative(self):
            return self.__class__(self._magnitude / other, self._units)
        if (type(other) is cls and type(self._magnitude) is float and type(other._magnitude) is float
                and _multiplicative(self) and _multiplicative(other)):
            return self.__class__(self._magnitude / other._magnitude, self._units / other._units)
        return pint_div(self, other)

    cls.__mul__ = cls.__rmul__ = mul
    cls.__truediv__ = div


def adding_alike(cls: Any) -> None:
    """Give the registry's Quantity class `cls` pint's own sum and difference of two Quantities, without its checks.

    pint's `_add_sub` adds (subtracts) the magnitudes and keeps the unit where both operands are in the same unit
    with no offset unit, after operand-type, logarithmic-unit and dimension checks; where the units differ but have
    one dimension, are multiplicative and neither is a delta unit, it adds the other's magnitude converted to this
    unit (`other.to(self.units).magnitude`, the factor `_factor` remembers). Those cases are done here; any other
    (offset, delta or logarithmic units, another dimension, a number, a datetime, an active context) goes to pint.
    Subtraction and mixed units: suitespeed40 (26,000 differences and 9,000 mixed sums in half the suite's
    costliest files went through all of pint's checks).
    """
    reg = cls._REGISTRY

    def alike(pint_op: Any, op: Any) -> Any:
        def run(self: Any, other: Any) -> Any:
            if type(other) is cls and _multiplicative(self):
                units = self._units
                if other._units == units:
                    return self.__class__(op(self._magnitude, other._magnitude), units)
                if (not reg._active_ctx and _multiplicative(other) and _factor(reg, other._units, units) is not None
                        and _without_delta(self) and _without_delta(other)):
                    return self.__class__(op(self._magnitude, other._convert_magnitude_not_inplace(units)), units)
            return pint_op(self, other)
        return run

    cls.__add__ = alike(cls.__add__, operator.add)
    cls.__sub__ = alike(cls.__sub__, operator.sub)


def comparing_alike(cls: Any) -> None:
    """Give the registry's Quantity class `cls` pint's own order of two Quantities in one unit, without its checks.

    pint's `compare` (`<`, `<=`, `>`, `>=`) orders the magnitudes where both are Quantities of the registry in the same
    unit, after operand-type and registry checks; that case is done here (suitespeed40: 110,000 comparisons, most in
    one unit, in half the suite's costliest files). Any other (another unit, a number) goes to pint.
    """
    def alike(pint_op: Any, op: Any) -> Any:
        def run(self: Any, other: Any) -> Any:
            if type(other) is cls and type(self) is cls and other._units == self._units:
                return op(self._magnitude, other._magnitude)
            return pint_op(self, other)
        return run

    cls.__lt__ = alike(cls.__lt__, operator.lt)
    cls.__le__ = alike(cls.__le__, operator.le)
    cls.__gt__ = alike(cls.__gt__, operator.gt)
    cls.__ge__ = alike(cls.__ge__, operator.ge)


def converting_by_factor(cls: Any) -> None:
    """Give the registry's Quantity class `cls` pint's own conversion between units, each pair's factor found once.

    `q.to(u)`, `q.m_as(u)` and `q.to_root_units()` call `_convert_magnitude_not_inplace`, which is the registry's
    `convert`: the magnitude itself where the units are equal, else, where no unit of either is an offset unit and
    no context is active, the magnitude times `_get_conversion_factor(src, dst)` (`GenericPlainRegistry._convert`,
    after the context and offset-unit registries pass it on). That product is made here, with the factor of each pair
    of units remembered after the first call, beside pint's own cache of the registry's units (a context that
    redefines a unit swaps that cache, and so the remembered factors); offset units, active or given contexts,
    Decimal or Fraction magnitudes, units of two dimensions and anything that is not a UnitsContainer go to pint.
    `q.to("kW")` takes the unit's parse as `m_as` does (`_parsed`: pint runs the registry's preprocessors on the text
    each call; suitespeed40, 230,000 calls in half the suite's costliest files), then pint's own `to`: this
    conversion, and a Quantity of the result in those units.
    """
    pint_convert = cls._convert_magnitude_not_inplace
    reg = cls._REGISTRY
    container = pint.util.UnitsContainer

    def convert(self: Any, other: Any, *contexts: Any, **ctx_kwargs: Any) -> Any:
        src = self._units
        if contexts or ctx_kwargs or reg._active_ctx or type(other) is not container or type(src) is not container:
            return pint_convert(self, other, *contexts, **ctx_kwargs)
        if src is other:
            return self._magnitude
        factor = _factor(reg, src, other)
        if factor is _SAME:
            return self._magnitude
        value = self._magnitude
        if factor is None or isinstance(value, (Decimal, Fraction)):
            return pint_convert(self, other)
        return value * factor

    pint_to = cls.to

    def to(self: Any, other: Any = None, *contexts: Any, **ctx_kwargs: Any) -> Any:
        if type(other) is str and not contexts and not ctx_kwargs:
            units = _parsed(other, reg)
            return self.__class__(convert(self, units), units)
        return pint_to(self, other, *contexts, **ctx_kwargs)

    cls._convert_magnitude_not_inplace = convert
    cls.to = to


def building_directly(cls: Any) -> None:
    """Give the registry's Quantity class `cls` pint's own `Q_(number, UnitsContainer)`, without its per-call checks.

    pint's `PlainQuantity.__new__` with such arguments checks the magnitude's type (not an upcast type, a string, a
    list, a dict, a bool or None), imports the application registry for a throwaway object, and sets `_magnitude`
    (the number itself unless the registry forces arrays) and `_units` on a new instance. That instance is made here
    for exactly those arguments, and for units given as text, which pint parses (`parse_units(text)._units`) first;
    any other (a string alone, a Quantity, a bool, a numpy value, a registry that forces arrays) goes to pint.
    """
    pint_new = cls.__new__
    reg = cls._REGISTRY
    container = pint.util.UnitsContainer
    new_object = object.__new__

    def new(klass: Any, value: Any = None, units: Any = None) -> Any:
        if (klass is cls and (type(value) is float or type(value) is int)
                and not reg.force_ndarray and not reg.force_ndarray_like):
            if type(units) is str and units:
                units = reg.parse_units_as_container(units)  # pint's `parse_units(units)._units`
            if type(units) is container:
                inst = new_object(klass)
                inst._magnitude = value
                inst._units = units
                return inst
        return pint_new(klass, value, units)

    cls.__new__ = staticmethod(new)
