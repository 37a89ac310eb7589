"""How many findings of one kind a log shows: the first `PER_FILE` of each file and check, then one line of the rest.

Findings multiply: 300 racks under 300 requirements on ``rack/*`` gave 90,603 lines (8.2 MB) of text, and one file of
150,000 unknown keys 300,004 lines (29 MB), all into a CI log (newuser39's security trial, open items 1-2). Text
and GitHub annotations show the first `PER_FILE` findings of each file and check id, then one line
``... and K more <ID> in <file>, not shown``, as a compiler's ``-fmax-errors`` stops (its default in Microchip's
xc8-cc is 20: https://onlinedocs.microchip.com/oxy/GUID-BB433107-FD4E-4D28-BB58-9D4A58955B1A-en-US-7/
GUID-BA90F447-19C3-43A7-8E34-94DC3912B2A1.html, "Max Errors Option"). The summary line still counts every finding
and the exit code is the same. JSON lists every finding; SARIF every one up to `SARIF_RESULTS`, the most results in
one run that GitHub code scanning accepts (docs.github.com, code-security, "SARIF results exceed limit": "Results
per run 25,000"), with the count left out stated in the run's properties.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from archgen.errors import ArchgenError, SpecError

#: The findings of one file and check id that text and GitHub output show before one line with the count of the rest.
PER_FILE = 20
#: The most results archgen writes in one SARIF run: GitHub code scanning rejects a run with more (hard limit).
SARIF_RESULTS = 25_000

Key = tuple[str, str]


def capped(entries: Iterable[tuple[Key, str]], more: Callable[[Key, int], str], limit: int = PER_FILE) -> list[str]:
    """The lines of `entries` (each with its key, file and check id), at most `limit` of a key.

    After the last line kept of a key that has more, `more(key, count left out)` gives the line saying so.
    """
    entries = list(entries)
    total = Counter(key for key, _ in entries)
    seen: Counter[Key] = Counter()
    out = []
    for key, line in entries:
        seen[key] += 1
        if seen[key] <= limit:
            out.append(line)
            if seen[key] == limit and total[key] > limit:
                out.append(more(key, total[key] - limit))
    return out


def more_text(key: Key, left: int, located: bool = True) -> str:
    """The line standing for the `left` findings of `key` not shown.

    It starts with their file, unless not `located` (an annotation names its file as a property).
    """
    file, check = key
    where = f"{file}: note: " if file and located else ""
    return f"{where}... and {left:,} more {check} finding(s) of this file, not shown (the first {PER_FILE} are; " \
           "--format json lists every one)"


def report(err: ArchgenError) -> str:
    """What the command line prints for `err`: a spec error's problems at most `PER_FILE` of a file, then a count."""
    if not isinstance(err, SpecError):
        return err.report()
    lines = capped((((p.location.file if p.location else "", ""), str(p)) for p in err.ordered()), _more_problems)
    return "\n".join([err.heading] * bool(err.heading) + lines)


def _more_problems(key: Key, left: int) -> str:
    file = key[0]
    return f"{f'{file}: ' if file else ''}note: ... and {left:,} more error(s) of this file, not shown (the first " \
           f"{PER_FILE} are; archgen check --format json lists every one)"
