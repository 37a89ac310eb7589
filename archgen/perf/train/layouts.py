"""Parallel-layout search: every valid TP, PP, DP, micro-batch, interleave, recompute, ZeRO, offload (`layout_rules`).

The search enumerates the layouts with numpy, evaluates them in one vectorised call of `estimate_training`, drops those
that do not fit in HBM and returns the fastest. Fixed fields of a `Parallelism` restrict the enumeration. Interleaving
goes up to one layer per virtual stage (layers / pp, as Calculon and Megatron-core allow), trying only the divisors an
interleaved split needs (`interleaves`); every enumeration is of divisors, so a search's work is bounded by the divisors
of the accelerators, the heads and the batch, not by their size (issue 23 item 5). Where the system has host memory and
no layout fits, every layout is evaluated again with each offload (`memory.OFFLOAD_CODES`): offload only adds copy time,
so the search turns to it where memory binds.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from archgen.errors import AnalyseError
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import OFFLOAD_CODES
from archgen.perf.train.cp_comm import cp_comm_problem
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layout_rules import (
    LayoutProblem,
    divisors,
    ep_overlap_problems,
    expert_problems,
    ffn_problem,
    interleaves,
    layout_problems,
)
from archgen.perf.train.layout_times import fastest, layout_of
from archgen.perf.train.layout_times import fits as layout_fits
from archgen.perf.train.pipeline_split import DEFAULT, PipelineOptions, slot_count, split_problems, uniform_layout
from archgen.perf.train.ranks import busiest_memory
from archgen.perf.train.refused import (
    cp_splits,
    kv_heads_problem,
    runs_split,
    without_refused_offloads,
    without_refused_tp,
)
from archgen.perf.train.training import RECOMPUTE_CODES, TrainingEstimate, estimate_training

MAX_MICRO_BATCH = 16
#: Sharding stages searched when a workload leaves `zero` out (see `job.Layout.zero`).
ZERO_STAGES = (0, 1, 2, 3)
#: Offloads (`memory.OFFLOAD_CODES`: activations, optimizer, both) tried when no layout fits and host memory is there.
OFFLOADS = (1, 2, 3)
KEYS = ("tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave", "recompute", "zero", "offload")


def no_layout_reason(arch: Arch, job: Job, gpus: int, fixed: dict[str, int | str | None], hw: Hardware) -> str:
    """Why no layout of `gpus` accelerators is valid, in words, and the nearest counts that have one.

    Candidates take the given fields and every tp and pp that divide the accelerators, with dp completing the
    product; the nearest has the fewest problems (then the largest tp, then the fewest stages). The counts offered
    are whole scale-up domains, the nearest below and above with at least one valid layout.
    """
    given = {k: int(v) for k, v in fixed.items() if v is not None and k not in ("recompute", "offload")}
    cp, ep = given.get("cp", 1), given.get("ep", 1)
    mb, v = given.get("micro_batch", 1), given.get("interleave", 1)
    best: tuple[tuple[int, int, int], str, list[LayoutProblem]] | None = None
    for tp in [given["tp"]] if "tp" in given else [t for t in divisors(gpus) if t <= hw.scale_up_size]:
        for pp in [given["pp"]] if "pp" in given else divisors(max(gpus // tp, 1)):
            dp = given.get("dp", max(gpus // (tp * pp * cp), 1))
            problems = layout_problems(arch, job, gpus, tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, micro_batch=mb,
                                       interleave=v, scale_up_size=hw.scale_up_size, etp=given.get("etp"))
            key = (len(problems), -tp, pp)
            if best is None or key < best[0]:
                best = (key, f"tp={tp} pp={pp} dp={dp} cp={cp}", problems)
    out = f"no parallel layout of {gpus} accelerators is valid"
    if best is not None and best[2]:
        out += f"; the nearest ({best[1]}): " + "; ".join(best[2])
    below, above = nearest_counts(arch, job, gpus, hw, fixed)
    near = [n for n in (below, above) if n]
    return out + (f"; {' and '.join(str(n) for n in near)} accelerators would have one" if near else "")


#: Candidate counts tried on each side of a count that has no layout (`nearest_counts`), each confirmed by the search.
NEAREST_TRIES = 48


def nearest_counts(arch: Arch, job: Job, gpus: int, hw: Hardware, fixed: dict[str, int | str | None],
                   pipeline: PipelineOptions = DEFAULT) -> tuple[int | None, int | None]:
    """The nearest whole-domain accelerator counts below and above `gpus` (within half and double) with a layout.

    A count has a layout only as tp x cp x pp x dp with tp a divisor of the heads up to the scale-up domain, dp a
    divisor of the global batch and pp at most the layers (slots): the candidates are built from those products,
    nearest first, and each is confirmed by `enumerate_layouts`. The work grows with the divisors of the heads and
    the batch, not with the accelerators (scanning every domain between half and double took 241 s for 10,000,512
    accelerators, issue 23 item 5); at most `NEAREST_TRIES` candidates a side are confirmed.
    """
    d = max(int(hw.scale_up_size), 1)
    given = {k: int(v) for k, v in fixed.items() if v is not None and k not in ("recompute", "offload")}
    cp = given.get("cp", 1)
    tps = [given["tp"]] if "tp" in given else [t for t in divisors(arch.heads) if t <= d]
    dps = [given["dp"]] if "dp" in given else divisors(job.global_batch)
    top = arch.layers + 2 if pipeline.layout is None else arch.layers + pipeline.layout.count("|") + 1
    pps = [given["pp"]] if "pp" in given else None
    lows: set[int] = set()
    highs: set[int] = set()
    for tp, dp in itertools.product(tps, dps):
        b = tp * cp * dp
        step = d // math.gcd(b, d)  # pp a multiple of step makes b x pp whole domains
        if pps is not None:
            cands = [p for p in pps if p % step == 0]
            lows.update(b * p for p in cands if gpus // 2 < b * p < gpus)
            highs.update(b * p for p in cands if gpus < b * p < 2 * gpus)
            continue
        hi = min(top, (gpus - 1) // b) // step * step
        lows.update(b * p for p in range(hi, 0, -step)[:NEAREST_TRIES] if b * p > gpus // 2)
        lo = (gpus // b + 1 + step - 1) // step * step
        highs.update(b * p for p in range(lo, top + 1, step)[:NEAREST_TRIES] if b * p < 2 * gpus)
    return (_first_valid(arch, job, hw, fixed, sorted(lows, reverse=True), pipeline),
            _first_valid(arch, job, hw, fixed, sorted(highs), pipeline))


def _first_valid(arch: Arch, job: Job, hw: Hardware, fixed: dict, counts: list[int],
                 pipeline: PipelineOptions) -> int | None:
    """The first of `counts` (up to `NEAREST_TRIES`) with at least one valid layout."""
    return next((n for n in counts[:NEAREST_TRIES] if len(enumerate_layouts(arch, job, n, hw, fixed, pipeline)["tp"])),
                None)


@dataclass(frozen=True)
class SearchResult:
    """Outcome of a layout search.

    `fits` is each layout's fit (`TrainingEstimate.fits`, from its memory alone). The search times only layouts that
    fit, best first (`layout_times.fastest`); every layout's step time, which only the tests read, is one
    `estimate_training` call over `layouts` (plan38: it was a property here, and `layout_times.step_times`, read by
    nothing else).
    """

    evaluated: int
    fitting: int
    best: dict[str, int | str] | None
    estimate: TrainingEstimate | None
    layouts: dict[str, np.ndarray]
    fits: np.ndarray


def enumerate_layouts(arch: Arch, job: Job, gpus: int, hw: Hardware,
                      fixed: Mapping[str, int | str | None] | None = None,
                      pipeline: PipelineOptions = DEFAULT, zeros: tuple[int, ...] = ZERO_STAGES,
                      search_etp: bool = False) -> dict[str, np.ndarray]:
    """All valid layouts as parallel arrays (keys: `KEYS` and etp), by the rules of `layout_problems`.

    `zeros`: the ZeRO stages tried where `fixed` leaves `zero` out (the stack's, `switch_allows.ALLOWS`).
    `search_etp`: an MoE model's etp, where `fixed` leaves it out, takes every size MoE parallel folding allows
    (`expert_layouts`; the stack's code must fold: `training_setup.etp_searched`), else tp. A pp that
    divides the layers only with the slots or not at all is tried where `pipeline` states no placement only if the
    job's stack places it (`refused.runs_split`, `switch_allows.UNEVEN_SPLITS`).
    """
    given = {k: v for k, v in (fixed or {}).items() if v is not None}
    num = {k: int(v) for k, v in given.items() if k not in ("recompute", "offload")}  # the integer fields
    cp = num.get("cp", 1)
    etp = num.get("etp")
    offload = OFFLOAD_CODES[str(given["offload"])] if "offload" in given else 0
    stated_rcs = [RECOMPUTE_CODES[str(given["recompute"])]] if "recompute" in given else [0, 1, 2]
    blocks = []
    grids: dict[tuple, np.ndarray] = {}  # (v, recompute, zero) in `itertools.product` order, per (vs, rcs, zs)
    if job.attention == "materialized" and cp > 1:  # `layout_problems`: CP needs Transformer Engine's attention
        return {k: np.zeros(0) for k in (*KEYS, "etp")}
    for tp in ([num["tp"]] if "tp" in num else divisors(gpus)):
        if tp > hw.scale_up_size or arch.heads % tp or kv_heads_problem(arch.kv_heads, tp, job.qkv_subsharding) \
                or ffn_problem(arch, tp) or gpus % (tp * cp) or not cp_splits(job.seq_len, cp) \
                or cp_comm_problem(arch, job, tp, cp):
            continue
        for pp in ([num["pp"]] if "pp" in num else divisors(gpus // (tp * cp))):
            if gpus % (tp * cp * pp):
                continue
            dp = gpus // (tp * cp * pp)
            if "dp" in num and num["dp"] != dp:
                continue
            if pp > arch.layers + 2 and pipeline.layout is None:
                continue  # fewer layers and slots than stages (`layout_problems`)
            tried = [num["interleave"]] if "interleave" in num else interleaves(arch.layers, pp, pipeline)
            valid = [v for v in tried
                     if (arch.layers + slot_count(arch.layers, pp, v, pipeline) >= pp * v
                         or pipeline.layout is not None) and not split_problems(arch.layers, pp, v, pipeline)]
            # the splits the stack places; a stated placement it places at no interleave is taken as stated
            placed = [v for v in valid if runs_split(job.split_stack, arch.layers, pp, v, pipeline)] \
                or (valid if pipeline.stated else [])
            zs = [num["zero"]] if "zero" in num else (list(zeros) if dp > 1 else [0 if 0 in zeros else min(zeros)])
            per_dp = job.global_batch // dp if job.global_batch % dp == 0 else 0
            mbs = [num["micro_batch"]] if "micro_batch" in num else [d for d in divisors(per_dp)
                                                                         if d <= MAX_MICRO_BATCH] if per_dp else []
            for ep, e in expert_layouts(arch, num, tp, dp, cp, etp, search_etp, hw.scale_up_size):
                rcs = tuple(rc for rc in stated_rcs if not ep_overlap_problems(job, ep, 1, 1, rc))
                vs = [v for v in placed if not ep_overlap_problems(job, ep, pp, v, 0)]
                for mb in mbs:
                    if job.global_batch % (dp * mb):
                        continue
                    m = job.global_batch // (dp * mb)
                    ok = m % pp == 0 if pipeline.whole_groups else m >= pp  # `layout_problems`: interleaving needs it
                    vv = tuple(vs) if ok else tuple(v for v in vs if v == 1)
                    grid = grids.get((vv, rcs, tuple(zs)))
                    if grid is None:
                        grid = grids[(vv, rcs, tuple(zs))] = np.array(list(itertools.product(vv, rcs, zs)),
                                                                      dtype=float).reshape(-1, 3)
                    block = np.empty((len(grid), len(KEYS) + 1))
                    block[:] = (tp, pp, dp, cp, ep, mb, 0, 0, 0, offload, e)
                    block[:, 6:9] = grid  # interleave, recompute, zero
                    blocks.append(block)
    arr = np.concatenate(blocks) if blocks else np.zeros((0, len(KEYS) + 1))
    return {k: arr[:, i] for i, k in enumerate((*KEYS, "etp"))}


def expert_layouts(arch: Arch, num: Mapping[str, int], tp: int, dp: int, cp: int, etp: int | None,
                   search_etp: bool = False, scale_up: int | None = None) -> list[tuple[int, int]]:
    """The (ep, etp) a layout of (tp, dp, cp) may take, ep ascending, each ep's etp = tp first.

    ep: the stated one, else 1 for a dense model, else every ep MoE parallel folding allows on these ranks
    (`layout_rules.expert_problems`). Before (layout28), the search held ep at 1: with primus-2025, DeepSeek-V3's 256
    experts on 256 MI355X searched to every expert on every rank (pp 32, 11.99 s), where AMD's own configuration for
    that job runs ep 8 (AMD-AGI/Primus examples/megatron/configs/MI355X/deepseek_v3-BF16-pretrain.yaml at 05b350b3:
    "tuned for 32N on MI355X", pp 16, ep 8).

    etp: the stated one, else tp, and with `search_etp` (an MoE model) also each other size `expert_tp_sizes`
    gives. Before (etp39), a left-out etp was held at tp under every stack (plan38 said so).
    """
    eps = [num["ep"]] if "ep" in num else divisors(arch.experts) if arch.experts else [1]
    etps = [etp] + (expert_tp_sizes(tp, tp * cp * dp, scale_up) if search_etp and etp is None and arch.experts
                    else [])  # None: tp
    return [(ep, e or tp) for ep in eps for e in etps if not expert_problems(arch, tp, dp, cp, ep, e)]


def expert_tp_sizes(tp: int, ranks: int, scale_up: int | None) -> list[int]:
    """The expert tensor-parallel sizes other than `tp` a pipeline stage of `ranks` (tp x cp x dp) may take, ascending.

    Megatron-core's MoE parallel folding (`experts`) lays the stage's ranks out for the experts as etp x ep x edp
    and asks only that etp x ep divide them (parallel_state.py `initialize_model_parallel` at d98e8a6, lines
    870-884, the RuntimeError "world_size ... is not divisible by expert_tensor_model_pipeline_parallel size"; the
    same at core_v0.10.0, lines 643-652, where folding arrived with 7f22e21; `expert_problems` holds it with each
    ep): etp may be below tp, equal to it or above it (arguments.py at d98e8a6, lines 587-588, only defaults it to
    tp). Each stays within the scale-up domain, as tp does (`layout_problems`): that bound is archgen's, not
    Megatron-core's, and the search's only (a stated etp beyond the domain is taken as stated). That each divides the
    expert FFN is Megatron-core's rule, held by `expert_problems` on every (ep, etp) `expert_layouts` gives, as on a
    stated etp.
    """
    return [e for e in divisors(ranks) if e != tp and (scale_up is None or e <= scale_up)]


def search_training(hw: Hardware, job: Job, gpus: int, fixed: Mapping[str, int | str | None] | None = None,
                    sequence_parallel: bool = True, pipeline: PipelineOptions = DEFAULT,
                    zeros: tuple[int, ...] = ZERO_STAGES, offloads: tuple[int, ...] = OFFLOADS,
                    search_etp: bool = False) -> SearchResult:
    """The fastest layout that fits, among every valid layout consistent with `fixed`.

    A best layout whose pp does not divide the layers (even with the slots; no placement stated) carries the
    `pipeline_layout` string that places it (`pipeline_split.uniform_layout`, timed alike), without which Megatron-LM
    asserts an even split: the answer is one the Megatron stacks run as given.

    Args:
        hw: Hardware.
        job: Model and batch.
        gpus: Accelerators in the job.
        fixed: Layout fields given by the workload (tp, pp, dp, cp, ep, micro_batch, interleave, recompute, zero,
            offload).
        sequence_parallel: Whether TP layouts use sequence parallelism (without it an MoE model's are refused).
        pipeline: How the layers are placed on the pipeline ranks.
        zeros: The ZeRO stages tried where `fixed` leaves `zero` out (the stack's: `TrainingSetup.zeros`).
        offloads: The offload codes tried where no layout fits and `fixed` leaves `offload` out (the stack's).
        search_etp: Whether an MoE model's etp, where `fixed` leaves it out, is searched (`enumerate_layouts`).

    Returns:
        The search result; `best` is None when no layout fits (a finding, not an error).
    """
    if gpus <= 0:
        raise AnalyseError(f"the number of accelerators must be positive, got {gpus}")
    lay = without_refused_tp(enumerate_layouts(job.arch, job, gpus, hw, fixed, pipeline, zeros, search_etp), job,
                             sequence_parallel)
    if len(lay["tp"]) == 0:
        return SearchResult(0, 0, None, None, lay, np.zeros(0, dtype=bool))
    fits = layout_fits(hw, job, lay, sequence_parallel, pipeline)
    if np.any(hw.host_capacity > 0) and (fixed or {}).get("offload") is None and offloads and not fits.any():
        tight = {k: np.repeat(v[~fits], len(offloads)) for k, v in lay.items()}  # none fits: each again, offloading
        tight["offload"] = np.tile(np.array(offloads, dtype=float), int((~fits).sum()))
        tight = without_refused_offloads(tight, zeros)
        lay = {k: np.concatenate([lay[k], tight[k]]) for k in lay}
        fits = np.concatenate([fits, layout_fits(hw, job, tight, sequence_parallel, pipeline)])
    n = len(lay["tp"])
    if not fits.any():
        return SearchResult(n, 0, None, None, lay, fits)
    at = np.flatnonzero(fits)  # only a layout that fits can be the best: those alone are timed, best first
    i = int(at[fastest(hw, job, {k: v[at] for k, v in lay.items()}, sequence_parallel, pipeline)])
    names = {v: k for k, v in RECOMPUTE_CODES.items()}
    num = {k: int(lay[k][i]) for k in KEYS}
    best: dict[str, int | str] = dict(num)
    if lay["etp"][i] != lay["tp"][i]:  # an etp that folds the experts differently from the attention
        best["etp"] = int(lay["etp"][i])
    best["recompute"] = names[num["recompute"]]
    code = int(best.pop("offload"))
    if code:
        best["offload"] = {v: k for k, v in OFFLOAD_CODES.items()}[code]
    if (placed := uniform_layout(job.arch.layers, num["pp"], num["interleave"], pipeline, job.arch.mtp_layers)
            ) is not None:
        best["pipeline_layout"] = placed  # an uneven split runs under Megatron only so placed (`uniform_layout`)
    one = estimate_training(hw, job, Layout(num["tp"], num["pp"], num["dp"], num["micro_batch"], num["cp"],
                                            num["ep"], num["interleave"], num["recompute"],
                                            sequence_parallel, num["zero"], pipeline, code, int(lay["etp"][i])))
    return SearchResult(n, int(fits.sum()), best, one, lay, fits)


def least_memory(hw: Hardware, job: Job, lay: dict[str, np.ndarray], sequence_parallel: bool,
                 pipeline: PipelineOptions) -> tuple[str, float, float]:
    """The layout of `lay` that misses its memory by the least, as text, with its HBM and host memory (B).

    "By the least": the lowest of each layout's larger ratio, HBM to the part's and host memory to its share of the
    node's (an offloading layout that fits in HBM but not in host memory misses too). What a search none of whose
    layouts fits says (newuser89: DeepSeek-V3's published layout with micro_batch left out read only "none of the 6
    valid layouts ... fits in HBM", no figure, where the same layout stated whole gave its estimate and "needs 145.4
    GB per accelerator").
    """
    n = len(lay["tp"])
    mem = busiest_memory(job, layout_of(lay, sequence_parallel, pipeline))  # its memory alone, as `fits` (no times)
    total, host = (np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in (mem.total, mem.host))
    over = np.maximum(total / hw.hbm_capacity, np.where(host > 0, host / max(hw.host_capacity, 1.0), 0.0))
    i = int(np.argmin(over))
    names = {v: k for k, v in RECOMPUTE_CODES.items()}
    fields = [f"{k} {int(lay[k][i])}" for k in ("tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave")]
    fields += [f"recompute {names[int(lay['recompute'][i])]}", f"zero {int(lay['zero'][i])}"]
    fields += [f"etp {int(lay['etp'][i])}"] if "etp" in lay and lay["etp"][i] != lay["tp"][i] else []  # as `best`
    if int(lay["offload"][i]):
        fields.append(f"offload {({v: k for k, v in OFFLOAD_CODES.items()})[int(lay['offload'][i])]}")
    return ", ".join(fields), float(total[i]), float(host[i])
