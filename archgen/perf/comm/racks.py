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
groups here too. A pipeline (pp ranks tp·cp·dp apart) spans the whole job, so where the share crosses racks it does:
stage s's sends to s + 1 cross where a rack boundary falls between their ranks (`stages_across`), and every send waits
on the slowest, so the pipeline's sends, as a CP ring's steps, take the whole hop (`group_times`' `whole`, read from
`rack_cross`; hops2: before, the average over the job's ring steps, hop / 71 on an NVL36x2). An all-to-all across
racks takes the hop on its sends to peers in other racks (`_across`; a2ahop: before, the ring steps' average). The
rule reads a job's ranks from each domain's first accelerator on, a rack boundary: a job placed at another offset
(a scheduler's choice no spec states) can have other groups cut, said in the estimate's note.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from archgen.perf.comm.collectives import collective_times
from archgen.perf.comm.placement import domain_share
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import as_float, where

__all__ = ["group_times", "in_one_rack", "stages_across"]


def in_one_rack(hw: Hardware, n, stride=1):
    """Whether every group of n ranks `stride` apart lies inside one rack (module docstring); an array where n is one.

    False where the job's share stays in one rack (`rack_size` 0: no second hop was added).
    """
    if not hw.rack_size:
        return np.zeros(np.shape(n), dtype=bool)
    return np.mod(hw.rack_size, np.maximum(np.rint(as_float(n)), 1.0) * stride) == 0


def group_times(hw: Hardware, requests, n, k, stride=1, inside=None, whole: bool = False) -> list:
    """`collectives.collective_times` of (op, size) `requests` on groups of n ranks `stride` apart, k per domain.

    Without the second hop's average (`hw.rack_hop`) where every such group lies inside one rack (`in_one_rack`), or
    where `inside` says so (given for a collective between some of a group's ranks: a CP ring's p2p pair). `whole`:
    the requests are sends every rank makes at once (a pipeline's, a CP ring's step), which last as long as the
    slowest, so where a group crosses racks they take the whole hop (`hw.rack_cross`), not the ring steps' average.
    """
    if not hw.rack_size:   # the share stays in one rack (every domain of one rack): nothing to take off
        return collective_times(hw, requests, n, k)
    inside = in_one_rack(hw, n, stride) if inside is None else np.asarray(inside, dtype=bool)
    over = _with_hop(hw, hw.rack_cross) if whole else hw   # a group across racks: the whole hop, or the average
    if not inside.any():
        return _across(hw, over, requests, n, k, stride, whole)
    own = collective_times(_with_hop(hw, 0.0), requests, n, k)
    if inside.all():
        return own
    return [where(inside, o, t) for o, t in zip(own, _across(hw, over, requests, n, k, stride, whole), strict=True)]


def _across(hw: Hardware, over: Hardware, requests, n, k, stride, whole: bool) -> list:
    """`collective_times` of a group across racks on `over`, its all-to-alls at their peers' share of the hop.

    An all-to-all is n - 1 sends, one to each peer (`algorithms.all_to_all`), so the hop is paid on the sends to
    peers in other racks: (n - m) / (n - 1) of the whole hop per send, m the group's members in one rack (a group
    of n ranks `stride` apart, `_fewest`: the groups run in lockstep, so the rank with the fewest peers in its own
    rack sets the time). A ring's step average, (R - 1) / (n - 1), counts only the R - 1 ring steps that cross and
    understates it (a2ahop: 64 ranks over two racks of 32, 32 of 63 sends across, not 1 of 63).
    """
    times = collective_times(over, requests, n, k)
    if whole or not any(op == "all_to_all" for op, _ in requests):
        return times
    n_f = as_float(n)
    pairs = np.rint(np.stack(np.broadcast_arrays(n_f, as_float(stride)), axis=-1)).astype(int)
    kinds, back = np.unique(pairs.reshape(-1, 2), axis=0, return_inverse=True)   # the sweep's few (n, stride)
    fewest = np.array([_fewest(hw.rack_size, domain_share(hw), int(g), int(s)) for g, s in kinds], dtype=float)
    members = fewest[back.ravel()].reshape(pairs.shape[:-1])
    share = np.where(n_f > 1, (n_f - members) / np.maximum(n_f - 1, 1.0), 0.0)
    a2a = [(op, size) for op, size in requests if op == "all_to_all"]
    got: list = []
    for value in np.unique(share):
        part = collective_times(_with_hop(hw, hw.rack_cross * float(value)), a2a, n, k)
        got = part if not got else [where(share == value, p, g) for p, g in zip(part, got, strict=True)]
    out = iter(got)
    return [next(out) if op == "all_to_all" else t for (op, _), t in zip(requests, times, strict=True)]


@lru_cache(maxsize=4096)
def _fewest(rack: int, share: int, n: int, stride: int) -> int:
    """The fewest members of one group that a rack holds, over the groups of n ranks `stride` apart and their racks.

    The groups tile the job's share of a domain in blocks of stride·n consecutive ranks (module docstring), each
    rack holds `rack` consecutive ranks from the domain's first on; a rank in a rack holding m of its group's members
    has n - m of its peers across. Counted rank by rank, not as min(n, rack // stride): a block the rack boundary
    cuts off-centre (groups of 24 on racks of 36: ranks 24-47, 12 in each rack) holds fewer in one rack than that
    (review43: before, such a group's all-to-all paid no hop).
    """
    n, stride = max(n, 1), max(stride, 1)
    block = n * stride
    counts: dict[tuple[int, int, int], int] = {}
    for rank in range(max(share - share % block, block)):
        key = (rank // block, rank % stride, rank // rack)
        counts[key] = counts.get(key, 0) + 1
    return min(counts.values())


def _with_hop(hw: Hardware, hop) -> Hardware:
    """`hw` whose scale-up step takes `hop` (s) in place of the second hop's average (`hw.rack_hop`)."""
    return replace(hw, scale_up_latency=hw.scale_up_latency - hw.rack_hop + hop)


def stages_across(hw: Hardware, span: int, pp: int) -> tuple[int, ...]:
    """The pipeline ranks s whose sends to s + 1 cross racks, for a pipeline of `pp` stages `span` ranks apart.

    Stage s holds ranks s·span to (s + 1)·span - 1 (Megatron's rank order, span = tp·cp·dp), and the job's ranks fill
    each domain's share from its first accelerator on, so the send from rank r to r + span crosses where a multiple of
    `hw.rack_size` falls in (r, r + span]. () where no second hop was added, or where a pipeline leaves the domain's
    share (its sends cross domains, over scale-out: `training.pipeline_comm`).
    """
    rack, share = hw.rack_size, domain_share(hw)
    if not rack or pp < 2 or share % (span * pp):
        return ()
    return tuple(s for s in range(pp - 1) if -(-(s * span + 1) // rack) * rack <= (s + 2) * span - 1)

