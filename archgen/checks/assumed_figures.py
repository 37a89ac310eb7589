"""The rack's own figures it marks assumed (COOL016, COOL017, MECH005): one finding per figure group.

A rack's liquid loop, air path and enclosure each cite their figures or list them under `unconfirmed:`
(`model.base.MarkedFigures`); the checks that judge the rack on them would otherwise read as if judged on sourced
figures, so each group's marked figures are named with their values, as PWR012 names a part's assumed power.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation


def assumed_group(ctx: Context, at: str, what: str, judged: str) -> Iterator[Violation]:
    """An info finding per rack whose figure group at `at` ('cooling.air') marks figures: `what` rests on them."""
    for path, a in ctx.racks.items():
        for where, group, named in a.rack.spec.assumed_figures():
            if where == at:
                yield Violation(path, a.rack.spec.id, (*at.split("."), "unconfirmed"),
                                f"{what} rests on assumed figures ({at}.unconfirmed): {group.stated(named)}; {judged}",
                                severity="info", public=f"{what} rests on assumed figures: "
                                                        f"{group.stated(named, said=True)}; {judged}")
