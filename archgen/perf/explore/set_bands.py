"""The model's error band on a batched sweep's points, so that they are judged as `check` judges the same design.

A point of `perf.explore.points.evaluate_point` is a workload estimate and carries the estimate's bands
(`perf.workload.estimate._finished`): a requirement its value meets but one end of its band does not is *at risk*
(REQ004). The batched path (`perf.explore.vectorised`) times no `Estimate`; it takes the same bands here, from the
same function (`perf.workload.band_lookup.bands`), once per layout set: a set shares its job (its family and
context) and its accelerator, which are all a band depends on for a training job, so the band is the set's.

Where no measurement of the family was taken on the set's accelerator and the part states efficiency ranges
(`perf.workload.efficiency_range`), the per-point estimate's band also spans the estimate's step time over those
ranges (`Band.spread`), which is the point's own: `PointBands` then re-times each point's layout at the ranges' ends
(`range_ends`, the estimate's `over_range` in arrays) and widens each point's band by its own span, never judging it
on the point value alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from archgen import metrics as registry
from archgen.model.workload import Model, Workload
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.band_families import family
from archgen.perf.workload.band_lookup import bands, context_of
from archgen.perf.workload.bands import Band
from archgen.perf.workload.derived import unmeasured_figure
from archgen.perf.workload.efficiency_range import range_ends

#: The metric a training estimate's span is of (`training_estimate`: its step time over the stated ranges).
SPANNED = "step_time"


def set_bands(workload: Workload, model: Model, hw: Hardware, names: list[str]) -> dict[str, Band]:
    """The band of each of `names` for a training `workload` of `model` on `hw`'s accelerator, without a span.

    As `perf.workload.estimate._finished` gives an estimate's (its family from the model's experts, its context from
    the job's sequence); the span the per-point estimate adds is the point's (`PointBands`).
    """
    fam = family("training", bool(Arch.from_model(model).experts))
    return bands(fam, names, hw.accelerator, None, None, context_of(workload), hw.vendor)


def spans(set_band: Mapping[str, Band], hw: Hardware, dtype: str) -> bool:
    """Whether a set's bands span the step time over the part's stated ranges: none on the part, and ranges stated."""
    return any(b.measured and b.on_accelerator == 0 for b in set_band.values()) and bool(range_ends(hw, dtype))


def step_span(hw: Hardware, dtype: str, step_at: Callable[[Hardware], Any]) -> tuple[np.ndarray, np.ndarray]:
    """The least and greatest step time (`step_at`, an array per point) at the ends of `hw`'s stated ranges."""
    times = np.stack([np.asarray(step_at(h), dtype=float) for h in range_ends(hw, dtype)])
    return times.min(axis=0), times.max(axis=0)


@dataclass(frozen=True)
class PointBands:
    """The bands of a set's points: the set's, widened per point by `span` where the set's band spans the ranges.

    `span` is (step time, its least, its greatest over the stated ranges) per point of the batch, or None.
    """

    bands: Mapping[str, Band]
    span: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def ends(self, metric: str, values: np.ndarray, at: np.ndarray, judged: bool = False
             ) -> tuple[np.ndarray, np.ndarray] | None:
        """The ends of the band of `metric` at `values` (floats), of the points `at` of the batch; None without one.

        `Band.values` of each point's band: [p * s_low / (1 + high), p * s_high / (1 + low)], the spread (s_low,
        s_high) the point's span as factors of its estimate, in the metric's direction
        (`band_span.span_factors`). `judged`: the ends a requirement is judged on, unknown (NaN) also where the
        band's expected coverage is under `bands.LIKELY` (`Band.likely`), or where the figure has no band at all
        (`derived.unmeasured_figure`: a job's memory), so a target met there is at risk (`at_risk.thin`). This is
        `band_verdict.point_ends`' rule, `verdict`'s, without its light-load `beyond`: a set's band is a training
        job's, taken at no load, and never has one (tests/perf/test_sweep_verdict.py).
        """
        b = self.bands.get(metric)
        if b is None and judged and unmeasured_figure(metric):   # a figure with no band at all: met is at risk
            return np.full(len(values), np.nan), np.full(len(values), np.nan)
        if b is None:
            return None
        if not b.measured or (judged and not b.likely):   # no run measured it, or too few: met is at risk
            return np.full(len(values), np.nan), np.full(len(values), np.nan)
        s_low: Any = 1.0
        s_high: Any = 1.0
        if self.span is not None and b.on_accelerator == 0:
            s, lo, hi = (x[at] for x in self.span)
            ok = (s > 0) & (lo > 0)
            s, lo, hi = (np.where(ok, x, 1.0) for x in (s, lo, hi))
            same = _maximise(metric) == _maximise(SPANNED)
            s_low, s_high = (lo / s, hi / s) if same else (s / hi, s / lo)
        return values * s_low / (1 + b.high), values * s_high / (1 + b.low)


def _maximise(metric: str) -> bool:
    m = registry.find("workload", metric)
    return bool(m and m.maximise)
