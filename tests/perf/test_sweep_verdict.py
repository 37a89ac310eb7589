"""A sweep judges a requirement on a band by `verdict`'s rule (issue 19: one decision, one place; sweepverdict43).

verdict43 made `band_verdict.verdict` the one band rule of `check` and the estimate path; a sweep point holds
statuses, not outcomes, and judged them a third way: the per-point path on `Band.values` where the band is likely,
else `Band.beyond`, else unknown ends; the batched path (`set_bands.PointBands.ends`) on unknown ends wherever the band
is unmeasured or not likely, never `beyond`. Here both are held to `verdict` on every band the model makes.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from archgen.model.requirements import Status
from archgen.perf.explore.set_bands import PointBands
from archgen.perf.workload.band_families import KINDS
from archgen.perf.workload.band_verdict import point_ends
from archgen.perf.workload.bands import Band, band
from archgen.perf.workload.derived import judge_points, judge_values
from archgen.perf.workload.light_load import Worst
from tests.perf.test_band_verdict import _both, _dimension, _requirements
from tests.render.test_risk_words import every_band

UNKNOWN = (math.nan, math.nan)


def _verdicts(b: Band) -> list[Status]:
    """`verdict`'s statuses (the estimate path's, which `check` shares) of the requirements on `b`'s metric at 1."""
    return [d.status for _, d in _both(b.metric, b)]


def _per_point(b: Band) -> list[Status | None]:
    """The per-point sweep's statuses (`points.evaluate_point`) of the same requirements on a point valued 1."""
    unit = _dimension(b.metric) or ""
    return [(judge_points(r, [{b.metric: 1.0}], unit, [point_ends(b, 1.0) or UNKNOWN]) or [None])[0]
            for r in _requirements(b.metric)]


def _batched(b: Band) -> list[Status | None]:
    """The batched sweep's statuses (`vectorised_rows.finish`) of the same requirements on a point valued 1."""
    values = np.ones(1)
    ends = PointBands({b.metric: b}).ends(b.metric, values, np.arange(1), True)
    return [(judge_values(r, values, _dimension(b.metric) or "", ends) or [None])[0]
            for r in _requirements(b.metric)]


def _bands() -> list[Band]:
    return sorted({b for b in every_band() if _dimension(b.metric) is not None}, key=repr)


def test_a_sweep_point_gets_verdicts_status_on_every_band():
    seen = set()
    for b in _bands():
        want = _verdicts(b)
        assert _per_point(b) == want, (b.family, b.metric, b.load, b.arrival, b.context)
        seen.update(want)
        if b.beyond(1.0) is not None:
            seen.add("beyond")
    assert seen >= {Status.MET, Status.AT_RISK, Status.NOT_MET, "beyond"}


def test_the_batched_path_gets_verdicts_status_on_every_training_band():
    """The batched path takes training jobs only (`batch_path.per_point`), with bands at no load (`set_bands`):
    none has a light-load `beyond`, so its unknown ends wherever the band is not likely are `point_ends`'."""
    training = [b for b in _bands() if KINDS[b.family] == "training"]
    assert {b.measured for b in training} == {True, False} and any(b.measured and not b.likely for b in training)
    for b in training:
        assert b.light is None and b.beyond(1.0) is None
        assert _batched(b) == _verdicts(b), (b.family, b.metric, b.context)


def test_too_few_runs_are_at_risk_whatever_light_load_erred():
    """`verdict` reads met on a band of too few runs at risk (`at_risk.thin`) and turns to `beyond` only where no run
    measured it (`at_risk.unbanded`); the per-point sweep tried `beyond` wherever the band was not likely."""
    thin = next(b for b in _bands() if b.measured and not b.likely and not b.caveat)
    b = replace(thin, light=Worst(99, 99, -0.01, 0.01, "a run"))
    assert b.beyond(1.0) is not None and point_ends(b, 1.0) is None
    assert Status.AT_RISK in _verdicts(b) and _per_point(b) == _verdicts(b)
    light = band("serving-under-load", "ttft", load=0.1)
    assert light is not None and not light.measured and point_ends(light, 1.0) == light.beyond(1.0)
