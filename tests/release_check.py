"""What a release checks against the clock, which the suite never reads: `make release-check`.

`archgen.CODE_DATE` is the day a version's code and catalog are dated (COST006 judges prices against it, so that one
version's output is the same any day). The suite holds it no earlier than the catalog's dates on any day it runs
(tests/analyse/test_future_prices.py); what only the day can tell is checked here, when a release sets CODE_DATE:
that it is not after the day, and that each date the catalog states as a plan (`PLANS`) is still ahead of it, else the
plan has come and the note should say what happened (review59: these had been a suite test that passed or failed by
the day it ran).
"""

from __future__ import annotations

import datetime
import sys

from archgen import CODE_DATE
from archgen.model.cost import dated_after

#: Dates the shipped catalog states that are after CODE_DATE by design, as (date, file name): a plan ("ships 2027-03"),
#: not a day the catalog was written on. None today. The suite leaves them out of the catalog's dates
#: (tests/analyse/test_future_prices.py); `problems` holds each ahead of the day.
PLANS: frozenset[tuple[str, str]] = frozenset()


def problems(today: str, code_date: str = CODE_DATE, plans: frozenset[tuple[str, str]] = PLANS) -> list[str]:
    """What is wrong with `code_date` and `plans` on the day `today` (an ISO day), in words; [] if nothing."""
    found = [f"archgen.CODE_DATE {code_date} is after today's date, {today}"] if code_date > today else []
    return found + [f"{name} states {date} as a plan (PLANS), but that day has come ({today}): say what happened and "
                    "take it off the list" for date, name in sorted(plans) if not dated_after(date, today)]


def main() -> int:
    """Check against today's date (UTC); 1 where there is a problem."""
    found = problems(datetime.datetime.now(tz=datetime.UTC).date().isoformat())
    print("\n".join(found) or f"archgen.CODE_DATE {CODE_DATE}: not after today, and no plan has come")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
