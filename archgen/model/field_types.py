"""Field types the spec models share beyond `archgen.units`: a fraction, and a height in whole rack units.

`as_fraction` is the one rule for a share of something (a liquid fraction, an efficiency, a derating, an AFR): written
as a number (``0.85``) or as a dimensionless quantity of the one registry (``'85 %'``, ``'85 percent'``). A field
takes one of three types: `Fraction` (0 to 1), `PositiveFraction` (above 0, at most 1) or `Share` (bounds checked by
its model, in its own words). `RackHeight` and `ZeroURackHeight` are `units.RackSpace` and `units.ZeroURackSpace` in
whole rack units.
"""

import functools
import math
import re
from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from archgen.pint_import import pint
from archgen.units import RackSpace, ZeroURackSpace, counted, format_quantity, parse_quantity, ureg

#: A number format of weights, activations or a KV cache (a training or a serving job's `precision`).
Precision = Literal["fp16", "bf16", "fp8", "fp4"]

#: What a fraction field expects, as its error message says it.
FRACTION_EXPECTED = "a fraction such as 0.85 or a percentage such as '85 %'"


def _quantity_or_number(value: object, expected: str, ranges: bool = False) -> pint.Quantity | None:
    """`value` as a quantity of the one registry, or None where the field's float type is left to read it.

    None for a number or a string of a bare number ('0.85', '5'); any other string that is no quantity is refused
    with what the field `expected`; with `ranges`, a range ('0.96-0.98') keeps its own message, which names the
    field's range form (`spec_paths.quantity_hint`).
    """
    if not isinstance(value, str):
        return None
    try:
        return parse_quantity(value)
    except PydanticCustomError as exc:
        if exc.type == "quantity_missing_unit":
            return None
        if ranges and exc.type == "quantity_range":
            raise
        raise PydanticCustomError("expected", expected) from None


def as_fraction(value: object) -> object:
    """A fraction written as a dimensionless quantity (``'85 %'``, ``'85 percent'``, ``'850 permille'``) as a number.

    A number, or a string of one, is left to the float type (and the field's bounds) as it was; any other string is
    refused with what a fraction field takes.
    """
    q = _quantity_or_number(value, FRACTION_EXPECTED, ranges=True)
    if q is None:
        return value
    if not q.dimensionless or counted(q) or not math.isfinite(float(q.m_as(""))):   # '0.5 tokens' is no share
        raise PydanticCustomError("expected", FRACTION_EXPECTED)
    return float(q.m_as(""))


def _bounded(above_zero: bool) -> Callable[[object], object]:
    """`as_fraction` with the share's bounds checked in the unit it is written in: '0 %' is "above 0 %", not 0.0.

    A number is left to the field's bounds (pydantic's "at most 1.0"); a percentage such as '120 %' is refused with
    the bounds in its own unit, "a share above 0 % and at most 100 %" (newuser90: utilisation '0 %' read "greater
    than 0.0", '120 %' "at most 1.0").
    """
    @functools.wraps(as_fraction)   # `as_fraction` still, as `inspect.unwrap` finds (the test of every share)
    def read(value: object) -> object:
        share = as_fraction(value)
        if not isinstance(value, str) or not isinstance(share, float) or (0 < share <= 1 if above_zero
                                                                          else 0 <= share <= 1):
            return share
        unit = parse_quantity(value).units
        low, high = (format_quantity(ureg.Quantity(n, "").to(unit)) for n in (0, 1))
        raise PydanticCustomError("expected", f"a share above {low} and at most {high}" if above_zero
                                  else f"a share from {low} to {high}")
    return read


def _number_or(example: str) -> Callable[[dict], None]:
    """A JSON Schema of a number with its bounds or a string such as `example` ('85 %'), for an editor's checks."""
    def schema_of(schema: dict) -> None:
        number = {k: schema.pop(k) for k in list(schema) if k in _NUMBER_KEYS}
        schema["anyOf"] = [number, {"type": "string", "examples": [example]}]
    return schema_of


