"""A caller's arguments to the hardware model (`hardware_for`, `Hardware.scaled`), read as the specs read a field.

`hardware_for` is the seam a library caller builds `Hardware` through (`archgen.perf.api`, docs/python-api.md), so a
bandwidth or a latency given there as text (`'400 Gb/s'`, as its docstring shows) or in the wrong unit is read with
the same unit types and messages as a spec's field (`archgen.units`), and a mistake is a `BuildError` naming the
argument, not an `AttributeError` or pint's `DimensionalityError` from inside the model. Its accelerator and counts
are checked too (`arguments`): an accelerator id given for the document, a domain of 0 or -4 accelerators (taken as
1 before), a taper of 0. `Hardware.scaled`, a library caller's what-if, refuses a factor that is not a positive
finite number (`positive_factor`), as `archgen estimate --what-if` does, rather than dividing by zero inside the model.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

from pydantic_core import PydanticCustomError

from archgen.errors import AnalyseError, BuildError
from archgen.model.accelerator import Accelerator
from archgen.units import Bandwidth, Dim, DurationOrZero, Q


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


def _number(value: Any) -> bool:
    """Whether `value` is a real number (a bool is not one)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def arguments(accelerator: Any, scale_up_size: Any, scale_up_bandwidth: Any, scale_out_bandwidth: Any,
              scale_out_latency: Any, oversubscription: Any, pod: Any) -> tuple[Q | None, Q | None, Q | None]:
    """`hardware_for`'s arguments checked: its two bandwidths and its latency as quantities (`given`).

    The accelerator must be the document (`Specs.entry(id, Accelerator)`), not its id; `scale_up_size` a whole
    number of at least 1 and `pod` of at least 0 (8.0 is 8); `oversubscription` a positive finite number (the model
    divides the scale-out bandwidth by it). Anything else is a `BuildError` naming the argument.
    """
    if not isinstance(accelerator, Accelerator):
        raise BuildError(f"hardware_for: accelerator: expected an Accelerator document (`specs.entry(id, "
                         f"Accelerator)`), got {type(accelerator).__name__} {accelerator!r}")
    for name, value, least in (("scale_up_size", scale_up_size, 1), ("pod", pod, 0)):
        if not (_number(value) and math.isfinite(value) and float(value).is_integer() and value >= least):
            raise BuildError(f"hardware_for: {name}: expected a whole number of at least {least}, got {value!r}")
    if not (_number(oversubscription) and 0 < oversubscription < math.inf):
        raise BuildError(f"hardware_for: oversubscription: expected a positive number (1 = non-blocking), "
                         f"got {oversubscription!r}")
    return (given("scale_up_bandwidth", scale_up_bandwidth, Bandwidth),
            given("scale_out_bandwidth", scale_out_bandwidth, Bandwidth),
            given("scale_out_latency", scale_out_latency, DurationOrZero))


def positive_factor(parameter: str, factor: Any) -> float:
    """`factor` for `Hardware.scaled`, or an `AnalyseError` where it is not a positive finite number."""
    if not (_number(factor) and 0 < factor < math.inf):
        raise AnalyseError(f"hardware parameter '{parameter}': expected a positive factor such as 1.5, got {factor!r}")
    return float(factor)
