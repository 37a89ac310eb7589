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
from typing import NamedTuple

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


def misread_hint(number: str, unit: str, fits: Callable[[str], bool], names: str, unnamed: bool,
                 timeless: bool = False) -> str:
    """'did you mean ...?' for a unit the registry reads with another dimension than the field's, else "".

    Datasheets print a temperature as '45C' and a time as '0.5 MS', which pint reads as the coulomb and the
    megasiemens: the spelling on the scale ('degC', 'degF') or in the other case that the field takes is offered.
    `fits` says whether a unit expression has the field's dimension; `names` is the unit as the registry read it
    ('gigatesla / second'), said where the dimension has no name in words (`unnamed`: '[current] * [time]').
    An amount where the field takes its rate ('3000 TFLOP' for a compute rate, '900 GB' for a bandwidth) is offered
    per second, where the amount has no time in it (`timeless`: not 'kWh' for a power, which is no missing '/s';
    newuser99's '3000 TFLOP' read "which is [computation]" with no hint).
    """
    if million := million_hint(number, unit, names):
        return million[0]
    if timeless and "/" not in unit and fits(f"{unit.strip()}/s"):
        return f"did you mean '{number} {unit.strip()}/s'? (an amount, not a rate: a rate is written per second)"
    bare = unit.strip().lstrip("°˚º")
    for option in (f"deg{bare}", f"deg{bare.upper()}", unit.lower(), unit.upper()):
        if option != unit and fits(option):
            return f"did you mean '{number} {option}'? ('{unit}' reads as {names})"
    if "tesla" in names and fits("Gb/s"):
        return (f"'{unit}' reads as {names}; GT/s counts transfers, not bits: write the link's bandwidth in Gb/s or "
                "GB/s (lanes x transfer rate x the line encoding's efficiency, as the link's standard states them)")
    return f"'{unit}' reads as {names}" if unnamed else ""


#: A letter for a multiple as documents print one ('400k USD', '10M USD', '$2bn'): its power of ten, the multiple,
#: and what pint reads the letter as ("" where nothing).
_MULTIPLES = {"k": (3, "a thousand", "the Boltzmann constant"), "K": (3, "a thousand", "kelvin"),
              "M": (6, "a million", "molar (mol/L)"), "mn": (6, "a million", ""), "B": (9, "a billion", "byte"),
              "bn": (9, "a billion", "")}


def multiple_words(letter: str) -> str:
    """Why a letter for a multiple is refused: "'M' reads as molar (mol/L), not a million"."""
    _, multiple, unit = _MULTIPLES[letter]
    return f"'{letter}' reads as {unit}, not {multiple}" if unit else f"'{letter}' is not read as {multiple}"


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
    return (f"{multiple_words('M')}: write '{number}e{_MULTIPLES['M'][0]} {rest}'".rstrip() + " or the amount in "
            "full", rest)


class Written(NamedTuple):
    """What a written number can mean (`read_number`).

    `form` is how it is written, in words ("with a thousands separator"; "" where archgen reads it as written);
    `numbers` the plain numbers it may be, the likelier first; `other` what the second takes its separator for.
    """

    form: str
    numbers: tuple[str, ...]
    other: str = ""


#: The spaces that group digits: a space, and the no-break, thin and narrow no-break spaces a PDF copies.
_SPACES = " \u00a0\u2009\u202f"
#: The forms of a number as documents print it, each with its words and the character that groups its digits:
#: groups by spaces, by commas and by dots (a lead group has no leading 0: '0,125' is a decimal comma), a decimal
#: comma, and the plain number archgen reads.
_FORMS = ((re.compile(rf"[1-9]\d{{0,2}}(?P<sep>[{_SPACES}])\d{{3}}(?:(?P=sep)\d{{3}})*(?:[.,]\d+)?"),
           "with digits grouped by spaces", _SPACES),
          (re.compile(r"[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?"), "with a thousands separator", ","),
          (re.compile(r"[1-9]\d{0,2}(?:\.\d{3})+(?:,\d+)?"), "with a thousands separator", "."),
          (re.compile(r"\d+,\d+"), "with a decimal comma", ""),
          (re.compile(r"\d+(?:\.\d+)?"), "", ""))
#: One comma or dot before exactly three digits: a digit group, or a decimal one with three decimals.
_UNSURE = re.compile(r"[1-9]\d{0,2}(?P<sep>[.,])\d{3}")


