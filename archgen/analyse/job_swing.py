"""A training job's load swing depth (`job_power_swing`): its share of the IT power above the hall's smoothing floor.

Synchronous training swings every GPU of a job between a compute-heavy and a communication-heavy phase each step
("Power Stabilization for AI Training Datacenters", Choukse et al., Microsoft, OpenAI and NVIDIA, arXiv:2508.14318,
abstract: "compute-heavy phases require much more power than communication phases"). The draw it swings from is at
most the job's share of the cluster's maximum IT power (`perf.workload.derived.job_share`, as `job_it_energy`
takes it); the draw it falls to no spec states (no part states its draw in a communication phase, and no catalog
part its `power.idle`). A hall's `feeds.power_smoothing.floor` (GB300 NVL72's power floor through NVML, or site
energy storage; `model.smoothing`) holds the load at or above floor x the IT power while a job runs, so the swing
is at most the share x (1 - floor): an upper bound, the same rule PWR022 judges the whole cluster's step with.
Without a floor the depth is not provided, with why, never a default floor (none is published for a site).
"""

from __future__ import annotations

from typing import Any

from archgen.display import kw
from archgen.perf.workload.derived import job_share
from archgen.units import Q


def job_swing(facility: Any, it_power: Q | None, accelerators: int, cluster_accelerators: int
              ) -> tuple[dict[str, Q], str]:
    """`job_power_swing` of a training job ({} where not provided) and why it is not provided ("" where it is).

    `facility` is the cluster's hall (None: the cluster names none), `it_power` the cluster's maximum IT power (None:
    not provided), `accelerators` the job's and `cluster_accelerators` the cluster's.
    """
    if it_power is None:
        return {}, "the cluster's IT power, from which the job's share is taken, is not provided"
    share = job_share(it_power, accelerators, cluster_accelerators).to("kW")
    sm = facility.feeds.power_smoothing if facility is not None and facility.feeds is not None else None
    if sm is None or sm.floor is None:
        hall = f"facility '{facility.id}'" if facility is not None else "the cluster's hall (it names none)"
        return {}, (f"{hall} states no `feeds.power_smoothing.floor`, and no part states its draw in a "
                    "communication phase (nor `power.idle`), so what the job's draw falls to is not known; the "
                    f"swing is at most its share of the IT power at maximum draw, {kw(share)}")
    return {"job_power_swing": (share * (1 - float(sm.floor))).to("kW")}, ""
