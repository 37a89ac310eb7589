"""RCCL's own tuning model: the tables RCCL (AMD's fork of NCCL) uses on AMD GPUs in place of NCCL's.

Two revisions of `src/graph/tuning.cc` are transcribed (`REVISIONS`); the model runs the newest (`REVISION`):

* ROCm 7.x: ROCm/rocm-systems@03a89144e7d85d6824d0e27fabf9736814617f63 `projects/rccl/src/graph/tuning.cc` (RCCL
  moved into the rocm-systems monorepo in 2026; line numbers counted by hand in the stored text of that commit). 137-140
  `baseLat` 12/17 us; 331-375 `tuning_model_5` (gfx942: MI300X, MI325X), 377-425 `tuning_model_6` (gfx950: MI350X,
  MI355X); `rcclGetTuningIndexForArch` (1142-1168: gfx942 -> 5, gfx950 -> 6, gfx942 with AMD's AI NIC -> 8) and
  `rcclApplyTuningOverrides` (1170-1181: gfx950 always 6). Tables 5 and 6 state the same latencies and ratios
  (the hwLat and bwRatio rows) and differ in the size corrections only, which choose (below); inside a node they
  choose the same (tests/perf/test_rccl_update.py), so the specs, which state no gfx target, need not tell them
  apart there.
  888: a ring all-reduce crosses the network 2 x (nodes - 1) times, as NCCL's. 989-999: LL128 runs where RCCL is
  built with ENABLE_LL128 on gfx90a/gfx942/gfx950 and the topology sets `ll128Enabled` (off by default, set by a
  topology model's option or RCCL_LL128_FORCE_ENABLE, init.cc), so it stays off here (`LL128_ENABLED`); the
  tables' LL128 entries equal LL's inside a node, where turning it on changes no time (the same test).
* ROCm 6.x: ROCm/rccl at 0cbce2a7571c907554199fad7e905f16ec0a565c (2024-10-24), `src/graph/tuning.cc`: 57-60
  `baseLat`; 74-102 `tuning_model_0` (a platform no RCCL topology model names) and 224-252 `tuning_model_5`, which
  `src/graph/rome_models.cc` gives the 8-GPU full xGMI mesh (`nLinks = 7`) of rome_model_79 (line 559), 81 (815)
  and 84 (828), LL128 entries 0 (509-519: off); 354-355: an all-reduce ring crosses the network 2 x nodes times.

Both: each table holds `hwLat` per link (xGMI as NCCL's NVLink row, and NET) per algorithm and protocol (us),
`bwRatio` by nodes (<= 2, more) multiplying the bus bandwidth (in place of NCCL's LL cap, LL128 and tree factors),
and `treeCorrectionFactor` / `ringCorrectionFactor` per protocol and log2(bytes / 64), 0..26 (the last for anything
larger), applied to the bandwidth: the tree's always, the ring's only across nodes (03a89144 1115-1123, 0cbce2a
648-658). No ring plateau. Latency = baseLat + ring (steps - inter steps) x intra + inter steps x NET; tree
2 x ((ppn - 1) x intra + log2(nodes) x NET); across nodes a ring's intra step is at least the network post
overhead (1 us, x3 Simple). Tree/Simple is skipped on gfx942 (both) and gfx950 (03a89144 781) when the
communicator holds the whole node; not modelled, as inside a node Ring/Simple has less latency and 9x the
bandwidth ratio of Tree/Simple in tables 5 and 6. Across nodes RCCL (03a89144) also overrides the protocol by
per-rank size ranges (`llProtoRanges`, read by RCCL's `rcclUpdateCollectiveProtocol`); not modelled, as
RCCL's network figures are not timed (below).

Only groups inside one scale-up domain take RCCL's table (`split`: its NET figures are not used). RCCL takes the
(algorithm, protocol) of least tuner time with the size corrections (`fastest`); the estimate is that
choice's latency + bytes / (bus x ratio), without them: the corrections steer the choice rather than measure a
bandwidth (ROCm/rccl#1624, "Adjust tree/ring correction factor to address the AllReduce Tree->Ring switching
point"; #1063 turns Tree/Simple off for 8-16 MB through the table), and read as bandwidths they would put a 2-node
ring Simple all-reduce of 128 MiB at 0.1 of the bus, where AMD measured 249.4 GB/s busbw on 2 MI350X nodes
(ROCm/rocm-systems#9406). `fastest(..., choosing=True)` gives the steered times.

Latencies in microseconds and bandwidth ratios as in RCCL's tables. Which table a part takes is an assumption where
its platform is not one of RCCL's topology models: `table_for` says which and why.
"""

