"""How far a ramp-limited load swings within a phase, and a blocking checkpoint as a load dip (nu81fix).

`job_power_swing` (`analyse.job_swing`) bounds how far a training job's draw can fall: to the hall's smoothing floor or
the parts' least draw. Where ramp rates are stated (the hall's `feeds.power_smoothing` `ramp_up` and `ramp_down`, else
every part's `power.smoothing` ramps summed, `job_swing.parts_swing`), the load also cannot move faster than them,
so within a phase of duration t it moves at most rate x t (NVIDIA's GB300 NVL72 power smoothing limits the GPUs'
ramp-up and ramp-down, "How New GB300 NVL72 Features Provide Steady Power for AI", NVIDIA Technical Blog, 2025; NVML
states the rates in W/s, https://docs.nvidia.com/deploy/nvml-api/group__nvmlPowerSmoothing.html). Two figures follow:

- the step's swing (`ramped_swing`): a swing of depth S repeating once a step falls and climbs back within it, so
  S / ramp_down + S / ramp_up <= the step time, and S <= step / (1 / ramp_up + 1 / ramp_down), whatever the split
  of the step (a bound that needs no duty cycle). How the model splits the step (`reach_words`): the exposed
  communication (`exposed_communication_share` x step time) and the rest, the compute time; where the compute time
  is shorter than depth / ramp_up, the load cannot climb back to its peak within a step, and by that split the
  swing is at most min(ramp_down x low time, ramp_up x compute time). The split is the model's, not a measured duty
  cycle (arXiv:2508.14318's Figure 1 trace dips each iteration where the model may place no step-end phase), so
  that figure is said, never taken as the metric.
- a blocking checkpoint (`checkpoint_dip`): every GPU of the job waits on storage for `checkpoint_blocking_time`
  once every `checkpoint_interval` (the goodput model's, `analyse.goodput`), so the draw dips as deep as a
  communication phase lets it (the same bound, `job_power_swing`'s depth), and for that long: at most ramp_down x
  the blocking time where a ramp is stated. Its fall and its return are each a step of that depth, which a hall's
  `feeds.load_step_limit` must accept (`dip_words`).

No rate, floor or duty cycle is defaulted: where none is stated the figure is not provided.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from archgen.analyse.job_swing import job_swing, load_ramps, parts_swing
from archgen.display import kw
from archgen.perf.workload.derived import job_share
from archgen.units import Q_, Q


def job_ramps(specs: Any, a: Any, accelerators: int) -> tuple[Q, Q] | None:
    """The job's share of the load's (ramp_up, ramp_down): each way the slower of the hall's and the parts' summed.

    None where neither states both. A job of n of the cluster's N accelerators moves n / N of the load, so its
    share of the rates (the GPUs' rate x their count) is taken as `job_share` takes its power.
    """
    feeds = a.cluster.facility.feeds if a.cluster.facility is not None else None
    sm = feeds.power_smoothing if feeds is not None else None
    ramps = load_ramps(sm, parts_swing(specs, a))
    if ramps is None:
        return None
    up, down = ramps.up, ramps.down
    return (job_share(up, accelerators, a.accelerators).to("kW/s"),
            job_share(down, accelerators, a.accelerators).to("kW/s"))


def ramped_swing(ramps: tuple[Q, Q], step_time: Q, cap: Q | None = None) -> Q:
    """The most a load ramping at `ramps` (up, down) swings once a step: step / (1 / up + 1 / down), at most `cap`.

    Its fall at ramp_down and its climb back at ramp_up both fit in the step, whatever its split. `cap`: the job's
    share of the IT power at maximum draw, below which its draw cannot fall (review44: 2 MW/s ramps over a 14 s step
    read a 14 MW swing on a 1.2 MW job).
    """
    up, down = (r.m_as("kW/s") for r in ramps)
    swing = Q_(step_time.m_as("s") / (1 / up + 1 / down), "kW")
    return swing if cap is None else min(swing, cap.to("kW"), key=lambda q: q.m_as("kW"))


def reach_words(depth: Q, ramps: tuple[Q, Q], step_time: Q, exposed_share: Q) -> str:
    """Whether the model's compute time lets the load climb back by `depth` at ramp_up, and the swing that split gives.

    "" where it does and the fall fits the low phase too (the depth is reached both ways).
    """
    step = step_time.m_as("s")
    low = step * float(exposed_share.m_as(""))
    compute, climb = step - low, depth.m_as("kW") / ramps[0].m_as("kW/s")
    split = min(ramps[1].m_as("kW/s") * low, ramps[0].m_as("kW/s") * compute, depth.m_as("kW"))
    if split >= depth.m_as("kW"):
        return ""
    short = (f"the compute time, {compute:.3g} s, is shorter than the {climb:.3g} s the load needs to climb back "
             f"{kw(depth)} at ramp_up" if climb > compute else
             f"the {low:.3g} s of exposed communication is too short to fall {kw(depth)} at ramp_down")
    return (f"by the model's split of the step (not a measured duty cycle) {short}, so its swing is at most "
            f"{kw(Q_(split, 'kW'))}")


def checkpoint_dip(metrics: Mapping[str, Q], depth: Q | None, ramps: tuple[Q, Q] | None,
                   cap: Q | None = None) -> dict[str, Q]:
    """`checkpoint_power_dip`: a blocking checkpoint's dip, the smaller of `depth` and ramp_down x its blocking time.

    {} where the blocking time is not provided or is 0 (asynchronous, nothing blocks), or where neither a depth nor
    a ramp is stated. `cap`, the job's share of the IT power at maximum draw, bounds the ramp's dip (review44).
    """
    blocking = metrics.get("checkpoint_blocking_time")
    if blocking is None or not blocking.m > 0:
        return {}
    ramped = ramps[1] * blocking.to("s") if ramps is not None else None
    bounds = [q for q in (depth, ramped, cap if ramped is not None else None) if q is not None]
    return {"checkpoint_power_dip": min(bounds, key=lambda q: q.m_as("kW")).to("kW")} if bounds else {}


def dip_words(metrics: Mapping[str, Q], limit: Q | None) -> str:
    """A job's blocking checkpoint as a load dip, with its depth against the hall's `load_step_limit` ("" without one).

    "a blocking checkpoint holds the job's GPUs for 56.8 s every 99.0 min, a dip of at most 365.0 kW ...".
    """
    blocking, interval = metrics.get("checkpoint_blocking_time"), metrics.get("checkpoint_interval")
    if blocking is None or interval is None or not blocking.m > 0:
        return ""
    dip = metrics.get("checkpoint_power_dip")
    head = (f"a blocking checkpoint holds its GPUs for {blocking.m_as('s'):,.1f} s every "
            f"{interval.m_as('min'):,.1f} min")
    if dip is None:
        return f"{head}, a dip whose depth is not provided (as the swing's: no floor, idle draw or ramp stated)"
    judged = "" if limit is None else (
        f", {'within' if dip <= limit else 'above'} the hall's `feeds.load_step_limit` {kw(limit)} at its fall and "
        "its return")
    return f"{head}, a dip of at most {kw(dip)} (`checkpoint_power_dip`){judged}"


def job_words(specs: Any, a: Any, est: Any) -> str:
    """What the load swing row says of a training job beyond its period: its reach by the model's split, its dip.

    `reach_words` where ramps and a depth are stated; `dip_words` against the hall's `feeds.load_step_limit`.
    """
    hall = a.cluster.facility
    limit = hall.feeds.load_step_limit if hall is not None and hall.feeds is not None else None
    ramps, step = job_ramps(specs, a, est.accelerators), est.metrics.get("step_time")
    depth = job_swing(specs, a, est.accelerators)[0].get("job_power_swing")
    share = est.metrics.get("exposed_communication_share")
    reach = reach_words(depth, ramps, step, share) if depth is not None and ramps is not None and step is not None \
        and share is not None else ""
    return "; ".join(w for w in (reach, dip_words(est.metrics, limit)) if w)
