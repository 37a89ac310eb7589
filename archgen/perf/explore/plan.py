"""Plan search: the layout and every training switch the stack allows, pruned by memory fit and a compute bound.

The layout search (`layouts.search_training`) varies tp, pp, dp, micro-batch, interleave, recompute, ZeRO and an MoE
model's ep and etp (etp where the stack folds the experts: `layouts.expert_layouts`), and takes the switches (overlaps,
sequence parallelism, attention kernel) from the stack's profile. A plan search also
varies every switch and layout field the stack can run (`archgen.model.switch_allows.ALLOWS`): sequence parallelism, the
attention kernel, TP, p2p, DP-reduce, parameter-gather and EP overlap, the ZeRO stage, CP, EP and host offload of
activations and optimizer state. A switch the workload states is kept, not searched. Weight offload is in the model
(`perf.train.offload`) but no stack archgen profiles runs it (`offload.WEIGHT_OFFLOAD_STACKS`): it is searched only
when asked (`model_only`), beside each offload the stack allows, and a plan that takes it says so (`model_only`
of the result: a plan of the model, after Calculon's, not one a stack can run).

The space is the layouts times the switch combinations; it is pruned, not walked (branch and bound):

1. **Memory fit.** No overlap switch changes the memory; sequence parallelism and flash attention only lower it.
   Each layout is evaluated once with each attention kernel and both sequence-parallel settings the stack allows;
   a layout that fits under none of them fits under no plan and is dropped.
2. **Compute bound.** No overlap lowers a layout's compute or optimizer time (overlaps only hide communication),
   so their sum under the cheapest of those settings bounds every plan of the layout from below (a roofline bound:
   the step without its exposed communication and bubble).
3. **Incumbent and bound.** Every switch combination is evaluated, vectorised over the layouts, on the layouts of
   least bound first; each later block of layouts is evaluated only where its bound is below the best step found.

Megatron's own rules are kept: TP overlap needs sequence parallelism (arguments.py), the EP overlap no
recomputation (`ep_exposure.expert_comm`), parameter-gather overlap the distributed optimizer (it acts only with
ZeRO >= 1), offload host memory.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from archgen.model.requirements import Requirement
from archgen.model.stack_features import without
from archgen.model.switch_allows import allowed
from archgen.model.switches import SWITCHES
from archgen.model.training_rules import NO_USERBUFFERS
from archgen.model.workload import Model, Workload
from archgen.perf.explore.plan_bound import JOB_SWITCHES, Bounds, Search, with_switches
from archgen.perf.explore.plan_result import PlanResult
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import OFFLOAD_CODES, WEIGHT_OFFLOAD
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layout_rules import divisors
from archgen.perf.train.layout_times import groups, layout_of
from archgen.perf.train.layouts import KEYS, enumerate_layouts
from archgen.perf.train.moot import moot
from archgen.perf.train.pipeline_split import DEFAULT, PipelineOptions, uniform_layout
from archgen.perf.train.ranks import busiest_memory
from archgen.perf.train.refused import cp_splits, without_refused_offloads
from archgen.perf.train.stacks import Knobs, stated_knobs, zero_stages
from archgen.perf.train.training import RECOMPUTE_CODES, estimate_training
from archgen.perf.workload.memory_limit import memory_limit, searched_within
from archgen.perf.workload.training_setup import etp_searched, on_its_vendor, training_setup

#: Overlaps that never add time in the model, so on dominates off: the DP reduction and gather show
#: shown + lost·(t - shown) <= t (`exposure.dp_exposed`), the interleaved p2p takes the lesser of the two schedules
#: (`training.estimate_training`). Searched by that rule: on wherever the stack allows them.
DOMINANT = ("overlap_p2p_comm", "overlap_grad_reduce", "overlap_param_gather")
#: Offload names by code (`memory.OFFLOAD_CODES`).
NAMES = {v: k for k, v in OFFLOAD_CODES.items()}


def search_plan(hw: Hardware, job: Job, gpus: int, stack: str, stated: dict[str, object],
                fixed: dict[str, int | str | None] | None = None, pipeline: PipelineOptions = DEFAULT,
                exhaustive: bool = False, model_only: bool = False) -> PlanResult:
    """The fastest plan that fits: a layout and the switches, each within what `stack` allows.

    `stated` and `fixed` hold the switches and the layout fields (etp too) the workload states: held, listed (`kept`).
    `exhaustive` evaluates every combination on every fitting layout (the reference the tests compare against).
    `model_only` also searches weight offload, which no stack runs, with each offload the stack allows.
    """
    given: dict[str, int | str] = {k: v for k, v in (fixed or {}).items() if v is not None}
    a = job.arch
    host = bool(np.any(hw.host_capacity > 0))
    searched: dict[str, tuple] = {}
    kept = given | {k: v for k, v in stated.items() if v is not None}  # held as stated

    def values(name: str, everything: tuple) -> tuple:
        if name in kept:
            return (kept[name],)
        got = allowed(stack, name)
        if name == "overlap_tp_comm" and job.recipe in NO_USERBUFFERS:  # TE's userbuffers refuse them
            got = (False,)
        out = everything if got == ("divisors",) else got
        searched[name] = out
        return out

    cps = [int(given["cp"])] if "cp" in given else [c for c in values("cp", tuple(divisors(job.seq_len)))
                                                     if gpus % c == 0 and cp_splits(job.seq_len, c)]
    if kept.get("attention") == "materialized":  # CP needs Transformer Engine's attention (`layout_problems`)
        cps = [c for c in cps if c == 1]
    if "cp" in searched:
        searched["cp"] = tuple(cps)
    eps = [int(given["ep"])] if "ep" in given else (
        list(values("ep", tuple(divisors(a.experts)))) if a.experts else [1])
    offload_do = bool(OFFLOAD_CODES[str(given.get("offload", "none"))] & 2)  # runs on the distributed optimizer
    zeros = (zero_stages(values("zero", (0, 1, 2, 3)), True if offload_do else stated.get("distributed_optimizer"))
             if "zero" not in given else (int(given["zero"]),))
    if "zero" in searched:
        searched["zero"] = zeros
    offs = ([OFFLOAD_CODES[str(given["offload"])]] if "offload" in given else
            [OFFLOAD_CODES[o] for o in values("offload", ()) if host or o == "none"])
    wide = model_only and host and "offload" not in given  # weight offload beside each offload the stack allows
    if wide:
        searched["offload"] = tuple(NAMES[c] for c in offs + [c | WEIGHT_OFFLOAD for c in offs])
    fold = bool(a.experts) and "etp" not in given and etp_searched(stack)  # else a stated etp, or tp
    tables = []
    for cp, ep in itertools.product(cps, eps):
        kernel = job.attention if "attention" in kept else "flash"  # kernel per plan: `Search`
        lay = enumerate_layouts(a, replace(job, attention=kernel, split_stack=stack), gpus, hw,
                                given | {"cp": cp, "ep": ep}, pipeline, zeros, fold)  # the stack's splits
        keep = np.isin(lay["zero"], zeros)
        tables.append({k: v[keep] for k, v in lay.items()})
    lay = {k: np.concatenate([t[k] for t in tables]) for k in (*KEYS, "etp")}
    spread = _spread(lay, given)
    if fold:  # the sizes MoE parallel folding allows on the valid layouts (`layouts.expert_tp_sizes`)
        searched["etp"] = tuple(int(x) for x in np.unique(lay["etp"]))
    lay = {k: np.repeat(v, len(offs)) for k, v in lay.items()}
    lay["offload"] = np.tile(np.asarray(offs, dtype=float), len(lay["tp"]) // max(len(offs), 1))
    lay = without_refused_offloads(lay, zeros)  # optimizer offload only on the distributed optimizer
    n = len(lay["tp"])

    sps = values("sequence_parallel", (False, True))
    # overlaps that never cost time in the model are on wherever the stack allows them (dominance, not search)
    fixed_on = {s: (kept[s] if s in kept else True in values(s, ())) for s in DOMINANT}
    # exclusive with each (`training_rules.shared_overlap_problem`, `training_rules.mtp_overlap_problem`)
    ep_free = a.experts and not job.moe_shared_expert_overlap and a.mtp_layers <= 1
    free = [s for s in JOB_SWITCHES if s not in DOMINANT and (s != "overlap_ep_comm" or ep_free)]
    combos = [fixed_on | dict(zip(free, c, strict=True)) for c in itertools.product(*(values(s, ()) for s in free))]
    combos = [c | ({} if ep_free else {"overlap_ep_comm": job.overlap_ep_comm}) for c in combos]
    plans = [(c, sp) for c, sp in itertools.product(combos, sps) if sp or not c["overlap_tp_comm"]]
    space = n * len(plans) * (2 if wide else 1)  # with weight offload every layout again with the weight bit
    if n == 0:
        return PlanResult(searched, kept, 0, 0, 0, 0, None, {}, (), None, None, layout_searched=spread)

    # 1-2: memory fit and the compute bound of the rows without recompute or offload, which only add time
    base = (lay["recompute"] == 0) & (lay["offload"] == 0)
    kernels = sorted({str(c["attention"]) for c in combos})
    # sequence parallelism only lowers memory and element-wise time
    b = Bounds(hw, job, lay, kernels, max(sps), pipeline)
    b.lower(np.flatnonzero(base))  # set as the search needs them (`Search.run`)
    # 3: the best plan among them, then recompute and offload only for groups that do not fit without them and
    # whose bound (a lower bound of their variants too) is below the best step found
    state = Search(b, plans, exhaustive)
    state.run(np.flatnonzero(base))
    group = groups([lay[k] for k in (*KEYS, "etp") if k not in ("recompute", "offload")])
    fits_base = np.zeros(group.max() + 1, dtype=bool)
    fits_base[group[base & np.isfinite(b.bound)]] = True
    group_raw = np.full(group.max() + 1, -np.inf)  # a group without a plain row (offload stated) has no bound yet
    group_raw[group[base]] = b.raw[base]
    rest = np.flatnonzero(~base & (exhaustive | (~fits_base[group] & (group_raw[group] < state.best_t))))
    # their times matter only where they fit (and for weight offload below): memory alone (cheaper) picks those rows
    fit = np.ones(len(rest), dtype=bool) if wide and exhaustive else b.fit(rest)
    todo = rest[fit]
    (b.set if wide else b.lower)(todo)  # bounded as the search needs them (`Search.run`), but where weight offload
    # reads their bounds below
    if wide:  # weight offload, like the others, only where memory needs it: rows that fit under no plan, again
        # with the weight bit, where their own compute + optimizer time (which the weights' copies and write-back
        # only lengthen: `offload.layer_exposed`) is below the best step found
        cand = np.arange(n) if exhaustive else np.flatnonzero(
            ~fits_base[group] & (group_raw[group] < state.best_t) & ~np.isfinite(b.bound))
        more = {k: v[cand] for k, v in lay.items()}
        more["offload"] = (more["offload"].astype(int) | WEIGHT_OFFLOAD).astype(float)
        low = replace(job, attention="flash" if "flash" in kernels else kernels[0])  # the kernel of least memory
        mem = busiest_memory(low, layout_of(more, np.full(len(cand), b.sp), pipeline))
        room = mem.fits(hw.hbm_capacity, hw.host_capacity, hw.fit_waste)  # memory alone, before the times
        if not exhaustive:  # then their own time, timed here for the rows the fit left out
            unset = np.ones(n, dtype=bool)
            unset[np.flatnonzero(base)], unset[rest[fit]] = False, False
            b.set(cand[room & unset[cand]])
            room = room & (b.raw[cand] < state.best_t)
        added = b.extend({k: v[room] for k, v in more.items()})
        b.set(added)
        todo = np.concatenate([todo, added])
    state.run(todo)
    lay, bound = b.lay, b.bound
    # rows never bounded (above the best step, `Search.run`) fit or not by their memory alone
    later = np.flatnonzero(base & ~b.done[:n])
    fitting = int(np.isfinite(bound).sum()) + int(b.fit(later).sum()) + int((~b.done[todo]).sum())
    best, evaluated = state.best, state.evaluated
    if best is None:
        return PlanResult(searched, kept, n * (2 if wide else 1), fitting, evaluated, space, None, {}, (), None,
                          None, searched_model_only=model_only, layout_searched=spread)
    i, combo, sp = best
    layout = _best_layout(lay, i)
    if (placed := uniform_layout(a.layers, int(layout["pp"]), int(layout["interleave"]), pipeline, a.mtp_layers)
            ) is not None:
        layout["pipeline_layout"] = placed  # as `layouts.search_training` gives an uneven split
    plan_job = with_switches(job, combo)
    one = estimate_training(hw, plan_job, _scalar_layout(layout, sp, pipeline))
    switches = {"sequence_parallel": bool(sp), **combo}
    if int(layout["zero"]) < 1:
        switches["overlap_param_gather"] = False  # no parameter gather without the distributed optimizer
    on = _turned_on(layout, switches)
    extra = ("weight offload",) if OFFLOAD_CODES[str(layout.get("offload", "none"))] & WEIGHT_OFFLOAD else ()
    return PlanResult(searched, kept, n * (2 if wide else 1), fitting, evaluated, space, layout, switches, on,
                      one, plan_job, extra, model_only, spread)


def _acts(layout: dict[str, int | str]) -> dict[str, bool]:
    """Whether each on/off switch acts at `layout` (a TP overlap with tp 1 does nothing)."""
    tp, pp, dp, v, zero = (int(layout[k]) for k in ("tp", "pp", "dp", "interleave", "zero"))
    return {"sequence_parallel": tp > 1, "overlap_tp_comm": tp > 1, "overlap_p2p_comm": pp > 1 and v > 1,
            "overlap_grad_reduce": dp > 1, "overlap_param_gather": dp > 1 and zero >= 1,
            "overlap_ep_comm": int(layout["ep"]) > 1}


def _turned_on(layout: dict[str, int | str], switches: dict[str, object]) -> tuple[str, ...]:
    """The switches and layout options a plan turns on, where they act (a TP overlap with tp 1 does nothing)."""
    zero = int(layout["zero"])
    acts = _acts(layout)
    on = [k for k, v in switches.items() if v is True and acts.get(k, True)]
    on += ["flash attention"] if switches.get("attention") == "flash" else []
    on += [f"{k} {layout[k]}" for k in ("cp", "ep") if int(layout[k]) > 1]
    on += [f"etp {layout['etp']}"] if "etp" in layout else []  # shown where it is not tp (`_best_layout`)
    on += [f"zero {zero}"] if zero else []
    on += [f"offload {layout['offload']}"] if "offload" in layout else []
    return tuple(on)


#: Layout fields of the layout search that a plan search reports with their values (cp, ep, zero and offload are
#: among the switches: `PlanResult.searched`).
LAYOUT_FIELDS = ("tp", "pp", "dp", "micro_batch", "interleave", "recompute")


def _spread(lay: dict[str, np.ndarray], given: dict[str, int | str]) -> dict[str, tuple]:
    """The values each layout field the workload leaves open takes over the valid layouts `lay`, ascending."""
    names = {v: k for k, v in RECOMPUTE_CODES.items()}
    return {k: tuple(names[int(x)] if k == "recompute" else int(x) for x in np.unique(lay[k]))
            for k in LAYOUT_FIELDS if k not in given}


def _best_layout(lay: dict[str, np.ndarray], i: int) -> dict[str, int | str]:
    names = {v: k for k, v in RECOMPUTE_CODES.items()}
    out: dict[str, int | str] = {k: int(lay[k][i]) for k in KEYS}
    out["recompute"] = names[int(lay["recompute"][i])]
    if lay["etp"][i] != lay["tp"][i]:  # an etp that folds the experts differently (`layouts.search_training`)
        out["etp"] = int(lay["etp"][i])
    code = out.pop("offload")
    if code:
        out["offload"] = NAMES[int(code)]
    return out


def _scalar_layout(layout: dict[str, int | str], sp: bool, pipeline: PipelineOptions) -> Layout:
    return Layout(int(layout["tp"]), int(layout["pp"]), int(layout["dp"]), int(layout["micro_batch"]),
                  int(layout["cp"]), int(layout["ep"]), int(layout["interleave"]),
                  RECOMPUTE_CODES[str(layout["recompute"])], sp, int(layout["zero"]), pipeline,
                  OFFLOAD_CODES[str(layout.get("offload", "none"))], int(layout["etp"]) if "etp" in layout else None)


def plan_for_workload(workload: Workload, model: Model | None, hw: Hardware, gpus: int,
                      model_only: bool = False, elsewhere: Sequence[Requirement] = ()) -> PlanResult:
    """The plan search of a training workload on `gpus` accelerators of `hw` (`estimate --search-plan`).

    The stack is the workload's (the default profile when it states none); the switches and layout fields it states
    are kept. `model_only` also searches weight offload (`search_plan`). Its memory targets bound it, its own and
    those other documents state on it (`elsewhere`; `perf.workload.memory_limit`), as they bound the estimate's.
    """
    workload = on_its_vendor(workload, hw.vendor)  # no stack stated: the vendor's newest profile
    t = workload.training
    assert t is not None, "a plan is searched for a training workload"
    assert model is not None, "its estimate, made first, refuses a training workload without its model"
    setup = training_setup(workload, Arch.from_model(model, t.mtp_layers), hw, gpus)
    given = t.parallelism.model_fields_set  # cp and ep default to 1: searched unless the workload states them
    fixed = {k: v for k, v in setup.fixed.items() if k not in ("cp", "ep") or k in given}
    res, within = searched_within(memory_limit(workload, hw.hbm_capacity, elsewhere), hw, lambda h: search_plan(
        h, setup.job, gpus, t.stack, stated_knobs(t), fixed, setup.pipeline, model_only=model_only),
        lambda r: r.best is not None)
    placed = {k: getattr(t.parallelism, k) for k in PLACEMENT if k in given}  # held as stated, through `pipeline`
    moe = bool(setup.job.arch.experts)
    etp = etp_held(t.stack) if moe and "etp" not in given and not etp_searched(t.stack) else {}
    return replace(res, kept=res.kept | placed, profile=not_searched(res, setup.knobs, moe, t.precision),
                   turned_off=turned_off(res, setup.knobs), stack=t.stack, memory_limit=within, defaults=etp)


#: Layout fields that place the layers (`training_setup.pipeline_options`) or split CP: held as stated, listed so.
PLACEMENT = ("hierarchical_context_parallel_sizes", "embedding_slot", "loss_slot", "first_stage_layers",
             "last_stage_layers", "pipeline_layout")


def etp_held(stack: str) -> dict[str, tuple[object, str]]:
    """An MoE model's etp left out under a stack without MoE parallel folding: tp, the only size it runs, in words.

    plan38 held it at tp under every stack and said so; where the stack folds, etp is searched (etp39, `search_plan`).
    """
    return {"etp": ("tp", f"the only expert tensor-parallel size the stack runs: {without(stack, 'etp')}")}


def turned_off(res: PlanResult, knobs: Knobs) -> tuple[str, ...]:
    """The searched switches the stack profile (`knobs`) turns on and the best plan turns off, where they act.

    "turned on" alone named what the plan runs, not what it drops: Llama 3.1 405B on 576 GB200 (nemo-2025) plans tp 2
    without the profile's TP overlap, which the output left unsaid (newuser88). The flash kernel counts as on, the
    distributed optimizer as on at ZeRO 1 or more.
    """
    if res.best is None:
        return ()
    acts = _acts(res.best)
    off = [k for k, v in res.switches.items() if k in res.searched and v is False and getattr(knobs, k, None) is True
           and acts.get(k, True)]
    if "attention" in res.searched and res.switches.get("attention") != "flash" and knobs.attention == "flash":
        off.append("flash attention")
    if "zero" in res.searched and int(res.best["zero"]) == 0 and knobs.distributed_optimizer:
        off.append("distributed optimizer (zero 0)")
    return tuple(off)


def not_searched(res: PlanResult, knobs: Knobs, moe: bool, precision: str) -> dict[str, tuple]:
    """The switches the plan search took from the stack profile without searching them, with their values.

    Each with why the best plan does not use it (`moot`; "" where it does). The distributed optimizer goes with
    the ZeRO stage searched; a stated one is `PlanResult.kept` (plan38: a stated MoE dispatcher read as the profile's).
    Before (newuser38), the output named only the switches searched and stated, and left the rest unsaid.
    """
    covered = {*res.searched, *res.kept} | ({"distributed_optimizer"} if "zero" in res.searched else set())
    return {n: (getattr(knobs, n), moot(n, res.best or {}, moe, precision) or "") for n in SWITCHES if n not in covered}