from __future__ import annotations

import math

import numpy as np

from archgen.model.accelerator import AMD

# NCCL's protocol indices, which `algorithms` passes here and RCCL's tables share (LL, LL128 read by tests)
from archgen.perf.comm.nccl import LL, LL128, SIMPLE, log2i  # noqa: F401
from archgen.perf.hw.numeric import maximum, where

#: Ring/Tree base latency (us) per protocol (0cbce2a tuning.cc 58; 03a89144 138, unchanged).
BASE_LATENCY = (12.0, 12.0, 17.0)
#: log2 sizes the correction tables hold (27 entries, 64 B x 2^0 .. 2^26).
CORRECTION_SIZES = 27
#: `algorithms`' candidate kind of an RCCL Ring or Tree (extra = (where the correction applies, the `TuningTable`,
#: 'ring' or 'tree', the protocol)).
CORRECTED = 3


def split(t, build) -> list:
    """RCCL's candidates for groups inside one scale-up domain, NCCL's for groups across domains.

    `t` is `group.Topo` with its `rccl` table; `build()` lists (name, candidate) under the table `t` holds at
    the time (None: NCCL's model, as for any part without NVLink). Across nodes RCCL's NET figures are not used:
    ring Simple's 320 us per network step (table 5) and the ring corrections of 0.1 read as a time put a 2-node
    128 MiB ring all-reduce far below the 249.4 GB/s busbw AMD measured (ROCm/rocm-systems#9406), so they steer
    RCCL's choice there rather than time it, and no RCCL figure for that time was found (docs/perf-model.md).
    Where groups are arrays, both lists are kept, each masked to its groups. RCCL's candidates come first.
    """
    cross = t.cross
    table = t.rccl
    try:
        if not isinstance(cross, np.ndarray):
            t.rccl = None if cross else table
            return _corrected_first(build())
        inside = [(n, _masked(c, ~cross)) for n, c in _corrected_first(build())]
        t.rccl = None
        return inside + [(n, _masked(c, cross)) for n, c in build()]
    finally:
        t.rccl = table


def _corrected_first(named: list) -> list:
    """RCCL's (`CORRECTED`) candidates first, so that `algorithms.fastest` tells such a list by its first."""
    return sorted(named, key=lambda nc: nc[1] is None or nc[1][3] != CORRECTED)


def _masked(c, where_):
    """Candidate `c` (None stays None) running only where `where_` holds (and where it ran)."""
    if c is None:
        return None
    lat, f, bus, kind, extra, mask = c
    return (lat, f, bus, kind, extra, where_ if mask is None else np.logical_and(mask, where_))


class TuningTable:
    """One `tuningModel` of tuning.cc: latencies (us) and ratios of Tree and Ring, each (LL, LL128, Simple).

    `revision` names the commit (`REVISIONS`); `ring_net_steps_less_one` says how many times an all-reduce ring
    crosses the network at it: 2 x (nodes - 1) (03a89144 888) or 2 x nodes (0cbce2a 354-355).
    """

    def __init__(self, index: int, lines: str, intra: dict, net: dict, bw_ratio: tuple, tree_corr: tuple,
                 ring_corr: tuple, revision: str = "0cbce2a", ring_net_steps_less_one: bool = False):
        self.index, self.lines, self.revision = index, lines, revision
        self.ring_net_steps_less_one = ring_net_steps_less_one
        self.intra, self.net, self.bw_ratio = intra, net, bw_ratio
        self.tree_corr = tuple(np.asarray(row) for row in tree_corr)
        self.ring_corr = tuple(np.asarray(row) for row in ring_corr)


def _rows(text: str) -> tuple[tuple[float, ...], ...]:
    """A correction table as tuning.cc writes it, one protocol (LL, LL128, Simple) per line."""
    rows = tuple(tuple(float(v) for v in line.split()) for line in text.strip().splitlines())
    assert len(rows) == 3 and all(len(row) == CORRECTION_SIZES for row in rows)
    return rows