def read_number(num: str, decimals: int | None = None) -> Written | None:
    """What `num` means, where a form of `_FORMS` reads it ('1,800', '1 800', '5.000,50', '10,2'); else None ('1.2.3').

    The one home of that reading, for a quantity (`digit_grouping`) and an amount of money (`money_hint`). One comma
    or dot before exactly three digits ('1,800', '5.000') may group thousands or be a decimal one (1,800 is 1.8 in
    much of Europe): both readings, the group first, unless the number has at most `decimals` decimals (an amount
    of money). Such a dot is archgen's own decimal point as well: '5.000' has `form` "" (archgen reads it as 5).
    """
    sign, body = (num[0], num[1:]) if num[:1] in "+-" else ("", num)
    form = next((f for f in _FORMS if f[0].fullmatch(body)), None)
    if form is None:
        return None
    _, words, groups = form
    numbers = [sign + "".join(c for c in body if c not in groups).replace(",", ".")]
    unsure = _UNSURE.fullmatch(body)
    if unsure and (decimals is None or decimals >= 3):
        numbers.append(sign + body.replace(",", "."))
    if unsure and unsure["sep"] == ".":
        words = ""
    other = "the comma is a decimal comma" if "," in body else "the dot is a decimal point"
    return Written(words, tuple(numbers), other if len(numbers) > 1 else "")


def offered(written: Written, show: Callable[[str], str]) -> str:
    """The readings of `written` as a hint offers them, each as `show` writes it: "'1800 W' (or, if the comma ...)"."""
    others = [f" (or, if {written.other}, {show(n)})" for n in written.numbers[1:]]
    return show(written.numbers[0]) + "".join(others)


#: A number first, then the rest of the text: '1,800 GB/s' → '1,800' and ' GB/s'.
_NUMBER_FIRST = re.compile(rf"^\s*(?P<num>[-+]?\d[\d.,{_SPACES}]*?)(?P<rest>\s*(?:[^\d\s,.].*)?)$")


def digit_grouping(text: str) -> tuple[str, str] | None:
    """What is wrong with a number written with digit groups or a decimal comma, and how to write it; else None.

    '1,800 GB/s' read as the number 1 and the unit ',800 GB/s', and '1 800 GB/s' as 1 and '800 GB/s'; both were
    refused as a unit that cannot be read. A comma before exactly three digits may also be a decimal comma (1,800 is
    1.8 in much of Europe): the hint gives both readings rather than pick one (`read_number`).
    """
    m = _NUMBER_FIRST.match(text)
    written = read_number(m["num"]) if m else None
    if m is None or written is None or not written.form:
        return None
    rest = m["rest"].strip()
    return written.form, "write " + offered(written, lambda n: f"'{n} {rest}'" if rest else f"'{n}'")


#: An amount of money as a quote or an invoice prints it: a currency sign or code before or after the number
#: ('$400,000', '€5000', '5000 €', 'USD 5000'), digit groups, a letter for thousands, millions or billions ('400k USD',
#: '1.2M USD', '$2bn'), and a rate's per-unit tail ('$0.09/kWh').
_AMOUNT = re.compile(r"^\s*(?P<pre>US\$|[$€£¥]|[A-Z]{3}(?=\s*\d))?\s*"
                     rf"(?P<num>\d(?:[\d,.]|[{_SPACES}](?=\d{{3}}))*?)\s*(?P<mult>(?:bn|mn|[kKMB])(?![^\W\d_]))?"
                     r"\s*(?P<post>[$€£¥]|[A-Z]{3})?\s*(?P<per>/\s*[^\W\d]\w*)?\s*$")
#: The codes archgen reads for a currency sign ('¥' is the yen's and the yuan's).
_SIGNS = {"$": ("USD",), "US$": ("USD",), "€": ("EUR",), "£": ("GBP",), "¥": ("JPY", "CNY")}
#: The most decimals an amount in a currency archgen knows has: ISO 4217's minor unit, 2 for USD, EUR, GBP and CNY
#: and 0 for JPY (OPC UA Part 3, 8.61 CurrencyUnitType, Table 44, gives the exponents of USD, EUR, GBP and JPY; CNY's
#: is ISO 4217's list one). So '$400,000' is 400000 USD, never 400.000; a rate per unit ('$0.125/kWh') has more.
_AMOUNT_DECIMALS = 2
#: Each known currency's minor unit (ISO 4217; the sources above): the most decimals an amount in it has.
MINOR_UNITS = {"USD": 2, "EUR": 2, "GBP": 2, "CNY": 2, "JPY": 0}
#: An amount as archgen writes one, a number then a currency's code and a period: '5.000 EUR', '4500.125 USD/year'.
_PLAIN_AMOUNT = re.compile(r"^\s*(?P<num>\d+(?:\.(?P<dec>\d+))?)\s*(?P<code>[A-Z]{3})(?P<per>\s*/.*)?$")


