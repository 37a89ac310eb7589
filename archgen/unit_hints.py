"""'Did you mean' for a unit the registry does not know: the hint of `archgen.units.parse_unit`'s errors.

Apart from `archgen.units` (which had reached the module size limit) and free of the registry: the caller passes
the test of whether a name is a unit.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

#: Units specs commonly name: what "did you mean" offers for a unit the registry does not know ('kw', 'degc').
COMMON_UNITS = (
    "W", "kW", "MW", "GW", "mW", "V", "kV", "mV", "A", "kA", "mA", "VA", "kVA", "J", "kJ", "MJ", "Wh", "kWh", "MWh",
    "BTU", "degC", "degF", "K", "delta_degC", "delta_degF", "kg", "g", "t", "lb", "m", "mm", "cm", "km", "ft",
    "inch", "U", "s", "ms", "us", "ns", "min", "h", "hr", "day", "B", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB",
    "GiB", "TiB", "bit", "kb", "Mb", "Gb", "Tb", "FLOP", "FLOPS", "GFLOPS", "TFLOPS", "PFLOPS", "EFLOPS", "L", "mL",
    "gal", "cfm", "Pa", "kPa", "bar", "psi", "percent")
_NAME = re.compile(r"[^\W\d][\w°µΩ]*")


#: What a rate counts, written as if it were a unit ('tokens/s', 'req/s'): a count is a number, so such a rate is
#: '1/s' (what archgen prints as tokens/s or requests/s); "did you mean" offers the expression with each word as 1.
_COUNTS = re.compile(r"(?<!\w)(?:tokens?|requests?|reqs?|quer(?:y|ies)|samples?|sequences?|seqs?)(?!\w)",
                     re.IGNORECASE)


def suggest_unit(text: str, known: Callable[[str], bool]) -> str:
    """'did you mean ...?' for a unit expression with unknown names: 'kw' → 'kW', 'btu/hr' → 'BTU/hr'; else "".

    A count written as a unit becomes 1: 'tokens/s' and 'req/s' → '1/s'. `known` says whether one unit name or
    expression is in the registry (`archgen.units`, which passes its own).
    """
    counted = _COUNTS.sub("1", text).replace(" ", "")
    if counted == "1":
        return "tokens and requests are counts, not units: write the number alone"
    if counted != text.replace(" ", "") and known(counted):
        return (f"did you mean '{counted}'? (tokens and requests are counts, not units: their rates are written per "
                "time, e.g. '1/s', which archgen prints as tokens/s)")
    options = [""]
    pos = 0
    for m in _NAME.finditer(text):
        name = m[0]
        if known(name):
            close = [name]
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
    return "did you mean " + " or ".join(f"'{o}'" for o in options) + "?"