#: 0cbce2a tuning.cc 74-102: tuning_model_0.
MODEL_0 = TuningTable(
    0, "tuning.cc 74-102",
    intra={"tree": (0.8, 1.4, 2.5), "ring": (0.8, 2.2, 3.6)},
    net={"tree": (11.8, 18.2, 20.8), "ring": (9.5, 19.8, 15.1)},
    bw_ratio=({"tree": (0.04, 0.22, 0.91), "ring": (0.04, 0.34, 1.00)},
              {"tree": (0.04, 0.22, 0.95), "ring": (0.04, 0.34, 1.00)}),
    tree_corr=_rows("""
        .1 .2 .1 .1 .9 .3 .4 .1 .2 .4 .2 .1 .3 .3 .2 .2 .2 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .3 1. .1 .5 1. .9 1. 1. 1. .3 .1 .4 .5 .5 .4 .4 .3 .3 .2 .2 .2 .2 .2 .2 .2 .2
        .2 1. .1 .1 .7 .2 .4 .1 .1 .3 .4 .3 .6 .8 1. 1. 1. 1. .9 .8 .8 .8 .8 .8 .9 .9 .9
    """),
    ring_corr=_rows("""
        .1 .1 .1 .1 .1 .2 .4 .2 .3 .5 .3 .1 .5 .5 .3 .2 .2 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .3 1. 1. 1. 1. 1. 1. .8 .7 .5 .4 .4 .3 .3 .3 .3 .3 .3
        1. .8 .2 1. 1. .3 1. .1 .1 .2 .2 .1 .5 1. .8 .8 1. .9 1. 1. 1. 1. 1. 1. 1. 1. 1.
    """),
)

#: 0cbce2a tuning.cc 224-252: tuning_model_5 (the 8-GPU xGMI mesh; LL128 entries are 0: off).
MODEL_5 = TuningTable(
    5, "tuning.cc 224-252",
    intra={"tree": (0.9, 0.0, 2.3), "ring": (0.8, 0.0, 2.1)},
    net={"tree": (10.5, 0.0, 25.0), "ring": (9.5, 0.0, 320.0)},
    bw_ratio=({"tree": (0.06, 0.00, 0.11), "ring": (0.08, 0.00, 1.00)},
              {"tree": (0.06, 0.00, 0.59), "ring": (0.08, 0.00, 1.00)}),
    tree_corr=_rows("""
        .1 .1 .1 .1 .1 .1 1. 1. 1. 1. 1. .6 1. .9 1. 1. .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1
        0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .7 1. 1. 1. 1. 1. 1. 1. 1. 1. 1. .8
    """),
    ring_corr=_rows("""
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 1. .2 1. .4 .4 .1 .2 .2 .1 .1 .1 .1 .1 .1 .1 .1
        0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .8 1. 1. 1.
    """),
)

ROCM6, ROCM7 = "0cbce2a", "03a89144"
#: The model's revision: the newest transcribed (ROCm 7.x); `ROCM6` gives the October 2024 tables.
REVISION = ROCM7

#: 03a89144 331-375: tuning_model_5 (gfx942). Latencies and ratios as at 0cbce2a, LL128 entries now LL's; the
#: Simple size corrections moved from 128 MiB up (tree) and 256 MiB up (ring).
MODEL_5_ROCM7 = TuningTable(
    5, "rocm-systems@03a89144 tuning.cc 331-375",
    intra={"tree": (0.9, 0.9, 2.3), "ring": (0.8, 0.8, 2.1)},
    net={"tree": (10.5, 10.5, 25.0), "ring": (9.5, 9.5, 320.0)},
    bw_ratio=({"tree": (0.06, 0.06, 0.11), "ring": (0.08, 0.08, 1.00)},
              {"tree": (0.06, 0.06, 0.59), "ring": (0.08, 0.08, 1.00)}),
    tree_corr=_rows("""
        .1 .1 .1 .1 .1 .1 1. 1. 1. 1. 1. .6 1. .9 1. 1. .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .1 .1 .1 .1 .1 1. 1. 1. 1. 1. .6 1. .9 1. 1. .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .7 1. 1. 1. 1. 1. .7 .7 .5 .6 .6 .6
    """),
    ring_corr=_rows("""
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 1. .2 1. .4 .4 .1 .2 .2 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 1. .2 1. .4 .4 .1 .2 .2 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .7 .2 1. 1. 1.
    """),
    revision=ROCM7, ring_net_steps_less_one=True,
)

