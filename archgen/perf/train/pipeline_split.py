"""How a pipeline holds the layers: Megatron-core's split rules, one rule set for stated and searched layouts.

Megatron-core (megatron/core/transformer/transformer_block.py `get_num_layers_to_build`,
transformer_config.py `__post_init__`, pipeline_parallel_layer_layout.py) builds a pipeline in one of three ways:

* **Even split**, optionally with the embedding and the loss counted as layer slots
  (`account_for_embedding_in_pipeline_split`, `account_for_loss_in_pipeline_split`): l + E + L slots must divide
  by pp, and each rank's share by the virtual stages v. The first rank builds one decoder layer fewer when E is
  set, the last one fewer when L is set. Llama 3.1 405B (126 layers) runs pp 8 x v 8 this way: 128 slots.
  A virtual stage may so hold the embedding or the loss alone (126 layers on pp 16 x v 8: one slot per stage).
* **Explicit first/last-stage counts** (`num_layers_in_first_pipeline_stage`, `..._last_...`): each divisible by
  v, the layers left divisible by the middle stages and each middle share by v. Not combined with the slots.
* **A layout string** (`pipeline_model_parallel_layout`, e.g. ``"Et*3|(tt|)*29,m|L"``): stages split by ``|``,
  ``E`` embedding, ``t`` decoder layer, ``L`` loss, ``x*n`` and ``(..)*n`` repeat; pp·v stages in order (stage i
  is pipeline rank i mod pp, virtual stage i div pp); E first and L last, once each, and exactly l decoder layers.

An interleaved schedule needs pp > 1 (Megatron-LM arguments.py) and at least pp micro-batches per pipeline (a
micro-batch group per virtual stage spans pp to m micro-batches: schedules.py). Beyond Megatron-core, a
non-interleaved pipeline whose layers do not divide is accepted as DeepSpeed's uniform partition builds it
(ceil(l/p) layers on the first l mod p ranks, floor(l/p) on the others), which the 2021-22 Megatron-DeepSpeed runs used.

A `Split` lists rank classes (first, middle, last; or every rank of a layout string): decoder layers on the rank
(over all its virtual stages), whether it holds the embedding and the loss, how many ranks are like it and the
rank's position (which sets the micro-batches in flight). Arrays broadcast with a trailing class axis, so the
search evaluates every layout's ranks in one call.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

#: Layer symbols of a Megatron-core layout string.
SYMBOLS = {"E": "embedding", "t": "decoder", "L": "loss", "m": "mtp"}


@dataclass(frozen=True)
class Split:
    """Rank classes of a pipeline; each field has a trailing class axis.

    Attributes:
        layers: Decoder layers on a rank of the class, over all its virtual stages.
        embedding: 1 when the rank holds the input embedding.
        loss: 1 when the rank holds the output layer and loss.
        count: Ranks in the class (0 for a class that does not exist in this layout).
        position: Pipeline rank of the class (0 first): the first ranks hold the most micro-batches in flight.
    """

    layers: np.ndarray
    embedding: np.ndarray
    loss: np.ndarray
    count: np.ndarray
    position: np.ndarray


@dataclass(frozen=True)
class PipelineOptions:
    """How a stated layout places the layers, beyond pp and v (None: not stated)."""

    embedding_slot: bool | None = None
    loss_slot: bool | None = None
    first_stage_layers: int | None = None
    last_stage_layers: int | None = None
    layout: str | None = None
    #: Interleaved only with a whole number of Megatron-core's default micro-batch groups (pp micro-batches per
    #: virtual stage, `microbatch_group_size_per_vp_stage` left unset): m a multiple of pp
    #: (`layout_rules.layout_problems`).
    #: Not a placement (`stated` ignores it); a search that must keep to schedules with pp-sized groups sets it.
    whole_groups: bool = False

    @property
    def stated(self) -> bool:
        """Whether any placement is stated."""
        return any(x is not None for x in (self.embedding_slot, self.loss_slot, self.first_stage_layers,
                                           self.last_stage_layers, self.layout))


#: No placement stated: an even split, with the embedding and loss slots only where they alone make it divide.
DEFAULT = PipelineOptions()


def parse_layout(text: str, pp: int) -> tuple[list[list[dict[str, int]]], list[str]]:
    """A layout string as counts per [pipeline rank][virtual stage], and its problems in words.

    Follows `PipelineParallelLayerLayout.parse_str_to_list`: commas are cosmetic, ``(..)*n`` and ``x*n`` repeat.
    """
    s = expanded_layout(text)
    stages = s.split("|")
    bad = sorted({c for c in s if c not in SYMBOLS and c != "|"})
    if bad:
        return [], [f"pipeline_layout '{text}' has {', '.join(repr(c) for c in bad)}; known symbols: E (embedding), "
                    "t (decoder layer), L (loss), m (MTP layer), | between stages, x*n and (..)*n to repeat"]
    if len(stages) % pp:
        return [], [f"pipeline_layout '{text}' has {len(stages)} stages, not a multiple of pp ({pp})"]
    v = len(stages) // pp
    grid = [[{k: stages[j * pp + r].count(c) for c, k in SYMBOLS.items()} for j in range(v)] for r in range(pp)]
    flat = "".join(stages)
    out = []
    if flat.count("E") != 1 or flat.count("L") != 1 or not flat.startswith("E") or not flat.endswith("L"):
        out.append(f"pipeline_layout '{text}' must start with the embedding E and end with the loss L, once each")
    return grid, out


def expanded_layout(text: str) -> str:
    """A layout string with its repeats written out and its cosmetic commas and spaces dropped."""
    s = text.replace(",", "").replace(" ", "")
    for pattern in (r"\(([^()]+)\)\*(\d+)", r"(.)\*(\d+)"):
        s = re.sub(pattern, lambda x: x.group(1) * int(x.group(2)), s)
    return s


def layout_interleave(text: str, pp: int) -> int | None:
    """Virtual stages per rank that a layout string implies (None when it does not parse)."""
    grid, problems = parse_layout(text, pp)
    return len(grid[0]) if grid and not problems else None


def split_problems(layers: int, pp: int, v: int, opts: PipelineOptions = DEFAULT) -> list[str]:
    """Why `layers` cannot be placed on pp ranks x v virtual stages as `opts` says (empty when they can)."""
    return list(_split_problems(layers, pp, v, opts))


@functools.lru_cache(maxsize=4096, typed=True)
def _split_problems(layers: int, pp: int, v: int, opts: PipelineOptions) -> tuple[str, ...]:
    """`split_problems`, kept for the (layers, pp, v) a layout search asks about again and again."""
    return tuple(_problems(layers, pp, v, opts))


def _problems(layers: int, pp: int, v: int, opts: PipelineOptions) -> list[str]:
    if opts.layout is not None:
        grid, out = parse_layout(opts.layout, pp)
        if grid and not out:
            if len(grid[0]) != v:
                out.append(f"pipeline_layout has {len(grid[0])} virtual stages per rank, interleave is {v}")
            n = sum(st["decoder"] for row in grid for st in row)
            if n != layers:
                out.append(f"pipeline_layout places {n} decoder layers, the model has {layers}")
        if any(x is not None for x in (opts.embedding_slot, opts.loss_slot, opts.first_stage_layers,
                                       opts.last_stage_layers)):
            out.append("pipeline_layout cannot be combined with embedding_slot, loss_slot, first_stage_layers or "
                       "last_stage_layers (Megatron-core refuses it)")
        return out
    if v > 1 and pp < 2:
        return [f"an interleaved schedule (interleave {v}) needs pp > 1"]
    if opts.first_stage_layers is not None or opts.last_stage_layers is not None:
        return _uneven_problems(layers, pp, v, opts)
    e, lo = _slots(layers, pp, v, opts)
    total = layers + e + lo
    if total % pp == 0 and (total // pp) % v == 0:
        return []
    if v == 1 and not (opts.embedding_slot or opts.loss_slot) and layers >= pp:
        return []  # DeepSpeed-style uniform partition
    slots = " with the embedding and loss slots" if e + lo else ""
    return [f"{layers} layers{slots} ({total} slots) cannot be split evenly into pp x interleave = {pp} x {v} "
            f"stages" + ("" if e + lo or opts.embedding_slot is False else
                         f", even with the embedding and loss as pipeline slots ({layers + 2})")
            + (uneven_hint(layers, pp, v) if opts.embedding_slot is None and opts.loss_slot is None else "")]


def uniform_layout(layers: int, pp: int, v: int, opts: PipelineOptions = DEFAULT, mtp: int = 0) -> str | None:
    """The layout string of DeepSpeed's uniform partition where a split takes it, else None.

    That is a non-interleaved pipeline whose layers do not divide even with the slots, placed by no stated count or
    layout (`_problems` accepts it): ceil(l/pp) layers on the first l mod pp ranks, floor(l/pp) on the others, the
    embedding first and the loss last (after the job's `mtp` MTP layers), in Megatron-core's
    `pipeline_model_parallel_layout` notation, which places it. Megatron-LM asserts an even split otherwise
    (megatron/training/arguments.py at d98e8a6, line 997).
    """
    if v != 1 or pp < 2 or opts.stated or split_problems(layers, pp, v, opts):
        return None
    e, lo = _slots(layers, pp, v, opts)
    if (layers + int(e) + int(lo)) % pp == 0:
        return None
    q, r = divmod(layers, pp)
    return layout_string([q + 1] * r + [q] * (pp - r), mtp)


def layout_string(counts: list[int], mtp: int = 0) -> str:
    """Megatron-core's layout string of decoder-layer `counts` per stage (in virtual-stage order).

    The embedding goes first and the loss last, after `mtp` MTP layers; runs of equal stages are written (t*c|)*n.
    """
    t = lambda c: "t" if c == 1 else f"t*{c}"  # noqa: E731 (a local shorthand)
    runs: list[list[int]] = []
    for c in counts[1:-1]:
        if runs and runs[-1][0] == c:
            runs[-1][1] += 1
        else:
            runs.append([c, 1])
    middle = "".join(f"{t(c)}|" if n == 1 else f"({t(c)}|)*{n}" for c, n in runs)
    return f"E{t(counts[0])}|{middle}{t(counts[-1])}{'m' * mtp}L"


def spread_layout(layers: int, pp: int, v: int) -> str | None:
    """A layout string placing `layers` on the pp x v virtual stages as evenly as they go (None: too few, or pp < 2).

    floor(l / (pp v)) layers a stage, one more on the l mod (pp v) stages after the first; the first and last stages,
    which also hold the embedding and the loss, keep the smaller count where there are two such stages. One way to
    write what an uneven split needs (`uneven_hint`), not a placement the model searches.
    """
    stages = pp * v
    if pp < 2 or layers < stages:
        return None
    q, r = divmod(layers, stages)
    low = stages - r
    counts = [q] + [q + 1] * r + [q] * (low - 2) + [q] if low >= 2 else [q] + [q + 1] * r if low == 1 else [q] * stages
    return layout_string(counts)


def uneven_hint(layers: int, pp: int, v: int) -> str:
    """How to place `layers` on pp x v stages unevenly, as Megatron-core allows: the options a split needs, in words.

    Megatron-LM asserts an even split unless the first or last stage's count is given (megatron/training/
    arguments.py at d98e8a6, line 997: "Number of layers should be divisible by the pipeline-model-parallel size",
    skipped with --decoder-first/last-pipeline-num-layers; transformer_config.py line 2295, "Uneven PP", checks
    those); a layout string (`pipeline_layout`, Megatron-core's pipeline_model_parallel_layout) places any count.
    Names the first/last-stage counts nearest the even share that pass `_uneven_problems`, where there are any.
    """
    spread = spread_layout(layers, pp, v)
    example = f"'{spread}' for these {layers} layers on pp {pp} x v {v}" if spread else \
        "'Etttt|(tttt|)*14tL' for DeepSeek-V3's 61 layers on pp 4 x v 4"
    text = f"; place them unevenly with pipeline_layout (Megatron-core's layout string, a stage per '|', e.g. " \
        f"{example})"
    pair = stage_counts(layers, pp, v)
    if pair is None:
        return text + f"; no first_stage_layers / last_stage_layers pair places them on pp x interleave = {pp} x {v}"
    return text + f", or with first_stage_layers {pair[0]} and last_stage_layers {pair[1]}"


def stage_counts(layers: int, pp: int, v: int) -> tuple[int, int] | None:
    """The first/last-stage layer counts nearest the even share that pass `_uneven_problems`, else None."""
    best: tuple[float, int, int] | None = None
    share = layers // pp // v * v  # the pairs tried lie near the even share, a few dozen whatever the layers
    near = [n for n in range(share - 2 * pp * v, share + 2 * pp * v + 1, v) if n > 0]
    for f in near if pp > 1 and layers % v == 0 else ():  # (first, last and middle counts are multiples of v)
        for last in near:
            rest, middle = layers - f - last, pp - 2
            if rest < 0 or bool(rest) != bool(middle) or (middle and (rest % middle or (rest // middle) % v)):
                continue
            key = (max(abs(f - layers / pp), abs(last - layers / pp)), f, last)
            best = key if best is None or key < best else best
    return None if best is None else (best[1], best[2])


def _uneven_problems(layers: int, pp: int, v: int, opts: PipelineOptions) -> list[str]:
    """Megatron-core's checks of explicit first/last-stage layer counts."""
    out = []
    if opts.embedding_slot or opts.loss_slot:
        out.append("first_stage_layers and last_stage_layers cannot be combined with embedding_slot or loss_slot "
                   "(Megatron-core refuses it)")
    rest, middle = layers, pp
    for name, n in (("first_stage_layers", opts.first_stage_layers), ("last_stage_layers", opts.last_stage_layers)):
        if n is None:
            continue
        if n <= 0 or n % v:
            out.append(f"{name} ({n}) must be positive and divisible by interleave ({v})")
        rest, middle = rest - n, middle - 1
    if middle < 0 or bool(rest) != bool(middle) or rest < 0:
        out.append(f"{rest} layers are left for {max(middle, 0)} middle stages")
    elif middle and (rest % middle or (rest // middle) % v):
        out.append(f"the {rest} layers left do not divide into {middle} middle stages of interleave {v}")
    return out


def _slots(layers, pp, v, opts: PipelineOptions):
    """Embedding and loss slots: as stated, else both when that alone makes an uneven split divide, else none.

    Both slots is what NVIDIA's recipes for Llama 3.1 405B (126 layers on pp 8 x v 8) set.
    """
    if opts.embedding_slot is not None or opts.loss_slot is not None:
        return int(bool(opts.embedding_slot)), int(bool(opts.loss_slot))
    even = (layers % pp == 0) & ((layers // pp) % v == 0)
    both = ((layers + 2) % pp == 0) & (((layers + 2) // pp) % v == 0) & (pp > 1)
    auto = np.where(even, 0, np.where(both, 1, 0))
    return auto, auto


def slot_count(layers: int, pp: int, v: int, opts: PipelineOptions = DEFAULT) -> int:
    """Pipeline slots beside the decoder layers: the embedding's and the loss's where they count as slots.

    With them a virtual stage may hold the embedding or the loss alone (126 layers + 2 slots on pp 16 x v 8): the
    first rank's first virtual stage builds no decoder layer, which Megatron-core allows (transformer_block.py
    `get_num_layers_to_build` at d98e8a6: "num_layers_to_build >= 0" after taking the embedding's slot).
    """
    return _slot_count(layers, pp, v, opts)


@functools.lru_cache(maxsize=4096, typed=True)
def _slot_count(layers: int, pp: int, v: int, opts: PipelineOptions) -> int:
    """`slot_count`, kept for the (layers, pp, v) a layout search and the layout rules ask about again and again.

    `layout_rules.layout_problems` asks once per layout it judges; numpy's reductions on scalars were most of its time.
    """
    if opts.first_stage_layers is not None or opts.last_stage_layers is not None:
        return 0
    e, lo = _slots(layers, pp, v, opts)
    return int(np.sum(e) + np.sum(lo))


def split(layers: int, pp, v, opts: PipelineOptions = DEFAULT) -> Split:
    """The rank classes of a valid placement (see `split_problems`); pp and v may be arrays (one per layout).

    For one layout (pp and v numbers) the split is kept (`_one_split`), its arrays read-only.
    """
    if isinstance(pp, float | int) and isinstance(v, float | int):
        return _one_split(layers, float(pp), float(v), opts)
    return _split(layers, pp, v, opts)


@functools.lru_cache(maxsize=1024)
def _one_split(layers: int, pp: float, v: float, opts: PipelineOptions) -> Split:
    """`split` of one layout, kept: a search or a sweep asks for the same few again and again."""
    out = _split(layers, pp, v, opts)
    for a in (out.layers, out.embedding, out.loss, out.count, out.position):
        a.flags.writeable = False
    return out


def _split(layers: int, pp, v, opts: PipelineOptions) -> Split:
    if opts.layout is not None:
        return _layout_split(opts.layout, pp)
    pp = np.asarray(pp, dtype=float)
    v = np.asarray(v, dtype=float)
    one = pp == 1
    if opts.first_stage_layers is not None or opts.last_stage_layers is not None:
        first, last = opts.first_stage_layers, opts.last_stage_layers
        middle_n = pp - (first is not None) - (last is not None)
        rest = layers - (first or 0) - (last or 0)
        mid = np.where(middle_n > 0, rest / np.maximum(middle_n, 1), 0.0)
        first_l = float(first) if first is not None else mid
        last_l = float(last) if last is not None else mid
        e = lo = np.zeros_like(pp)
        per = mid
    else:
        e, lo = (np.asarray(x, dtype=float) for x in _slots(layers, pp, v, opts))
        total = layers + e + lo
        even = np.mod(total, pp) == 0
        per = np.where(even, total / pp, np.ceil(layers / pp))  # uneven: DeepSpeed's uniform partition
        first_l = per - e
        last_l = np.where(even, per - lo, np.floor(layers / pp))
        # its middle ranks hold ceil(l/pp) or floor(l/pp): timed at their mean, as a rank's time is affine in its
        # layers (their sum, the bubble's, is exact); the first rank's ceil(l/pp) beside the embedding is the busiest
        mid = np.where(even | (pp <= 2), per, (layers - first_l - last_l) / np.maximum(pp - 2, 1))
    first_l = np.where(one, float(layers), first_l)
    ones = np.ones_like(pp)
    stack = lambda *xs: np.stack(np.broadcast_arrays(*xs), axis=-1)  # noqa: E731 (a local shorthand)
    return Split(layers=stack(first_l, mid, last_l), embedding=stack(ones, 0 * ones, 0 * ones),
                 loss=stack(np.where(one, 1.0, 0.0), 0 * ones, np.where(one, 0.0, 1.0)),
                 count=stack(ones, np.maximum(pp - 2, 0), np.where(one, 0.0, 1.0)),
                 position=stack(0 * ones, ones, pp - 1))


def busiest_layers(layers: int, pp, v, opts: PipelineOptions = DEFAULT):
    """Decoder layers on the rank that holds the most."""
    s = split(layers, pp, v, opts)
    return np.max(np.where(s.count > 0, s.layers, 0.0), axis=-1)


def _layout_split(text: str, pp) -> Split:
    """`split` of a layout string: one class per pipeline rank, every rank its own row.

    Layouts of several pp in one call (a search that leaves pp open) get as many classes as the largest pp; the
    ranks a smaller pp lacks have a count of 0 and a rank's mean share of the layers, as the even split's missing
    middle class has (so nothing divides by zero layers).
    """
    pps = np.asarray(pp, dtype=float)
    if np.ndim(pps) == 0 or np.ptp(pps) == 0:
        return _layout_rows(text, int(pps.flat[0]))
    width = int(pps.max())
    out = {f: np.zeros((*pps.shape, width)) for f in ("layers", "embedding", "loss", "count")}
    for p in np.unique(pps):
        rows, at = _layout_rows(text, int(p)), pps == p
        out["layers"][at] = rows.layers.sum() / p
        for f in out:
            out[f][at, :int(p)] = getattr(rows, f)
    return Split(out["layers"], out["embedding"], out["loss"], out["count"], np.arange(width, dtype=float))


def _layout_rows(text: str, pp: int) -> Split:
    grid, _ = parse_layout(text, pp)
    rows = [{k: sum(st[k] for st in row) for k in ("embedding", "decoder", "loss")} for row in grid]
    f = np.array
    return Split(f([r["decoder"] for r in rows], float), f([r["embedding"] for r in rows], float),
                 f([r["loss"] for r in rows], float), np.ones(len(rows)), np.arange(len(rows), dtype=float))
