"""The closed forms of checkpointing and goodput, shared by the REL stage and sweeps (docs/reliability.md).

- Young (1974): the first-order optimum checkpoint interval sqrt(2 delta M).
- Daly (2006), eq. 37: the higher-order optimum; Daly's expected wall time gives the effective training time ratio.
- Hot spares: the wait for a repair when no spare is free, from a Poisson count of nodes in repair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from archgen.model.workload import Model, Workload
from archgen.perf.arch import Arch


def young(delta: float, mtti: float) -> float:
    """Young (1974): the first-order optimum checkpoint interval sqrt(2 delta M) (same unit as the inputs)."""
    return math.sqrt(2 * delta * mtti)


def daly(delta: float, mtti: float) -> float:
    """Daly (2006), eq. 37: the higher-order optimum checkpoint interval; M where delta >= 2M."""
    if delta >= 2 * mtti:
        return mtti
    x = delta / (2 * mtti)
    return math.sqrt(2 * delta * mtti) * (1 + math.sqrt(x) / 3 + x / 9) - delta


def ettr(interval: float, delta: float, restart: float, mtti: float) -> float:
    """Daly (2006): solve time over expected wall time, tau / (M e^(R/M) (e^((tau + delta)/M) - 1)).

    Every interruption costs the restart R and the work since the last checkpoint; every checkpoint costs delta.
    """
    if mtti == math.inf:
        return interval / (interval + delta) if interval + delta > 0 else 1.0
    if interval <= 0:
        return 0.0
    exponent = max(restart, 0.0) / mtti, (interval + delta) / mtti
    if exponent[0] + exponent[1] > 700:  # the job never gets a checkpoint in: no progress
        return 0.0
    return interval / (mtti * math.exp(exponent[0]) * math.expm1(exponent[1]))


def poisson_tail(mean: float, k: int) -> float:
    """P(X > k) for X ~ Poisson(mean)."""
    if mean <= 0:
        return 0.0
    term = total = math.exp(-mean)
    for i in range(1, k + 1):
        term *= mean / i
        total += term
    return max(0.0, 1.0 - total)


def spare_wait(hw_share: float, repair: float, in_repair: float, spares: int) -> float:
    """Mean wait for a repair per interruption (s).

    A hardware share of interruptions waits `repair` unless a spare is free, i.e. unless the failed node and those
    already in repair (Poisson, mean `in_repair`) fit the spares.
    """
    return hw_share * repair * (1.0 if spares <= 0 else poisson_tail(in_repair, spares - 1))


def job_goodput(per_day: float, write_time: float, restart: float) -> tuple[float, float, float]:
    """(MTTI s, Daly interval s, goodput) of a job interrupted `per_day` times a day, at Daly's interval."""
    if per_day <= 0:
        return math.inf, 0.0, 1.0
    mtti = 86400 / per_day
    tau = daly(write_time, mtti)
    return mtti, tau, ettr(tau, write_time, restart, mtti)


@dataclass(frozen=True)
class Failures:
    """A cluster's failure figures as a sweep point needs them for goodput (docs/reliability.md)."""

    per_accelerator_day: float  # interruptions per accelerator and day (the job's share of every interrupting part)
    site_per_day: float         # facility events per day (every job)
    per_node: int               # accelerators per node
    nodes: int                  # nodes of the cluster
    node_hw_per_day: float      # failures per node and day that need a repair
    repair: float               # s, mean repair time of those
    write_bandwidth: float      # B/s, checkpoint storage (0: only the NICs bound it)
    read_bandwidth: float       # B/s
    nic_per_node: float         # B/s, a node's storage NICs


def goodput_of(f: Failures, workload: Workload, model: Model, gpus: int) -> float:
    """A training point's goodput: its interruptions, checkpoint write and restore, Daly's interval, spares."""
    nodes = math.ceil(gpus / max(f.per_node, 1))
    links = f.nic_per_node * nodes
    write = min(b for b in (f.write_bandwidth, links) if b > 0) if (f.write_bandwidth or links) else 0.0
    read = min(b for b in (f.read_bandwidth, links) if b > 0) if (f.read_bandwidth or links) else 0.0
    if write <= 0 or read <= 0:
        return math.nan
    size = Arch.from_model(model).params() * workload.checkpoint.bytes_per_parameter
    per_day = f.per_accelerator_day * gpus + f.site_per_day
    hw = f.node_hw_per_day * nodes
    wait = spare_wait(hw / per_day if per_day else 0.0, f.repair, hw * f.repair / 86400, f.nodes - nodes)
    return job_goodput(per_day, size / write, workload.checkpoint.restart.m_as("s") + size / read + wait)[2]
