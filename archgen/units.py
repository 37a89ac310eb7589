"""The one pint registry of archgen and the pydantic field types that carry quantities.

Every physical value in archgen is a `pint.Quantity` of the registry `ureg` defined here. Spec authors write
quantities as strings with a unit (``"132 kW"``, ``"1.8 TB/s"``, ``"45 degC"``) or as ``{value, unit}`` mappings;
the `Dim` annotation checks the dimension and keeps the author's unit. Numbers are parsed with `float()`, never by
pint's expression evaluator, so a hostile spec cannot make the parser hang (``"10**10**10 W"``).
"""

from __future__ import annotations

import functools
import math
import re
import sys
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

from archgen.pint_import import pint
from archgen.quantity_bounds import check_absolute, check_bounds, number_text
from archgen.quantity_ops import (
    adding_alike,
    building_directly,
    comparing_alike,
    converting_by_factor,
    m_as,
    scaling_by_numbers,
)
from archgen.quantity_text import per_item, plain, written_forms
from archgen.unit_definitions import CURRENCIES, build_registry
from archgen.unit_hints import currency_hint, misread_hint, suggest_unit

ureg: pint.UnitRegistry = build_registry()
pint.set_application_registry(ureg)  # pickled quantities come back on this registry
Q_ = ureg.Quantity
Q_.m_as = m_as  # type: ignore[method-assign, assignment]  # its magnitude without the converted Quantity (issue 25)
scaling_by_numbers(Q_)  # q * 2.0 and q / 2.0 without pint's per-call checks (issue 25)
adding_alike(Q_)  # q + r and q - r without pint's per-call checks (issue 25, suitespeed40)
comparing_alike(Q_)  # q < r in one unit without pint's per-call checks (suitespeed40)
converting_by_factor(Q_)  # q.to(u), q.m_as(u): each pair of units' factor looked up once (testspeed5)
building_directly(Q_)  # Q_(1.0, units) without pint's per-call checks (testspeed5)
Quantity = pint.Quantity

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_QTY = re.compile(rf"^\s*(?P<num>{_NUM})\s*(?P<unit>\S(?:.*\S)?)?\s*$", re.ASCII)   # ASCII; linear in spaces
_EXP = re.compile(r"(?:\*\*|\^)\s*[-+]?(\d+)")
_TOWER = re.compile(r"(\*\*|\^)[^*^]*(\*\*|\^)\s*[-+]?\d")


#: Why a unit on a logarithmic scale (dB, dBm, neper, octave) is refused wherever a quantity is read: no metric or
#: spec field of archgen is one, so a requirement in it (an acoustic "<= 85 dB" on a rack) has nothing to be judged
#: on. Before (small27), "<= 85 dB" on the dimensionless `accelerators` was judged met on every rack, and "85 dB(A)"
#: (decibel x ampere to pint) stopped `check` with a traceback.
LOGARITHMIC = ("no metric is a sound or signal level: acoustic noise, for one, is not modelled (docs/metrics.md "
               "lists the metrics); keep such a requirement outside the specs archgen judges")


def _logarithmic(name: str) -> bool:
    """Whether the unit `name` is on a logarithmic scale (in a product pint names it ``delta_decibel``)."""
    unit = ureg._units.get(name.removeprefix("delta_"))
    return unit is not None and bool(unit.is_logarithmic)


def _known(name: str) -> bool:
    """Whether one unit name is in the registry (pint's `in` raises on some names, e.g. '_')."""
    try:
        ureg.parse_units(name)
    except Exception:  # any pint error means the name is not a unit
        return False
    return True


