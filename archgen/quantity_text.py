"""A written quantity's text before the registry reads it: the Unicode rule, ranges and per-item units.

Apart from `archgen.units` (at the module size limit) and free of the registry: the caller passes the test of
whether a name is a unit. The rule a spec author reads (docs/spec-reference.md, `archgen.docs`):

* The text is read in Unicode NFKC form, so a character whose compatibility form is plain text is read as that
  text: full-width digits and letters ('１０ ｋW' is '10 kW'), '℃' (U+2103) as '°C', '℉' (U+2109) as '°F', 'K'
  (U+212A KELVIN SIGN) as 'K', the micro sign as 'μ', a no-break or thin space as a space. Superscripts ('m²') are
  kept as written: pint reads them as exponents.
* '˚' (U+02DA RING ABOVE) and 'º' (U+00BA MASCULINE ORDINAL INDICATOR) before C, F or K are read as the degree sign
  '°', which is what datasheets mean by them ('20 ˚C', '68 ºF', '300 ˚K'), as is '°' followed by spaces ('5 ° C'
  is '5 °C', not a coulomb-degree). Anywhere else they are refused with a hint: pint drops '˚' silently ('1 ˚m'
  would read as 1 m).
* U+2212 MINUS SIGN (as typeset text prints '−5 °C') is read as '-'.
* The number is then ASCII digits: digits of another script ('٥') are refused with the ASCII number as the hint.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from pydantic_core import PydanticCustomError

from archgen.unit_hints import digit_grouping

#: Characters NFKC would change that are kept: superscript exponents, which pint reads ('m²' is m**2), the ordinal
#: indicators ('º', which NFKC makes 'o') and what NFKC turns into a space and a combining accent ('˚' U+02DA RING
#: ABOVE): `_DEGREE` reads the two before a temperature scale, and `plain` refuses them elsewhere, as written.
_KEPT = set("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ºª")
#: A degree sign as datasheets print it before C, F or K (not a longer word): '°', '˚' (U+02DA) or 'º' (U+00BA), then
#: any spaces.
_DEGREE = re.compile(r"[°˚º]\s*(?=[CFK](?![A-Za-z]))")
#: What `_DEGREE` reads as the degree sign where it is one: elsewhere no unit.
_NOT_DEGREE = {"˚": "U+02DA RING ABOVE", "º": "U+00BA MASCULINE ORDINAL INDICATOR"}
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: Two numbers with a range between them, as datasheets print one: '10-12 kW', '10 to 12 kW', '10–12 kW' (en dash),
#: '10 ~ 12 kW', '10..12 kW'; the unit once, at the end, or after each number.
#: Each run of spaces has one place in the pattern (a unit before the dash is one word), so a long run cannot make it
#: try every split of it (a hostile spec's '1' and 10^5 spaces).
_RANGE = re.compile(rf"^\s*(?P<lo>{_NUM})\s*(?:(?P<u1>[^\d\s.~–—-][^\d\s~–—-]*)\s*)?(?:-|–|—|~|\.\.|\bto\b)\s*"
                    rf"(?P<hi>{_NUM})\s*(?P<u2>\S(?:.*\S)?)?\s*$", re.ASCII)
#: A unit followed by what the value is per: 'W/GPU', 'kW/rack', 'W per GPU'.
_PER = re.compile(r"^(?P<unit>.*?[^\s/])\s*(?:/|\s+per\s+)\s*(?P<item>[^\W\d][\w-]*)$")


def plain(text: str) -> str:
    """`text` by the rule of this module: NFKC form, superscripts kept, U+2212 read as '-', '˚' and 'º' as '°'.

    '˚' and 'º' are read so before C, F or K only (`_DEGREE`); anywhere else they are refused.
    """
    if text.isascii():   # most quantities: nothing to change
        return text
    out = []
    for c in text:
        nfkc = unicodedata.normalize("NFKC", c)
        out.append("-" if c == "\u2212" else c if c in _KEPT or nfkc.startswith(" ") and len(nfkc) > 1 else nfkc)
    read = _DEGREE.sub("°", "".join(out))
    if stray := next((c for c in read if c in _NOT_DEGREE), None):
        raise PydanticCustomError("quantity_parse", "expected '<number> <unit>' such as '132 kW', got '{input}': "
                                  "'{char}' ({name}) is read as the degree sign only before C, F or K",
                                  {"input": text.strip(), "char": stray, "name": _NOT_DEGREE[stray], "hint": (
                                      "write the scale after it ('20 °C', '68 °F', '300 K'), or remove it")})
    return read


def written_forms(value: str) -> str:
    """`value` as `plain` reads it; refused, with how to write it, where its number is written as no field reads one.

    Digit groups and a decimal comma ('1,800 GB/s', `unit_hints.digit_grouping`), a range ('10-12 kW': the
    error's `low` and `high` let `archgen.validate` name the field's range form), and another script's digits.
    """
    text = plain(value)
    grouped = digit_grouping(text)   # '1,800 GB/s', '1 800 GB/s', '10,2 kW' as datasheets print them
    if grouped:
        raise PydanticCustomError("quantity_parse", "expected '<number> <unit>' such as '132 kW', got '{input}', a "
                                  "number {what}", {"input": value.strip(), "what": grouped[0], "hint": grouped[1]})
    m = _RANGE.match(text)
    if m and (not m["u1"] or not m["u2"] or m["u1"] == m["u2"]):
        unit = m["u2"] or m["u1"] or ""
        low, high = f"{m['lo']} {m['u1'] or unit}".strip(), f"{m['hi']} {unit}".strip()
        raise PydanticCustomError("quantity_range", "expected one value, got '{input}', a range",
                                  {"input": value.strip(), "low": low, "high": high, "hint": (
                                      "state one value, the figure the design uses, and the range with its source "
                                      "in `notes:`")})
    if any(c.isdecimal() and not c.isascii() for c in text):   # decimal: a superscript is a digit, not a decimal
        ascii_ = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text).strip()
        raise PydanticCustomError("quantity_parse", "expected '<number> <unit>' such as '132 kW', got '{input}', "
                                  "digits outside ASCII", {"input": value.strip(), "hint": f"write '{ascii_}'"})
    return text


def per_item(number: object, unit: str, known: Callable[[str], bool]) -> None:
    """Refuse a unit that says what the value is per ('700 W/GPU', '132 kW/rack'), with the value without it.

    A count is not a unit, and a field already holds the value of one of what it describes: the error's `plain`
    ('700 W') lets `archgen.validate` say what the field is per.
    """
    m = _PER.match(unit.strip()) if len(unit) <= 64 else None   # longer: `units.parse_unit` refuses it
    if m and not known(m["item"]) and not known(unit.strip()) and known(m["unit"]):
        written = f"{number} {m['unit']}"
        raise PydanticCustomError("quantity_per_item", "unit '{unit}' says what the value is per: '{item}' is not a "
                                  "unit", {"unit": unit.strip(), "item": m["item"], "plain": written, "hint": (
                                      f"write '{written}' if that is the value of one of what the field describes")})
