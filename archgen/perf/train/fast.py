"""One training layout as plain numbers: its pipeline rank classes one by one, reduced as numpy reduces them.

The model's formulas broadcast: a search or a batched sweep gives the layout fields as arrays and the rank classes
(`pipeline_split.Split`) ride on a trailing axis. For one layout of plain numbers (`training.estimate_training` on one
configuration, an `archgen estimate`, the sensitivities) numpy costs about a microsecond an operation on the few
elements of that axis, more than the arithmetic (issue 25). `classes` gives such a layout's classes as plain
numbers, so that the same formulas run once per class on floats, and `most`, `total` and `worst` reduce the
per-class values bit for bit as `np.max`, `np.sum` and `np.argmax` reduce the class axis; `rank_parts` is a class's
memory (`memory.rank_parts`) with its `where`s as branches. tests/perf/test_fast.py holds this path to the array path
on every validation case and shipped workload; tests/perf/test_exact.py pins both.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from archgen.perf.hw import memory as M
from archgen.perf.hw.numeric import NUMBER
from archgen.perf.train.pipeline_split import Split

__all__ = ["MOST", "NUMBER", "RankClass", "at_worst", "classes", "most", "plain", "rank_parts", "total", "worst"]

#: Most classes taken one by one: numpy sums up to 7 values in order (its pairwise summation starts at 8), which
#: `total` repeats; a longer split (a `pipeline_layout` of many ranks) keeps the class axis.
MOST = 7


class RankClass(NamedTuple):
    """One pipeline rank class of one layout (a `Split` entry), as plain numbers."""

    layers: float
    embedding: float
    loss: float
    ranks: float
    position: float


#: The types that are plain numbers for certain (`plain` and `classes` take them in one call, then `NUMBER`).
_PLAIN = frozenset((float, int, bool))
#: `classes` of recent splits (one layout's split is itself kept, `pipeline_split.split`), by identity.
_SEEN: dict[int, tuple[Split, list[RankClass] | None]] = {}


def classes(sl: Split, *values) -> list[RankClass] | None:
    """The rank classes of one layout's split as plain numbers, or None where the class axis should stay.

    None unless `sl` is one layout's (1-D, at most `MOST` classes) and every one of `values` (the layout's and the
    hardware's figures the classes are timed with) is a plain number.
    """
    if not _PLAIN.issuperset(map(type, values)):  # (the types in one C call; a subclass asked one by one)
        for v in values:
            if not isinstance(v, NUMBER):
                return None
    seen = _SEEN.get(id(sl))
    if seen is not None and seen[0] is sl:
        return seen[1]
    if sl.count.ndim != 1 or len(sl.count) > MOST:
        out = None
    else:
        fields = (sl.layers.tolist(), sl.embedding.tolist(), sl.loss.tolist(), sl.count.tolist(),
                  sl.position.tolist())
        out = [RankClass(*row) for row in zip(*fields, strict=True)]
    if len(_SEEN) >= 1024:
        _SEEN.clear()
    _SEEN[id(sl)] = (sl, out)
    return out


def plain(*values) -> bool:
    """Whether every one of `values` is a plain number (formulas of them give numbers, never arrays)."""
    if _PLAIN.issuperset(map(type, values)):  # floats, ints and bools: their types in one C call (issue 25)
        return True
    for v in values:  # a subclass of a number (numpy's float64) or not a number
        if not isinstance(v, NUMBER):
            return False
    return True


def most(values: list[Any]) -> Any:
    """`np.max` of the values (nan when one is nan)."""
    best = values[0]
    for v in values[1:]:
        if v > best or v != v:
            best = v
    return best


def total(values: list[Any]) -> Any:
    """`np.sum` of at most `MOST` values, bit for bit: added in order."""
    out = values[0]
    for v in values[1:]:
        out += v
    return out


def worst(values: list[Any]) -> int:
    """`np.argmax` of the values: the first largest (the first nan where there is one)."""
    i, best = 0, values[0]
    if best != best:
        return 0
    for j, v in enumerate(values[1:], 1):
        if v != v:
            return j
        if v > best:
            i, best = j, v
    return i


def at_worst(pairs: list[tuple[float, float]], real: list[bool]) -> tuple[float, float]:
    """The (DP communication, optimizer step) pair of the class whose sum is largest (`ranks.at_worst`)."""
    sums = []
    for i, (d, o) in enumerate(pairs):  # (a loop: a comprehension over a zip costs more on a few classes)
        sums.append(d + o if real[i] else 0.0)
    return pairs[worst(sums)]


def rank_parts(shared: tuple, c: RankClass) -> tuple:
    """`memory.rank_parts` of one rank class of a `memory.layout_memory` of plain numbers, its picks as branches.

    Each `where` and `minimum` of `rank_parts` (and of its `in_flight_chunks`) on numbers is `a if cond else b`;
    written out here they cost no call each (24 a layout of three classes, issue 25). The same operations in the same
    order: tests/perf/test_fast.py holds this path to the array path bit for bit, under every offload code and stage.
    """
    arch, tp, pp, dp, cp, interleave, micro_batch, microbatches, seq_len, weight_bytes, stage, gb, parts, edp, layer, \
        per_layer, code, group = shared
    n, pos = c.layers, c.position
    pd, pe = n * parts[0] + (c.embedding + c.loss) * arch.vocab * arch.hidden / tp, n * parts[1]  # `_split_parts`
    d = arch.mtp_layers
    if d:
        md, me = M.mtp_split(arch, tp, parts)
        pd, pe = pd + c.loss * md, pe + c.loss * me
    p = pd + pe
    shard = pd / dp + pe / edp
    sharded1, sharded2, sharded3 = shard if stage >= 1 else p, shard if stage >= 2 else p, shard if stage >= 3 else p
    window = M.GATHER_WINDOW_LAYERS * layer * weight_bytes
    grads = gb * sharded2 + (M.GRAD_WINDOW_LAYERS * layer * gb if stage >= 2 else 0.0)
    weights = weight_bytes * sharded3 + window if stage >= 3 else weight_bytes * p
    opt = (M.OPTIMIZER_BYTES + (4.0 if gb < 4 else 0.0)) * sharded1
    if interleave > 1:  # `in_flight_chunks`
        most, warm = microbatches * interleave, 2.0 * (pp - pos - 1) + (interleave - 1) * group + 1
    else:
        most, warm = microbatches, pp - pos
    act = per_layer * (n + c.loss * d) / interleave * (most if most < warm else warm)
    logits = c.loss * (1 + d) * micro_batch * seq_len / cp * arch.vocab / tp * 4.0  # fp32 logits of one micro-batch
    resident = M.OFFLOAD_WINDOW_LAYERS * per_layer
    act_gpu = (act if act < resident else resident) if code & 1 else act
    host = (act - act_gpu) + (M.HOST_OPTIMIZER_BYTES * sharded1 if code & 2 else 0.0)
    if code & M.WEIGHT_OFFLOAD:
        whole = sharded3 / (p if p > 0 else 1.0)  # (worked out whatever the stage, as `where` does; p 0: no ranks)
        share = whole if stage >= 3 else 1.0
        host = host + weight_bytes * n * layer * share
        weights = window + weight_bytes * (p - n * layer) * share
    else:
        host = host + 0.0
    return weights, grads, 0.0 if code & 2 else opt, act_gpu + logits, host
