"""A training job's load swing depth (`job_power_swing`): how far its draw can fall from a compute phase.

Synchronous training swings every GPU of a job between a compute-heavy and a communication-heavy phase each step
("Power Stabilization for AI Training Datacenters", Choukse et al., Microsoft, OpenAI and NVIDIA, arXiv:2508.14318,
abstract: "compute-heavy phases require much more power than communication phases"). The draw it swings from is at
most the job's share of the cluster's maximum IT power (`perf.workload.derived.job_share`, as `job_it_energy`
takes it); the draw it falls to no spec states as such (no part states its draw in a communication phase). Two
stated figures bound it from below, each giving an upper bound on the swing, and the smaller is taken:

- the hall's `feeds.power_smoothing.floor` (GB300 NVL72's power floor through NVML, or site energy storage;
  `model.smoothing`) holds the load at or above floor x the IT power while a job runs: the swing is at most the
  share x (1 - floor), the rule PWR022 judges the whole cluster's step with;
- each system's and switch's `power.idle` (its draw powered on with no job running): a part in a communication
  phase is powered on and running, so it draws at least that, and the swing is at most the share of the sum of
  (maximum - idle) draw, with the power shelves' loss on that difference (`conversion.shelf_loss` at each draw).
  The optics' draw is taken not to swing (a transceiver's lasers and DSP stay on through both phases; no spec
  states their draw per phase). Only where every system and switch states it: no catalog part does today.

Neither stated, the depth is not provided, with why, never a default floor or idle share.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.conversion import shelf_loss
from archgen.analyse.cost import stated_lines
from archgen.display import kw
from archgen.model import Switch, System
from archgen.model.system import idle_draw, max_draw
from archgen.perf.workload.derived import job_share
from archgen.units import Q_, Q

#: Parts named at most in a finding that lists the systems and switches stating no `power.idle`.
NAMED = 4


def idle_swing(specs: Any, a: Any) -> tuple[Q | None, list[str]]:
    """The cluster's (maximum - idle) draw at the rack feeds, and the parts stating no `power.idle` (then None)."""
    total, missing = Q_(0, "kW"), set()
    for line, part in stated_lines(specs, a):
        if isinstance(part, System | Switch):
            idle = idle_draw(part)
            if idle is None:
                missing.add(part.id)
            else:
                total = total + (max_draw(part) - idle) * line.quantity
    if missing:
        return None, sorted(missing)
    loss = shelf_loss(a) - shelf_loss(a, _idle)   # the optics' loss, the same at both draws, cancels
    return (total + loss).to("kW"), []


def _idle(part: Any) -> Q:
    """A part's idle draw, else its maximum (a part stating none adds no swing to the shelves' loss)."""
    idle = idle_draw(part)
    return max_draw(part) if idle is None else idle


def job_swing(specs: Any, a: Any, accelerators: int) -> tuple[dict[str, Q], str]:
    """`job_power_swing` of a training job on cluster analysis `a` ({} where not provided) and why not ("" where it is).

    The smaller of the floor's and the idle draw's bound (module docstring), each the job's share (its
    `accelerators` over the cluster's).
    """
    it_power, facility = a.metrics.get("it_power"), a.cluster.facility
    if it_power is None:
        return {}, "the cluster's IT power, from which the job's share is taken, is not provided"
    share = job_share(it_power, accelerators, a.accelerators).to("kW")
    bounds = []
    sm = facility.feeds.power_smoothing if facility is not None and facility.feeds is not None else None
    if sm is not None and sm.floor is not None:
        bounds.append(share * (1 - float(sm.floor)))
    above_idle, missing = idle_swing(specs, a)
    if above_idle is not None:
        bounds.append(job_share(above_idle, accelerators, a.accelerators))
    if bounds:
        return {"job_power_swing": min(bounds, key=lambda q: q.m_as("kW")).to("kW")}, ""
    hall = f"facility '{facility.id}'" if facility is not None else "the cluster's hall (it names none)"
    named = ", ".join(missing[:NAMED]) + (f" and {len(missing) - NAMED} more" if len(missing) > NAMED else "")
    return {}, (f"{hall} states no `feeds.power_smoothing.floor`, and {named} state no `power.idle` (no part states "
                "its draw in a communication phase), so what the job's draw falls to is not known; the swing is at "
                f"most its share of the IT power at maximum draw, {kw(share)}")
