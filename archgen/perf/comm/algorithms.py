"""NCCL's algorithms on one group of ranks, as candidates of latency and bandwidth (`collectives` picks among them).

A group of `n` ranks with `k` in each scale-up domain (`Topo`) gives every (algorithm, protocol) pair NCCL's tuning
model knows a latency and a bus bandwidth (`candidates`), which do not depend on the message size; `fastest` applies
them to message sizes (time = latency + f·size / bandwidth, src/graph/tuning.cc 651) and takes the least. Figures
are plain floats or numpy arrays over groups; the formulas, their sources and the topology are described in
`collectives`.
"""

from __future__ import annotations

import numpy as np

from archgen.perf.comm import nccl, rccl
from archgen.perf.comm.group import Topo, busbw_factor, mesh_share
from archgen.perf.comm.nccl import LL, LL128, SIMPLE
from archgen.perf.hw.generation import runs_nvls
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum, minimum, where

#: NCCL base latency of a ring or tree collective, Simple protocol (src/graph/tuning.cc `baseLatencies`).
BASE_LATENCY = nccl.BASE_LATENCY["ring"][SIMPLE] * nccl.US
#: NCCL's CollNet-direct bandwidth factor on Hopper and later (tuning.cc 348).
COLLNET_SM90 = 0.85


# A candidate (algorithm, protocol) of one group: time = latency + f·size / bus, as NCCL's tuner computes it
# (tuning.cc 651: latency + bytes / bandwidth). Its figures are plain floats or arrays over the groups; `f` None
# stands for 1 (the size itself). `kind` adds what depends on the size: the multi-node ring's plateau on the
# latency (`PLATEAU`, extra = (cross, channels·n, factor)) or the tree's correction on the bandwidth (`TREE`,
# extra = the protocol, and 2·size for f), or RCCL's size correction on the bandwidth (`CORRECTED`, extra =
# (where it applies, the `rccl.TuningTable`, 'ring' or 'tree', the protocol)). `mask` (None: everywhere) says where the
# candidate runs at all.
PLAIN, PLATEAU, TREE, CORRECTED = 0, 1, 2, rccl.CORRECTED
#: Kinds whose `extra` holds figures per group (gathered and reshaped with the candidate's own).
PER_GROUP = (PLATEAU, CORRECTED)
#: A tree all-reduce moves 2·size over its bus bandwidth (algbw = busbw / 2).
TWO = 2.0


def _ring(hw: Hardware, t: Topo, op: str, proto: int):
    """NCCL Ring (tuning.cc 393-411 latency; algbw = busbw x n / steps); None where the protocol does not run."""
    if t.rccl is not None:
        return _rccl(t, op, "ring", proto)
    if t.gen is None and proto != SIMPLE:
        return None
    mask = _ll128_mask(t) if proto == LL128 else None
    if mask is False:
        return None
    bus = nccl.ring_protocol_bw(t.gen, proto, t.ring, t.channels, t.nodes)
    lat = nccl.ring_latency(proto, op, t.n, t.nodes, t.intra_scale, t.net_extra, t.intra)
    if proto == SIMPLE and op == "all_reduce":  # tuning.cc 646-650: plateau effect of a multi-node ring
        plateau = 1.9 if 0 < hw.compute_capability < 8 else 1.4
        return (lat, t.factor(op), bus, PLATEAU, (t.cross, t.channels * t.n, plateau), None)
    return (lat, t.factor(op), bus, PLAIN, None, mask)


def _ll128_mask(t: Topo):
    """Where LL128 runs for the group (`nccl.ll128_inside`): None everywhere, False nowhere, else an array."""
    runs = nccl.ll128_inside(t.pci, t.k)
    if isinstance(runs, np.ndarray):
        return None if runs.all() else (False if not runs.any() else runs)
    return None if runs else False


def _tree(hw: Hardware, t: Topo, proto: int):
    """NCCL Tree all-reduce: a chain in each domain, double binary trees between domains (algbw = busbw / 2)."""
    if t.rccl is not None:
        return _rccl(t, "all_reduce", "tree", proto)
    if t.gen is None and proto != SIMPLE:
        return None
    mask = _ll128_mask(t) if proto == LL128 else None
    if mask is False:
        return None
    gen = 2 if t.gen is None else t.gen
    bus = nccl.tree_protocol_bw(gen, proto, t.ring, t.channels, t.nodes)  # x the mid-size correction (`TREE`)
    return (nccl.tree_latency(proto, t.n, t.nodes, t.intra_scale, t.net_extra, t.intra), None, bus, TREE, proto,
            mask)


