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
    """Base of every error a user can cause; the CLI turns it into a message and exit code 2."""


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
    """One or more problems in the user's specs, collected by one stage and raised once.

    `heading` is a line shown before the problems (which side of a diff they belong to, say).
    """

    problems: list[SpecProblem] = field(default_factory=list)
    heading: str = ""

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join([self.heading] * bool(self.heading) + [str(p) for p in sorted(self.problems, key=_order)])


def _order(p: SpecProblem) -> tuple:
    loc = p.location or Location("")
    return (loc.file, loc.line, loc.column, p.path, p.message)


class UnreadableError(SpecError):
    """A spec file that cannot be read as YAML at all (syntax, encoding, size, alias bomb): exit code 2."""


class UsageError(ArchgenError):
    """A command was called wrongly: a missing path, a directory where a file was expected, an unknown id.

    `location` is the spec line at fault when there is one; the CLI then prints ``file:line:col: error: ...``.
    """

    def __init__(self, message: str, location: Location | None = None):
        super().__init__(message)
        self.location = location


class WorkloadError(UsageError):
    """A workload's own spec cannot run as given (its layout does not divide, its tp exceeds the domain, ...)."""

    def __init__(self, workload: str, reason: str):
        super().__init__(f"workload '{workload}': {reason}")
        self.workload, self.reason = workload, reason


def did_you_mean(name: object, known: Iterable[str], cutoff: float = 0.6, lead: str = "") -> str:
    """`lead` + "did you mean 'x'?" for the known name closest to `name` (difflib ratio >= `cutoff`), else ""."""
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=cutoff)
    return f"{lead}did you mean '{close[0]}'?" if close else ""


def a_or_an(noun: str) -> str:
    """The noun with its indefinite article: 'an Accelerator', 'a training', 'an inference'."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"
