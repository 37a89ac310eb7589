"""The `Sweep` kind: a design space around one workload, evaluated point by point by `archgen sweep`.

A sweep names a base `Workload` (its model, cluster, job and targets) and axes to vary; the points are the
product of the axes. Job axes replace a field of the workload's job (a layout field given here is fixed, one left
out is searched as usual); hardware axes change a figure of the hardware the model runs on, either by a factor
(a bare number, like `archgen estimate --what-if`) or to an absolute value (a quantity); the axes and their levels
are declared in `model.sweep_axes`. The sweep reports every point, the Pareto front of its objectives among the
points that fit and meet every SHALL requirement, and the best point per objective.
"""

import math
from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from archgen import metrics
from archgen.model.requirements import Requirement, SweepRequirements
from archgen.model.spec import Document, FieldError, Ref, Spec, raise_each
from archgen.model.sweep_axes import Axes
from archgen.model.sweep_ranges import RangeError, size
from archgen.model.workload import mfu_target_problem

#: Metrics of a sweep's points (`archgen.metrics`: the workload's that a point has, and the point's own), with their
#: dimension.
SWEEP_METRICS: dict[str, str] = {m.name: m.dimension or "dimensionless"
                                 for m in (*metrics.declared("workload"), *metrics.declared("point")) if m.sweep}
#: Metrics that need the cluster's prices (amounts of money: a sweep objective on them without prices is refused).
COST_OBJECTIVES = frozenset(name for name in SWEEP_METRICS if "USD" in SWEEP_METRICS[name])

#: Metrics that rest on a training job's goodput (`perf.workload.derived.point_metrics`: cost per token is per goodput
#: token) or come with it (the MTTI, from the same `perf.train.goodput.job_goodput`): an objective on them needs
#: somewhere to write checkpoints, and a table showing them shows goodput's range.
GOODPUT_METRICS = frozenset({f"{name}{end}" for name in ("goodput", "goodput_tokens_per_second", "cost_per_token",
                                                         "mtti", "goodput_time_to_train", "goodput_accelerator_hours")
                             for end in ("", "_low", "_high")})
#: Metrics a training point has only where its workload states its token budget (`checkpoint.tokens`): the time to
#: train, and with goodput the goodput time to train (`perf.workload.run_figures.run_times`, as `check` gives them).
RUN_METRICS = frozenset({"time_to_train", *(f"goodput_time_to_train{end}" for end in ("", "_low", "_high")),
                         "accelerator_hours", *(f"goodput_accelerator_hours{end}" for end in ("", "_low", "_high")),
                         "job_it_energy"})

#: A training point's checkpoint write and restore times (`perf.train.point_goodput.goodput_of`, the job's ports on the
#: storage fabric at the point's accelerator count, as `check` gives them): like goodput, they need somewhere to
#: write checkpoints.
CHECKPOINT_TIMES = frozenset({"checkpoint_write_time", "checkpoint_restore_time"})
#: Metrics a training point has only where its cluster has checkpoint storage (REL006): goodput's and the times.
STORAGE_METRICS = GOODPUT_METRICS | CHECKPOINT_TIMES

#: The metrics a point of each kind of job can have: its estimate's, then the sweep's own.
JOB_METRICS: dict[str, tuple[str, ...]] = {job: tuple(m.name for m in metrics.job_metrics(job, sweep=True))
                                           for job in metrics.JOBS}

#: Metrics an objective maximises unless told otherwise; every other metric is minimised.
MAXIMISED = frozenset(name for name in SWEEP_METRICS
                      if (m := metrics.find("workload", name) or metrics.find("point", name)) and m.maximise)

#: Metrics with no better direction that a sweep may not minimise by default as it does a power or a count: more
#: sequences in flight raise a replica's tokens/s and its TPOT both (offtpot37 took `concurrency`'s maximise away).
UNDIRECTED = frozenset({"concurrency"})

#: Most points a sweep may have unless its `max_points` says more.
DEFAULT_MAX_POINTS = 100_000


