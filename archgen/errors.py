"""Errors are data with a location; their messages are derived from the fields.

Library code raises these; only `archgen.cli` prints them or exits.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Location:
    """A place in a spec file: 1-based line and column."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if not self.line:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"


class ArchgenError(Exception):
    """Base of every error a user can cause; its class says which stage failed and which exit code follows.

    Library code raises a stage's class (mkdocs' `exceptions.py` is the model): `UsageError` (the command line),
    `LoadError`, `ValidateError`, `BuildError`, `AnalyseError` and `RenderError`; `archgen.cli` prints the error
    and exits with its `exit_code`. `location` is the spec line at fault, shown as ``file:line:col: error: ...``;
    `subject` is the document id and field path the error is about, for a caller that holds the specs to locate it
    (`archgen.commands.common.located`): the performance model knows ids, not files.
    """

    stage = ""
    exit_code = 2

    def __init__(self, message: str = "", location: Location | None = None,
                 subject: tuple[str, tuple[str | int, ...]] | None = None):
        super().__init__(message)
        self.location = location
        self.subject = subject

    def report(self) -> str:
        """What the CLI prints: the message after its location, if any."""
        return f"{self.location}: error: {self}" if self.location else f"error: {self}"


@dataclass(frozen=True)
class SpecProblem:
    """One problem in a spec: where it is, which field, what was found and what was expected."""

    location: Location | None
    path: str = ""
    message: str = ""
    value: object = None
    expected: str = ""
    hint: str = ""

    @property
    def shown_path(self) -> str:
        """The field path with each key as an `excerpt`: a key is the file's text, and may be a line of a secret."""
        return ".".join(excerpt(k) for k in self.path.split("."))

    @property
    def text(self) -> str:
        """The problem in words, without its location or hint: ``path: message: expected ..., got ...``.

        The path is `shown_path`.
        """
        what = f"{self.shown_path}: " if self.path else ""
        text = self.message
        if self.expected:
            got = "" if self.value is None else f", got {_show(self.value)}"
            text = f"{text}: " if text else ""
            text = f"{text}expected {self.expected}{got}"
        return f"{what}{text}"

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        line = f"{where}error: {self.text}"
        return f"{line}\n  hint: {self.hint}" if self.hint else line


