"""One verdict of a requirement on an estimated figure's band, whichever path judges it (issue 19; verdict43).

riskfields43 found the band rule ("unbanded" or "thin": met on a figure no run measured, or on a band of too few
runs, reads at risk) written twice: in `checks.judgement.outcome` (a requirement bound to a workload's figure,
`archgen check`) and in `derived.judge_requirements` (a workload's own: the pipeline, `archgen estimate`, a sweep
point), the second also rewriting a not-met outcome's note. Both now call `band_verdict.verdict`; here both paths
judge the same requirements on every band the model makes, and on figures with no band, and must agree on the
status, the note, the `risk` and the ends, for met, at-risk and not-met outcomes alike.
"""

from __future__ import annotations

import pytest

from archgen.binding import BoundRequirement
from archgen.checks.judgement import outcome
from archgen.metrics import find
from archgen.model.requirements import Outcome, Requirement, Risk, Status
from archgen.perf.workload.bands import Band, band
from archgen.perf.workload.derived import judge_requirements
from archgen.perf.workload.estimate_result import Estimate
from archgen.units import Q_
from tests.render.test_risk_words import every_band  # riskfields43's enumeration of the bands the model makes

PATH = "workload/w"
#: Targets around an estimate of 1 (in the metric's SI unit): met or missed outright, or by less than a band's width.
LIMITS = (0.5, 0.97, 1.03, 2)


def _dimension(metric: str) -> str | None:
    """The SI unit of `metric`; None for a validation case's metric no requirement can name (`tflops_per_gpu`)."""
    m = find("workload", metric) or find("point", metric)
    return None if m is None else m.dimension


def _requirements(metric: str) -> list[Requirement]:
    unit = _dimension(metric) or ""
    return [Requirement(id=f"REQ-{i}", statement=metric, metric=metric, target=f"{op} {limit} {unit}".strip())
            for i, (op, limit) in enumerate((op, limit) for op in ("<=", ">=") for limit in LIMITS)]


def _both(metric: str, b: Band | None, extra: dict | None = None) -> list[tuple[Outcome, Outcome]]:
    """The requirements on `metric` (estimated at 1) judged by `check`'s path and by the estimate's."""
    metrics = {metric: Q_(1.0, _dimension(metric) or "dimensionless"), **(extra or {})}
    bands = {metric: b} if b is not None else {}
    est = Estimate("w", "serving", "b200", 8, {}, metrics, {}, {}, True, bands=bands)
    reqs = _requirements(metric)
    derived = judge_requirements(reqs, est)
    checked = [outcome(BoundRequirement(r, PATH, PATH, ("requirements", i)), {PATH: dict(est.metrics)},
                       bands={PATH: bands}) for i, r in enumerate(reqs)]
    return list(zip(checked, derived, strict=True))


def _same(a: Outcome, b: Outcome) -> bool:
    return (a.status, a.note, a.risk, a.band, a.beyond) == (b.status, b.note, b.risk, b.band, b.beyond)


def test_check_and_estimate_give_every_band_the_same_verdict():
    seen: set[tuple[Status, Risk | None]] = set()
    rewritten = 0
    for b in sorted({b for b in every_band() if _dimension(b.metric) is not None}, key=repr):
        for c, d in _both(b.metric, b):
            assert _same(c, d), (b.family, b.metric, b.load, b.context, c.status, d.status, c.note[:80], d.note[:80])
            seen.add((c.status, c.risk))
            rewritten += c.status is Status.NOT_MET and bool(c.note)
    assert {s for s, _ in seen} == {Status.MET, Status.AT_RISK, Status.NOT_MET}
    assert {r for s, r in seen if s is Status.AT_RISK} >= set(Risk) - {Risk.UNMEASURED} | {None}
    assert rewritten   # a miss where no run measured its load or context says so, on both paths


def test_a_figure_with_no_band_gets_the_same_verdict():
    """No band: a figure the model gives none (a serving job's memory) met is at risk on both paths; one with a
    range of its own (`spread`, over the allocator's waste) is judged on that range, and arithmetic as it is."""
    cases = {"memory_headroom": None, "exposed_communication_share": None,
             "memory_per_gpu": {"memory_per_gpu_low": Q_(0.9, "B"), "memory_per_gpu_high": Q_(1.2, "B")}}
    risks = set()
    for metric, extra in cases.items():
        for c, d in _both(metric, None, extra):
            assert _same(c, d), (metric, c.status, d.status, c.note[:80], d.note[:80])
            risks.add(c.risk)
    assert risks == {Risk.UNMEASURED, None}


def test_a_banded_figure_with_a_range_of_its_own_takes_the_same_ends():
    """A training job's whole cost has a band (its tokens/s's error) and a range of its own (`job_cost_low/high`,
    over its goodput and spares): both paths take the band at each end of the range (`derived.band_ends`). Before
    verdict43 `check` took the band around the estimate alone, [0.90, 1.61] beside the estimate's [0.81, 1.77]."""
    b = band("dense-training", "job_cost")
    assert b is not None and b.measured
    pairs = _both("job_cost", b, {"job_cost_low": Q_(0.9, "USD"), "job_cost_high": Q_(1.1, "USD")})
    for c, d in pairs:
        assert _same(c, d), (str(c.requirement.target), c.band, d.band)
    low, high = pairs[0][0].band
    assert (low.m, high.m) == pytest.approx((0.9 / (1 + b.high), 1.1 / (1 + b.low)))
