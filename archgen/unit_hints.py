"""'Did you mean' for a unit the registry does not know: the hint of `archgen.units.parse_unit`'s errors.

Apart from `archgen.units` (which had reached the module size limit) and free of the registry: the caller passes
the test of whether a name is a unit.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable
from decimal import Decimal

#: Units specs commonly name: what "did you mean" offers for a unit the registry does not know ('kw', 'degc').
COMMON_UNITS = (
    "W", "kW", "MW", "GW", "mW", "V", "kV", "mV", "A", "kA", "mA", "VA", "kVA", "J", "kJ", "MJ", "Wh", "kWh", "MWh",
    "BTU", "degC", "degF", "K", "delta_degC", "delta_degF", "kg", "g", "t", "lb", "m", "mm", "cm", "km", "ft",
    "inch", "U", "s", "ms", "us", "ns", "min", "h", "hr", "day", "B", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB",
    "GiB", "TiB", "bit", "kb", "Mb", "Gb", "Tb", "FLOP", "FLOPS", "GFLOPS", "TFLOPS", "PFLOPS", "EFLOPS", "L", "mL",
    "gal", "cfm", "Pa", "kPa", "bar", "psi", "percent")
_NAME = re.compile(r"[^\W\d][\w°µΩ]*")


#: What a rate counts, written as a unit the registry does not name ('req/s', 'queries/s'): 'req' is the registry's
#: `request`; any other count is a number, so its rate is '1/s' (the registry names `token`, `request` and `sample`,
#: `unit_definitions`); "did you mean" offers the expression with each word so replaced.
_COUNTS = re.compile(r"(?<!\w)(?:(?P<req>reqs?)|quer(?:y|ies)|sequences?|seqs?)(?!\w)", re.IGNORECASE)
_NAMED = "the counts archgen names are tokens, requests and samples"
#: A rate written as one word, as serving benchmarks print it ('8 qps', 'rps', 'tps'): read as its count per second
#: and offered as `_COUNTS` offers that (newuser97: 'qps' was an unknown unit with no hint).
_PER_SECOND = re.compile(r"(?<!\w)(?P<count>q|r|req|t)ps(?!\w)", re.IGNORECASE)
_SPELLED = {"q": "queries", "r": "req", "req": "req", "t": "tokens"}


#: A currency code as a quote prints it ('5000 CHF'): three capitals, ISO 4217's form.
_CODE = re.compile(r"(?<![^\W\d_])[A-Z]{3}(?![^\W\d_])")


def currency_hint(text: str, known: Callable[[str], bool], currencies: Iterable[str]) -> str:
    """Which currencies archgen knows, where `text` names three capitals the registry does not ('CHF'); else "".

    newuser98: a buyer's '5000 CHF' read "unknown unit 'CHF'" with no hint; the code may be no currency at all, so
    the hint says "if".
    """
    code = next((c for c in _CODE.findall(text) if not known(c)), None)
    if code is None:
        return ""
    return (f"if '{code}' is a currency: archgen knows {', '.join(currencies)} and converts none, so give every price "
            "of a design in one of them")


def suggest_unit(text: str, known: Callable[[str], bool]) -> str:
    """'did you mean ...?' for a unit expression with unknown names: 'kw' → 'kW', 'btu/hr' → 'BTU/hr'; else "".

    A count the registry does not name becomes 1, an abbreviated one its name: 'queries/s' → '1/s', 'req/s' →
    'requests/s'; a rate in one word is read per second first: 'qps' → '1/s', 'rps' → 'requests/s', 'tps' →
    'tokens/s'. `known` says whether one unit name or expression is in the registry (`archgen.units`, which
    passes its own).
    """
    spelled = _PER_SECOND.sub(lambda m: f"{_SPELLED[m['count'].lower()]}/s", text)
    read = f"'{text.strip()}' read as {spelled.strip()}; " if spelled != text else ""
    counted = _COUNTS.sub(lambda m: "requests" if m["req"] else "1", spelled).replace(" ", "")
    if counted == "1":
        return f"{_NAMED}; write any other as the number alone"
    if counted != text.replace(" ", "") and known(counted):
        return f"did you mean '{counted}'? ({read}{_NAMED}; a rate of another is written per time, e.g. '1/s')"
    options = [""]
    pos = 0
    for m in _NAME.finditer(text):
        name = m[0]
        if known(name):
            close = [name]
        elif name.endswith("ps") and known(f"{name[:-2]}/s"):   # 'TBps', 'GBps' as datasheets print them
            close = [f"{name[:-2]}/s"]
        else:
            close = [u for u in COMMON_UNITS if u.lower() == name.lower()] or \
                difflib.get_close_matches(name, COMMON_UNITS, n=1, cutoff=0.75)
            if not close:
                return ""
        options = [o + text[pos:m.start()] + c for o in options for c in close][:3]
        pos = m.end()
    options = [o + text[pos:] for o in options if o + text[pos:] != text]
    if not options:
        return ""
    note = _lookalike(text, options[0]) if len(options) == 1 else ""
    return "did you mean " + " or ".join(f"'{o}'" for o in options) + "?" + (f" ({note})" if note else "")


def _lookalike(text: str, option: str) -> str:
    """Where `text` differs from `option` by a character outside ASCII ('K' U+212A KELVIN SIGN for 'K'), else "".

    The message would otherwise offer a unit that looks the same as the one refused (`archgen.errors.unlike` says
    the same of ids; this layer is below it).
    """
    if len(text) != len(option):
        return ""
    return next((f"'{c}' is U+{ord(c):04X} {unicodedata.name(c, '')}, not '{o}'"
                 for c, o in zip(text, option, strict=True) if c != o and not c.isascii()), "")


def misread_hint(number: str, unit: str, fits: Callable[[str], bool], names: str, unnamed: bool) -> str:
    """'did you mean ...?' for a unit the registry reads with another dimension than the field's, else "".

    Datasheets print a temperature as '45C' and a time as '0.5 MS', which pint reads as the coulomb and the
    megasiemens: the spelling on the scale ('degC', 'degF') or in the other case that the field takes is offered.
    `fits` says whether a unit expression has the field's dimension; `names` is the unit as the registry read it
    ('gigatesla / second'), said where the dimension has no name in words (`unnamed`: '[current] * [time]').
    """
    if million := million_hint(number, unit, names):
        return million[0]
    bare = unit.strip().lstrip("°˚º")
    for option in (f"deg{bare}", f"deg{bare.upper()}", unit.lower(), unit.upper()):
        if option != unit and fits(option):
            return f"did you mean '{number} {option}'? ('{unit}' reads as {names})"
    if "tesla" in names and fits("Gb/s"):
        return (f"'{unit}' reads as {names}; GT/s counts transfers, not bits: write the link's bandwidth in Gb/s or "
                "GB/s (lanes x transfer rate x the line encoding's efficiency, as the link's standard states them)")
    return f"'{unit}' reads as {names}" if unnamed else ""



#: 'M' alone, as documents print a million ('54.9 M USD', '10M USD'): the registry's molar, mol/L.
_MOLAR = re.compile(r"(?<![\w])M(?![\w])")


def million_hint(number: str, unit: str, names: str) -> tuple[str, str] | None:
    """Why '10M USD' is refused (the hint) and the unit without the 'M', where the registry read 'M' as molar; or None.

    pint reads 'M' as the molar (mol/L), so '10M USD' is 10 USD·mol/L, "not comparable" with a cost; a finance user
    writes millions so (newuser64: `tco_per_year <= 10M USD`). The hint says how to write the amount in full.
    """
    if "molar" not in names or not _MOLAR.search(unit):
        return None
    rest = " ".join(re.sub(r"\s*[·*]?\s*(?<!\w)M(?!\w)\s*[·*]?\s*", " ", unit).split())
    return (f"'M' reads as molar (mol/L), not a million: write '{number}e6 {rest}'".rstrip() + " or the amount in "
            "full", rest)


#: A number with digit groups as datasheets print them: '1,800', '1 800' (a space, no-break or thin space), '1,228.8'.
_GROUPED = re.compile(r"^\s*(?P<num>[-+]?\d{1,3}(?P<sep>[,\u00a0\u2009\u202f ])\d{3}(?:(?P=sep)\d{3})*(?:\.\d+)?)"
                      r"(?P<rest>\s*(?:[^\d\s,.].*)?)$")
#: A decimal comma: '10,2 kW', '0,85'.
_DECIMAL_COMMA = re.compile(r"^\s*(?P<num>[-+]?\d+,\d+)(?P<rest>\s*(?:[^\d\s,.].*)?)$")


def digit_grouping(text: str) -> tuple[str, str] | None:
    """What is wrong with a number written with digit groups or a decimal comma, and how to write it; else None.

    '1,800 GB/s' read as the number 1 and the unit ',800 GB/s', and '1 800 GB/s' as 1 and '800 GB/s'; both were
    refused as a unit that cannot be read. A comma before exactly three digits may also be a decimal comma (1,800 is
    1.8 in much of Europe): the hint gives both readings rather than pick one.
    """
    def written(num: str, rest: str) -> str:
        return f"'{num} {rest.strip()}'" if rest.strip() else f"'{num}'"

    m = _GROUPED.match(text)
    if m and m["sep"] != ",":
        return "with digits grouped by spaces", f"write {written(m['num'].replace(m['sep'], ''), m['rest'])}"
    if m:
        plain = f"write {written(m['num'].replace(',', ''), m['rest'])}"
        if m["num"].count(",") > 1 or "." in m["num"]:   # '1,000,000', '1,228.8': no decimal comma
            return "with a thousands separator", plain
        return "with a thousands separator", (f"{plain} (or, if the comma is a decimal comma, "
                                              f"{written(m['num'].replace(',', '.'), m['rest'])})")
    m = _DECIMAL_COMMA.match(text)
    if m:
        return "with a decimal comma", f"write {written(m['num'].replace(',', '.'), m['rest'])}"
    return None


#: An amount of money as a quote or an invoice prints it: a currency sign or code before or after the number
#: ('$400,000', '€5000', '5000 €', 'USD 5000'), digit groups, a letter for thousands, millions or billions ('400k USD',
#: '1.2M USD', '$2bn'), and a rate's per-unit tail ('$0.09/kWh').
_AMOUNT = re.compile(r"^\s*(?P<pre>US\$|[$€£¥]|[A-Z]{3}(?=\s*\d))?\s*"
                     r"(?P<num>\d(?:[\d,.]|[ \u00a0\u2009\u202f](?=\d{3}))*?)\s*(?P<mult>(?:bn|mn|[kKMB])(?![^\W\d_]))?"
                     r"\s*(?P<post>[$€£¥]|[A-Z]{3})?\s*(?P<per>/\s*[^\W\d]\w*)?\s*$")
#: The codes archgen reads for a currency sign ('¥' is the yen's and the yuan's).
_SIGNS = {"$": ("USD",), "US$": ("USD",), "€": ("EUR",), "£": ("GBP",), "¥": ("JPY", "CNY")}
#: A letter for a multiple: its power of ten, the multiple, and what pint reads the letter as ("" where nothing).
_MULTIPLES = {"k": (3, "a thousand", "the Boltzmann constant"), "K": (3, "a thousand", "kelvin"),
              "M": (6, "a million", "molar (mol/L)"), "mn": (6, "a million", ""), "B": (9, "a billion", "byte"),
              "bn": (9, "a billion", "")}


def money_hint(text: str, currencies: Iterable[str]) -> str:
    """How to write an amount of money printed as a quote prints it ('$400,000' → '400000 USD'), else "".

    newuser98: '$400,000' as a capex was told "such as '132 kW'", and '400k USD' that 'k' is the Boltzmann constant.
    An amount is a number, then the currency's code (ISO 4217) and a rate's unit: no sign, no digit groups, no
    letter for a multiple. A comma or dot whose reading is unsure ('400,000', '5.000') gives both readings.
    """
    known = tuple(currencies)
    m = _AMOUNT.match(text)
    if m is None or bool(m["pre"]) == bool(m["post"]):
        return ""
    mark = m["pre"] or m["post"]
    codes = _SIGNS.get(mark, (mark,))
    if m["pre"] and not set(codes) <= set(known):   # 'CHF 5000': a code archgen does not know, before the number
        return currency_hint(mark, set(known).__contains__, known)
    if not set(codes) <= set(known) or m["post"] in known and not m["mult"] and _readings(m["num"]) == [m["num"]]:
        return ""   # an unknown code (`currency_hint`), or '400000 USD' as written
    power, multiple, unit = _MULTIPLES.get(m["mult"] or "", (0, "", ""))
    numbers = [_times(n, power) for n in _readings(m["num"])]
    per = (m["per"] or "").replace(" ", "")
    options = [f"'{n} {code}{per}'" for n in numbers[:1] for code in codes]
    other = f" (or, if the {_separator(m['num'])}, '{numbers[1]} {codes[0]}{per}')" if len(numbers) > 1 else ""
    why = [f"'{mark}' is {' or '.join(codes)}" + (" if the dollars are US dollars" if mark == "$" else "")] \
        if mark in _SIGNS else ["the code goes after the number"] if m["pre"] else []
    why += [f"'{m['mult']}' is not read as {multiple}" + (f": it reads as {unit}" if unit else "")] if m["mult"] else []
    why += ["archgen reads a number without digit groups, with a decimal point"] if _readings(m["num"]) != [m["num"]] \
        else []
    return (f"write {' or '.join(options)}{other}: the amount in full, then the currency's code (archgen knows "
            f"{', '.join(known)}); " + "; ".join(why))


def _readings(num: str) -> list[str]:
    """The number `num` may be, the likelier first: '400,000' → 400000 or 400.000; '5.000,50' → 5000.50 only."""
    if re.fullmatch(r"\d{1,3}(\s\d{3})+([.,]\d+)?", num):   # '5 000', '1 200 000,50': groups by spaces
        return [re.sub(r"\s", "", num).replace(",", ".")]
    if re.fullmatch(r"\d{1,3}\.\d{3}", num):               # '5.000': a digit group, or three decimals
        return [num.replace(".", ""), num]
    if re.fullmatch(r"\d+(\.\d+)?", num):
        return [num]
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", num):   # '400,000', '1,200,000.50'
        single = num.count(",") == 1 and "." not in num
        return [num.replace(",", "")] + ([num.replace(",", ".")] if single else [])
    if re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d+)?", num):    # '5.000,50', '1.200.000': the dot groups
        return [num.replace(".", "").replace(",", ".")]
    if re.fullmatch(r"\d+,\d{1,2}", num):                  # '5,50': a decimal comma
        return [num.replace(",", ".")]
    return [num]


def _separator(num: str) -> str:
    """The other reading of an unsure number's separator: 'comma is a decimal comma', 'dot is a decimal point'."""
    return "comma is a decimal comma" if "," in num else "dot is a decimal point"


def _times(num: str, power: int) -> str:
    """`num` x 10^`power` in full, as plain decimal digits: '1.2', 6 → '1200000'."""
    return f"{Decimal(num).scaleb(power).normalize():f}"
