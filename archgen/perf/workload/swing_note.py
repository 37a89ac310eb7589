"""What `archgen estimate` says of a training job's load swing: its period, the one figure the model has for it.

Synchronous training moves every GPU of a job between a compute-heavy and a communication-heavy phase each step
("Power Stabilization for AI Training Datacenters", Choukse et al., Microsoft, OpenAI and NVIDIA, arXiv:2508.14318,
abstract: "during every iteration there is a computation-heavy phase ... and a communication-heavy phase ...
large power swings occur", and their "frequency spectrum" is what can harm the grid). So the swing repeats once a
step: its fundamental is 1 / step time, which the model estimates with its band. The depth of the swing, its shape
within a step (layers, micro-batches, pipeline stages, whose faster components the model does not place in time)
and its ramp rate need each part's draw per phase, which no spec states: not provided (docs/facility.md, Not
modelled; a hall's units are judged on the steady maximum draw, PWR022).
"""

from __future__ import annotations

from archgen.perf.workload.estimate_result import Estimate


def swing_period(est: Estimate) -> str:
    """A training job's swing period and frequency, "7.021 s, 0.142 Hz (band ...)"; "" for any other job.

    The one text `swing_note` (archgen estimate) and the cluster document's load swing row
    (`render.datacentre.load_swing`) give.
    """
    step = est.metrics.get("step_time")
    if est.kind != "training" or not est.fits or step is None or step.m <= 0:
        return ""
    seconds = step.m_as("s")
    band = est.bands.get("step_time")
    ends = band.values(seconds) if band is not None else None
    within = (f" (band {ends[0]:.3g} to {ends[1]:.3g} s: {1 / ends[1]:.3g} to {1 / ends[0]:.3g} Hz)"
              if ends else " (no band)")
    return f"{seconds:.4g} s, {1 / seconds:.3g} Hz{within}"


def swing_note(est: Estimate) -> str:
    """The note on a training job that fits: the swing repeats once a step, at 1 / step time; "" for any other job."""
    period = swing_period(est)
    if not period:
        return ""
    return (f"load swing: the job's GPUs move together between compute and communication phases once a step "
            f"(arXiv:2508.14318), so its draw swings with a period of the step time, {period}; the swing's depth, "
            "its shape within the step and its ramp rate are not provided: no spec states a part's draw per phase "
            "(docs/facility.md, Not modelled)")