def _rccl(t: Topo, op: str, algorithm: str, proto: int):
    """RCCL's Ring or Tree (`rccl`): its latency, the bus x its ratio, its size correction; None where it is off.

    A ratio of 0 (LL128 in the 0cbce2a xGMI mesh table) or LL128 where it is off (`rccl.LL128_ENABLED`) means RCCL
    does not run it. The ring's correction applies across nodes only (tuning.cc 655), the tree's always (651).
    """
    table = t.rccl
    assert table is not None
    if (proto == LL128 and not rccl.LL128_ENABLED) or table.bw_ratio[0][algorithm][proto] == 0.0:
        return None
    bus = t.ring * rccl.ratio(table, algorithm, proto, t.nodes)
    if algorithm == "ring":
        lat = rccl.ring_latency(table, proto, op, t.n, t.nodes, t.intra_scale, t.net_extra)
        return (lat, t.factor(op), bus, CORRECTED, (t.cross, table, algorithm, proto), None)
    lat = rccl.tree_latency(table, proto, t.n, t.nodes, t.intra_scale, t.net_extra)
    return (lat, TWO, bus, CORRECTED, (True, table, algorithm, proto), None)


def _nvls_bus(hw: Hardware, t: Topo, all_reduce: bool):
    heads = minimum(t.k, float(nccl.MAX_NVLS_ARITY))
    gen = t.gen if t.gen is not None else 2
    efficiency = hw.nvls_efficiency or nccl.NVLS_EFFICIENCY[gen]  # 0: the part states none, NCCL's for its generation
    return nccl.nvls_bus(gen, efficiency, t.up, heads, all_reduce, t.k)


def _nvls(hw: Hardware, t: Topo, op: str, mask=None):
    """NCCL NVLS: in-switch reduction in the domain; across domains (NVLS+SHARP) the scale-out switches reduce too."""
    if op == "all_reduce":
        # across domains each node's NICs carry size once each way, half a ring's traffic: 2x `net` as busbw
        bus = where(t.cross, minimum(_nvls_bus(hw, t, True), 2.0 * t.net), _nvls_bus(hw, t, True))
        lat = nccl.NVLINK_LATENCY["nvls"][SIMPLE] * t.intra_scale + where(
            t.cross, nccl.net_latency("nvls", SIMPLE, t.net_extra), 0.0)
        return (lat * nccl.US, t.factor(op), bus, PLAIN, None, mask)
    bus = _nvls_bus(hw, t, False)  # all-gather / reduce-scatter: NCCL uses busBw as algbw (tuning.cc 421)
    return (nccl.NVLINK_LATENCY["nvls"][SIMPLE] * t.intra_scale * nccl.US, None, bus, PLAIN, None, mask)


def _nvls_tree(hw: Hardware, t: Topo, mask=None):
    """NCCL NVLSTree all-reduce: NVLS inside each domain, a tree between domains (tuning.cc 316-320, 428-429)."""
    gen = t.gen if t.gen is not None else 2
    heads = minimum(t.k, float(nccl.MAX_NVLS_ARITY))
    inter = t.net * where(t.nodes <= 2, 2.0, 1.0)
    cap = heads * nccl.by_nodes(nccl.PER_CH_NVLS_TREE[gen], maximum(t.nodes, 2.0)) * nccl.GB  # only across domains
    bus = minimum(minimum(_nvls_bus(hw, t, True), inter), cap)
    lat = (nccl.NVLINK_LATENCY["nvls_tree"][SIMPLE] * t.intra_scale
           + 2.0 * nccl.log2i(t.nodes) * nccl.net_latency("nvls_tree", SIMPLE, t.net_extra)) * nccl.US
    return (lat, t.factor("all_reduce"), bus, PLAIN, None, mask)


def _sharp(hw: Hardware, t: Topo):
    """NCCL CollNet Direct all-reduce: SHARP in the scale-out switches.

    Each NIC sends its 1/k shard up once and receives the reduced shard once, so the node's NICs carry size each way,
    half a ring's traffic (2x `net` as bus bandwidth); inside the domain a reduce-scatter and an all-gather move
    2(k-1)/k of the buffer per rank on NVLink. NCCL discounts CollNet by 0.85 from Hopper on (tuning.cc 348).
    """
    k = t.k
    up_bus = where(k > 1, t.up * (t.n - 1) / t.n * k / maximum(k - 1, 1.0), np.inf)
    bus = minimum(up_bus, 2.0 * t.net * (t.n - 1) / t.n) * (COLLNET_SM90 if hw.compute_capability >= 9 else 1.0)
    lat = (2.0 * (minimum(1.0, k - 1) * nccl.NVLINK_LATENCY["collnet"][SIMPLE] * t.intra_scale + (k - 1) * 0.4)
           + nccl.net_latency("collnet", SIMPLE, t.net_extra)) * nccl.US
    return (lat, t.factor("all_reduce"), bus, PLAIN, None, None)


