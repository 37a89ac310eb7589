"""The definitions of archgen's one pint registry and its cache on disk (split from `archgen.units` for its size).

pint's own definitions, patched for the domain (bits not gilberts, `U` the rack unit, `FLOP`, `CFM`, currencies,
the counts `token`, `request`, `sample` and `interruption`), and the registry built from them; `archgen.units`
builds `ureg` once through `build_registry` and is the module everything else imports it from.
"""

from __future__ import annotations

import atexit
import functools
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

from archgen.cache import (
    MAX_DEFINITIONS,
    cache_dir,
    digest,
    emptied_when_full,
    enabled,
    load_bytes,
    seal,
    store_bytes,
    unsealed_removed,
)
from archgen.pint_import import pint
from archgen.startup import is_console_script

#: Currencies a price may be written in (ISO 4217 codes); amounts in different currencies never add.
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CNY")
#: Unit parses a process keeps in memory, and between runs of the console script (`_kept`).
MAX_PARSES = 4096
#: Whether this process writes its kept parses at exit (once).
_writing: list[object] = []


def _definitions() -> str:
    """The definitions of pint patched for the domain, read from pint's folder as pint reads its own.

    pint's registry reads `default_en.txt` beside its modules (`PlainRegistry._after_init`); `importlib.resources`
    imported `zipfile` and its readers to read the same two files, 2 ms of each start (issue 25).
    """
    pkg = Path(pint.__file__).parent
    text = (pkg / "default_en.txt").read_text(encoding="utf-8")
    text = text.replace("@import constants_en.txt", (pkg / "constants_en.txt").read_text(encoding="utf-8"))
    text = text.replace("\nbit = []\n", "\nbit = [information] = b\n")  # bandwidth must not be compatible with Hz
    text = text.replace("baud = bit / second = Bd = bps", "baud = bit / second = Bd\nbps = bit / second")
    text = text.replace("barn = 1e-28 * meter ** 2 = b", "barn = 1e-28 * meter ** 2")  # "b" is the bit
    text = text.replace("biot_turn = Gb", "biot_turn")  # "Gb" is the gigabit, not the gilbert
    text = text.replace("= U = enzymeunit", "= enzymeunit")  # free "U" for rack units
    # a year and a day printed by their names, not pint's symbols 'a' (annum), which no reader of '5 EUR/a' takes for a
    # year (money40), and 'd' (words40: '2 d', '0.5 1/d'); 'a', 'yr' and 'd' are still read
    text = text.replace("year = 365.25 * day = a = yr", "year = 365.25 * day = _ = a = yr")
    text = text.replace("day = 24 * hour = d", "day = 24 * hour = _ = d")
    # CFM, as datasheets print an air flow (DGX H100 user guide: 1,105 CFM): a cubic foot per minute by its name. pint
    # reads 'cfm' as the centifermi (a length), which even the hint for 'cfmm' offered (newuser49)
    return text + ("\nrack_unit = 1.75 * inch = U = RU\nFLOP = [computation] = flop\n"
                   "cubic_foot_per_minute = foot ** 3 / minute = CFM = cfm\n"
                   "FLOPS = FLOP / second = _ = flops\n"
                   # what a rate counts, a number like pint's own `count = []`: '600000 tokens/s' is 600000 1/s, as
                   # every output prints a rate (`archgen.units.COUNTS`; a field takes only the counts it declares)
                   "token = count\nrequest = count\nsample = count\ninterruption = count\n"
                   # currencies: each its own dimension, since no rate converts them; a price without one is refused
                   + "".join(f"{c} = [currency_{c.lower()}]\n" for c in CURRENCIES))


