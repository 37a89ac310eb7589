"""A caller's quantity argument to `hardware_for`, read as the specs read a quantity field.

`hardware_for` is the seam a library caller builds `Hardware` through (`archgen.perf.api`, docs/python-api.md), so a
bandwidth or a latency given there as text (`'400 Gb/s'`, as its docstring shows) or in the wrong unit is read with
the same unit types and messages as a spec's field (`archgen.units`), and a mistake is a `BuildError` naming the
argument, not an `AttributeError` or pint's `DimensionalityError` from inside the model.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticCustomError

from archgen.errors import BuildError
from archgen.units import Dim, Q


def si(q: Q | None, unit: str) -> float:
    """`q` in `unit` as a float; 0.0 for None (no such link)."""
    return 0.0 if q is None else float(q.to(unit).magnitude)


def given(name: str, value: Any, field_type: Any) -> Q | None:
    """`value` of argument `name` as a quantity of `field_type` (`units.Bandwidth`, ...), or None for None.

    A quantity of the field's dimension passes as it is (the pipeline's own callers, their numbers unchanged); text
    is parsed and checked as a spec field is; anything else is a `BuildError` with the field type's message.
    """
    dim = next(m for m in field_type.__metadata__ if isinstance(m, Dim))
    if value is None or (isinstance(value, Q) and value.is_compatible_with(dim.unit)):
        return value
    try:
        return dim.validate(value)
    except PydanticCustomError as err:
        raise BuildError(f"hardware_for: {name}: {err}") from None
