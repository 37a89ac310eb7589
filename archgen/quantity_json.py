"""Quantities in the JSON outputs: SI base or derived units, `{"value", "unit"}`, strict JSON text.

Every command's JSON (`output.envelope`) and the sweeps' rows (floats in SI units between processes) use these,
so a metric is reported in one unit wherever it appears.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from archgen.metrics import UNBOUNDED
from archgen.pint_import import pint
from archgen.unit_definitions import CURRENCIES
from archgen.units import Q_, unit_base, ureg


def to_json(q: pint.Quantity) -> dict[str, Any]:
    """The JSON contract for a quantity: ``{"value": float, "unit": str}`` in SI base or derived units.

    An infinite value has no number in JSON: ``{"value": null, "unit": ..., "unbounded": ...}``, so that it does not
    read as a figure not provided. The only amount of money that is (the high end of a job's cost where goodput's low
    end is 0, `perf.workload.derived.cost_ends`) says why, `metrics.UNBOUNDED`; any other "no upper bound".

    The value is kept to `JSON_FIGURES` significant figures, so a product's or a conversion's float noise is not
    written: 60 requests/s x 256 tokens read 15359.999999999998 tokens/s (newuser104), now 15360.0.
    """
    value, unit = json_magnitude(q), json_unit(q)
    if value == math.inf:
        return {"value": None, "unit": unit, "unbounded": UNBOUNDED if unit in CURRENCIES else "no upper bound"}
    return {"value": float(f"{value:.{JSON_FIGURES}g}") if math.isfinite(value) else value, "unit": unit}


#: Significant figures of a quantity's JSON value (`to_json`): 15, the decimal digits every IEEE 754 double holds
#: exactly (C's DBL_DIG): a product's or a unit conversion's noise is an ulp or a few, in the 16th and 17th figures
#: Python's shortest repr writes. Only the JSON text is rounded: figures passed between processes (`json_magnitude`)
#: keep every bit.
JSON_FIGURES = 15


def json_text(doc: Any, **options: Any) -> str:
    """`json.dumps` as strict JSON (RFC 8259), with `options`; a non-finite number is written null.

    That is what JavaScript's JSON.stringify writes, never the `Infinity`/`NaN` that strict parsers reject. A
    document holding none (most: a quantity's infinite value is already null, `to_json`) is written as it is; only
    one that `allow_nan=False` refuses is copied with its non-finite numbers made null (fuzzpipe37).
    """
    try:
        return json.dumps(doc, allow_nan=False, **options)
    except ValueError:
        return json.dumps(_finite(doc), allow_nan=False, **options)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


_JSON_UNITS = [
    ("W", "W"), ("J", "J"), ("s", "s"), ("m", "m"), ("kg", "kg"), ("B/s", "B/s"), ("B", "B"), ("FLOPS", "FLOP/s"),
    ("FLOP", "FLOP"), ("m**3/s", "m^3/s"), ("m**2", "m^2"), ("kg/m**2", "kg/m^2"), ("A", "A"), ("V", "V"),
    ("Pa", "Pa"), ("J/kg/K", "J/(kg K)"), ("kg/m**3", "kg/m^3"), ("m**3", "m^3"),
] + [(c, c) for c in CURRENCIES] + [(f"{c}/J", f"{c}/J") for c in CURRENCIES] \
  + [(f"{c}/s", f"{c}/s") for c in CURRENCIES]


def json_unit(q: pint.Quantity) -> str:
    """Name of the SI unit a quantity is reported in by the JSON outputs."""
    return _json_unit(q.units)


@functools.lru_cache(maxsize=1024)
def _json_unit(units: pint.Unit) -> str:
    """`json_unit` by unit (a unit's JSON name never changes; finding it takes a dozen dimension checks).

    A rating written in volt-amperes (kVA, MVA: a unit's nameplate) is "VA", never "W": pint converts volt-amperes to
    watts one to one, and a kVA rating is no real power until a power factor makes it one (review39: PWR011's
    finding on a 2,000 kVA UPS without a power factor read `{"value": 2000000.0, "unit": "W"}`). A product of a
    voltage and a current the model computes (a PDU's V x A x phases) keeps "W", as before.
    """
    if units in (ureg.degC, ureg.degF):
        return "degC"
    q = Q_(1.0, units)
    if [(unit_base(n), p) for n, p in units._units.items()] == [("volt_ampere", 1)]:
        return "VA"
    if q.dimensionality == ureg.K.dimensionality:
        return "K"
    for unit, label in _JSON_UNITS:
        if q.is_compatible_with(unit):
            return label
    if q.dimensionless:
        return ""
    return f"{q.to_base_units().units:~C}"


def _to_unit_expr(label: str) -> str:
    return {"FLOP/s": "FLOPS", "m^3/s": "m**3/s", "m^2": "m**2", "kg/m^2": "kg/m**2", "J/(kg K)": "J/kg/K",
            "kg/m^3": "kg/m**3", "m^3": "m**3", "": "dimensionless"}.get(label, label)


@functools.lru_cache(maxsize=256)
def _json_units(label: str) -> Any:
    """The parsed unit of a JSON unit label, as `Quantity.to` parses it at every call."""
    return pint.util.to_units_container(_to_unit_expr(label), ureg)


def json_magnitude(q: pint.Quantity) -> float:
    """Magnitude of `q` in the unit named by `json_unit`: `q.to(unit).magnitude`, without building that Quantity."""
    return float(q._convert_magnitude_not_inplace(_json_units(json_unit(q))))