def money_hint(text: str, currencies: Iterable[str]) -> str:
    """How to write an amount of money printed as a quote prints it ('$400,000' → '400000 USD'), else "".

    newuser98: '$400,000' as a capex was told "such as '132 kW'", and '400k USD' that 'k' is the Boltzmann constant.
    An amount is a number, then the currency's code (ISO 4217) and a rate's unit: no sign, no digit groups, no
    letter for a multiple. A comma or dot before three digits groups thousands in an amount (`_AMOUNT_DECIMALS`);
    in a rate ('€1,250/MWh') it may be a decimal one, and both readings are given.
    """
    known = tuple(currencies)
    m = _AMOUNT.match(text)
    if m is None or bool(m["pre"]) == bool(m["post"]):
        return ""
    mark = m["pre"] or m["post"]
    codes = _SIGNS.get(mark, (mark,))
    if m["pre"] and not set(codes) <= set(known):   # 'CHF 5000': a code archgen does not know, before the number
        return currency_hint(mark, set(known).__contains__, known)
    written = read_number(m["num"], None if m["per"] else _AMOUNT_DECIMALS)
    if written is None or not set(codes) <= set(known):
        return ""   # no number ('$1.2.3'), or an unknown code (`currency_hint`)
    as_written = written.numbers == (m["num"],)
    if m["post"] in known and not m["mult"] and (as_written or not written.form):
        return ""   # '400000 USD' as written; '2.125 USD' read so (a target's cost per hour: not an amount)
    power = _MULTIPLES[m["mult"]][0] if m["mult"] else 0
    per = (m["per"] or "").replace(" ", "")
    amounts = offered(written, lambda n: " or ".join(f"'{_times(n, power)} {code}{per}'" for code in codes))
    why = [f"'{mark}' is {' or '.join(codes)}" + (" if the dollars are US dollars" if mark == "$" else "")] \
        if mark in _SIGNS else ["the code goes after the number"] if m["pre"] else []
    why += [multiple_words(m["mult"])] if m["mult"] else []
    why += [] if as_written else ["archgen reads a number without digit groups, with a decimal point"]
    finer = [decimals_hint(f"{_times(written.numbers[0], power)} {code}") for code in codes]   # '$10,2345'
    why += [] if m["per"] or not all(finer) else finer[:1]   # '¥5.5' may be yuan
    return (f"write {amounts}: the amount in full, then the currency's code (archgen knows {', '.join(known)}); "
            + "; ".join(w for w in why if w))


def decimals_hint(text: str) -> str:
    """How to write an amount with more decimals than its currency's minor unit ('5.000 EUR'), else "".

    money3dec39: '5.000 EUR' was read as 5 EUR, though no amount in EUR has three decimals (`MINOR_UNITS`): its dot
    most likely groups thousands, so both readings are offered (`read_number`), the group first. Only an amount (a
    price, a cost per month or year): the caller judges that; a rate per unit ('0.0895 USD/kWh') may have more.
    """
    m = _PLAIN_AMOUNT.match(text)
    if m is None or m["code"] not in MINOR_UNITS or len(m["dec"] or "") <= MINOR_UNITS[m["code"]]:
        return ""
    code, per = m["code"], (m["per"] or "").replace(" ", "")
    written = read_number(m["num"])
    places = MINOR_UNITS[code]
    why = f"an amount in {code} has {f'at most {places} decimals' if places else 'no decimals'} (ISO 4217's minor unit)"
    if written is None or len(written.numbers) < 2:   # '10.2345 USD', '5.5 JPY': no digit group
        return f"round it: {why}"
    amounts = offered(written, lambda n: f"'{_times(n, 0)} {code}{per}'")
    return f"write {amounts}: {why}, so its dot most likely groups thousands"


def _times(num: str, power: int) -> str:
    """`num` x 10^`power` in full, as plain decimal digits: '1.2', 6 → '1200000'."""
    return f"{Decimal(num).scaleb(power).normalize():f}"
