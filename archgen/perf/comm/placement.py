"""Where a parallel group's ranks fall among the scale-up domains, as Megatron-core's rank order places them."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import NUMBER, as_float, minimum

__all__ = ["domain_share", "job_domain", "job_share", "members_per_domain", "replica_members", "replicas_inside"]


def members_per_domain(hw: Hardware, n, stride):
    """Ranks of a group (size n, consecutive members `stride` ranks apart) in one scale-up domain, for its worst group.

    Megatron-core numbers ranks in order, tp fastest (parallel_state.py `RankGenerator`, "tp-cp-ep-dp-pp" and
    "tp-cp-dp-pp"), and domains hold consecutive ranks, so a group's members are base + i·stride and the groups tile
    the job in blocks of span = stride·n ranks. Where the domain size D is not a multiple of the span (or the span a
    multiple of D), a domain boundary cuts blocks at offsets that run through every multiple of g = gcd(D, span)
    (every one of them, in a job of whole domains, which holds lcm(D, span) ranks), and the worst group keeps
    floor(g / stride) members on one side of it (at least 1). All groups of a collective run in lockstep, so that
    worst group binds: its smallest piece carries the traffic between domains on its own NICs. With the span a
    divisor of D this is n, with D a multiple of the span floor(D/stride), the counts the aligned rule gave. A job
    that ends inside a domain is timed as one of whole domains (a bound: fewer offsets occur).
    DeepSeek-V3 at pp 9, ep 64 on 576 GB200 (NVL72): gcd(72, 64) = 8 of each EP group in one domain, not 64.
    D is `hw.job_domain` where the job fills only part of each domain (a job smaller than one; a Slurm segment of
    16 four-GPU trays, 64 of an NVL72's 72), else the domain size.
    """
    d = domain_share(hw)
    if isinstance(n, NUMBER) and isinstance(stride, NUMBER):
        st, k = max(int(round(stride)), 1), max(int(round(n)), 1)
        return float(min(k, max(1, math.gcd(d, st * k) // st)))
    st = np.maximum(np.rint(as_float(stride)), 1.0).astype(np.int64)
    k = np.maximum(np.rint(as_float(n)), 1.0).astype(np.int64)
    return np.minimum(k, np.maximum(np.gcd(d, st * k) // st, 1)).astype(float)


def domain_share(hw: Hardware) -> int:
    """Accelerators of each scale-up domain the job holds: `hw.job_domain` where it holds a part, else the domain."""
    return hw.job_domain or hw.scale_up_size


def replica_members(hw: Hardware, tp):
    """Ranks of a serving replica of `tp` in one scale-up domain: all of them.

    A replica lies inside one domain (`perf.serve.inference`; `serving_estimate` refuses a tp above the job's share
    of a domain), so its TP or EP collectives never leave it, whatever else the job holds: the rank order of a
    training job (`members_per_domain`) does not apply, and a job of 70 of an NVL72's 72 places a replica of 8 on
    8 NVLink peers as one of 72 does (newuser28: 47.27 ms TPOT instead of 16.23 with gcd(70, 8) = 2 per domain).
    Capped at the share only for a caller that did not refuse a larger tp (a bound, as `members_per_domain`'s).
    """
    return minimum(tp, domain_share(hw))  # a float for one replica's tp (numpy's scalar path: issue 25)


def replicas_inside(hw: Hardware, gpus: int, tp: int) -> int:
    """Replicas of `tp` that fit inside the scale-up domains of a job of `gpus`, none straddling two.

    Each whole share of a domain (`domain_share`) holds share // tp; the job's last, partial share its own
    remainder // tp. 144 of NVL72 at tp 16: 2 x 4 = 8 (144 // 16 = 9 would put one across two racks).
    """
    share = domain_share(hw)
    return (gpus // share) * (share // tp) + (gpus % share) // tp


def job_domain(domain: int, gpus: int, per_domain: int = 0) -> int:
    """Accelerators of a job of `gpus` in each scale-up domain of `domain` it runs on; 0 where it fills whole ones.

    The one fact both the performance model (`Hardware.job_domain`, `members_per_domain`) and goodput's hot spares
    (`perf.train.goodput`) read: a stated share (a workload's `placement.per_domain`, a Slurm segment) below the
    domain, else a job smaller than one domain's own accelerators, else 0: its ranks fill whole domains in order
    (the last one partly), and a domain's idle trays are those the last one leaves.
    """
    if 0 < per_domain < domain:
        return int(per_domain)
    return int(gpus) if 0 < gpus < domain else 0


def job_share(hw: Hardware, gpus: int, per_domain: int = 0) -> Hardware:
    """`hw` for a job of `gpus` accelerators holding `per_domain` of each domain (`job_domain`; 0: not stated)."""
    if hw.job_domain:   # already the job's share (a validation case states it)
        return hw
    held = job_domain(hw.scale_up_size, gpus, per_domain)
    return dataclasses.replace(hw, job_domain=held) if held else hw
