"""What `archgen estimate` says of a training job's load swing: its period, the one figure the model has for it.

Synchronous training moves every GPU of a job between a compute-heavy and a communication-heavy phase each step
("Power Stabilization for AI Training Datacenters", Choukse et al., Microsoft, OpenAI and NVIDIA, arXiv:2508.14318,
abstract: "during every iteration there is a computation-heavy phase ... and a communication-heavy phase ...
large power swings occur", and their "frequency spectrum" is what can harm the grid). So the swing repeats once a
step: its fundamental is 1 / step time, which the model estimates with its band. The depth of the swing, its shape
within a step (layers, micro-batches, pipeline stages, whose faster components the model does not place in time)
and its ramp rate need each part's draw per phase, which no spec states: not provided (docs/facility.md, Not
modelled; a hall's units are judged on the steady maximum draw, PWR022).

A training estimate carries the two figures of the swing the model has as metrics, so a requirement can hold them
to an interconnection agreement's limits (`swing_metrics`, newuser81): its frequency, 1 / step time, and the share of
each step spent in exposed communication, the low-draw phase's share as the model's step breakdown times it.
"""

from __future__ import annotations

from collections.abc import Mapping

from archgen.perf.workload.estimate_result import Estimate
from archgen.units import Q_, Q

#: The step breakdown's exposed communication (`perf.train.training.TrainingEstimate`): each the time left on the
#: step's critical path after the overlap the job's switches allow. `dp_comm` falls once a step, at its end; `tp_comm`,
#: `cp_comm` and `ep_comm` within each layer and micro-batch; `pp_comm` between stages. The bubble is left out: the
#: pipeline's stages wait in turn, not together, so it does not move the whole job's draw at once.
EXPOSED = ("tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm")


def swing_metrics(step_time: float, breakdown: Mapping[str, Q]) -> dict[str, Q]:
    """A training estimate's swing figures: `swing_frequency` (1 / step time) and `exposed_communication_share`.

    The share is the breakdown's exposed communication (`EXPOSED`) over the step time: how much of each step the
    GPUs wait on the network, the communication-heavy phase in which arXiv:2508.14318 (abstract) has them draw much
    less than in the compute phase. None where the step time is not above 0.
    """
    if not step_time > 0:
        return {}
    exposed = sum(float(breakdown[k].m_as("s")) for k in EXPOSED if k in breakdown)
    return {"swing_frequency": Q_(1 / step_time, "Hz"),
            "exposed_communication_share": Q_(exposed / step_time, "dimensionless")}


def swing_period(est: Estimate) -> str:
    """A training job's swing period and frequency, "7.021 s, 0.142 Hz (band ...)"; "" for any other job.

    The one text `swing_note` (archgen estimate) and the cluster document's load swing row
    (`render.load_swing.load_swing`) give.
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
    share = est.metrics.get("exposed_communication_share")
    split = (f"; {float(share.m_as('')) * 100:.1f} % of each step is exposed communication, the low-draw phase "
             "(`exposed_communication_share`)" if share is not None else "")
    return (f"load swing: the job's GPUs move together between compute and communication phases once a step "
            f"(arXiv:2508.14318), so its draw swings with a period of the step time, {period}{split}; the swing's "
            "depth and its ramp rate are not provided here: no spec states a part's draw per phase (`archgen check` "
            "gives `job_power_swing` and `checkpoint_power_dip` where the hall states a `feeds.power_smoothing` "
            "floor or ramps, or every system and switch its `power.idle` or own `power.smoothing`; "
            "docs/facility.md)")