#: 03a89144 377-425: tuning_model_6 (gfx950): table 5's latencies and ratios, its own size corrections.
MODEL_6_ROCM7 = TuningTable(
    6, "rocm-systems@03a89144 tuning.cc 377-425",
    intra=MODEL_5_ROCM7.intra, net=MODEL_5_ROCM7.net, bw_ratio=MODEL_5_ROCM7.bw_ratio,
    tree_corr=_rows("""
        .1 .1 .1 .1 .1 .1 1. 1. 1. 1. 1. .6 1. .9 1. 1. .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .1 .1 .1 .1 .1 1. 1. 1. 1. 1. .6 1. .9 1. 1. 1. 1. 1. 2. 2. 1. .1 .9 .9 .1 .1
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .7 1. .1 .1 .1 .1 .1 .7 .15 .6 .7 .6
    """),
    ring_corr=_rows("""
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 1. .2 1. .4 .4 .1 .2 .2 .1 .1 .1 .1 .1 .1 .1 .1
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 1. .2 1. .4 .4 .1 .2 .1 .1 .1 .1 5.5 .1 .1 1. 1.
        .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .1 .9 .1 1. .1 .6 1. 1.
    """),
    revision=ROCM7, ring_net_steps_less_one=True,
)

#: 03a89144 166-197: tuning_model_0, unchanged from 0cbce2a's (every figure equal).
MODEL_0_ROCM7 = TuningTable(0, "rocm-systems@03a89144 tuning.cc 166-197", MODEL_0.intra, MODEL_0.net,
                            MODEL_0.bw_ratio, MODEL_0.tree_corr, MODEL_0.ring_corr, revision=ROCM7,
                            ring_net_steps_less_one=True)

#: Each revision as an estimate names it.
SOURCES = {ROCM6: "ROCm/rccl@0cbce2a (October 2024, ROCm 6.x)",
           ROCM7: "ROCm/rocm-systems@03a89144 projects/rccl (ROCm 7.x)"}
#: Each revision's tables: (the 8-GPU xGMI mesh's, any other domain's), `table_for`.
REVISIONS = {ROCM6: (MODEL_5, MODEL_0), ROCM7: (MODEL_5_ROCM7, MODEL_0_ROCM7)}
#: LL128 on an AMD part: off at 0cbce2a (509-519); at 03a89144 only where the topology sets `ll128Enabled` (989-999;
#: off by default), so off here. tests/perf/test_rccl_update.py shows that on, it changes no time inside a node.
LL128_ENABLED = False

#: Network post overhead (us) of an x86 Intel host (tuning.cc 294-301; AMD 2.0), x3 for Simple (449). CPUs are not
#: in the specs, so the Intel figure (also the default) is used, as for NCCL (`nccl.NET_OVERHEAD`).
NET_OVERHEAD = 1.0


def uses_rccl(vendor: str, compute_capability: float) -> bool:
    """Whether a part's collectives run RCCL: an AMD part (it states no CUDA compute capability)."""
    return vendor == AMD and not compute_capability


def table_for(domain, revision: str = REVISION) -> TuningTable:
    """The RCCL table of a platform at `revision`: 5 for an 8-GPU xGMI node (rome_models.cc 559, 815, 828), else 0.

    RCCL matches a node against its topology models by PCI ids, NICs and xGMI links; the specs state none of those.
    AMD's 8-GPU OAM platforms (MI300X, MI325X, MI355X: 7 xGMI links each, one to every peer) are taken to be the
    full mesh of the three models that name `tuning=5` (a fourth, rome_model_87 with 4 NICs, names no table and
    keeps 0); any other domain size takes the default table 0. An assumption, said in docs/perf-model.md. At
    03a89144 RCCL picks by gfx target (gfx942: 5, gfx950: 6, module note); the specs state none, and 5 and 6 give the
    same time inside a node, so an 8-GPU domain takes 5 there too.
    """
    mesh, other = REVISIONS[revision]
    return mesh if np.ndim(domain) == 0 and domain == 8 else other


