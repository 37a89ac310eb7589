"""The hall needs table's load swing row, split from `render.datacentre` for its size.

What the specs give of a synchronous training job's swing (depth, ramps, period), not provided where they give nothing.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.job_swing import load_ramps
from archgen.analyse.swing_phases import job_words
from archgen.perf.workload.swing_note import swing_period
from archgen.render import fmt

NOT_PROVIDED = "not provided"
#: What a grid operator asks of a hall running synchronous training: how far and how fast its load swings between
#: compute and communication phases, checkpoint stalls and a job's start or stop. archgen computes no power over
#: time, so the row says so rather than leave the question unasked. The mechanisms named are NVIDIA's (GB300 NVL72
#: power smoothing: energy-storage PSUs, a power floor, ramp-up and ramp-down limits; "How New GB300 NVL72 Features
#: Provide Steady Power for AI", NVIDIA Technical Blog, 2025,
#: https://developer.nvidia.com/blog/how-new-gb300-nvl72-features-provide-steady-power-for-ai/); no figure of theirs
#: is used (docs/facility.md, Not modelled). The one bound the specs give is the depth: no deeper than the IT power
#: at maximum draw, the whole load falling to nothing, since no spec states the draw it falls to (PWR022).
LOAD_SWING = (f"{NOT_PROVIDED}: no power over time is computed, only the maximum and typical draw; the swing "
              "between compute and communication phases, checkpoint stalls or a job's start and stop, and how fast "
              "it ramps, need each rack's draw in those phases and its rate of change (a measured trace, or the "
              "vendor's power-smoothing settings where used: power floor, ramp limits, energy storage), which no "
              "spec states")


def _smoothed(it_power: Any, smoothing: Any, own: Any = None, parts: Any = None) -> str:
    """The swing's depth and ramps from the hall's stated `feeds.power_smoothing` (its floor: the depth).

    `own`: the parts' larger bound where they state one (the hall's governs, said), else None. The ramps are each
    way the slower of the hall's and the parts' (`parts`, `job_swing.load_ramps`).
    """
    floor, found = smoothing.floor, load_ramps(smoothing, parts)
    ramps = (f"a job's start or stop ramps at most {fmt.q(found.up, 'kW/s', 1)} up and "
             f"{fmt.q(found.down, 'kW/s', 1)} down ({_whose(found)})" if found is not None else
             "its ramp rate not provided (the smoothing states no `ramp_up` and `ramp_down`: a job's start or stop "
             "is a step)")
    return (f"depth at most {fmt.q(it_power * (1 - float(floor)), 'kW', 1)}, the IT power at maximum draw x (1 - "
            f"the floor {float(floor):g} of the hall's stated power smoothing, `feeds.power_smoothing`"
            + ("" if own is None else f"; the parts' own bound {fmt.q(own, 'kW', 1)} is larger: the hall's governs")
            + f"); {ramps}")


def _by_parts(parts: Any, hall: Any, smoothing: Any) -> str:
    """The swing's depth and ramps as the cluster's parts state them (`job_swing.PartsSwing`), the parts governing.

    `hall`: the hall's floor's larger bound, else None; the ramps the hall's `smoothing`'s where stated, else parts'.
    """
    found = load_ramps(smoothing, parts)
    ramps = ("its ramp rate not provided (not every system and switch states `power.smoothing` ramps: a job's start "
             "or stop is a step)" if found is None else
             f"a job's start or stop ramps at most {fmt.q(found[0], 'kW/s', 1)} up and {fmt.q(found[1], 'kW/s', 1)} "
             f"down ({_whose(found)})")
    return (f"depth at most {fmt.q(parts.depth, 'kW', 1)}, each system and switch drawing no less than its stated "
            "`power.idle` or own `power.smoothing.floor` x its maximum, with the shelves' loss (" + (
                "the hall states no `feeds.power_smoothing.floor`" if hall is None else
                f"below the hall's floor's bound {fmt.q(hall, 'kW', 1)}: the parts' governs") + f"); {ramps}")


def _whose(found: Any) -> str:
    """Whose ramps the row gives (`job_swing.LoadRamps`): the hall's, the parts' summed, or the slower each way."""
    parts = [found.by_parts(end) for end in (0, 1)]
    if all(parts):
        return "the parts' stated `power.smoothing` ramps, summed" + (
            "" if found.hall is None else ", slower than the hall's stated ramps")
    if any(parts):
        return "each way the slower of the hall's stated ramps and the parts' summed"
    return "the hall's stated ramps" + ("" if found.parts is None else ", slower than the parts' summed")


def load_swing(it_power: Any, periods: tuple[str, ...] = (), smoothing: Any = None, parts: Any = None) -> str:
    """The load swing row: not provided, with what the specs give: its depth at most the IT power, and its period.

    `periods` are the training jobs' on the cluster (`training_periods`): the swing repeats once a step. With the
    hall's `smoothing` stating a floor, its depth and ramps from the stated settings (`_smoothed`); else, with every
    system and switch stating its least draw (`parts`, `job_swing.PartsSwing`), from theirs (`_by_parts`).
    """
    hall = it_power * (1 - float(smoothing.floor)) if it_power is not None and smoothing is not None and \
        smoothing.floor is not None else None
    own = parts.depth if parts is not None and it_power is not None else None
    text = LOAD_SWING if it_power is None else _by_parts(parts, hall, smoothing) if own is not None and (
        hall is None or own < hall) else _smoothed(it_power, smoothing, own, parts) if hall is not None else (
        f"{LOAD_SWING}; its depth is at most the IT power at maximum draw, {fmt.q(it_power, 'kW', 1)} (the whole "
        "load falling to nothing: no spec states the draw it falls to)")
    if periods:
        text += ("; its period, the step time of each training job on the cluster, whose GPUs move between compute "
                 "and communication phases once a step (arXiv:2508.14318): " + "; ".join(periods))
    return text


def training_periods(run: Any, cluster_id: str, a: Any = None) -> tuple[str, ...]:
    """Each training job that fits: its swing period, and on cluster analysis `a` its phases and dip, by id."""
    out = []
    for path in sorted(run.workloads):
        r = run.workloads[path]
        est = r.estimate
        if est is not None and r.workload.cluster == cluster_id and (period := swing_period(est)):
            more = job_words(run.design.specs, a, est) if a is not None else ""
            out.append(f"{r.workload.id} {period}" + (f", {more}" if more else ""))
    return tuple(out)
