"""Errors are data with a location; their messages are derived from the fields.

Library code raises these; only `archgen.cli` prints them or exits.
"""

from __future__ import annotations

import difflib
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
    def text(self) -> str:
        """The problem in words, without its location or hint: ``path: message: expected ..., got ...``."""
        what = f"{self.path}: " if self.path else ""
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


def _show(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 80 else text[:77] + "..."


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
        return "\n".join([self.heading] * bool(self.heading) + [str(p) for p in sorted(self.problems, key=_order)])

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
    """

    def __init__(self, workload: str, reason: str, location: Location | None = None):
        super().__init__(f"workload '{workload}': {reason}", location)
        self.workload, self.reason = workload, reason

    def __reduce__(self) -> tuple:
        return type(self), (self.workload, self.reason, self.location)


class RenderError(ArchgenError):
    """A document cannot be rendered or written: a template error, a typst error, an output file not writable."""

    stage = "render"


#: The stages in the order they run, each with its error kind: what `archgen` says failed.
STAGES: tuple[type[ArchgenError], ...] = (UsageError, LoadError, ValidateError, BuildError, AnalyseError, RenderError)


class InternalError(Exception):
    """A bug in archgen (a broken invariant, not a user's input); shown with a traceback and a request for a report."""


def did_you_mean(name: object, known: Iterable[str], cutoff: float = 0.6, lead: str = "") -> str:
    """`lead` + "did you mean 'x'?" for the known name closest to `name` (difflib ratio >= `cutoff`), else ""."""
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=cutoff)
    return f"{lead}did you mean '{close[0]}'?" if close else ""


def a_or_an(noun: str) -> str:
    """The noun with its indefinite article: 'an Accelerator', 'a training', 'an inference'."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"