def _pat(hw: Hardware, t: Topo):
    """NCCL PAT all-gather / reduce-scatter, one rank per domain: 0.75 of the NIC rate, log latency (tuning.cc 337)."""
    lat = (nccl.BASE_LATENCY["pat"][SIMPLE] + nccl.log2i(t.nodes) * nccl.net_latency("pat", SIMPLE, t.net_extra)
           / 3.5 + t.n * 2.8) * nccl.US
    return (lat, None, 0.75 * t.net, PLAIN, None, t.k <= 1)


def _ring_tree(hw: Hardware, t: Topo, op: str, mask=None) -> list:
    """Ring with each protocol, and for an all-reduce tree with each (NCCL's default algorithms)."""
    out = [_ring(hw, t, op, proto) for proto in (LL, LL128, SIMPLE)]
    if op == "all_reduce":
        out += [_tree(hw, t, proto) for proto in (LL, LL128, SIMPLE)]
    return [c if mask is None or c is None else (*c[:5], mask if c[5] is None else c[5] & mask) for c in out]


def candidates(hw: Hardware, t: Topo, op: str, algorithm: str) -> list:
    """The (algorithm, protocol) candidates `algorithm` stands for; the collective takes the fastest that runs.

    On an AMD part RCCL's inside one domain and NCCL's (as on any part without NVLink) across (`rccl.split`).
    """
    if t.rccl is None:
        return _candidates(hw, t, op, algorithm)
    return [c for _, c in rccl.split(t, lambda: [("", c) for c in _candidates(hw, t, op, algorithm)])]


def _candidates(hw: Hardware, t: Topo, op: str, algorithm: str) -> list:
    ar = op == "all_reduce"
    if algorithm == "ring":
        out = [_ring(hw, t, op, proto) for proto in (LL, LL128, SIMPLE)]
    elif algorithm == "tree":
        out = [_tree(hw, t, proto) for proto in (LL, LL128, SIMPLE)] if ar else _ring_tree(hw, t, op)
    elif algorithm == "pat":  # one rank per domain; ring and tree elsewhere
        out = _ring_tree(hw, t, op) if ar else [_pat(hw, t), *_ring_tree(hw, t, op, t.k > 1)]
    elif algorithm == "nvls":  # all-gather / reduce-scatter across domains: ring and tree
        out = [_nvls(hw, t, op)] if ar else [_nvls(hw, t, op, ~_bool(t.cross)), *_ring_tree(hw, t, op, t.cross)]
    elif algorithm == "nvls_tree":
        out = [_nvls_tree(hw, t, t.cross), _nvls(hw, t, op, ~_bool(t.cross))] if ar else _ring_tree(hw, t, op)
    elif algorithm == "sharp":
        out = [_sharp(hw, t)] if ar else _ring_tree(hw, t, op)
    else:  # auto: the fastest of what NCCL enables by default (no CollNet)
        out = [c for _, c in _labelled(hw, t, op)]
    return [c for c in out if c is not None]


def labelled(hw: Hardware, t: Topo, op: str) -> list[tuple[str, tuple]]:
    """The candidates NCCL (RCCL) enables by default (`candidates` under 'auto'), each with its name ('Ring/LL128')."""
    if t.rccl is None:
        return _labelled(hw, t, op)
    return rccl.split(t, lambda: _labelled(hw, t, op))


def _labelled(hw: Hardware, t: Topo, op: str) -> list[tuple[str, tuple]]:
    ar = op == "all_reduce"
    pat = not ar and t.rccl is None  # RCCL: no PAT at 0cbce2a; off by default at 03a89144 (PAT_ENABLE 0)
    names = [f"Ring/{p}" for p in nccl.PROTOCOLS] + ([f"Tree/{p}" for p in nccl.PROTOCOLS] if ar else [])
    names += ["PAT/Simple"] if pat else []
    out = _ring_tree(hw, t, op) + ([_pat(hw, t)] if pat else [])
    if runs_nvls(hw.in_network_reduction, hw.compute_capability):   # from Hopper (`generation.NVLS_FROM`)
        names += ["NVLSTree/Simple", "NVLS/Simple"] if ar else ["NVLS/Simple"]
        out += [_nvls_tree(hw, t, t.cross)] if ar else []
        out.append(_nvls(hw, t, op, ~_bool(t.cross)))
    return [(name, c) for name, c in zip(names, out, strict=True) if c is not None]


