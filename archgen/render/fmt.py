"""Formatting helpers: the one place where quantities are converted to display units and turned into text.

Every output format (Markdown, HTML, Typst/PDF, CSV, XLSX, diagram labels) formats numbers through these
functions, so a value reads the same everywhere. They never compute anything but unit conversions. The rule for a
metric's value (`metric_value`) and its number helpers live in `archgen.display`, below the checks, whose messages
show a value the same way; they are re-exported here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, overload

from archgen.display import (  # noqa: F401 (re-exported: the renderers' formatting helpers, in one module)
    ESTIMATE_FIGURES,
    UNIT_NAMES,
    decimals,
    estimated,
    metric_value,
    number,
    significant,
    target_text,
    unit_label,
    with_unit,
)
from archgen.pint_import import pint
from archgen.units import ureg

#: A scale-out latency of zero as what it is: no transport declares one, and the model adds none of its own.
NO_SCALE_OUT_LATENCY = "none added: the network transport declares none; not modelled beyond that"
#: A scale-out bandwidth of zero as what it is: nothing joins the scale-up domains that the model times. Chips of
#: different TPU slices communicate through their hosts over the data-centre network, Cloud TPU Multislice
#: (https://cloud.google.com/tpu/docs/multislice-introduction); neither is modelled.
NO_SCALE_OUT = "none: no scale-out fabric is modelled (a TPU pod's data-centre network and multislice are not)"


def hardware_value(name: str, value: pint.Quantity) -> str:
    """A hardware figure an estimate ran on, as `archgen estimate` and the documents show it.

    In its own unit at `ESTIMATE_FIGURES` significant figures, with two exceptions: memory held in a binary unit
    reads in it first, as the catalog and nvidia-smi hold it and as vendors' "GB" counts stacks (NVIDIA's "288 GB" of
    a GB300 is 8 stacks x 36 GiB; software sees 277.5 GiB), then in GB, as the memory figures beside it are
    ("277.5 GiB (298 GB)"; printed "298 GB (277.5 GiB)" until optics31, which read as a typo of 288 GB, review47);
    memory in a decimal unit reads in GB; and a latency in us; a scale-out latency of zero reads
    `NO_SCALE_OUT_LATENCY`, not "0 us", which read like a measured figure, and a scale-out bandwidth of zero
    `NO_SCALE_OUT`, not "0 Gb/s".
    """
    if name == "scale_out_bandwidth" and value.magnitude == 0:
        return NO_SCALE_OUT
    if value.is_compatible_with("B"):
        own = f"{value.units:~P}"
        return f"{_figure(value, own)} ({_figure(value, 'GB')})" if own.endswith("iB") else _figure(value, "GB")
    if value.is_compatible_with("s"):
        if name == "scale_out_latency" and value.magnitude == 0:
            return NO_SCALE_OUT_LATENCY
        return _figure(value, "us")
    return _figure(value, f"{value.units:~P}")


def estimate_part(value: pint.Quantity) -> str:
    """A part of an estimate that is no metric (a time of its breakdown, a memory of its memory per accelerator).

    As `archgen estimate` and the documents show it: a time in s from 1 s, else in ms; a memory in GB; any other
    figure in its own unit; all at `ESTIMATE_FIGURES` significant figures, as the metrics they add up to.
    """
    if value.is_compatible_with("s"):
        unit = "s" if abs(value.to("s").magnitude) >= 1 else "ms"
    elif value.is_compatible_with("B"):
        unit = "GB"
    else:
        unit = f"{value.units:~P}"
    return _figure(value, unit)


def _figure(value: pint.Quantity, unit: str) -> str:
    """`value` in `unit` at `ESTIMATE_FIGURES` significant figures with the unit's label (none when dimensionless)."""
    return f"{significant(float(value.to(unit).magnitude), ESTIMATE_FIGURES)} {unit_label(unit)}".strip()


def elasticity(value: float) -> str:
    """An elasticity (d ln metric / d ln parameter) with its sign, or 'stops fitting' where it is not finite."""
    return f"{value:+.3f}" if math.isfinite(value) else "stops fitting"


