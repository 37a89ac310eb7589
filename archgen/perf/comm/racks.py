"""A group's collectives in a scale-up domain over several racks: the second switch hop only for groups that cross.

`perf.workload.racks_note.second_hop` adds a stated switch hop's average over the job's ring steps to
`Hardware.scale_up_latency` (as NCCL counts a ring's steps between nodes) and records it, `rack_hop`, with the
accelerators of each rack, `rack_size`. Each rack holds consecutive ranks of the job's share of a domain, and a
group's members are base + i·stride, the groups tiling the share in blocks of stride·n ranks
(`placement.members_per_domain`): where the block divides the rack every group lies inside one rack and no step of
it crosses the second switch, so `group_times` times it without the average. Where a rack boundary cuts one group,
all keep it: the groups of a collective run in lockstep. A TP group (training's `perf.train.tp_comm`, a serving
replica's in `perf.serve.inference`) is such a group, stride 1 (fin7: before, every collective of a job across
racks took the average, a TP group inside one rack too). In Megatron-core's rank order (`initialize_model_parallel
(order="tp-cp-ep-dp-pp")`, parallel_state.py `RankGenerator`; the expert groups' generator takes tp = etp, cp = 1)
so are CP (cp ranks tp apart: `perf.train.cp_comm`, `exposure.cp_ring`), DP with CP (dp·cp ranks tp apart:
`exposure.dp_exposure`, the norm in `training`), EP (ep ranks etp apart, or the flex dispatchers' etp·ep
consecutive ranks: `ep_exposure`, `dispatch_calls`) and expert DP (edp ranks etp·ep apart) (hopfix: before, those
kept the average inside one rack). The batched sweep's DP timer (`perf.explore.vectorised_bounds._timer`) times its
groups here too. A pipeline (pp ranks tp·cp·dp apart) spans the whole job, so where the share crosses racks it does.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from archgen.perf.comm.collectives import collective_times
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import as_float, where

__all__ = ["group_times", "in_one_rack"]


def in_one_rack(hw: Hardware, n, stride=1):
    """Whether every group of n ranks `stride` apart lies inside one rack (module docstring); an array where n is one.

    False where the job's share stays in one rack (`rack_size` 0: no second hop was added).
    """
    if not hw.rack_size:
        return np.zeros(np.shape(n), dtype=bool)
    return np.mod(hw.rack_size, np.maximum(np.rint(as_float(n)), 1.0) * stride) == 0


def group_times(hw: Hardware, requests, n, k, stride=1, inside=None) -> list:
    """`collectives.collective_times` of (op, size) `requests` on groups of n ranks `stride` apart, k per domain.

    Without the second hop's average (`hw.rack_hop`) where every such group lies inside one rack (`in_one_rack`), or
    where `inside` says so (given for a collective between some of a group's ranks: a CP ring's p2p pair).
    """
    if not hw.rack_size:   # the share stays in one rack (every domain of one rack): nothing to take off
        return collective_times(hw, requests, n, k)
    inside = in_one_rack(hw, n, stride) if inside is None else np.asarray(inside, dtype=bool)
    if not inside.any():
        return collective_times(hw, requests, n, k)
    own = collective_times(replace(hw, scale_up_latency=hw.scale_up_latency - hw.rack_hop), requests, n, k)
    if inside.all():
        return own
    return [where(inside, o, t) for o, t in zip(own, collective_times(hw, requests, n, k), strict=True)]