def _cached_registry(text: str) -> pint.UnitRegistry | None:
    """The registry of definitions `text` through the cache directory, or None where the cache cannot serve it.

    None for a read-only home (an `OSError`), definitions that do not read back, or no key to seal pint's pickles.
    """
    try:
        cache = cache_dir("units")
        defs = cache / f"definitions-{digest(text)}.txt"
        if not defs.is_file() or defs.read_text(encoding="utf-8") != text:  # never definitions we did not write
            cache.mkdir(parents=True, exist_ok=True)
            emptied_when_full(cache, "definitions-*", MAX_DEFINITIONS)  # checkouts of many pint versions
            tmp = defs.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, defs)
        if not unsealed_removed(cache / "pint"):  # pint's cache is pickle: only files sealed on this machine
            return None
        reg: pint.UnitRegistry = pint.UnitRegistry(str(defs), cache_folder=str(cache / "pint"),
                                                   autoconvert_offset_to_baseunit=True)  # "35 degC" parses
        seal(cache / "pint")
    except (OSError, UnicodeDecodeError):
        return None
    return reg


def build_registry() -> pint.UnitRegistry:
    """The registry from pint's definitions, patched for our domain; cached on disk (100 ms → 20 ms per start)."""
    text = _definitions()
    reg = _cached_registry(text) if enabled() else None   # ARCHGEN_CACHE=off: nothing written (`archgen.cache`)
    if reg is None:   # the cache off, a read-only home, no key: built in memory
        reg = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=True)
        reg.load_definitions(text.splitlines())
    reg.formatter.default_format = "~P"
    # pint caches the parse of a plain unit name ('s') but not of a prefixed one or an expression ('TFLOPS', 'B/s'),
    # which every `.to("TFLOPS")` parses again (~0.1 ms); the parse is a pure function of its arguments. Cached by
    # the arguments as pint reads them: pint's own calls give the defaults (`parse_units(s)` passes `s, None, None`)
    # where archgen's leave them out (`quantity_ops.new`), and keyed as given each unit was parsed twice, half the
    # 108 parses of a `check specs/` (some 6 ms; issue 25). The console script keeps them between runs (`_kept`).
    own = reg.parse_units_as_container
    parse = functools.lru_cache(maxsize=MAX_PARSES)(
        _kept(reg, digest(text, pint.__version__, sys.version)) if enabled() and is_console_script() else own)

    def parse_units_as_container(input_string: str, as_delta: bool | None = None,
                                 case_sensitive: bool | None = None) -> pint.util.UnitsContainer:
        return parse(input_string, as_delta, case_sensitive)

    reg.parse_units_as_container = parse_units_as_container  # type: ignore[method-assign]
    return reg


def _kept(reg: pint.UnitRegistry, key: str) -> Callable[[str, bool | None, bool | None], pint.util.UnitsContainer]:
    """The parse pint makes of a unit (`parse_units_as_container`), kept in the cache between the console script's runs.

    The 63 units a warm `archgen check specs/` parses cost 9-10 ms of its CPU (pint's tokenizer and evaluator; issue
    25). A kept parse is pint's container, sealed as every entry is (`cache.store_bytes`), keyed on the definitions,
    pint's version and Python's; a parse this process made is written at its exit, past `MAX_PARSES` only those it
    used. What pint's parse leaves in the registry is done as pint does it: each unit of the container looked up
    (`get_name`), which defines a prefixed one ('teraFLOPS') the first time it is named.
    """
    body = load_bytes("units", f"parses-{key}", ".pickle")
    try:
        kept: dict[tuple[str, bool | None, bool | None], pint.util.UnitsContainer] = \
            pickle.loads(body) if body is not None else {}
    except Exception:  # cut short, or another pint's: parsed again
        kept = {}
    used: set[tuple[str, bool | None, bool | None]] = set()
    own = reg.parse_units_as_container

    def write() -> None:
        entries = kept if len(kept) <= MAX_PARSES else {k: kept[k] for k in used}
        store_bytes("units", f"parses-{key}", pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL), ".pickle")

    def parsed(text: str, as_delta: bool | None, case_sensitive: bool | None) -> pint.util.UnitsContainer:
        args = (text, as_delta, case_sensitive)
        used.add(args)
        found = kept.get(args)
        if found is None:
            found = kept[args] = own(text, as_delta, case_sensitive)
            if not _writing:
                _writing.append(atexit.register(write))
        else:
            for name in found:
                reg.get_name(name)
        return found

    return parsed