def elasticity_note(name: str, hardware: dict[str, pint.Quantity]) -> str:
    """What an elasticity of `name` covers where its figure is not what its name says ('' where it is).

    ``latency`` scales the scale-up and scale-out latencies together; where the scale-out one is zero
    (`NO_SCALE_OUT_LATENCY`) scaling it changes nothing, so the elasticity is the scale-up latency's alone.
    """
    out = hardware.get("scale_out_latency")
    if name == "latency" and out is not None and out.magnitude == 0:
        return "scale-up latency only: no scale-out latency is declared"
    return ""




def q(value: pint.Quantity | None, unit: str | None = None, digits: int = 1) -> str:
    """Format a quantity in `unit` with `digits` decimals: ``q(Q_(131400, "W"), "kW", 1) == '131.4 kW'``.

    Without `unit` the quantity keeps its own unit; a day or a year alone reads in the plural (`display.with_unit`).
    None gives ``'—'``. A value those decimals would show at fewer
    than two significant figures keeps two (`display.decimals`: ``8.7e-06``, not ``0.000``).
    """
    if value is None:
        return "—"
    if not isinstance(value, pint.Quantity):
        return decimals(value, digits) + (f" {unit_label(unit)}" if unit else "")
    if unit is None:
        shown, label = value, unit_label(f"{value.units:~P}")
    else:
        shown, label = value.to(unit), unit_label(unit)
    text = decimals(float(shown.magnitude), digits)
    return with_unit(text, label)   # '14.0 days'


def sentence(text: str) -> str:
    """`text` with its first letter capitalised and the rest kept ('PDUs' stays 'PDUs', unlike str.capitalize)."""
    return text[:1].upper() + text[1:]


def digits_for(value: pint.Quantity | float | None) -> int:
    """Decimals that suit a computed value in a table: none from 1000 or for whole numbers, 1 from 10, else 2."""
    if value is None:
        return 0
    mag = abs(float(value.magnitude if isinstance(value, pint.Quantity) else value))
    return 0 if mag >= 1000 or float(mag).is_integer() else (1 if mag >= 10 else 2)


def pct(value: float | None, digits: int = 0) -> str:
    """A fraction as a percentage: ``pct(0.85) == '85 %'``."""
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value * 100:.{digits}f} %"


@overload
def magnitude(value: pint.Quantity, unit: str) -> float: ...
@overload
def magnitude(value: None, unit: str) -> None: ...
def magnitude(value: pint.Quantity | None, unit: str) -> float | None:
    """Plain float of a quantity in `unit` (for spreadsheets and plots), or None."""
    return None if value is None else float(value.to(unit).magnitude)


#: `cell`'s types, as tuples made once (``int | float`` in an `isinstance` builds a union at each call).
_NUMBERS, _SEQUENCES = (int, float), (list, tuple)


@dataclass(frozen=True)
class Noted:
    """A table cell's value with a word in brackets after it in a document ("3.00 kW (unconfirmed)").

    The data files (CSV, the workbook) write the value alone and give the word a column of its own
    (`tables.bom_data`), so that an import reads a number.
    """

    value: Any
    note: str
    #: How much of `value` its first word is about, in `value`'s terms: "57.3 kW (0.1 kW of it unconfirmed)"; with
    #: `but`, how much it is not about: "1,146.6 kW (all but 0.3 kW of it unconfirmed)".
    part: Any = None
    but: bool = False
    #: The low and high ends of `value` its first word gives instead: "(unconfirmed: 15.9 kW to 17.0 kW)".
    band: tuple[Any, Any] | None = None

    def said(self, show: Any) -> str:
        """The bracket's words, each figure in them as `show` writes a cell's value (the value's own way)."""
        first, _, rest = self.note.partition(", ")
        if self.band is not None:
            first = f"{first}: {show(self.band[0])} to {show(self.band[1])}"
        elif self.part is not None:
            first = f"{'all but ' if self.but else ''}{show(self.part)} of it {first}"
        return ", ".join((first, rest)) if rest else first


def noted(value: Any, note: str, part: Any = None, band: tuple[Any, Any] | None = None, but: bool = False) -> Noted:
    """`value` with `note` after it (`Noted`); a value noted already takes both words in one bracket.

    So a figure both marks reads "168.0 L/min (unconfirmed, assumed)", not "(unconfirmed) (assumed)". A word with a
    `part` or `band` goes first, and keeps it: "1,344 L/min (1.2 L/min of it unconfirmed, assumed)".
    """
    if not isinstance(value, Noted):
        return Noted(value, note, part, but, band)
    if part is None and band is None:
        return Noted(value.value, f"{value.note}, {note}", value.part, value.but, value.band)
    return Noted(value.value, f"{note}, {value.note}", part, but, band)