def parse_unit(text: str) -> pint.Unit:
    """Parse a unit expression safely (length- and exponent-bounded) into a unit of `ureg`.

    Errors name the unit as written, never pint's exception text; an unknown name gets a "did you mean" hint.
    """
    if len(text) > 64 or any(len(e) > 2 for e in _EXP.findall(text)) or _TOWER.search(text):
        raise PydanticCustomError("quantity_unit", "unit expression '{unit}' is not allowed", {"unit": text})
    try:
        unit = ureg.parse_units(text)
    except pint.UndefinedUnitError:
        raise PydanticCustomError("quantity_unit", "unknown unit '{unit}'",
                                  {"unit": text, "hint": suggest_unit(text, _known)
                                   or currency_hint(text, _known, CURRENCIES)}) from None
    except Exception:  # pint also raises AssertionError/TypeError/ValueError/TokenError on odd input
        raise PydanticCustomError(
            "quantity_unit", "unit '{unit}' cannot be read", {"unit": text, "hint": suggest_unit(text, _known) or (
                "write a unit name or an expression of names with *, / and ** such as 'kW', 'L/min' or 'kg/m**2'")}
        ) from None
    if log := [name.removeprefix("delta_") for name in unit._units if _logarithmic(name)]:
        raise PydanticCustomError("quantity_unit", "unit '{unit}' is on a logarithmic scale ({scale}); archgen "
                                  "computes no figure in one",
                                  {"unit": text, "scale": ", ".join(log), "hint": LOGARITHMIC})
    return unit


def _number(text: str) -> int | float:
    value = float(text) if any(c in text for c in ".eE") or len(text) > 19 else int(text)
    if not math.isfinite(value):
        raise PydanticCustomError("quantity_parse", "number '{input}' is not finite", {"input": text})
    return value if isinstance(value, float) or abs(value) < 2**63 else float(value)  # int64 is what numpy holds


def parse_quantity(value: Any) -> pint.Quantity:
    """Parse ``'132 kW'``, ``{'value': 132, 'unit': 'kW'}`` or a Quantity of the shared registry."""
    if isinstance(value, pint.Quantity):
        if value._REGISTRY is not ureg:
            raise PydanticCustomError("quantity_registry", "quantity comes from a foreign pint registry")
        return value
    if isinstance(value, dict):
        if set(value) != {"value", "unit"} or isinstance(value["value"], bool) \
                or not isinstance(value["value"], int | float) or not isinstance(value["unit"], str):
            raise PydanticCustomError("quantity_type", "expected a mapping with keys value (number) and unit (string)")
        if isinstance(value["value"], int) and abs(value["value"]) >= 2**63:
            value = {**value, "value": float(value["value"])}
        if not math.isfinite(value["value"]):  # `.inf`, `.nan`, `1e400` are refused as they are in '<number> <unit>'
            raise PydanticCustomError("quantity_parse", "number '{input}' is not finite", {"input": value["value"]})
        per_item(value["value"], unit := plain(value["unit"]), _known)   # 'W/GPU': a count is no unit
        return _normal(Q_(value["value"], parse_unit(unit)), f"{value['value']} {value['unit']}")
    if isinstance(value, str):
        m = _QTY.match(written_forms(value))   # NFKC, U+2212; refused: '1,800 GB/s', '10-12 kW', '٥ kW'
        if not m:
            raise PydanticCustomError(
                "quantity_parse", "expected '<number> <unit>' such as '132 kW', got '{input}'", {"input": value})
        if not m["unit"]:
            raise PydanticCustomError("quantity_missing_unit", "number '{input}' has no unit", {"input": value})
        per_item(m["num"], m["unit"], _known)
        return _normal(Q_(_number(m["num"]), parse_unit(m["unit"])), value.strip())
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise PydanticCustomError("quantity_missing_unit", "number '{input}' has no unit", {"input": value})
    raise PydanticCustomError("quantity_type", "expected a quantity string such as '132 kW'")


