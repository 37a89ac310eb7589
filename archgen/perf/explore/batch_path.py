"""Which sweeps the batched path evaluates (`perf.explore.vectorised`), and why the others are estimated point by point.

The batched path times a training sweep's points as arrays, a layout search over all of them at once; everything
else takes the per-point path (`perf.explore.points.evaluate_point`: one estimate per point, the reference the batch
is held to), which is far slower per point (bench/results/sweep.md: 28x on a 240-point training sweep). `per_point`
says why, in words, and `path_note` says it under a sweep's tables and in its summary, so that a sweep that takes
minutes where a training sweep of as many points takes seconds says so (issue 25, sweepspeed3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archgen import metrics as registry
from archgen.model.requirements import Requirement
from archgen.perf.workload.memory_limit import bounded_by
from archgen.units import Q_, Q

if TYPE_CHECKING:
    from archgen.perf.explore.problem import SweepProblem

#: The training metrics a batch computes for each point, with the unit of their dimension (the registry's).
UNITS: dict[str, str] = {name: (m.dimension if (m := registry.find("workload", name)) else "") or "dimensionless"
                         for name in ("step_time", "tokens_per_second", "tokens_per_second_per_gpu",
                                      "model_flops_per_gpu", "mfu", "memory_per_gpu", "memory_headroom",
                                      *(f"memory_{m}_{end}" for m in ("per_gpu", "headroom")
                                        for end in ("low", "high")))}


def of_workload(problem: SweepProblem) -> list[Requirement]:
    """The requirements `check` judges on the sweep's workload: its own, then those other documents state on it."""
    return [*problem.workload.requirements, *(s.requirement for s in problem.documents)]


def per_point(problem: SweepProblem) -> str:
    """Why a sweep's points are estimated one by one, in words; "" where the batched path takes them."""
    workload = problem.workload
    if workload.inference is not None:
        return ("a serving point is a simulation of its own (continuous batching under its load, "
                "`perf.serve.scheduler`), which has no batched form")
    if workload.training is None or problem.model is None:
        return "a collective workload's points are each one collective, timed on its own"
    if any(isinstance(v, Q) for v in problem.axes.get("latency", ())):   # refused by validation: factors only
        return "a `latency` axis given as a value (not a factor) is judged point by point"
    if by := bounded_by(workload, [s.requirement for s in problem.documents]):
        return (f"{', '.join(by)} {'bound' if len(by) > 1 else 'bounds'} each point's layout search by memory "
                "(`perf.workload.memory_limit`), which the batch does not take")
    for req in of_workload(problem):
        unit = UNITS.get(req.metric)
        if unit is not None and not req.target.limit.is_compatible_with(Q_(1.0, unit).units):
            return f"{req.id}'s target is not in the unit of {req.metric}, which the batch judges"
    return ""


def path_note(problem: SweepProblem) -> str:
    """That a sweep's points took the per-point path, and why (`per_point`), in words; "" where they were batched."""
    why = per_point(problem)
    if not why:
        return ""
    return (f"Each point of this sweep was estimated on its own (the per-point path, far slower per point than the "
            f"batched path a training sweep takes): {why}.")
