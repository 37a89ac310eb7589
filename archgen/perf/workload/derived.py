"""What follows from an estimate: a sweep point's derived metrics, cost per token, what a job that does not fit keeps.

The one home of these rules (issue 19 part 4): the per-point sweep path (`perf.explore.points.evaluate_point`), the
batched one (`perf.explore.vectorised_rows.finish`), the pipeline's cost per token (`analyse.job_cost.workload_cost`)
and the one judgement of a workload's requirements on an estimate (`judge_requirements`) all call them. The model does
not judge: each consumer judges a workload's requirements once, on its finished estimate: the pipeline
(`perf.workload.results.judge_workloads`, after cost and goodput are added), `archgen estimate` and a sweep point.

- Power is the job's share of its cluster's IT load: `it_power * accelerators used / accelerators in the cluster`
  (`job_share`, which `check`'s IT and facility energy of a job take too).
- Energy per token is power / tokens per second (J = W * s): IT energy at maximum draw, without the PUE.
- Goodput tokens per second is tokens per second * goodput (`perf.train.goodput`), for a training job on a cluster with
  failure rates, with the ends goodput's range makes (`goodput_rates`); the MTTI is shown where finite
  (`mtti_figures`). `check` (`analyse.goodput.workload_metrics`) takes the same rules.
- Cost per token is the job's cost per hour over the tokens it makes in an hour:
  `cost per accelerator-hour * accelerators / (tokens per second * 3600)`, on goodput tokens where there is a goodput.
- A job that does not fit in accelerator memory keeps its memory metrics (how far it misses) and, as a sweep point,
  its power and accelerator count; a requirement on a memory metric is still judged, every other one is not
  provided (`judged`): one rule for a workload's requirements and a sweep's own, on every path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from archgen.display import MEMORY_RANGED
from archgen.metrics import find
from archgen.metrics_bands import BANDED
from archgen.model.requirements import (
    Outcome,
    Requirement,
    Status,
    judge,
    judge_each,
    on_assumed,
    spread,
    status_of,
)
from archgen.model.unsettled import Unsettled, at_lower_bound, unsettled_note
from archgen.perf.workload.band_verdict import verdict
from archgen.perf.workload.run_figures import accelerator_hours, at_rate, run_energy, run_times
from archgen.units import Q_, Q

if TYPE_CHECKING:
    from archgen.perf.workload.bands import Band
    from archgen.perf.workload.estimate_result import Estimate
    from archgen.perf.workload.machine import Machine

#: Metrics that still mean something when a job does not fit in memory: those that read the part's HBM capacity only
#: (`analyse.assumed` takes them as what rests on a part's `memory` alone).
MEMORY_METRICS = MEMORY_RANGED   # the same two a training job's range over the allocator's waste is of
#: A point's metrics made from its cluster's IT power (`point_metrics`, `run_figures.run_energy`): what a point on
#: scaled hardware (`perf.explore.hardware_scope`) and a sweep's inputs (`analyse.sweep_inputs`) leave with it.
POWER_METRICS = ("power", "energy_per_token", "job_it_energy")
#: What a sweep point that does not fit keeps: its memory metrics, its power and its accelerator count.
MISFIT_KEEPS = (*MEMORY_METRICS, "power", "accelerators")
#: Why a requirement of a job that does not fit is not provided.
DOES_NOT_FIT = "the job does not fit in accelerator memory"


def judged(metric: str, fits: bool) -> bool:
    """Whether a requirement (a workload's or a sweep's) on `metric` is judged: all if it fits, memory ones always."""
    return fits or metric in MEMORY_METRICS


def judge_requirements(requirements: Iterable[Requirement], est: Estimate,
                       withheld: Mapping[str, str] | None = None, unsettled: Unsettled | None = None,
                       assumed: Mapping[str, tuple[str, ...]] | None = None, rests: str = "") -> list[Outcome]:
    """Each requirement judged (`judge`) on the estimate's metrics and their error bands.

    Not provided where the job has no such metric, saying why: the reason `withheld` gives for a metric not provided
    (by metric name, `analyse.operations.Operations.withheld`), else that the job has none; a job that does not fit has
    only its memory metrics judged (`judged`); a metric the estimate shows but names in `Estimate.unjudged` (an
    offline serving job's TTFT) is not provided, with that reason. `unsettled` gives, by metric, the other end of a
    figure that rests on an input nobody gave (`analyse.operations.Operations.unsettled`): met at one end only is not
    provided; `assumed` the assumed inputs a figure rests on, by metric (`Operations.assumed`): a requirement met on
    it names them. `rests` names the unresolved references the job rests on through its cluster
    (`build.Design.rests_note`): then none is judged, each is not provided, as a requirement on any object resting on
    one is.
    """
    if rests:
        return [judge(req, None, f"it {rests}") for req in requirements]
    # the estimate's own other ends (`Estimate.unsettled`) where none are given (`archgen estimate`, a sweep point);
    # `check`'s (`Operations.unsettled`) hold them already, joined beside the others (`analyse.operations_stage`,
    # `model.unsettled.joined`), so they are taken whole, never laid over the estimate's by key (restore42)
    unsettled = est.unsettled if unsettled is None else unsettled
    outcomes = []
    for req in requirements:
        value, band = est.metrics.get(req.metric), est.bands.get(req.metric)
        if not judged(req.metric, bool(est.fits)):  # its metrics are dropped or meaningless: say why
            o = judge(req, None, DOES_NOT_FIT)
        else:
            o = judge(req, value, "" if value is not None else f"the {est.kind} job has no {req.metric}",
                      band_ends(band, value, est.metrics, req.metric) if value is not None else None)
        if o.value is None and withheld and req.metric in withheld:
            o = judge(req, None, withheld[req.metric])
        if req.metric in est.unjudged and bool(est.fits):  # no operating point a target can hold: say why
            o = judge(req, None, est.unjudged[req.metric])
        note = unsettled_note(req, o.value, unsettled) if o.value is not None else None
        if note:
            o = judge(req, None, note)
        if o.status is Status.NOT_MET and req.metric in est.limits:  # a miss no hardware mends: say what sets it
            o = replace(o, note=est.limits[req.metric])
        else:   # no run measured its band, too few did, or it has no band nor range: met is at risk (`band_verdict`)
            o = verdict(o, band, find("workload", req.metric))
        outcomes.append(on_assumed(at_lower_bound(o, unsettled), assumed))   # a cost on a lower-bound capex
    return outcomes


def unmeasured_figure(metric: str, metrics: Mapping[str, Any] | None = None) -> bool:
    """Whether `metric` is a figure the model estimates with no error band at all (`Metric.unmeasured`: a job's memory).

    A sweep point holds statuses, not outcomes: a requirement on such a figure is judged there with unknown band ends
    (NaN), so met is at risk, as `judge_requirements` and `check` have it (`model.at_risk.unmeasured`). Not where
    the point's `metrics` give it a range of its own (`spread`: a training job's memory, over the allocator's waste),
    which judges it instead.
    """
    m = find("workload", metric) or find("point", metric)
    return m is not None and bool(m.unmeasured) and (metrics is None or spread(metrics, metric) is None)


def band_ends(band: Band | None, value: Q, metrics: Mapping[str, Q], metric: str) -> tuple[Q, Q] | None:
    """Where an estimate's `value` of `metric` may lie: its band's ends (`Band.values`), else its own range (`spread`).

    A metric with both, a training run's whole cost (the model's error on its tokens/s, and `job_cost_low/high`, the
    range its goodput and spares give), takes the band at each end of its range: from the band's low end at the
    range's low end to its high end at the range's high end, each end with the model's error in the same direction.
    """
    own = spread(metrics, metric)
    ends = band.values(value) if band is not None else None
    if ends is None or own is None or band is None:
        return ends if ends is not None else own
    low, high = band.values(own[0]), band.values(own[1])
    return (low[0], high[1]) if low is not None and high is not None else ends


def judge_points(requirement: Requirement, points: Sequence[Mapping[str, float]], unit: str,
                 bands: Sequence[tuple[float, float] | None] | None = None) -> list[Status] | None:
    """A sweep requirement judged on the metric of each of `points` (floats in `unit`), with the metric's range.

    The range is the ends of the metric's error band where `bands` gives them for the point (the model's measured
    error, `perf.workload.bands.Band.values`, as `judge_requirements` takes it from an estimate), else the metric's
    `_low` and `_high` where a point has them (`spread`: goodput and what derives from it, over the failure-rate
    sets), both where it has both (the band at each end of the range, `_both`), else the value itself; judged by
    `judge_values`. A `BANDED` figure's `_low` and `_high` are its band's own ends (`metrics_bands`), not a range.
    Every point must have the metric; the per-point path passes one point, the batched path many.
    """
    values = [p[requirement.metric] for p in points]
    band_ends = bands or [None] * len(points)
    banded = requirement.metric in BANDED
    ends = [_both(b, None if banded else spread(p, requirement.metric), v)
            for p, v, b in zip(points, values, band_ends, strict=True)]
    return judge_values(requirement, values, unit, ([e[0] for e in ends], [e[1] for e in ends]))


def _both(band: tuple[float, float] | None, own: tuple[float, float] | None, value: float) -> tuple[float, float]:
    """A point value's range from its band's ends and its own range (`spread`), as `band_ends` takes an estimate's.

    With both (a run's goodput time to train: the step time's band, and goodput's range), the band at each end of the
    range: a band's ends are the value times a factor each (`Band.values`), so the low end is the range's low end times
    the band's low factor, the high end likewise. With one, that one; with neither, the value itself.
    """
    if band is None or own is None or not 0 < value < math.inf:
        return band or own or (value, value)
    return own[0] * (band[0] / value), own[1] * (band[1] / value)


def judge_values(requirement: Requirement, values: Sequence[float] | np.ndarray, unit: str,
                 ends: tuple[Sequence[float] | np.ndarray, Sequence[float] | np.ndarray] | None = None,
                 ) -> list[Status] | None:
    """A requirement judged on each of `values` (floats in `unit`) with the low and high `ends` of its range.

    The value and each end are judged on arrays (`judge_each`) and the status is `status_of`'s, so that a value met
    but not at one end of its range is at risk, as `check` judges it (REQ004); without `ends`, the value alone (the
    ends are the value: met or not met). None where the values do not have the target's dimension (each not
    provided). The one judgement of a sweep's points: `judge_points` (points as mappings) and the batched path's
    estimate metrics (`perf.explore.vectorised_rows.finish`, arrays with their band's ends) call it.
    """
    met = judge_each(requirement, Q_(np.asarray(values, dtype=float), unit))
    if met is None:
        return None
    if ends is None:
        return [status_of(m) for m in met]
    low, high = (judge_each(requirement, Q_(np.asarray(e, dtype=float), unit)) for e in ends)
    if low is None or high is None:
        return None
    return [status_of(m, (lo, hi)) for m, lo, hi in zip(met, low, high, strict=True)]


def job_share(cluster_figure: Any, accelerators: float, cluster_accelerators: float) -> Any:
    """The job's share of a figure of its whole cluster: `cluster_figure * accelerators / cluster_accelerators`.

    The one rule for a job's power (issue 19): a sweep point's `power` (`point_metrics`, of the maximum IT power),
    `check`'s `job_it_energy` (`analyse.operations_stage`, the same) and its `job_energy` (`analyse.job_energy`, of
    the average IT load) take it. `cluster_figure` is a float (a sweep: NaN where not provided) or a quantity.
    """
    return cluster_figure * accelerators / cluster_accelerators


def cost_per_token(per_accelerator_hour: Any, accelerators: float, tokens_per_second: float) -> Any:
    """Cost of one token: `per_accelerator_hour * accelerators / (tokens_per_second * 3600)`.

    `per_accelerator_hour` is a float (USD, a sweep) or a quantity in the cluster's currency (`analyse.cost`);
    `tokens_per_second` is a number per second, above 0.
    """
    return per_accelerator_hour * accelerators / (tokens_per_second * 3600)


def charged_spares(spare_accelerators: float, accelerators: int, utilisation: float) -> float:
    """The hot-spare accelerators the pessimistic end of a job's cost charges besides the job's own.

    Those its goodput counts on (`perf.train.goodput.spares_charged` nodes x accelerators per node: the fewest of its
    idle nodes with which goodput, at its value and across its range, stays within the rounding), less the cluster's
    idle share `(1 - utilisation) x accelerators`, whose hours the cost per used accelerator-hour already spreads
    over the used ones (`analyse.cost.Cost.per_used_accelerator_hour`); never below 0.
    """
    return max(0.0, spare_accelerators - (1.0 - utilisation) * accelerators)


def cost_ends(per_accelerator_hour: Any, accelerators: float, spares: float, tokens_per_second: float | None,
              goodput: tuple[float, float, float] | None = None) -> dict[str, Any]:
    """The ends of a job's cost range: `job_cost_per_hour_low/high` and `cost_per_token_low/high`.

    The one definition `check` (`analyse.job_cost.workload_cost`) and a sweep point (`point_metrics`) share: the low end
    charges the job's accelerators per goodput token at the high end of goodput's range, the high end charges them and
    the `spares` (`charged_spares`) per goodput token at its low end. `tokens_per_second` is the job's tokens per second
    before goodput (None without tokens); `goodput` its goodput with the low and high ends of its range (NaN ends: no
    range, the value at both ends), None for a job without goodput (serving: its tokens at both ends). Empty where
    there is no range (no spare to charge and no goodput range); the cost per token's ends only where the job makes
    tokens at its value. Where goodput's low end is 0 the high end is unbounded: infinite, in the price's type (a
    quantity in its currency, or a float), never dropped (a range with no high end read as a cost with no range;
    `metrics.UNBOUNDED` says why wherever it is shown, `display.metric_value`).
    """
    out: dict[str, Any] = {}
    if spares > 0:
        out["job_cost_per_hour_low"] = per_accelerator_hour * accelerators
        out["job_cost_per_hour_high"] = per_accelerator_hour * (accelerators + spares)
    value, low, high = goodput if goodput is not None else (1.0, math.nan, math.nan)
    low, high = (value, value) if low != low or high != high else (low, high)   # NaN: no range
    if tokens_per_second is None or not value * tokens_per_second > 0 or (spares <= 0 and low == high):
        return out
    out["cost_per_token_low"] = cost_per_token(per_accelerator_hour, accelerators, tokens_per_second * high)
    out["cost_per_token_high"] = (cost_per_token(per_accelerator_hour, accelerators + spares, tokens_per_second * low)
                                  if low * tokens_per_second > 0 else per_accelerator_hour * math.inf)
    return out


def goodput_rates(tokens_per_second: Any, goodput: float, low: float, high: float) -> dict[str, Any]:
    """Goodput tokens per second, tokens per second x goodput, with the ends goodput's range (`low`, `high`) makes.

    No ends where the range has none (NaN). `check`'s (`analyse.goodput.workload_metrics`, quantities; over goodput's
    range as a sweep point's, nu41cost: its band alone hid goodput's spread) and a sweep point's (`point_metrics`).
    """
    out = {"goodput_tokens_per_second": tokens_per_second * goodput}
    if low == low and high == high:
        out["goodput_tokens_per_second_low"] = tokens_per_second * low
        out["goodput_tokens_per_second_high"] = tokens_per_second * high
    return out


def mtti_figures(mtti: float, low: float, high: float) -> dict[str, float]:
    """A job's MTTI and the ends of its range (s): none with no interruption (infinite), no ends where the high is.

    `check`'s (`analyse.goodput.workload_metrics`, in hours) and a sweep point's (`point_metrics`); NaN: none.
    """
    out = {"mtti": mtti} if math.isfinite(mtti) else {}
    return out | ({"mtti_low": low, "mtti_high": high} if math.isfinite(high) else {})


def point_metrics(metrics: dict[str, float], base: Machine, gpus: int, fits: bool,
                  goodput: Callable[[], tuple[float, ...]] | None = None, run: float | None = None) -> dict[str, float]:
    """A sweep point's metrics: the estimate's (floats in SI units) with the derived ones added.

    Power, accelerators, energy per token, goodput (with the low and high ends of its range over the rate sets, as
    `check` gives them), goodput tokens per second and cost per token (each with the ends goodput's ends make:
    `goodput_tokens_per_second_low/high`, `cost_per_token_low/high`, the low cost from the high goodput; and cost per
    million tokens) are
    added; only `MISFIT_KEEPS` are left when the point does not fit.
    `goodput` gives the job's goodput on the cluster, its range's ends and the idle nodes its cost range charges as
    hot spares (`perf.train.point_goodput.goodput_of`; called only when the point makes tokens); None for none. Where it
    also gives the checkpoint write and restore times (seconds, not NaN), they are the point's
    `checkpoint_write_time` and `checkpoint_restore_time`; the job's MTTI and its ends (`goodput_of`'s last
    three) give `mtti` where finite and its ends where the high one is, as `check` gives them
    (`analyse.goodput.workload_metrics`). `run` is a training job's token budget (`checkpoint.tokens`): the point then
    has `time_to_train` (the budget over its tokens per second, in seconds) and, with a goodput above 0,
    `goodput_time_to_train` with the ends goodput's range makes (`run_times`), as `check` gives them.
    """
    m = dict(metrics)
    power = job_share(base.it_power, gpus, base.accelerators)   # NaN: the cluster's IT power is not provided
    if power == power:
        m["power"] = power
    m["accelerators"] = float(gpus)
    if m.get("tokens_per_second"):
        if power == power:
            m["energy_per_token"] = power / m["tokens_per_second"]
        tokens = m["tokens_per_second"]
        low = high = math.nan
        spare_nodes: float = 0
        if goodput is not None:
            m["goodput"], low, high, spare, *rest = goodput()
            spare_nodes, times, mtti = int(spare), rest[:2], rest[2:]
            m.update({k: t for k, t in zip(("checkpoint_write_time", "checkpoint_restore_time"), times, strict=False)
                      if t == t})
            m.update(mtti_figures(*mtti) if mtti else {})
            if low == low:  # a range (not NaN): the rate sets' ends
                m["goodput_low"], m["goodput_high"] = low, high
            m.update(goodput_rates(tokens, m["goodput"], low, high))
            tokens = m["goodput_tokens_per_second"]
        if run:
            m.update(run_times(run / m["tokens_per_second"], m.get("goodput"), low, high))
            m.update(accelerator_hours(m, gpus))
            m.update(run_energy(m.get("power"), m))
        if base.cost_per_accelerator_hour is not None and tokens > 0:
            m["cost_per_token"] = cost_per_token(base.cost_per_accelerator_hour, gpus, tokens)
            m["cost_per_million_tokens"] = m["cost_per_token"] * 1e6  # as `analyse.cost` gives it
            # the dearest token is made at the low end of goodput with the hot spares it counts on charged
            f = base.failures if goodput is not None else None
            spares = charged_spares(spare_nodes * f.per_node, base.accelerators, base.utilisation) \
                if f is not None else 0.0
            span = cost_ends(base.cost_per_accelerator_hour, gpus, spares, m["tokens_per_second"],
                             (m["goodput"], low, high) if goodput is not None else None)
            m.update({k: v for k, v in span.items() if k.startswith("cost_per_token")})
    if not fits:
        m = {k: v for k, v in m.items() if k in MISFIT_KEEPS}
    return m


def other_end_metrics(metrics: dict[str, float], base: Machine, gpus: int, fits: bool, free: float,
                      run: float | None = None) -> dict[str, float] | None:
    """A sweep point's metrics (`point_metrics`) at the other end of what its goodput does not know, else None.

    `free` is its goodput there (`perf.train.point_goodput.unblocked_of`; NaN: nothing unknown, no other end), taken
    as a figure with no range of its own and no hot spare charged; `unsettled_at` judges its requirements at both ends.
    The one rule for the per-point path (`perf.explore.points.evaluate_point`) and the batched one
    (`perf.explore.vectorised_rows.finish`).
    """
    return point_metrics(metrics, base, gpus, fits, lambda: (free, math.nan, math.nan, 0), run) if free == free \
        else None


def host_corners(point: dict[str, float], other: dict[str, float] | None,
                 host: Mapping[str, float]) -> list[dict[str, float]]:
    """A sweep point's metrics (`point_metrics`) at the other end of the host's time per launch or operation.

    `host` holds the figures of the estimate that end moves (`Estimate.unsettled`, floats in SI units: a TensorRT
    engine's launches at 20 us, `estimate.launch_ends`; the host's eager operations at 20 us,
    `training_estimate.host_ends`); what is made from the rate (cost and energy per token, time to train, goodput
    tokens/s...) moves with its tokens/s by `run_figures.at_rate`, the rule `check` takes (`run_figures.rate_ends`).
    Where its goodput's blocking time is unknown too (`other`, the point at its other end: `other_end_metrics`), the
    corner of both follows. Empty where the host stays hidden at that end. `unsettled_at` judges each against the
    point's metrics and at its own energy's ends (`upper_bounds.unsettled_at`): a target met at one corner only is not
    judged. The one rule for the per-point path (`perf.explore.points.evaluate_point`) and the batched one
    (`perf.explore.vectorised_rows.finish`).
    """
    if not host:
        return []
    rate, slow = point.get("tokens_per_second"), host.get("tokens_per_second")
    ratio = slow / rate if rate and slow is not None else 1.0   # no tokens/s: nothing is made from it
    return [{**m, **{k: v for k, v in host.items() if k in m}, **at_rate(m, ratio)}
            for m in (point, other) if m is not None]


def restore_ends(metrics: dict[str, float], base: Machine, gpus: int, fits: bool, replicas: float,
                 host: Mapping[str, float], run: float | None = None) -> list[dict[str, float]]:
    """A sweep point's metrics (`point_metrics`) with each data-parallel replica reading its weights at a restore.

    `replicas` is its goodput there (`perf.train.point_goodput.replicas_of`; NaN: the read is settled, none), as
    `check`'s `Goodput.replicas`; then, where the host's other end moves the point (`host`, as `host_corners`), the
    corner of both: each lowers goodput tokens/s and raises the cost per token and the time to train, so a target met
    at each alone may be missed at both (`model.unsettled.joined`'s corner in `check`). `points.loose_at` judges them.
    The one rule for the per-point path and the batched one (restore42: a sweep read the checkpoint once only).
    """
    at = other_end_metrics(metrics, base, gpus, fits, replicas, run)
    return [] if at is None else [at, *host_corners(at, None, host)]