def _normal(q: pint.Quantity, written: Any) -> pint.Quantity:
    """`q`, refused where its magnitude as written or in SI base units is a subnormal double.

    Below `sys.float_info.min` (2.2e-308) a double loses precision and the next arithmetic step underflows to 0: no
    physical value of a rack comes near, so it is a unit or exponent mistake (newuser39's ``weight: "1e-320 kg"``
    passed with 0 errors). Zero and legitimate small values (``1e-12 s``, ``1e-30 kg``) pass.
    """
    if any(0 < abs(float(m)) < sys.float_info.min for m in (q.magnitude, q.to_base_units().magnitude)):
        raise PydanticCustomError("quantity_subnormal", "'{input}' is below the smallest normal double (2.2e-308 in "
                                  "SI units); a unit mistake?", {"input": written})
    return q


def format_quantity(q: pint.Quantity) -> str:
    """Format a quantity so that `parse_quantity` reads it back equal: ``'132 kW'``, ``'1.5 kW/m²'``."""
    m = q.magnitude
    num = repr(m) if isinstance(m, int) else repr(float(m))
    if num.endswith(".0"):
        num = num[:-2]
    return f"{num} {q.units:~P}".strip()


def relative_change(base: pint.Quantity, new: pint.Quantity) -> float | None:
    """(new - base) / |base|, or None where base is 0, of another dimension or on an offset scale, or across zero.

    A temperature's zero is arbitrary, so 35 °C against 40 °C is no -12.5 % (and pint cannot take the difference back
    to °C): `diff` shows its change in K and calls any change a change (a rack's `coolant_supply`, newuser84). A
    change across zero is no share of the base either: a memory headroom of -214.4 GB that becomes +23 GB is not
    "+110.7 %" (newuser102); the change is shown alone, in the metric's unit, with its direction.
    """
    if not new.is_compatible_with(base) or _offset_unit(base) is not None:
        return None
    b, n = float(base.magnitude), float(new.to(base.units).magnitude)
    return None if b == 0 or b * n < 0 else float((new - base).to(base.units).magnitude) / abs(b)


#: The counts of the registry (`unit_definitions`): what a rate counts, a number ('600000 tokens/s' is 600000 1/s).
COUNTS = ("token", "request", "sample", "interruption")


@functools.lru_cache(maxsize=1024)
def unit_base(name: str) -> str:
    """The registry's name of a unit's base, its prefix and plural dropped (``ktokens`` → ``token``).

    A pure function of the name in the one registry, so parsed once a name: pint's parse, asked for every quantity
    validated and reported, was ~3 % of a small spec's `check` (fuzzpipe37).
    """
    return ureg.parse_unit_name(name)[0][1]


def counted(q: pint.Quantity) -> dict[str, Any]:
    """The counts `q`'s unit names, each with its exponent: ``{'token': 1}`` for tokens/s or ktokens/s; else {}."""
    found: dict[str, Any] = {}   # each exponent as pint holds it
    for name, exp in q.units._units.items():
        base = unit_base(name) if name not in COUNTS else name
        if base in COUNTS:
            found[base] = found.get(base, 0) + exp
    return found


def uncounted(q: pint.Quantity) -> pint.Quantity:
    """`q` without the counts in its unit (``600000 tokens/s`` → ``600000 1/s``, ``2 ktokens/s`` → ``2000 1/s``).

    `q` itself where its unit names no count, so that a caller can tell that nothing changed.
    """
    if not counted(q):
        return q
    rest = {n: e for n, e in q.units._units.items() if unit_base(n) not in COUNTS}
    unit = ureg.Unit(ureg.UnitsContainer(rest)) if rest else ureg.dimensionless
    return q.to(unit)