_number_or_string = _number_or("85 %")


_NUMBER_KEYS = ("type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")

# The bounds come first, so that pydantic checks them on the number `as_fraction` gives and writes them in the JSON
# Schema as minimum and maximum (a bound given after the validator, as a field's own, is neither).
#: A share from 0 to 1: '85 %' or 0.85 (a liquid fraction, a discount rate).
Fraction = Annotated[float, Field(ge=0, le=1), BeforeValidator(_bounded(above_zero=False)),
                     Field(json_schema_extra=_number_or_string)]
#: A share above 0, at most 1: an efficiency, a derating (a GEMM efficiency of -0.5 made an MFU of 282 %, issue 23).
PositiveFraction = Annotated[float, Field(gt=0, le=1), BeforeValidator(_bounded(above_zero=True)),
                             Field(json_schema_extra=_number_or_string)]
#: A power usage effectiveness: facility energy over IT energy (The Green Grid White Paper #49), at least 1 by
#: definition; at most 5, beyond any hall's (a typo guard).
Pue = Annotated[float, Field(ge=1, le=5)]
#: A share whose model states its bounds in its own words (an AFR above 100 % is written with `fit`).
Share = Annotated[float, BeforeValidator(as_fraction), Field(json_schema_extra=_number_or_string)]


#: The longest a field of years takes: a hardware life (a typo guard).
MAX_YEARS = 30
#: The shortest: a month, at its shortest 28 days ('4 weeks' and '30 days' stand). A depreciation life spans more
#: than one accounting period (IAS 16 Property, Plant and Equipment, paragraph 6: items "expected to be used during
#: more than one period"); US tax depreciates only property "expected to last more than one year" (IRS Publication
#: 946, chapter 1, "What Property Can Be Depreciated?"). A month, the shortest period books are closed over, keeps a
#: short life written on purpose ('6 months', 0.5) and refuses a time in hours or days ('5 h' was read as 0.00057
#: years, review54) or a number of years that small (0.01).
MIN_YEARS = 28 / 365.25
#: What a field of years expects, as its error message says it.
YEARS_EXPECTED = "a number of years such as 5, or a time such as '5 years' or '60 months'"
#: Why a field of years is at least a month, as its error message says it.
WHY_A_MONTH = "a depreciation life spans more than one accounting period: a life of hours or days is a slip for years"


def as_years(value: object) -> object:
    """A number of years written as a number (``5``) or as a time of the one registry (``'5 years'``, ``'60 months'``).

    Every other duration of the schema is a time with its unit ('72 h'), so a field counted in years takes one too
    (newuser90: `depreciation_years: 5 years` was refused as "expected a number"); a number, or a string of one, is
    left to the float type and the field's bounds, but one under `MIN_YEARS` is refused here, in the words a time
    under it is. A year is pint's, 365.25 days (a month a twelfth of it).
    """
    q = _quantity_or_number(value, YEARS_EXPECTED)
    if q is None:
        years = _number(value)
        if years is not None and years < MIN_YEARS:   # the field's bound in words, not "at least 0.07665982203969883"
            raise PydanticCustomError("expected", f"a number of years from {MIN_YEARS:.3g} (28 days) to {MAX_YEARS}"
                                                  + (f" ({WHY_A_MONTH})" if years > 0 else ""))
        return value
    if not q.check("[time]") or not math.isfinite(float(q.m_as("year"))):
        raise PydanticCustomError("expected", YEARS_EXPECTED)
    years = float(q.m_as("year"))
    if not MIN_YEARS <= years <= MAX_YEARS:   # the bounds as a time: '40 years' is no "number of at most 30.0"
        raise PydanticCustomError("expected", f"a time from 28 days to {MAX_YEARS} years" + (
            f", not {years:.2g} years ({WHY_A_MONTH})" if 0 < years < MIN_YEARS else ""))
    return years


