"""The date a waiver's `expires` is judged against: `--as-of DATE`, else SOURCE_DATE_EPOCH, else today's date.

As a facility's `cost.as_of` keeps COST006 off the clock (a date the spec states), a run judges waivers on a date it
is given where one is: `--as-of` on `check`, `gap`, `diff`, `render` and `sweep`, or SOURCE_DATE_EPOCH
(reproducible-builds.org's variable, seconds since 1970-01-01 UTC, that build tools read in place of the clock:
https://reproducible-builds.org/specs/source-date-epoch/). Only where neither is given is today's date read, and
only where a waiver states `expires`; the output then says which date it used and where it came from, so that a
rerun on another day that differs says why. Without `expires` no date is read and none is printed.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable
from dataclasses import dataclass

from archgen.errors import UsageError


@dataclass(frozen=True)
class AsOf:
    """A date waivers are judged on, and where it came from ('--as-of', 'SOURCE_DATE_EPOCH', "today's date")."""

    date: datetime.date
    source: str

    def __str__(self) -> str:
        return f"{self.date.isoformat()} ({self.source})"


def given(text: str | None) -> AsOf | None:
    """`--as-of DATE` as given (a day, YYYY-MM-DD), or None where it was not; a clear error for any other text."""
    if not text:
        return None
    try:
        return AsOf(datetime.date.fromisoformat(text), "--as-of")
    except ValueError:
        raise UsageError(f"--as-of '{text}' is not a date: give a day as YYYY-MM-DD, e.g. 2027-03-31") from None


def resolve(explicit: AsOf | None) -> AsOf:
    """The date to judge waivers on: `explicit`, else SOURCE_DATE_EPOCH, else today's date (UTC)."""
    if explicit is not None:
        return explicit
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        if not epoch.isdigit():
            raise UsageError(f"SOURCE_DATE_EPOCH '{epoch}' is not a whole number of seconds since 1970-01-01 UTC")
        day = datetime.datetime.fromtimestamp(int(epoch), tz=datetime.UTC).date()
        return AsOf(day, "SOURCE_DATE_EPOCH")
    return AsOf(datetime.datetime.now(tz=datetime.UTC).date(), "today's date")


def judging(docs: Iterable[object], explicit: AsOf | None) -> AsOf | None:
    """The date to judge waivers on (`as_of.resolve`), where some waiver of `docs` states `expires`; else None.

    None reads no date, so a run whose waivers never expire prints none and reads no clock.
    """
    if any(w.expires is not None for doc in docs for w in getattr(doc, "waivers", ())):
        return resolve(explicit)
    return None


def expired(w: object, on: AsOf | None) -> bool:
    """Whether waiver `w` has expired on `on`: its `expires` (the last day it waives) is before that date."""
    expires = getattr(w, "expires", None)
    return on is not None and expires is not None and expires < on.date
