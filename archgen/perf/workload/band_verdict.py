"""The one verdict of a requirement judged on an estimated figure and its error band (REQ004; issue 19).

`checks.judgement.outcome` (a requirement bound to a workload's figure, `archgen check`) and
`derived.judge_requirements` (a workload's own requirements: the pipeline, `archgen estimate`, a sweep point) both
call `verdict`, so a requirement is at risk for the same reason, in the same words and with the same `Outcome.risk`,
whichever path judges it (tests/perf/test_band_verdict.py holds them together on every band the model makes). The
rules that write the notes are `model.at_risk`'s; which of them a band calls for is decided here, once. A sweep
point, which holds statuses and not outcomes, takes the same rule as float ends (`point_ends`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from archgen.model.at_risk import thin, unbanded, unmeasured
from archgen.model.requirements import Outcome, Status

if TYPE_CHECKING:
    from archgen.metrics import Metric
    from archgen.perf.workload.bands import Band


def verdict(o: Outcome, band: Band | None, metric: Metric | None) -> Outcome:
    """`o`, judged on an estimate's value and its band's or range's ends (`requirements.judge`), with its verdict.

    No published run measured the band (`Band.measured`: this family, load or context): met is at risk, saying
    which (`at_risk.unbanded`), unless met beyond the worst errors measured at its light load (`Band.beyond`); not
    met, or at risk at an end of its own range, says so where the band is unmeasured at its load or context. A band
    of too few runs, or with a caveat: met is at risk (`at_risk.thin`, `Band.coverage_note`). No band and no range
    of its own (`Outcome.band`, `model.requirements.spread`): met on a figure the model gives no band at all
    (`metric`'s `unmeasured`, a serving job's memory) is at risk (`at_risk.unmeasured`); arithmetic stays as judged.
    Not provided is left as it is.
    """
    if o.value is None:
        return o
    if band is None:
        return unmeasured(o, metric) if o.band is None else o
    if band.measured:
        return thin(o, band.coverage_note(), band.risk)
    if o.status is Status.MET:
        return unbanded(o, band.describe(), band.beyond(o.value), band.beyond_words(), band.risk)
    return replace(o, note=band.describe()) if band.bin or band.longest else o


def point_ends(band: Band, value: float) -> tuple[float, float] | None:
    """The ends a sweep point's `value` is judged on (`derived.judge_points`) by `verdict`'s rule; None: unknown.

    A point holds statuses, not outcomes, so the rule is given as the ends a status is judged on
    (`requirements.status_of`): the band's (`Band.values`) where it is likely to hold (`Band.likely`); else, where
    no run measured it, the worst errors measured at its light load (`Band.beyond`) where there are some; else
    None, which the caller judges as unknown ends (NaN), so that met is at risk and not met stays not met, as
    `thin` and `unbanded` leave them. tests/perf/test_sweep_verdict.py holds both sweep paths to `verdict` on every
    band the model makes.
    """
    if band.measured:
        return band.values(value) if band.likely else None
    return band.beyond(value)