def rccl_table(hw: Hardware, t: Topo, op: str) -> list:
    """RCCL's own candidates for `t` whether or not it crosses domains (`rccl_net.table_time`); none if not RCCL's."""
    return [c for _, c in _labelled(hw, t, op)] if t.rccl is not None else []


def _bool(x):
    """`x` as a numpy boolean (so that ~ negates a plain bool too)."""
    return np.asarray(x, dtype=bool) if isinstance(x, np.ndarray) else np.bool_(x)


def fastest(cands: list, size, choosing: bool = False):
    """The least time over the candidates for messages of `size` bytes (plain float for scalars, else arrays).

    Each candidate's time is computed with the same operations, in the same order, as NCCL's formula reads, so the
    result does not depend on how the candidates were computed (once per group, or looked up for a repeated one).
    Arrays are updated in place where they are this function's own: fresh large temporaries cost page faults. One
    size as a number against candidates of numbers (`collectives`' cached ones) stays in plain floats: the helpers
    (`_plus`, `unless`, `numeric.where`, `numeric.minimum`) take the scalar branch, and `_plus` and `unless` are
    only called where an operand is an array (their scalar branch, `lat + t` and `t if mask else inf`, is the
    operation itself: an estimate's ~45 candidates, two calls fewer each, issue 25). RCCL's candidates (an AMD
    part) take `rccl.fastest`, which chooses with RCCL's size corrections and times without them (`choosing`: with).
    """
    if cands and cands[0][3] == CORRECTED:  # an AMD part's list (`rccl.split` puts RCCL's first)
        best = rccl.fastest([c for c in cands if c[3] == CORRECTED], size, choosing)
        rest = [c for c in cands if c[3] != CORRECTED]  # NCCL's, across domains (`rccl.split`)
        return minimum(best, fastest(rest, size)) if rest else best
    scaled: dict[int, object] = {}
    tree = None
    best = None
    for lat, f, bus, kind, extra, mask in cands:
        if kind == TREE:
            if tree is None:
                tree = (2.0 * size, nccl.tree_index(size))
            t = tree[0] / (bus * nccl.tree_correction_at(extra, tree[1]))
        else:
            if f is None:
                x = size
            else:
                x = scaled.get(id(f))
                if x is None:
                    x = scaled[id(f)] = f * size
            if kind == PLATEAU:
                cross, cn, plateau = extra
                lat = lat * where(cross & (size / cn >= 64), plateau, 1.0)
            t = x / bus
        t = _plus(t, lat) if isinstance(t, np.ndarray) else lat + t
        if mask is not None:
            if isinstance(t, np.ndarray) or isinstance(mask, np.ndarray):
                t = unless(mask, t, np.inf)
            elif not mask:
                t = np.inf
        if best is None:
            best = t
        elif isinstance(best, np.ndarray) and holds(best, t):
            np.minimum(best, t, out=best)
        else:
            best = minimum(best, t)
    return best


#: `number_form`'s kind of a masked candidate, one that does not run (its time infinite).
OFF = -1


def number_form(cands: list) -> tuple | list:
    """NCCL's candidates of numbers as `fastest_number` reads them: (lat, f, bus, kind, extra) each.

    `f` is 1.0 where it is None (1.0 · size is size, bit for bit) and a masked candidate's kind `OFF`, so that
    `fastest_number` checks neither per size (issue 25). RCCL's lists (and an empty one) stay lists, which
    `fastest_number` hands to `fastest`.
    """
    if not cands or cands[0][3] == CORRECTED:
        return cands
    return tuple((lat, 1.0 if f is None else f, bus, OFF if mask is not None and not mask else kind, extra)
                 for lat, f, bus, kind, extra, mask in cands)