def cell(value: Any, unit: str | None = None, digits: int = 1) -> str:
    """Text of one table cell: quantities in the column's unit, numbers with separators, the rest as text.

    Numbers at `digits` decimals, or two significant figures where those would show fewer (`display.decimals`): a
    goodput of 8.7e-06 in a document's table reads ``8.7e-06``, not ``0.000``.
    """
    if type(value) is str:   # most cells (a million in tests/render): asked first, the tuples built once (suite38)
        return " ".join(value.split())
    if value is None:
        return "—"
    if isinstance(value, pint.Quantity):
        return q(value, unit, digits)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, _NUMBERS):
        return decimals(value, digits) + (f" {unit_label(unit)}" if unit else "")
    if isinstance(value, _SEQUENCES):
        return "; ".join(cell(v, unit, digits) for v in value)
    if isinstance(value, Noted):
        return f"{cell(value.value, unit, digits)} ({value.said(lambda v: cell(v, unit, digits))})"
    return " ".join(str(value).split())


#: A word longer than this many characters (a URL, a file path) may break after ``/ . _ - = & ?`` (`breakable`).
LONG_WORD = 24
_SOFT = re.compile(r"([/._\-=&?])(?=\S)")


def breakable(text: str, longer_than: int = LONG_WORD) -> str:
    """`text` with a break opportunity (U+200B) after the punctuation of each word longer than `longer_than`.

    A table cell holding a URL or a file path wraps there rather than overflow or break inside a word.
    """
    return " ".join(_SOFT.sub("\\1\u200b", w) if len(w) > longer_than else w for w in text.split(" "))


#: A joint inside a name (`memory_bandwidth`, `b200-sxm-180gb`): an underscore or a hyphen between a letter or digit
#: and a letter, never a minus sign, a decimal point or a unit's slash.
_JOINT = re.compile(r"(?<=[A-Za-z0-9])([_\-])(?=[A-Za-z])")


def breakable_names(text: str) -> str:
    """`breakable` text with a break opportunity after every joint inside a name, whatever the word's length.

    For a table too wide for the page at its longest words (`render.pdf.widths`), so that a name wraps at its joints
    rather than squeeze a short column's word ("SHOULD") over the next cell.
    """
    return _JOINT.sub("\\1\u200b", breakable(text))


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|&~$!])")
_MD_LINE_START = re.compile(r"^(\s*)([-+*=]|\d+[.)])(?=\s|$)")


def md(text: Any) -> str:
    """Escape text so that Markdown shows it literally (CommonMark backslash escapes), on one line."""
    return _line_start(_MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split())))


def _line_start(escaped: str) -> str:
    """`escaped` with a list or heading marker at its start (``-``, ``1.``, ``=``) escaped, so it stays text."""
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2) if len(m.group(2)) == 1
                              else m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], escaped)


#: What GitHub turns into a link in a comment without any markup (GFM 0.29, section 6.9 "Autolinks (extension)",
#: https://github.github.com/gfm/#autolinks-extension-: ``www.``, ``http://``, ``https://``, ``mailto:``, ``xmpp:``;
#: any ``scheme://`` here, since GitHub links ``ftp://`` too), up to a space or a table's ``|``. An email address
#: no longer links once `no_mentions` has put U+200B after its ``@``.
_AUTOLINK = re.compile(r"((?:[A-Za-z][A-Za-z0-9+.-]*://|www\.|(?:mailto|xmpp):)[^\s|]*)", re.IGNORECASE)


def pr_md(text: Any) -> str:
    """`md` for a pull-request comment, in which no bare URL of `text` becomes a link: each is shown as a code span.

    GitHub links ``https://...`` and ``www....`` written as plain text, so a requirement's ``statement: "see
    https://evil.example"`` was a link in the bot's comment, posted under the repository's name (newuser77). The
    text of a code span is never a link (GFM section 6.3).
    """
    parts = _AUTOLINK.split(" ".join(str(text).split()))
    return _line_start("".join(code(p) if i % 2 else _MD_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts)))