class Dim:
    """``Annotated[pint.Quantity, Dim("kW")]`` accepts anything convertible to kW and keeps the author's unit."""

    def __init__(self, unit: str, *, gt: float | None = None, ge: float | None = None, le: float | None = None,
                 floor: float | None = None, label: str | None = None, example: str | None = None,
                 temperature: Literal["absolute", "difference"] | None = None, real_power: bool = False,
                 counts: tuple[str, ...] = ()) -> None:
        self.unit = ureg.parse_units(unit)
        self.counts = counts  # the counts (`COUNTS`) its unit may name ('requests/s'); read as 1, never kept
        self.real_power = real_power  # refuse volt-amperes, which pint's 'VA = V x A' converts to watts one to one
        self.example = example or f"1 {unit}"
        self.gt, self.ge, self.le, self.floor = gt, ge, le, floor
        self.label = label or str(self.unit.dimensionality)
        self.temperature = temperature
        self._valid: dict[str, pint.Quantity] = {}  # text already accepted: a pure function of it (pint's
        # arithmetic returns new quantities, so sharing one is safe); validation cost 40 ms of every command

    def validate(self, value: Any) -> pint.Quantity:
        """Parse `value` and check its dimension and bounds (and, for temperatures, absolute or difference)."""
        if isinstance(value, str) and value in self._valid:
            return self._valid[value]
        q = self._checked(value)
        if isinstance(value, str) and len(self._valid) < 4096:
            self._valid[value] = q
        return q

    def _checked(self, value: Any) -> pint.Quantity:
        q = parse_quantity(value)
        written = value.strip() if isinstance(value, str) else format_quantity(q)
        if not q.is_compatible_with(self.unit):
            m = _QTY.match(plain(value)) if isinstance(value, str) else None   # the number and unit as read
            num, unit = (m["num"], m["unit"]) if m else (number_text(q.magnitude), f"{q.units:~P}")
            raise PydanticCustomError(
                "quantity_dimension", "expected {expected} such as '{example}', got '{got}' which is {got_dim}",
                {"expected": self.label, "example": self.example, "got": written, "got_dim": (got := dimension_name(q)),
                 "hint": misread_hint(num, unit, self._fits, f"{q.units:D}", got.startswith("["),
                                      "[time]" not in q.dimensionality)})
        # kW = kVA x power factor; a generator set's alternator is rated at 0.8 (ISO 8528-1 sets; "Generator Loading
        # Limits: Prime vs Standby Power Ratings", industrialmonitordirect.com, kW vs kVA): 2,500 kVA is 2,000 kW
        if self.real_power and apparent_power(q):
            raise PydanticCustomError("quantity_apparent", "expected {expected} in watts such as '{example}', got "
                                      "'{got}' which is an apparent power (volt-amperes)", {
                "expected": self.label, "example": self.example, "got": written, "hint": "real power is kVA x power "
                "factor: write the nameplate's kW (a generator set's alternator is rated at 0.8: 2500 kVA is 2000 kW)"})
        if wrong := sorted(set(counted(q)) - set(self.counts)):
            raise PydanticCustomError(
                "quantity_count", "expected {expected} such as '{example}', got '{got}' which counts {what}",
                {"expected": self.label, "example": self.example, "got": written, "what": " and ".join(
                    f"{n}s" for n in wrong), "hint": f"{self.label} counts {' or '.join(f'{n}s' for n in self.counts)}"
                    if self.counts else "a count is no unit here: write the value of one"})
        q = uncounted(q)
        if self.temperature == "difference":
            q = as_difference(q)
        elif self.temperature == "absolute":
            check_absolute(q, written, self.example)
        check_bounds(q.m_as(self.unit), (self.gt, self.ge, self.floor, self.le), self.label, f"{self.unit:~P}",
                     written)
        return q

    def _fits(self, unit: str) -> bool:
        """Whether a unit expression is one of this field's dimension (for "did you mean")."""
        try:
            return bool(parse_unit(unit).is_compatible_with(self.unit))
        except PydanticCustomError:
            return False

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            self.validate,
            serialization=core_schema.plain_serializer_function_ser_schema(format_quantity, when_used="json"))

    def __get_pydantic_json_schema__(self, cs: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        unit = f"{self.unit:~P}"
        if handler.mode == "serialization":
            return {"type": "string", "x-unit": unit}
        return {"anyOf": [
                    {"type": "string", "pattern": rf"^\s*{_NUM}\s*\S", "examples": [self.example]},
                    {"type": "object", "properties": {"value": {"type": "number"}, "unit": {"type": "string"}},
                     "required": ["value", "unit"], "additionalProperties": False}],
                "description": f"{self.label} with a unit, convertible to {unit}",
                "x-unit": unit, "x-dimensionality": str(self.unit.dimensionality)}


def apparent_power(q: pint.Quantity) -> bool:
    """Whether a power is written in volt-amperes (kVA, V x A), which pint converts to watts one to one."""
    return bool({"volt", "volt_ampere"} & {unit_base(n) for n in q.units._units})


def _offset_unit(q: pint.Quantity) -> str | None:
    """The name of `q`'s unit when it is a temperature on an offset scale ('degree_Celsius'), else None."""
    names = dict(q.units._units)
    if len(names) != 1 or next(iter(names.values())) != 1 or q.dimensionality != _TEMPERATURE:
        return None
    name = next(iter(names))
    return name if ureg.Quantity(0, q.units).to("K").magnitude != 0 else None


def as_difference(q: pint.Quantity) -> pint.Quantity:
    """A temperature read as the difference it names: '10 degC' → 10 delta_degC (= 10 K), '18 degF' → 10 K.

    pint converts an offset unit to kelvin as a point on the scale (10 degC → 283.15 K); in a field that holds a
    difference (a coolant ΔT, an approach) the author means the interval, so the unit becomes its delta twin.
    """
    name = _offset_unit(q)
    return ureg.Quantity(q.magnitude, f"delta_{name}") if name else q


_TEMPERATURE = ureg.K.dimensionality
#: Dimensions named in words in messages ("'5 m' which is a length"), from the labels of the field types below.
_DIMENSION_NAMES: dict[Any, str] = {}


def dimension_name(q: pint.Quantity) -> str:
    """A quantity's dimension in words where a field type names it ('a length'), else pint's dimension text."""
    if q.dimensionless:
        return "dimensionless"
    return _DIMENSION_NAMES.get(q.dimensionality) or str(q.dimensionality)


Q = pint.Quantity
# Upper bounds (`le`) are magnitudes beyond any hardware or site (issue 23): a 10 GW part, a 1 EB transfer, a 100 km
# cable, a 100 U rack, a century of repair. They refuse the absurd where it is written, before an analysis would
# overflow (an 8e300 GiB collective), allocate (a 10^6 U rack) or run for hours (a repair of 10^9 h). Floors
# (`floor`) are magnitudes below any hardware, where a positive value divides: a link under 1 Mbit/s (a 1e-300 Gb/s
# fabric sized 10^300 leaves, an NVLink of 1.8e-9 TB/s was estimated), under 1 GFLOP/s, or data under one byte; a
# length under 1 mm (a rack 1e-200 mm wide and deep: its footprint underflowed to 0 and `check` raised
# ZeroDivisionError; 1e-300 mm wide printed a 300-digit floor load) and a temperature rise under 0.1 K (an air
# delta_t of 1e-200 K gave an air flow of 3.7e201 m³/s with exit 0).
Power = Annotated[Q, Dim("kW", gt=0, le=1e7, label="a power", example="33 kW", real_power=True)]
PowerOrZero = Annotated[Q, Dim("W", ge=0, le=1e10, label="a power", example="12 W", real_power=True)]
Energy = Annotated[Q, Dim("kWh", ge=0, le=1e12, label="an energy", example="10 kWh")]
Voltage = Annotated[Q, Dim("V", gt=0, le=1e6, label="a voltage", example="415 V")]
Current = Annotated[Q, Dim("A", gt=0, le=1e5, label="a current", example="60 A")]
Temperature = Annotated[Q, Dim("degC", le=1000, label="a temperature", example="45 degC", temperature="absolute")]
#: A temperature difference: 'K', 'delta_degC', 'delta_degF', or an offset unit read as the difference it names
#: ('10 degC' is 10 K, '18 degF' is 10 K), never as a point on its scale (283.15 K).
TemperatureDelta = Annotated[Q, Dim("K", gt=0, floor=0.1, le=500, label="a temperature difference", example="10 K",
                                    temperature="difference")]
Bandwidth = Annotated[Q, Dim("Gbit/s", gt=0, floor=1e-3, le=1e8, label="a bandwidth", example="400 Gb/s")]
FlowRate = Annotated[Q, Dim("L/min", gt=0, le=1e7, label="a volumetric flow", example="80 L/min")]
Pressure = Annotated[Q, Dim("kPa", gt=0, le=1e5, label="a pressure", example="150 kPa")]
Volume = Annotated[Q, Dim("L", gt=0, le=1e6, label="a volume", example="40 L")]
ComputeRate = Annotated[Q, Dim("TFLOPS", gt=0, floor=1e-3, le=1e9, label="a compute rate", example="2.25 PFLOPS")]
Information = Annotated[Q, Dim("GB", gt=0, floor=1e-9, le=1e12, label="an amount of data", example="141 GB")]
Length = Annotated[Q, Dim("m", gt=0, floor=1e-3, le=1e5, label="a length", example="3 m")]
LengthOrZero = Annotated[Q, Dim("m", ge=0, le=1e5, label="a length", example="0.6 m")]
RackSpace = Annotated[Q, Dim("U", gt=0, le=100, label="a rack height", example="2 U")]
ZeroURackSpace = Annotated[Q, Dim("U", ge=0, le=100, label="a rack height", example="0 U")]  # a 0U PDU
Mass = Annotated[Q, Dim("kg", gt=0, le=1e6, label="a mass", example="34 kg")]
AreaLoad = Annotated[Q, Dim("kg/m**2", gt=0, le=1e5, label="a floor loading", example="1200 kg/m**2")]
Duration = Annotated[Q, Dim("s", gt=0, le=3.2e9, label="a time", example="2 us")]
DurationOrZero = Annotated[Q, Dim("s", ge=0, le=3.2e9, label="a time", example="0 us")]
RequestRate = Annotated[Q, Dim("1/s", gt=0, le=1e9, label="a request rate", example="12 requests/s",
                               counts=("request",))]
Fraction = Annotated[Q, Dim("dimensionless", ge=0, label="a ratio", example="0.8 dimensionless")]
#: Grams of CO2-equivalent per kWh of electricity: coal-fired generation's life-cycle emissions are 820 g/kWh
#: (median; IPCC AR5 WG3 Annex III, Table A.III.2), the most a grid of coal alone emits, so 2,000 is no grid's.
CarbonIntensity = Annotated[Q, Dim("g/kWh", ge=0, le=2000, label="a carbon intensity", example="390 g/kWh")]
#: Litres of water per kWh of IT energy (WUE, The Green Grid White Paper #35); US data centres used 1.8 L on site per
#: kWh consumed in 2014 (Shehabi et al., "United States Data Center Energy Usage Report", LBNL-1005775, 2016).
WaterIntensity = Annotated[Q, Dim("L/kWh", ge=0, le=50, label="a water use per energy", example="1.8 L/kWh")]


def name_dimensions(field_types: Iterable[Any]) -> None:
    """Name in `dimension_name` the dimensions of these field types by their labels (the first label wins)."""
    for value in list(field_types):
        for dim in getattr(value, "__metadata__", ()):
            if isinstance(dim, Dim) and dim.unit.dimensionality != _TEMPERATURE:
                _DIMENSION_NAMES.setdefault(dim.unit.dimensionality, dim.label)


name_dimensions(globals().values())
_DIMENSION_NAMES[_TEMPERATURE] = "a temperature or temperature difference"
_DIMENSION_NAMES[ureg.FLOP.dimensionality] = "an amount of computation"   # no field takes one: a rate's '/s' left out
