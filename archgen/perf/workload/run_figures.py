"""A whole run's figures from a job's estimate: time to train, accelerator-hours, IT energy, and their bands.

A training run's time is its token budget over its tokens per second (over its goodput, with the ends goodput's range
makes); its accelerator-hours and IT energy are made from that time. `check` (`analyse.goodput`,
`analyse.operations_stage`) and a sweep point (`perf.workload.derived.point_metrics`) share these, and each figure made
from the tokens/s takes the step time's band (`run_bands`), a serving job's cost per token its throughput's
(`serving_cost_bands`). Split from `perf.workload.derived` for its size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from archgen.perf.workload.band_families import MADE_FROM_RATE
from archgen.perf.workload.band_lookup import bands
from archgen.perf.workload.band_span import maximise, turned
from archgen.units import Q_, Q

if TYPE_CHECKING:
    from archgen.perf.workload.bands import Band
    from archgen.perf.workload.estimate_result import Estimate


def run_times(time_to_train: float, goodput: float | None, low: float, high: float) -> dict[str, float]:
    """A training point's time to train (seconds) and, with a goodput above 0, its goodput time to train and ends.

    The ends are over goodput's range (`low`, `high`; NaN: none): the low end at the high goodput, the high end at the
    low one, infinite where that is 0 (the job never finishes at that end): `goodput_time_ends`, as `check` has them.
    """
    out = {"time_to_train": time_to_train}
    if goodput is None or not goodput > 0:
        return out
    out["goodput_time_to_train"] = time_to_train / goodput
    if low == low and high == high:
        out.update(goodput_time_ends(time_to_train, low, high))
    return out


def time_to_train(tokens: float, tokens_per_second: Q) -> Q:
    """A training run's time to train (days): its token budget over its tokens per second, before goodput.

    `check`'s (`analyse.goodput.workload_metrics`, and `analyse.operations_stage` where the job has no goodput) and
    `archgen estimate`'s (`job_on_cluster.run_figures`); a sweep point's is the same in seconds (`run_times`).
    """
    return (Q_(tokens, "") / tokens_per_second).to("day")


#: A training run's accelerator-hours, each from the run time of the same name (`accelerator_hours`).
HOURS_OF = {f"{g}time_to_train{e}": f"{g}accelerator_hours{e}" for g, e in
            (("", ""), ("goodput_", ""), ("goodput_", "_low"), ("goodput_", "_high"))}


def accelerator_hours(metrics: Mapping[str, Any], accelerators: int) -> dict[str, Any]:
    """A training run's accelerator-hours (GPU-hours): each run time in `metrics` (`HOURS_OF`) times its accelerators.

    What published whole runs report (the Llama 3.1 model card's 30.84M H100 GPU-hours, DeepSeek-V3's 2.788M H800
    GPU-hours, arXiv 2412.19437 Table 1), so a planner compares like with like; the job's accelerators only, its hot
    spares not counted. Made from the run time, so proportional to the step time: the step time's band
    (`MADE_FROM_RATE`). `metrics` are `check`'s quantities or a sweep point's floats (seconds).
    """
    return {hours: metrics[time] * accelerators for time, hours in HOURS_OF.items() if time in metrics}


def run_energy(power: Any, metrics: Mapping[str, Any]) -> dict[str, Any]:
    """A training run's IT energy (`job_it_energy`): `power` times its time to train.

    `power` is the job's share of its cluster's maximum IT power (the cluster's times the accelerators used over its
    own: `derived.job_share`, as a sweep point's `power`).

    At maximum draw, so an upper bound on the IT energy; without the PUE (the hall's, `check`'s `job_energy`, takes
    the average draw x `cost.energy.pue`) and goodput's lost time. Published runs state energy on other bases
    (Llama 3.1's model card: GPU-hours x the GPUs' 700 W TDP, GPUs only), so compare like with like. `metrics` are
    `check`'s quantities or a sweep point's floats; none where `power` is unknown (None, NaN) or no time to train.
    """
    if power is None or power != power or "time_to_train" not in metrics:
        return {}
    return {"job_it_energy": power * metrics["time_to_train"]}


def goodput_time_ends(time_to_train: Any, low: float, high: float) -> dict[str, Any]:
    """The ends of the goodput time to train over goodput's range (`low`, `high`): seconds, or Quantities as given.

    Its low end is the time to train over `high`, its high end over `low`: infinite where that is 0 (at that end of
    the rate sets the job never finishes), as the cost per goodput hour's is. A requirement met at the value but not
    at that end is at risk (REQ004), and the step time's band is taken at each end (`band_ends`), as for `job_cost`.
    `check`'s (`analyse.goodput`) and a sweep point's (`run_times`).
    """
    at_high, at_low = per_goodput_ends(time_to_train, low, high)
    return {"goodput_time_to_train_low": at_high, "goodput_time_to_train_high": at_low}


def per_goodput_ends(figure: Any, low: float, high: float) -> tuple[Any, Any]:
    """`figure` per goodput at each end of goodput's range (`low`, `high`): its low end over `high`, high over `low`.

    Infinite where that goodput is 0 (at that end nothing is made: the job never finishes, no goodput hour is had at
    any price), in `figure`'s type, never dropped. The one rule for the goodput time to train's ends
    (`goodput_time_ends`) and the cost per goodput accelerator-hour's (`analyse.operations_stage.goodput_hour_cost`).
    """
    return (figure / high if high > 0 else figure * math.inf, figure / low if low > 0 else figure * math.inf)


def serving_cost_bands(est: Estimate, cost: Mapping[str, Any]) -> dict[str, Band]:
    """The bands of a serving job's cost and energy per token: its throughput's, turned (per hour over tokens/s).

    The cost per hour is the cluster's, exact as far as the model goes; what the published runs leave open is the
    tokens per second, so the cost per token may lie in [cost / high tokens/s, cost / low tokens/s]. A training
    job's takes its step time's (`run_bands`). `cost` holds the cost metrics (`check`'s, added by
    `analyse.operations_stage`, or a sweep point's, with its energy per token); the bands are those of its names.
    """
    tput = est.bands.get("tokens_per_second")
    if est.kind != "inference" or tput is None:
        return {}
    names = ("cost_per_token", "cost_per_million_tokens", "energy_per_token", "facility_energy_per_million_tokens")
    if tput.delivered:   # an open loop that keeps up: the delivered throughput's band, turned (`band_lookup.delivered`)
        low, high = turned(tput.low, tput.high)
        return {k: replace(tput, metric=k, low=low, high=high) for k in names if k in cost}
    return bands(tput.family, [k for k in names if k in cost], accelerator=tput.accelerator, span=est.span,
                 context=tput.context, vendor=tput.vendor, capacity=tput.one_length)


def serving_cost_ends(est: Estimate, metrics: Mapping[str, Any]) -> dict[str, Any]:
    """A serving sweep point's `cost_per_token_low/high`: the ends of its cost's band (`serving_cost_bands`).

    The cost per token is the cost per hour over the tokens per hour, so its range is the cost per hour over the
    throughput band's ends (cost x tokens/s / tokens/s high to / tokens/s low), as tokens/s per GPU has one (cost31,
    newuser85: a points.csv gave tokens/s per GPU 630 to 979 and no cost per token range). For the table of points
    only: a requirement on it is judged on the band itself (`perf.explore.points.evaluate_point`), never on these as
    a range besides it. Empty for a training point, whose range is goodput's (`derived.cost_ends`).
    """
    band = serving_cost_bands(est, metrics).get("cost_per_token")
    ends = band.values(metrics["cost_per_token"]) if band is not None and "cost_per_token_low" not in metrics else None
    return {} if ends is None else {"cost_per_token_low": ends[0], "cost_per_token_high": ends[1]}


def run_bands(est: Estimate, metrics: Mapping[str, Any]) -> dict[str, Band]:
    """The bands of a training run's figures made from its tokens/s (`MADE_FROM_RATE` in `metrics`): the step time's.

    Each is the run's tokens over its tokens per second (times its goodput, or its cost per hour), a cost or energy
    per token (per hour over tokens/s), or tokens/s times goodput, so proportional to the step time or its inverse:
    the model's error on the step time is theirs, and where the estimate's band spans the part's stated efficiency
    ranges (`Band.spread`), so does theirs. A requirement met by the estimate but not at the band's pessimistic end
    is at risk (REQ004), as the tokens/s it is made from is. `job_cost`, the cost per token and the goodput time to
    train also have their own range (goodput's and the spares', `_low/_high`): they are judged with the band at each
    end of it (`band_ends`; a sweep point's in `judge_points`). `metrics` are `check`'s (added by
    `analyse.operations_stage`) or a sweep point's. An end with no bound (infinite: goodput 0 at that end) has no band:
    the model's error moves no figure that is not there.
    """
    step = est.bands.get("step_time")
    if est.kind != "training" or step is None:
        return {}
    names = [k for k in MADE_FROM_RATE if k in metrics and not math.isinf(getattr(metrics[k], "m", metrics[k]))]
    return bands(step.family, names, accelerator=step.accelerator, span=est.span, context=step.context,
                 vendor=step.vendor)


def rate_ends(est: Estimate, figures: Mapping[str, Q]) -> dict[str, tuple[Q, str]]:
    """Each figure made from the rate (`MADE_FROM_RATE` in `figures`) at the other end of the estimate's tokens/s.

    The estimate holds its tokens/s at the other end of the host's time per operation or launch (`Estimate.unsettled`:
    `training_estimate.host_ends`, `estimate.launch_ends`); each figure moves with it (`at_rate`), with the same
    reason. `check`'s (`analyse.operations_stage`; sweepends41: a cost per token judged there rested on the low end of
    the host's time); a sweep point's take the same rule (`derived.host_corners`). Only those that move.
    """
    end, rate = est.unsettled.get("tokens_per_second"), est.metrics.get("tokens_per_second")
    if end is None or rate is None or not rate.m > 0:
        return {}
    return {k: (q, end[1]) for k, q in at_rate(figures, float((end[0] / rate).m_as(""))).items()}


def at_rate(figures: Mapping[str, Any], ratio: float) -> dict[str, Any]:
    """Each figure made from the rate (`MADE_FROM_RATE` in `figures`) where the tokens/s is `ratio` times theirs.

    Each is proportional to the tokens/s (goodput tokens/s, a dataset's read bandwidth: `band_span.maximise`) or to its
    inverse (a time, cost or energy per token or per run), by stated inputs the tokens/s does not move (the token
    budget, goodput, prices, power), as their bands are (`run_bands`, `serving_cost_bands`), so it moves by the same
    ratio. The one rule for the figures at the other end of the host's time per operation or launch: `check`'s
    (`rate_ends`: quantities) and a sweep point's (`derived.host_corners`: floats in SI units). Only those that move
    (an infinite end, goodput 0 there, stays where it is).
    """
    side = _rising()
    ends = {k: q * ratio if side[k] else q / ratio for k, q in figures.items() if k in side}
    return {k: q for k, q in ends.items() if q != figures[k]}


@cache
def _rising() -> dict[str, bool]:
    """Each figure made from the rate, and whether it rises with it (`band_span.maximise`), looked up once.

    A sweep moves each point the host binds by `at_rate`: a registry look-up per figure there took a host-bound
    sweep's evaluation from 0.59 to 0.79 CPU-s (2,000 points; twins42).
    """
    return {k: maximise(k) for k in MADE_FROM_RATE}