#: The most characters of a spec file's own text (a value, a key, a tag, an anchor) an error message quotes: enough
#: to recognise a typo, never a whole line of a file that is no spec (a credentials file under a .yaml name, one of
#: whose lines would otherwise go whole into a CI log or SARIF).
EXCERPT = 80


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text` as an error message quotes it: at most `limit` characters, the last three "..." where it is cut."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def excerpts(text: str) -> str:
    """`text` with each 'quoted' part cut to an `excerpt`: a YAML parser's message (it quotes an anchor, a tag)."""
    return re.sub(r"'([^'\n]*)'", lambda m: f"'{excerpt(m[1])}'", text)


def _show(value: object) -> str:
    return excerpt(repr(value) if not isinstance(value, str) else f"'{value}'")


@dataclass
class SpecError(ArchgenError):
    """One or more problems in the user's specs, collected by one stage and raised once: the shape, not a stage.

    Raise a stage's kind: `ValidateError` (exit 1) or `UnreadableError` (exit 2). `heading` is a line shown before
    the problems (which side of a diff they belong to, say).
    """

    problems: list[SpecProblem] = field(default_factory=list)
    heading: str = ""

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join([self.heading] * bool(self.heading) + [str(p) for p in self.ordered()])

    def ordered(self) -> list[SpecProblem]:
        """The problems in the order reports list them: by file, line, column, path and message."""
        return sorted(self.problems, key=_order)

    def report(self) -> str:
        """Every problem with its own location."""
        return str(self)

    def __reduce__(self) -> tuple:  # from a sweep's worker process intact (Exception's pickles only the text)
        return type(self), (self.problems, self.heading)


def _order(p: SpecProblem) -> tuple:
    loc = p.location or Location("")
    return (loc.file, loc.line, loc.column, p.path, p.message)


class UsageError(ArchgenError):
    """A command was called wrongly: an unknown option value or id, an output path that cannot be, a missing extra."""

    stage = "usage"


class LoadError(ArchgenError):
    """The specs cannot be read: a path that does not exist or is not a file, a revision without it."""

    stage = "load"


class UnreadableError(SpecError, LoadError):
    """A spec file that cannot be read as YAML at all (syntax, encoding, size, alias bomb): exit code 2."""

    exit_code = 2


class ValidateError(SpecError):
    """Schema and unit problems in the specs (or a sweep's or case file's own mistakes): exit code 1, as findings."""

    stage = "validate"
    exit_code = 1


class BuildError(ArchgenError):
    """The design cannot be put together for an analysis.

    A reference to no document of the kind it needs, a cluster without accelerators or with two kinds of them, an
    accelerator without the link its scale-up domain needs.
    """

    stage = "build"


class AnalyseError(ArchgenError):
    """An analysis cannot be made of what the specs give: a performance model input it cannot run."""

    stage = "analyse"


class WorkloadError(AnalyseError):
    """A workload's own spec cannot run as given (its layout does not divide, its tp exceeds the domain, ...).

    The workload is its subject; the command that ran it shows the error at the workload's job (`located`).
    `fabric` is the object path of the compute fabric whose infeasible topology refuses the job
    (`ScaleOutPath.withheld_by`), "" for any other reason: the fabric's own error then stands for it (no PERF003) and
    the error cascade folds the job's findings under that error (`checks.cascade`).
    """

    def __init__(self, workload: str, reason: str, location: Location | None = None,
                 subject: tuple[str, tuple[str | int, ...]] | None = None, fabric: str = ""):
        super().__init__(f"workload '{workload}': {reason}", location, subject)
        self.workload, self.reason, self.fabric = workload, reason, fabric

    def __reduce__(self) -> tuple:
        return type(self), (self.workload, self.reason, self.location, self.subject, self.fabric)


class RenderError(ArchgenError):
    """A document cannot be rendered or written: a template error, a typst error, an output file not writable."""

    stage = "render"


#: The stages in the order they run, each with its error kind: what `archgen` says failed.
STAGES: tuple[type[ArchgenError], ...] = (UsageError, LoadError, ValidateError, BuildError, AnalyseError, RenderError)


class InternalError(Exception):
    """A bug in archgen (a broken invariant, not a user's input); shown with a traceback and a request for a report."""


def did_you_mean(name: object, known: Iterable[str], cutoff: float = 0.6, lead: str = "") -> str:
    """`lead` + "did you mean 'x'?" for the known name closest to `name` (difflib ratio >= `cutoff`), else "".

    A known name that `name` matches but for case or a compatibility form (``ＤＧＸ``) is the one offered, whatever
    the ratio; where the name offered differs from `name` by a look-alike (a character outside ASCII) or by case,
    the suggestion names that character, its code point and position (`unlike`): a Cyrillic 'о' reads as 'o'.
    """
    known, text = list(known), str(name)
    same = [k for k in known if _folded(k) == _folded(text)]
    close = same[:1] or _closest(text, known, cutoff)
    if not close:
        return ""
    note = unlike(text, close[0]) if len(close) == 1 else ""
    offered = " or ".join(f"'{c}'" for c in close)
    return f"{lead}did you mean {offered}?{f' ({note})' if note else ''}"


def _closest(text: str, known: list[str], cutoff: float) -> list[str]:
    """The known names closest to `text` (difflib ratio >= `cutoff`): every one tied for the best ratio.

    Picking one of two names equally close would be arbitrary, and can steer the wrong way:
    'bandwidth_per_accelerator' is as close to `bisection_per_accelerator` (half the injection on a 1:1 fabric) as
    to `injection_per_accelerator` (0.72 each), so both are offered.
    """
    ratio = {k: difflib.SequenceMatcher(None, text, k).ratio() for k in
             difflib.get_close_matches(text, known, n=len(known) or 1, cutoff=cutoff)}
    best = max(ratio.values(), default=0.0)
    return sorted(k for k, r in ratio.items() if r == best)


def unlike(name: str, known: str) -> str:
    """Where `name` differs from `known` by a look-alike or by case, else "".

    "character 6 is 'о' (U+043E CYRILLIC SMALL LETTER O), not 'o'"; any other difference (a typo of ASCII letters)
    speaks for itself.
    """
    if len(name) != len(known):
        return ""
    for i, (c, k) in enumerate(zip(name, known, strict=True), 1):
        if c != k:
            return f"character {i} is {character(c)}, not '{k}'" if not c.isascii() or c.lower() == k.lower() else ""
    return ""


def odd_character(value: object, pattern: str | None) -> str:
    """The character that keeps `value` from matching `pattern`, if it is a look-alike or in the wrong case, else "".

    The first character outside ASCII (a Cyrillic 'о' in ``dgx-hо100``), with its code point and position; or, where
    the value matches in lower or upper case, the first character in the other case (``DGX-H100``). A value that is
    no string, or no pattern, is "".
    """
    if not isinstance(value, str) or pattern is None:
        return ""
    fits = re.compile(pattern).search
    for i, c in enumerate(value, 1):
        if not c.isascii():
            return f"character {i} is {character(c)}, not ASCII"
    for fixed, case in ((value.lower(), "upper"), (value.upper(), "lower")):
        if fits(fixed):
            i, c = next((i, c) for i, (c, f) in enumerate(zip(value, fixed, strict=True), 1) if c != f)
            return f"character {i} is {character(c)}, {case} case"
    return ""


def character(c: str) -> str:
    """A character with its code point and Unicode name: "'о' (U+043E CYRILLIC SMALL LETTER O)"."""
    name = unicodedata.name(c, "")
    return f"'{c}' (U+{ord(c):04X}{f' {name}' if name else ''})"


def _folded(text: str) -> str:
    """`text` compared without case or compatibility forms (NFKC, case-folded)."""
    return unicodedata.normalize("NFKC", text).casefold()


def a_or_an(noun: str) -> str:
    """The noun with its indefinite article: 'an Accelerator', 'a training', 'an inference'."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"
