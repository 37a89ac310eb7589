"""What a quantity field refuses once the dimension fits: a magnitude out of its bounds, a temperature off its scale.

The user errors of `archgen.units.Dim` after its dimension check, free of the registry (the caller passes the
magnitude in the field's unit): apart from `archgen.units` for its size (STYLE.md 12), no behaviour moved.
"""

from __future__ import annotations

from pydantic_core import PydanticCustomError

from archgen.pint_import import pint

#: A field's bounds on the magnitude in its unit: greater than, at least, a floor a positive value may not be under
#: (below it no hardware exists), at most; None where the field has no such bound.
Bounds = tuple[float | None, float | None, float | None, float | None]


def number_text(x: float) -> str:
    """A bound or magnitude as a message shows it (`%g`: '0.001', '1e+07')."""
    return f"{x:g}"


def check_bounds(mag: float, bounds: Bounds, label: str, unit: str, written: str) -> None:
    """Refuse a magnitude `mag` (in the field's `unit`) outside the field's `bounds` (gt, ge, floor, le)."""
    gt, ge, floor, le = bounds
    if gt is not None and not mag > gt:
        raise PydanticCustomError("quantity_gt", "expected {expected} greater than {gt} {unit}, got '{got}'",
                                  {"expected": label, "gt": number_text(gt), "unit": unit, "got": written})
    if ge is not None and not mag >= ge:
        raise PydanticCustomError("quantity_ge", "expected {expected} of at least {ge} {unit}, got '{got}'",
                                  {"expected": label, "ge": number_text(ge), "unit": unit, "got": written})
    if floor is not None and 0 < mag < floor:
        raise PydanticCustomError("quantity_floor", "expected {expected} of at least {floor} {unit} (below that no "
                                  "hardware exists), got '{got}'",
                                  {"expected": label, "floor": number_text(floor), "unit": unit, "got": written})
    if le is not None and not mag <= le:
        raise PydanticCustomError("quantity_le", "expected {expected} of at most {le} {unit} (beyond that no "
                                  "hardware exists), got '{got}'",
                                  {"expected": label, "le": number_text(le), "unit": unit, "got": written})


def is_difference(q: pint.Quantity) -> bool:
    """Whether `q` is written in a temperature-difference unit ('delta_degC', 'delta_degF')."""
    return any(name.startswith("delta_") for name in q.units._units)


def check_absolute(q: pint.Quantity, written: str, example: str) -> None:
    """Refuse a temperature difference or a point below absolute zero where a temperature is expected."""
    if is_difference(q):
        scale = "degF" if "delta_degree_Fahrenheit" in q.units._units else "degC"
        raise PydanticCustomError(
            "quantity_difference", "expected a temperature such as '{example}', got '{got}' which is a temperature "
            "difference", {"example": example, "got": written,
                           "hint": f"write a temperature on its scale: '{number_text(q.magnitude)} {scale}'"})
    if q.to("K").magnitude < 0:
        raise PydanticCustomError("quantity_ge", "expected a temperature above absolute zero, got '{got}'",
                                  {"got": written})