def code(text: Any) -> str:
    """`text` as a Markdown code span that no backtick in it can close: ``x`y`` → ````` ``x`y`` `````.

    CommonMark (0.31.2, "Code spans"): a span closes at a backtick string of exactly its opening length, so the fence
    is one longer than the longest run of backticks in `text`; one space is stripped from each end when both ends
    are spaces, so `text` that starts or ends with a backtick (or with a space at both ends) is padded with one. A
    git ref named ``x`y@team`` broke out of the diff heading's span (newuser39).
    """
    flat = " ".join(str(text).split("\n"))
    fence = "`" * (max(map(len, re.findall("`+", flat)), default=0) + 1)
    pad = " " if flat[:1] == "`" or flat[-1:] == "`" or (flat[:1] == flat[-1:] == " " and flat.strip()) else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def no_mentions(text: str) -> str:
    """`text` with a zero-width space (U+200B) after every ``@``, so that a pull-request comment notifies no one.

    GitHub turns ``@user`` and ``@org/team`` into a mention and notifies them on every comment that holds it, even
    in a code span when the comment is answered by email (read as plain text). Renovate and Dependabot insert U+200B
    after every ``@`` of a PR body for this (renovatebot/renovate#1083, merged 2017-11-02; dependabot/dependabot-core
    #3157, merged 2021-02-17, the email case). The text reads the same; a URL holding ``@`` no longer links whole.
    """
    return text.replace("@", "@\u200b")


def slug(text: str) -> str:
    """An HTML/Markdown anchor from an id or title: lower case, letters, digits and '-'."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "section"


#: A whole number of four or more digits followed by a space and a word (a unit, if `_is_unit` says so), not part of
#: an id, version, path or date (no letter, digit, '.', ',', '-', '/', '#' or ':' before it).
_BARE_NUMBER = re.compile(r"(?<![\w.,/#:-])(\d{4,})(\.\d+)?(?= ([A-Za-zµ°][A-Za-z/°²³]*)(?!\w))")
#: Words that pint reads as units but that prose uses as words ("in 2026 a ..."): never taken for a unit.
_NOT_UNITS = frozenset({"a", "at", "in", "and", "or", "of", "to", "by", "the", "for", "on", "is", "are", "as"})


#: Text that quotes a spec's own words, to be shown as they are: a limit "(as written: 20000000 USD/year)"
#: (`Target.as_written`) and a span in single quotes ("target '<= 20000000 USD/year'"; an apostrophe inside or
#: after a word, "NVIDIA's", opens none).
_VERBATIM = re.compile(r"\(as written: [^)]*\)|(?<![\w'])'[^'\n]*'(?!\w)")


def grouped_numbers(text: str) -> str:
    """Text echoed from a spec or a check's message with its quantities' numbers grouped as `number` groups them.

    A check message says "max_payload 1400 kg" (the spec as written; JSON and SARIF keep that text) where a
    document's value cell says "1,400 kg": the documents pass such text through here, so that one document shows a
    number one way (newuser56). Only a number followed by a unit is touched; years, ids and part numbers are not,
    nor text that says it quotes the spec (`_VERBATIM`: newuser102 read "as written: 20,000,000 USD/year" for a
    spec that says 20000000 USD/year).
    """
    def group(m: re.Match[str]) -> str:
        return number(int(m.group(1))) + (m.group(2) or "") if _is_unit(m.group(3)) else m.group(0)
    shown, at = [], 0
    for quoted in _VERBATIM.finditer(text):
        shown += [_BARE_NUMBER.sub(group, text[at:quoted.start()]), quoted.group(0)]
        at = quoted.end()
    return "".join(shown) + _BARE_NUMBER.sub(group, text[at:])


def _is_unit(word: str) -> bool:
    """Whether `word` reads as a unit symbol (`archgen.units` registry, or a display symbol of `UNIT_NAMES`)."""
    if word in _NOT_UNITS:
        return False
    if word in UNIT_NAMES.values():
        return True
    try:
        return not ureg.parse_units(word).dimensionless
    except (pint.errors.PintError, ValueError, AttributeError, TypeError, AssertionError):
        return False
