"""A job's facility energy: per million tokens, and for a training run's whole token budget.

A sustainability report states the energy of one training run and of the tokens a service serves (newuser48). The
job draws its share of its cluster's average IT load (`Cost.power_average`: each system's and switch's typical draw
where published, else its maximum, plus optics and the shelves' loss, at the rack feeds), its accelerators over the
cluster's; the hall draws that × its annual PUE (`cost.energy.pue`, The Green Grid White Paper #49: facility energy
over IT energy). Over the job's tokens per second that is its energy per token:

    energy per token = average IT load × (job accelerators / cluster accelerators) × PUE / tokens per second

and a run's energy is that × its `checkpoint.tokens`, the same as the load × PUE × its time to train. Both are at
the estimate's tokens/s, before goodput: the time a failure loses, a restart and a checkpoint's pause add to a
real run's energy (the goodput time to train names that time). Not provided without the hall's `cost:` (no PUE),
nor where the cluster's load is unknown (links without link media, `conversion.unpowered`).
"""

from __future__ import annotations

from archgen.analyse.cost import Cost
from archgen.perf.workload.derived import job_share
from archgen.units import Q


def job_energy(c: Cost, pue: float | None, accelerators: int, cluster_accelerators: int,
               tokens_per_second: Q | None, run_tokens: float | None = None) -> dict[str, Q]:
    """`facility_energy_per_million_tokens` and, with the run's `run_tokens`, `job_energy`; empty where not provided."""
    if (pue is None or c.facility_energy is None or not cluster_accelerators or tokens_per_second is None
            or not tokens_per_second.m > 0):
        return {}
    power = job_share(c.power_average, accelerators, cluster_accelerators) * pue
    per_token = (power / tokens_per_second).to("J")
    m = {"facility_energy_per_million_tokens": (per_token * 1e6).to("kWh")}
    if run_tokens:
        m["job_energy"] = (per_token * run_tokens).to("MWh")
    return m