def fastest_number(form: tuple | list, size: float):
    """`fastest` of one size given as a number against NCCL's candidates of numbers: the same float, fewer checks.

    `collectives._numbers`' path (one layout's collectives, issue 25), the candidates in `number_form`: no figure is
    an array, so each candidate's time is `lat + f · size / bus` (the tree's `2 size / (bus · correction)`, a
    plateau's latency scaled where `fastest` scales it) and a masked one infinite, and the least is kept as
    `numeric.minimum` keeps it (the later one unless the earlier is less; the first replaces the infinity `best`
    starts from, whatever it is), without `fastest`'s array branches. RCCL's lists take `fastest`.
    """
    if type(form) is list:  # RCCL's (`number_form`)
        return fastest(form, size)
    best = np.inf
    tree = None
    for lat, f, bus, kind, extra in form:
        if kind == PLAIN:
            t = lat + f * size / bus
        elif kind == TREE:
            if tree is None:  # `nccl.tree_correction_at`'s index, its table's range checked once (issue 25)
                i = nccl.tree_index(size)
                tree = (2.0 * size, i if i is not None and 0 <= i < nccl.TREE_SIZES else None)
            t = lat + tree[0] / (bus * (1.0 if tree[1] is None else nccl.TREE_CORRECTION[extra][tree[1]]))
        elif kind == PLATEAU:
            cross, cn, plateau = extra
            t = lat * (plateau if cross & (size / cn >= 64) else 1.0) + f * size / bus
        else:
            t = np.inf
        if not best < t:
            best = t
    return best


def holds(own: np.ndarray, other) -> bool:
    """Whether `own` has the shape of its broadcast with `other` (a result of the two fits in it).

    A number, or an array of `own`'s shape, answers without `np.broadcast_shapes` (most calls: one layout's
    figures, issue 25).
    """
    shape = () if isinstance(other, float | int | bool) else np.shape(other)
    return shape == own.shape or not shape or own.shape == np.broadcast_shapes(own.shape, shape)


def _plus(own, other):
    """Own + other (IEEE addition commutes), into `own` when it is an array of the result's shape."""
    if isinstance(own, np.ndarray) and holds(own, other):
        return np.add(own, other, out=own)
    return other + own


def unless(cond, own, value):
    """where(cond, own, value), into `own` when it is an array of the result's shape."""
    if isinstance(own, np.ndarray) and holds(own, cond):
        np.copyto(own, value, where=~np.asarray(cond, dtype=bool))
        return own
    return where(cond, own, value)


def hierarchical(hw: Hardware, t: Topo, op: str, size):
    """Reduce-scatter inside the domain, the operation across domains on 1/k of the data, all-gather inside.

    NCCL pipelines such phases, so the time is their latencies plus the slower of the NVLink and the NIC traffic
    (each member drives its own NIC), not the sum. archgen's own algorithm, for what-ifs; `auto` does not take it.
    """
    k = minimum(maximum(t.k, 1.0), t.n)
    m = t.nodes
    inner_bytes = where(k > 1, (2.0 if op == "all_reduce" else 1.0) * (k - 1) / k * size, 0.0)
    outer_bytes = where(m > 1, busbw_factor(op, m) * size / k, 0.0)
    lat_in = where(k > 1, nccl.ring_latency(SIMPLE, "all_gather", k, 1.0, t.intra_scale, t.net_extra, t.intra), 0.0)
    lat_out = where(m > 1, nccl.ring_latency(SIMPLE, op, m, m, t.intra_scale, t.net_extra, t.intra), 0.0)
    lat = lat_in * (2.0 if op == "all_reduce" else 1.0) + lat_out
    return lat + maximum(inner_bytes / t.up, outer_bytes / (t.net / k))


def all_to_all(hw: Hardware, t: Topo, size):
    """All-to-all as NCCL runs it (point-to-point sends), with the accelerator's measured all-to-all efficiency.

    Each rank sends (k-1)/n of its buffer over NVLink and (n-k)/n over its own NIC: all-to-all cannot aggregate the
    NICs of a node (S. Jeaugey, NVIDIA/nccl-tests#267). With PXN (NCCL's default on rail-optimized fabrics) a send
    to another domain first crosses NVLink to the local GPU on the destination's rail, adding (k-1)/k of that part
    to the NVLink traffic, and then stays on its rail.
    """
    k, n = t.k, t.n
    eff = hw.all_to_all_efficiency or hw.scale_up_efficiency
    nvlink = (k - 1) / n * size + where(t.cross, (n - k) / n * (k - 1) / k * size, 0.0)
    t_up = nvlink / (hw.scale_up_bandwidth * eff * mesh_share(hw, k))
    t_out = where(t.cross, (n - k) / n * size / (t.net / k), 0.0)
    lat = where(t.cross, nccl.NET_STEP * nccl.US + hw.scale_out_latency, hw.scale_up_latency)
    return BASE_LATENCY + (n - 1) * lat / 8.0 + maximum(t_up, t_out)
