"""A requirement's tolerance: how far past its target's limit a value is still accepted ("met (within tolerance)").

NASA/SP-2016-6105 Rev2 (NASA Systems Engineering Handbook), Appendix C.2, asks that a requirement be "complete with
tolerances for qualitative/performance values (e.g., less than, greater than or equal to, plus or minus ...)"
(https://www.nasa.gov/reference/appendix-c-how-to-write-a-good-requirement). archgen reads `tolerance:` as a distance
beyond the limit (a quantity of the limit's unit, a percentage of the limit, or K for a limit in °C) and
`model.requirements.judge` accepts a value that misses the limit by no more than it, marked "within tolerance"; the
headroom and margin stay measured to the limit itself.
"""

from typing import Annotated

import numpy as np
from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from archgen.model.target import Target, offset
from archgen.units import Q, format_quantity, parse_quantity, ureg


def _written(value: object) -> object:
    """A tolerance as written: a quantity ('3 kW', '2 %', '1 K'), a bare number for a dimensionless limit."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return ureg.Quantity(float(value), "dimensionless")
    return parse_quantity(value) if isinstance(value, str) else value


#: A requirement's tolerance (`Requirement.tolerance`), its dimension checked against the target's (`problem`).
Tolerance = Annotated[Q, BeforeValidator(_written), PlainSerializer(format_quantity, when_used="json"),
                      WithJsonSchema({"type": ["string", "number"]})]


def problem(target: Target, tol: Q) -> str | None:
    """Why `tol` cannot be `target`'s tolerance: negative, a percentage of 0 or of °C, another dimension; None: fits."""
    said, limit = f"tolerance '{format_quantity(tol)}'", target.limit
    if float(tol.magnitude) < 0:
        return f"{said} is negative; a tolerance is a distance past the limit, e.g. '3 kW' or '2 %'"
    if tol.units == ureg.percent:
        if offset(limit) or not float(limit.magnitude):
            return (f"{said} is a percentage of a limit of {format_quantity(limit)}, which has no scale to take it "
                    "of; write it in the limit's unit (a temperature difference in K)")
        return None
    want = ureg.K if offset(limit) else limit.units
    if tol.units in (ureg.degC, ureg.degF) or not tol.is_compatible_with(want):
        unit = "K" if offset(limit) else format_quantity(ureg.Quantity(1, want)).removeprefix("1").strip()
        return f"{said} is not a distance in the unit of the target '{target}'; write e.g. '1 {unit}' or '2 %'"
    return None


def slack(target: Target, tol: Q | None) -> Q | None:
    """`tol` as a distance in the limit's unit (a percentage taken of |limit|; in K for a limit in °C); None: none."""
    if tol is None:
        return None
    limit = target.limit
    if tol.units == ureg.percent:
        return abs(limit) * float(tol.to("dimensionless").magnitude)
    return tol.to("K") if offset(limit) else tol.to(limit.units)


def passes(target: Target, room: Q | None, values: Q) -> np.ndarray:
    """Whether each of `values` meets `target`, or misses its limit by at most `room` (`slack`): a bool array.

    Past the limit means above it for '<=' and '<', below it for '>=' and '>', either side for '=='. A miss equal to
    the tolerance is within it, allowing for the float rounding of the unit conversion (one part in 10^12).
    """
    met = target.met_by_each(values)
    if room is None:
        return met
    v = np.asarray(values.to(target.limit.units).magnitude, dtype=float)
    limit = float(target.limit.magnitude)
    past = {"<=": v - limit, "<": v - limit, ">=": limit - v, ">": limit - v, "==": np.abs(v - limit)}[target.op]
    return met | (past <= float(room.magnitude) + 1e-12 * max(abs(limit), float(room.magnitude)))


def text(tol: Q | None) -> str:
    """' (tolerance 3 kW)', as a target's cell shows it beside the target; '' without one."""
    return f" (tolerance {format_quantity(tol)})" if tol is not None else ""