def _too_many(sizes: dict[str, int], most: int) -> FieldError | None:
    """The error of axes whose product of `sizes` exceeds `most` (`Sweep.max_points`), or None."""
    points = math.prod(sizes.values())
    if points <= most:
        return None
    shown = " x ".join(f"{n} {k}" for k, n in sizes.items())
    return FieldError(("axes",), f"the axes make {points:,} points ({shown}), more than max_points ({most:,}); "
                                 "shorten an axis or raise max_points")


class Objective(Spec):
    """A metric the Pareto front trades off."""

    metric: str = Field(description="A workload metric (tokens_per_second, step_time, mfu, ttft, ...), or power, "
                                    "energy_per_token or accelerators.")
    goal: Literal["min", "max"] | None = Field(
        None, description="Minimise or maximise; default: max for throughputs, MFU, headroom, busbw, goodput and "
                          "MTTI (and their ranges' ends), else min; concurrency has none (state it).")

    @field_validator("metric")
    @classmethod
    def _known(cls, metric: str) -> str:
        if why := metrics.unknown(metric, ("workload", "point")):
            raise ValueError(why)
        return metric

    @property
    def maximise(self) -> bool:
        """Whether larger is better."""
        return self.goal == "max" if self.goal else self.metric in MAXIMISED


class Sweep(Document):
    """A design space around a workload: axes to vary, objectives to trade off, extra targets to meet."""

    kind: Literal["Sweep"] = "Sweep"
    workload: Ref = Field(description="Id of the base `Workload` (its model, cluster, job and requirements).")
    axes: Axes = Field(description="What to vary; the points are the product of the axes.")
    objectives: list[Objective] = Field(
        min_length=1, description="Metrics to trade off on the Pareto front, e.g. {metric: tokens_per_second}.")
    requirements: SweepRequirements = Field(
        default_factory=list, description="Targets every point is judged on, beside the workload's own.")
    max_points: int = Field(DEFAULT_MAX_POINTS, gt=0, le=1_000_000, description=(
        "Largest number of points the axes may make (a guard against typos); at most 10^6, which a sweep holds in "
        "about 1.8 GB (`BENCH_MILLION=1 make bench`). It cannot raise the 100,000 points one run of `archgen sweep` "
        "evaluates: the run's `--max-points` does."))

    @field_validator("objectives")
    @classmethod
    def _distinct_objectives(cls, objectives: list[Objective]) -> list[Objective]:
        names = [o.metric for o in objectives]
        raise_each([FieldError((i, "metric"), f"objective '{m}' is listed twice") for i, m in enumerate(names)
                    if m in names[:i]] +
                   [FieldError((i, "metric"), f"objective '{o.metric}' has no better direction (more sequences in "
                                              "flight give more tokens/s and a longer time per token): state its "
                                              "goal, min or max")
                    for i, o in enumerate(objectives) if o.metric in UNDIRECTED and o.goal is None], cls.__name__)
        return objectives

    @field_validator("requirements")
    @classmethod
    def _mfu_targets(cls, reqs: list[Requirement]) -> list[Requirement]:
        raise_each([FieldError((i, "target"), problem) for i, req in enumerate(reqs)
                    if (problem := mfu_target_problem(req))], cls.__name__)
        return reqs

    @model_validator(mode="before")
    @classmethod
    def _bounded_before(cls, data: Any) -> Any:
        """Refuse axes past `max_points` before their ranges are expanded (`sweep_ranges.size`: no level made)."""
        axes = data.get("axes") if isinstance(data, dict) else None
        most = data.get("max_points", DEFAULT_MAX_POINTS) if isinstance(data, dict) else DEFAULT_MAX_POINTS
        if not isinstance(axes, dict) or not any(isinstance(v, dict) for v in axes.values()) \
                or isinstance(most, bool) or not isinstance(most, int):
            return data
        sizes = {}
        for name, value in axes.items():
            try:
                sizes[str(name)] = size(value) if isinstance(value, dict) else len(value)
            except (RangeError, TypeError):
                return data   # the axis's own error comes from its validation
        if error := _too_many(sizes, most):
            raise error
        return data

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        if error := _too_many({k: len(v) for k, v in self.axes.given().items()}, self.max_points):
            raise error
        return self