def size_index(size):
    """tuning.cc 648 and 652-657: log2i(bytes >> 6), the last entry (26) for anything larger."""
    if isinstance(size, np.ndarray):
        idx = np.floor(np.log2(np.maximum(np.floor(size / 64.0), 1.0))).astype(int)
        return np.minimum(idx, CORRECTION_SIZES - 1)
    chunks = int(size) >> 6
    return min(int(math.floor(math.log2(chunks))) if chunks > 1 else 0, CORRECTION_SIZES - 1)


def ratio(table: TuningTable, algorithm: str, proto: int, nodes):
    """tuning.cc 376-380: the bus-bandwidth ratio of (algorithm, protocol), for <= 2 nodes or more."""
    return where(nodes <= 2, table.bw_ratio[0][algorithm][proto], table.bw_ratio[1][algorithm][proto])


def ring_latency(table: TuningTable, proto: int, op: str, n, nodes, intra_scale: float, net_extra: float):
    """A ring's latency (s): 0cbce2a tuning.cc 429-452, 03a89144 880-890.

    `intra_scale` scales the xGMI steps; `net_extra` (us) is added to a network step (twice for Simple), as for
    NCCL (`nccl.net_latency`).
    """
    all_reduce = op == "all_reduce"
    steps = 2.0 * (n - 1) if all_reduce else n - 1
    ring_crossings = 2.0 * (nodes - 1.0) if table.ring_net_steps_less_one else 2.0 * nodes
    inter_steps = where(nodes > 1, ring_crossings if all_reduce else nodes - 1, 0.0)
    overhead = NET_OVERHEAD * (3.0 if proto == SIMPLE else 1.0)
    intra = maximum(table.intra["ring"][proto] * intra_scale, where(nodes > 1, overhead, 0.0))
    inter = table.net["ring"][proto] + net_extra * (2.0 if proto == SIMPLE else 1.0)
    return (BASE_LATENCY[proto] + (steps - inter_steps) * intra + inter_steps * inter) * 1e-6


def tree_latency(table: TuningTable, proto: int, n, nodes, intra_scale: float, net_extra: float):
    """0cbce2a tuning.cc 454-456 (03a89144 891-895): a tree all-reduce's latency (s).

    A chain in each node, log2 steps between nodes.
    """
    inter = table.net["tree"][proto] + net_extra * (2.0 if proto == SIMPLE else 1.0)
    return (BASE_LATENCY[proto] + 2.0 * ((n / nodes - 1) * table.intra["tree"][proto] * intra_scale
                                         + log2i(nodes) * inter)) * 1e-6


def correction(row: np.ndarray, index):
    """A correction table's entry at a `size_index` (numbers or arrays)."""
    if isinstance(index, np.ndarray):
        return row[index]
    return float(row[index])


def fastest(cands: list, size, choosing: bool = False):
    """The time of the candidate RCCL takes for messages of `size` bytes (numbers, or arrays over groups and sizes).

    The choice is the least tuner time, corrections included (tuning.cc 669: latency + bytes / bandwidth; the
    first of equal times, as `time < minTime` keeps it); the result is that candidate's time without them (see the
    module's note), or with them where `choosing`. Candidates are `algorithms`' (kinds PLAIN and `CORRECTED`).
    """
    index = size_index(size)
    best = chosen = None
    for lat, f, bus, kind, extra, mask in cands:
        x = size if f is None else f * size
        t = lat + x / bus
        c = t
        if kind == CORRECTED:
            applies, table, algorithm, proto = extra
            row = table.ring_corr[proto] if algorithm == "ring" else table.tree_corr[proto]
            c = lat + x / (bus * where(applies, correction(row, index), 1.0))
        else:
            assert kind == 0, "RCCL candidates are plain or size-corrected"
        if mask is not None:
            t, c = where(mask, t, np.inf), where(mask, c, np.inf)
        if best is None:
            best, chosen = t, c
        else:
            better = c < chosen
            best, chosen = where(better, t, best), where(better, c, chosen)
    return chosen if choosing else best