def _number(value: object) -> float | None:
    """`value` as a float where it is a number or a string of one, else None (left to the field's type to refuse)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value) if isinstance(value, (int, float, str)) else None
    except ValueError:
        return None


#: A number of years from a month to 30 (a hardware life; `as_years`): 5 or '5 years'.
Years = Annotated[float, Field(ge=MIN_YEARS, le=MAX_YEARS), BeforeValidator(as_years),
                  Field(json_schema_extra=_number_or("5 years"))]


def _whole_units(q: pint.Quantity) -> pint.Quantity:
    """`q`, refused unless it is a whole number of rack units.

    EIA-310 sets the rack unit at 1.75 in (44.45 mm) and its mounting holes repeat every unit, so rack-mounted
    equipment takes a whole number of units (Wikipedia, "Rack unit", https://en.wikipedia.org/wiki/Rack_unit: "based on
    a standard rack specification as defined in EIA-310"; "Rack-mountable equipment is usually designed to occupy some
    integer number of U"). A slot is at a whole U (`Slot.at`), and a half U was rounded away (8.5 U took 8). OCP's
    Open Rack counts its own unit, the OpenU of 48 mm (Open Rack V3 Base Specification rev 1.0, 2022, section 6.1
    "Rack geometry": "vertical OpenU, optional RU"; Wikipedia, "Open Compute Project": OpenU of 48 mm). The schema
    has no OpenU: an Open Rack item is stated in the rack units its slots take ('1 U' for a 1 OU power shelf, as the
    shipped catalog does).
    """
    units = float(q.m_as("U"))
    if abs(units - round(units)) > 1e-9 * max(1.0, abs(units)):   # a conversion's rounding ('88.9 mm'), not a half U
        in_u = "" if q.units == ureg.U else f" ({units:.4g} U)"
        raise PydanticCustomError(
            "quantity_whole_units", "expected a whole number of rack units such as '2 U', got '{got}'{in_u}",
            {"got": format_quantity(q), "in_u": in_u, "hint": "EIA-310 racks mount equipment in whole units of 1.75 "
             "in (44.45 mm): write the units the part takes (an OCP Open Rack item: the rack units its slots take)"})
    return q


#: A rack-mounted height: a whole number of rack units above 0 (`units.RackSpace`).
RackHeight = Annotated[RackSpace, AfterValidator(_whole_units)]
#: A rack-mounted height that may be 0 U (a vertical PDU): a whole number of rack units (`units.ZeroURackSpace`).
ZeroURackHeight = Annotated[ZeroURackSpace, AfterValidator(_whole_units)]


#: One orderable part number (OPN, SKU): segments of letters and digits, each joined to the next by one of - . _ + #
#: (NVIDIA's MQM9700-NS2F, MCP4Y10-N00A and 920-9B210-00FN-0M0, Arista's DCS-7060X6-64PE-F, HPE's option suffix
#: P12345-B21#0D1, MikroTik's CRS326-24G-2S+RM), then at most one '/' and one of Cisco's closing suffixes, and one '='
#: where it is Cisco's spare (QDD-2X400G-FR4=, a module ordered on its own: https://support.itmall.sale/?p=15173;
#: review49). A '/' suffix is the only place a vendor puts a '/' in one number, and it is one of two kinds: an export
#: class, K7 (no encryption), K8 (base) or K9 (strong), or NPE (JD Fox Micro, "Cisco Part Number Reference",
#: https://www.jdfoxmicro.com/resource-center/articles/cisco-reference/, "Encryption: K8 or K9": C3900-SPE250/K9,
#: CISCO2911/K9, and a bundle's closing segment after it, ISR4331-SEC/K9-WS), or one digit, the unit's place (the
#: second power supply PWR-C1-1100WAC-P/2 beside PWR-C1-1100WAC-P, as Cisco's Catalyst 9300 order lines list them).
#: Any other text after a '/' is a second code, not a suffix ('A1/B2', 'MMA4Z00-NS400/MMA1Z00-NS400'; pods34: review50
#: had let 'A1/B2' through). A code holds a digit or is words joined by '-': Cisco's power cords CAB-TA-NA and
#: CAB-TA-EU and its 1000BASE-T SFP GLC-TE have no digit (as Cisco order lines print them, e.g. the product names of a
#: Catalyst 9300 order: C9300-NM-8X, CAB-TA-NA, STACK-T1-50CM), while a bare word ('TBD', 'none') or 'n/a' is no code
#: (review50). Spaces, commas and two codes ('MMA4Z00-NS400 / MMA1Z00-NS400') are refused: a part with no single
#: number leaves it empty (and says why, `generic` or the notes), as the BOM does (docs/rendering.md, Part numbers).
_PART_NUMBER = re.compile(r"^[A-Za-z0-9]+(?:[-._+#][A-Za-z0-9]+)*(?:/(?:(?:K[789]|NPE)(?:-[A-Za-z0-9]+)?|[0-9]))?=?$",
                          re.IGNORECASE)
#: Placeholders a buyer could not order, however they are joined (tidy34; review51 found 'N-A', 'TO-BE-CONFIRMED' and
#: 'TBD-TBD' passing as words joined by '-'): the words spelled out, with the separators dropped ('N-A' is NA), and the
#: segments no vendor's code holds (TBD, TBC, TBA, TODO), wherever they stand ('QM9700-TBD'). 'NA' as one segment of
#: a longer code stays: Cisco's North American power cord CAB-TA-NA.
_PLACEHOLDER_WORDS = frozenset({"NA", "NONE", "NULL", "UNKNOWN", "PENDING", "PLACEHOLDER", "NOTAPPLICABLE",
                                "NOTAVAILABLE", "TOBECONFIRMED", "TOBEDETERMINED", "TOBEANNOUNCED", "TOBEDEFINED"})
_PLACEHOLDER_SEGMENTS = frozenset({"TBD", "TBC", "TBA", "TODO"})


def _placeholder(text: str) -> bool:
    """Whether `text` is a placeholder (`_PLACEHOLDER_WORDS`, `_PLACEHOLDER_SEGMENTS`), not a code."""
    segments = re.split(r"[-._+#/=]", text.upper())
    return "".join(segments) in _PLACEHOLDER_WORDS or any(s in _PLACEHOLDER_SEGMENTS for s in segments)


def _part_number(value: object) -> object:
    """A part number as written, stripped; refused unless it reads as one orderable code (`_PART_NUMBER`)."""
    if not isinstance(value, str) or not value.strip():
        return value.strip() if isinstance(value, str) else value   # the string type says what was expected
    text = value.strip()
    code = text.partition("/")[0].rstrip("=")   # the code a suffix closes: it holds the digit or the '-'
    if not _PART_NUMBER.match(text) or not (any(c.isdigit() for c in code) or "-" in code):
        raise PydanticCustomError(
            "expected", "one orderable part number such as 'MQM9700-NS2F' or 'CAB-TA-NA' (letters and digits joined "
            "by - . _ + #, with a digit or a '-' between words; at most one '/' before a Cisco closing suffix, an "
            "export class such as /K9 or a unit such as /2, and a Cisco spare's closing =); where no single number is "
            "published leave it empty (a class part: generic: true) and name alternatives or lengths in notes")
    if _placeholder(text):
        raise PydanticCustomError(
            "expected", "a part number a buyer can order, not a placeholder (TBD, TBC, TBA, TODO, N-A, NONE, UNKNOWN, "
            "PENDING, TO-BE-CONFIRMED and the like): where the number is not known yet leave it empty and say so in "
            "notes")
    return text


#: A vendor's orderable part number, or empty (`_part_number`).
PartNumber = Annotated[str, BeforeValidator(_part_number)]
