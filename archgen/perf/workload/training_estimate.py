"""A training workload estimated (`estimate.estimate` calls it).

Its setup (job, switches, fixed layout fields), the layout search or the stated layout, the step time and its
notes (the stack range, the efficiency range), and the elasticities.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from archgen.display import ESTIMATE_FIGURES, significant
from archgen.errors import WorkloadError
from archgen.model.requirements import Requirement
from archgen.model.stack_features import missing
from archgen.model.switch_allows import UNSETTLED, allowed, beyond_stack, unsettled_words
from archgen.model.switch_table import as_written
from archgen.model.unsettled import OTHER_END, VALUE_END, moved
from archgen.model.workload import Training, Workload
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.launch import HOST_OPS
from archgen.perf.hw.memory import OFFLOAD_CODES, does_not_fit_note, misfit_text, none_fits_note
from archgen.perf.hw.reserve import holds_reserve, memory_ends, reserve_convention
from archgen.perf.train import contention as C
from archgen.perf.train.job import QKV_SUBSHARDING, Job, Layout
from archgen.perf.train.layouts import least_memory, no_layout_reason, search_training
from archgen.perf.train.moot import moot
from archgen.perf.train.pipeline_split import uniform_layout
from archgen.perf.train.refused import kv_heads_problem, runs_split
from archgen.perf.train.stacks import (
    newest,
    on_vendor,
    open_knobs,
    resolve,
    stated_knobs,
    variants,
)
from archgen.perf.train.training import RECOMPUTE_CODES, TrainingEstimate, estimate_training
from archgen.perf.workload.balance_note import balance_note
from archgen.perf.workload.cp_note import cp_note
from archgen.perf.workload.defaults_note import assumed_stack, stack_origin
from archgen.perf.workload.defaults_taken import defaults_taken
from archgen.perf.workload.efficiency_range import over_range, span_note
from archgen.perf.workload.ep_exposed_note import ep_exposed_note
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.flop_counting import flop_counting
from archgen.perf.workload.kernel_notes import dropout_note, position_note
from archgen.perf.workload.memory_limit import memory_limit, searched_within
from archgen.perf.workload.memory_model_note import fit_judged, memory_model_note
from archgen.perf.workload.moe_pass_note import moe_pass_note
from archgen.perf.workload.nvidia_only import deepep_rocm_note, dispatcher_problem, tp_overlap_note
from archgen.perf.workload.sensitivity import elasticities
from archgen.perf.workload.sm_note import sm_note
from archgen.perf.workload.straddle_note import straddle_note
from archgen.perf.workload.swing_note import swing_metrics
from archgen.perf.workload.training_setup import etp_searched, pipeline_options, training_setup
from archgen.units import Q_, Q


def held_note(arch: Arch, t: Training) -> str:
    """What the layout search held of the layout without searching it, where the workload leaves it out.

    The layout search varies tp, pp, dp, micro_batch, interleave, recompute, the ZeRO stage and an MoE model's ep
    and etp (etp only under a stack that folds the experts, `training_setup.etp_searched`; else tp); cp keeps the
    schema's default 1; a plan search (`--search-plan`, `perf.explore.plan`) searches cp too. Before (etp39) etp
    was held at tp under every stack; before (layout28) ep was held at 1 too: every expert on every rank (newuser38: a
    600B-A40B job on 16,128 GB300 at ep 1 ran 4.96 s a step where the plan search found 0.70 s at ep 16, cp 4;
    newuser74: DeepSeek-V3 on 256 MI355X searched to pp 32 at ep 1, where AMD's configuration runs ep 8). A dense
    model's cp is held too, and said so: before (newuser53), Llama 3.1 70B at 131,072 tokens on 512 GB200 read
    "layout searched" at 5.411 s (tp 32, cp 1) where the plan search found 3.487 s at tp 2, cp 16. Empty where the
    workload states cp (and, under a stack that cannot fold the experts, an MoE model's etp).
    """
    held = held_fields(bool(arch.experts), t.parallelism.model_fields_set, t.stack)
    if not held:
        return ""
    plan = "`--search-plan` searches cp too, or " if "cp 1" in held else ""
    them = "them" if len(held) > 1 else "it"
    return f"; {', '.join(held)} held, not searched (left out: {SEARCHED}; {plan}state {them})"


#: What the layout search of an estimate or of a sweep's point varies (`layouts.search_training`).
SEARCHED = "this search varies tp, pp, dp, micro_batch, interleave, recompute, zero and an MoE model's ep and etp"


def held_fields(experts: bool, given: Collection[str], stack: str | None = None) -> list[str]:
    """The layout fields the layout search holds at the schema's default where `given` (stated or swept) leaves them.

    An MoE model's ep and etp are searched (`layouts.expert_layouts`), ep held at 1 under a `stack` that runs no
    expert parallelism (`switch_allows.ALLOWS`), etp at tp under one whose code lacks MoE parallel folding
    (`training_setup.etp_searched`); cp at 1. `stack` None: the newest's, which runs both.
    """
    no_ep = experts and "ep" not in given and stack is not None and allowed(stack, "ep") != ("divisors",)
    no_etp = experts and "etp" not in given and stack is not None and not etp_searched(stack)
    return ([f"ep 1 (stack {stack} runs no expert parallelism)"] if no_ep else []) \
        + ([f"etp = tp (stack {stack} lacks MoE parallel folding)"] if no_etp else []) \
        + (["cp 1"] if "cp" not in given else [])


def sweep_held_note(experts: bool, t: Training, axes: Collection[str]) -> list[str]:
    """What every point of a sweep of training job `t` holds of the layout that neither `t` states nor an axis sweeps.

    As `held_note` says it of an estimate (newuser53); before (nu53fix) a sweep held cp at 1 and said nothing. Empty
    where `t` states cp (and, under a stack that cannot fold the experts, an MoE model's etp) or an axis sweeps it.
    """
    held = held_fields(experts, set(t.parallelism.model_fields_set) | set(axes), t.stack)
    if not held:
        return []
    them = "them" if len(held) > 1 else "it"
    plan = ", or `archgen estimate --search-plan` the workload, which searches cp too" if "cp 1" in held else ""
    return [f"{', '.join(held)} at every point, held, not searched: neither the workload states {them} nor an axis "
            f"sweeps {them} (left out: {SEARCHED}; add an axis or state {them}{plan})"]


def placed_note(arch: Arch, pp: int, text: str, searched: bool) -> str:
    """How the estimate placed layers that pp does not divide: with the `pipeline_layout` string `text`.

    The layout search answers such a pp with the string (`search_training`), and a stated pp that places the layers
    no other way is taken as placed by it (`training_estimate`). Before (layout28) the search's answer was the bare
    pp, which Megatron-LM refuses: with primus-2025, DeepSeek-V3's 61 layers on pp 32. AMD's own 256-MI355X
    configuration for that model places its 61 layers on pp 16 with such a string (AMD-AGI/Primus
    examples/megatron/configs/MI355X/deepseek_v3-BF16-pretrain.yaml at 05b350b3, `pipeline_model_parallel_layout`).
    Before lay28fix2 a stated bare pp was timed so and a note said which string runs it; it now carries the string in
    its layout, as the search's answer does (same time, rank for rank).
    """
    how = ("the search placed them with" if searched else
           "no placement stated, so taken as placed by the string the layout search answers with,")
    return (f"pp {pp} does not divide the {arch.layers} layers, even with the embedding and loss as slots: {how} "
            f"pipeline_layout '{text}' (ceil(l/pp) layers on the first l mod pp ranks, floor(l/pp) on the others, "
            f"as DeepSpeed's uniform partition; Megatron-core's pipeline_model_parallel_layout, which this layout "
            f"needs: Megatron-LM asserts an even split unless the stages are stated, megatron/training/arguments.py "
            f"at d98e8a6, line 997)")


def ep_pace_note(arch: Arch, hw: Hardware, job: Job, lay: Layout) -> list[str]:
    """Where the EP overlap hides a DeepEP or HybridEP all-to-all, the step time over the pace's range.

    The pace such an all-to-all keeps beside compute (`contention.GPU_DRIVEN_PACE`) comes from one profile, whose
    overlap-off share is rounded (`contention.GPU_DRIVEN_PACE_RANGE`); the step is re-timed at both ends.
    """
    if not (job.overlap_ep_comm and job.moe_dispatcher != "alltoall" and arch.moe_layers
            and lay.ep * (lay.tp if lay.etp is None else lay.etp) > 1):
        return []
    lo, hi = sorted(float(estimate_training(hw, replace(job, ep_overlap_pace=p), lay).step_time)
                    for p in C.GPU_DRIVEN_PACE_RANGE)
    if f"{lo:.4g}" == f"{hi:.4g}":
        return []
    a, b = C.GPU_DRIVEN_PACE_RANGE
    return [f"EP overlap ({job.moe_dispatcher}): its all-to-all is taken to keep {C.GPU_DRIVEN_PACE:.2f} of its pace "
            f"beside compute, from one profile (Megatron-Bridge's Qwen3-30B-A3B A/B on 16 H100, HybridEP; {a:.2f} to "
            f"{b:.2f} over its rounding): over that range the step time spans {lo:.4g} s to {hi:.4g} s"]


def layout_string(layers: int, training: Training, layout: Mapping[str, object]) -> str | None:
    """The layout string that runs a layout timed as DeepSpeed's uniform partition (`placed_note`), else None.

    `layout` is an estimate's or a sweep point's (pp, interleave), `training` the job whose pipeline options it keeps
    (`pipeline_options`), `layers` its model's. A sweep point shows it beside its layout (`render.point_table`), as
    an estimate carries it in its layout: the shipped llama3-70b sweep's pp 9 on 80 layers read as a plain layout.
    """
    pp, v = layout.get("pp"), layout.get("interleave", 1)
    if not isinstance(pp, int) or not isinstance(v, int):
        return None
    return uniform_layout(layers, pp, v, pipeline_options(training.parallelism), training.mtp_layers)


def training_estimate(workload: Workload, arch: Arch, hw: Hardware, gpus: int, with_sensitivity: bool,
                      with_stack_range: bool, elsewhere: Sequence[Requirement] = ()) -> Estimate:
    """The estimate of a training workload on `gpus` accelerators (its bands are added by `estimate`).

    Its layout search keeps within the workload's memory targets, its own and `elsewhere`'s (`memory_limit`).
    """
    t = workload.training
    assert t is not None, "called for a training workload"
    setup = training_setup(workload, arch, hw, gpus)
    assumed = tuple(a for a in (assumed_stack(hw, on_vendor(t, hw.vendor).stack),) if a)
    job, knobs, opts, fixed = setup.job, setup.knobs, setup.pipeline, setup.fixed
    notes: list[str] = []
    searched: dict[str, int] = {}
    est = None
    if setup.complete:
        layout = setup.layout
        placed = uniform_layout(arch.layers, int(layout["pp"]), int(layout.get("interleave", 1)), opts, arch.mtp_layers)
        if placed is not None:  # a bare uneven pp: Megatron-LM runs it only as this string places it (`placed_note`)
            layout = {**layout, "pipeline_layout": placed}
    else:
        limit = memory_limit(workload, hw.hbm_capacity, elsewhere)  # its memory targets bound the search
        res, within = searched_within(limit, hw, lambda h: search_training(
            h, job, gpus, fixed, knobs.sequence_parallel, opts, setup.zeros, setup.offloads, setup.search_etp),
            lambda r: r.best is not None)
        searched = {"evaluated": res.evaluated, "fitting": res.fitting}
        if res.evaluated == 0:
            raise WorkloadError(workload.id, no_layout_reason(arch, job, gpus, fixed, hw))
        if res.best is None:
            least = None  # the layout nearest to fitting, where notes are shown (a sweep point's are not)
            if with_stack_range:
                text, need, host = least_memory(hw, job, res.layouts, bool(knobs.sequence_parallel), opts)
                least = (text, need, host, hw.hbm_capacity, hw.host_capacity)
            misfit = none_fits_note(res.evaluated, gpus, hw.accelerator, least)
            return Estimate(workload.id, "training", hw.accelerator, gpus, {}, {}, {}, {}, False, searched,
                            notes=[misfit, *memory_model_note(hw, False, 0.0, False)], misfit=misfit, assumed=assumed,
                            defaults=defaults_taken(t, {}, fixed, True, bool(arch.experts), hw.vendor,
                                                    bool(arch.rope)))
        layout, est = res.best, (None if limit else res.estimate)  # timed already, on the part's whole memory
        notes.append(f"layout searched: best of {res.fitting} fitting among {res.evaluated} valid layouts"
                     + (f", {within}" if within else "") + held_note(arch, t))
    num = {k: int(v) for k, v in layout.items() if k not in ("recompute", "offload", "pipeline_layout")}
    if "pipeline_layout" in layout:  # the search's placement of an uneven split (`search_training`), timed alike
        opts = replace(opts, layout=str(layout["pipeline_layout"]))
        notes.append(placed_note(arch, num["pp"], str(layout["pipeline_layout"]), not setup.complete))
    lay = Layout(num["tp"], num["pp"], num["dp"], num["micro_batch"], num["cp"], num["ep"],
                 num["interleave"], RECOMPUTE_CODES[str(layout["recompute"])], knobs.sequence_parallel,
                 num["zero"], opts, OFFLOAD_CODES[str(layout.get("offload", "none"))], num.get("etp"))
    if est is None:
        est = estimate_training(hw, job, lay)
    if with_stack_range and "stack" not in t.model_fields_set and open_knobs(False, stated_knobs(t)):
        notes.append(stack_range(t, arch, hw, lay, (job, lay, est)))
    if with_stack_range:  # as the stack range: a sweep shows no notes
        notes += unsettled(t, arch, hw, lay, est)
    beyond = beyond_stack(t)
    if beyond:
        notes.append(f"stated beyond what stack {t.stack} runs (PERF004), estimated as stated: "
                     + ", ".join(f"{name} {as_written(value)}" for name, value, _, _ in beyond))
    house = on_vendor(t, hw.vendor).stack   # a stated stack's gaps are refused (`StackSwitches`, `training_setup`)
    if "stack" not in t.model_fields_set and (gaps := missing(house, t, *arch.model_features)):
        notes.append(f"stated beyond the code of {house}, the house default (PERF004), estimated as stated: "
                     + ", ".join(m.short for m in gaps))
    notes += tp_overlap_note(hw, t, job.overlap_tp_comm, int(lay.tp)) + dropout_note(job) + cp_note(hw, job, lay)
    notes += position_note(arch)
    notes += straddle_note(hw, job, lay, bool(arch.experts))
    exchanges = bool(arch.moe_layers and lay.ep * (lay.tp if lay.etp is None else lay.etp) > 1)
    notes += deepep_rocm_note(hw, t, job.moe_dispatcher, exchanges)
    if with_stack_range:  # as the stack range: a sweep shows no notes
        notes += ep_pace_note(arch, hw, job, lay)
        notes += ep_exposed_note(t, on_vendor(t, hw.vendor).stack, arch, hw, job, lay, est)
        notes += moe_pass_note(arch, hw, job, lay, float(est.step_time))
        notes += balance_note(arch, job, lay)
    span = over_range(hw, t.precision, lambda h: float(estimate_training(h, job, lay).step_time))
    notes += span_note(hw, t.precision, span)
    if with_stack_range:  # as the stack range: a sweep shows no notes
        notes += sm_note(hw, job, num, bool(knobs.sequence_parallel), bool(arch.experts),
                         lambda h: float(estimate_training(h, job, lay).step_time))
    model_fits = bool(est.fits)   # by the model's (Megatron's) memory; on an unprofiled part a stated layout is kept
    fits = model_fits or not fit_judged(hw, setup.complete)
    misfit = "" if fits else misfit_text(float(est.memory.total), hw.hbm_capacity)
    if not fits:
        notes.append(does_not_fit_note(float(est.memory.total), hw.hbm_capacity))
    notes += memory_model_note(hw, setup.complete, float(est.memory.total), model_fits)
    s = float(est.step_time)
    metrics, breakdown = figures(est, hw, gpus)
    memory = {k: Q_(float(getattr(est.memory, k)), "B")
              for k in ("weights", "gradients", "optimizer", "activations", "reserve")}
    memory["total"] = Q_(float(est.memory.total), "B")
    if float(est.memory.host):
        memory["host"] = Q_(float(est.memory.host), "B")
    sens = {}
    if with_sensitivity and model_fits:
        def step(h: Hardware) -> float:
            e = estimate_training(h, job, lay)
            return float(e.step_time) if bool(e.fits) else math.inf
        sens = elasticities(hw, step, t.precision)
    conv = {"flop_counting": flop_counting(arch, job.seq_len, float(est.model_flops_per_gpu),
                                           hw.peak_for(t.precision)),
            "mfu_peak": f"dense {t.precision} peak of {hw.accelerator}: "   # as the hardware block shows the peak
                        f"{significant(hw.peak_for(t.precision) / 1e12, ESTIMATE_FIGURES)} TFLOP/s",
            "memory_reserve": reserve_convention(hw.accelerator, hw.vendor, hw.compute_capability)}
    return Estimate(workload.id, "training", hw.accelerator, gpus, layout, metrics, breakdown, memory, fits, searched,
                    sens, notes=notes, conventions=conv, misfit=misfit,
                    span=("step_time", s, *span) if span is not None else None, assumed=assumed,
                    defaults=defaults_taken(t, layout, fixed, bool(searched), bool(arch.experts), hw.vendor,
                                            bool(arch.rope)),
                    unsettled=host_ends(hw, job, lay, gpus, metrics) if model_fits else {})


def figures(est: TrainingEstimate, hw: Hardware, gpus: int) -> tuple[dict[str, Q], dict[str, Q]]:
    """A training estimate's metrics and its step-time breakdown, as quantities."""
    s = float(est.step_time)
    metrics = {
        "step_time": Q_(s, "s"),
        "tokens_per_second": Q_(float(est.tokens_per_second), "1/s"),
        "tokens_per_second_per_gpu": Q_(float(est.tokens_per_second) / gpus, "1/s"),
        "model_flops_per_gpu": Q_(float(est.model_flops_per_gpu), "FLOPS"),
        "mfu": Q_(float(est.mfu), "dimensionless"),
        "memory_per_gpu": Q_(float(est.memory.total), "B"),
        "memory_headroom": Q_(hw.hbm_capacity - float(est.memory.total), "B"),
    }
    if holds_reserve(hw.vendor):   # the caching allocator's waste, the memory's band (none known of a TPU's runtime)
        metrics |= {k: Q_(float(v), "B") for k, v in memory_ends(
            float(est.memory.total), float(est.memory.reserve), hw.hbm_capacity).items()}
    parts = ("compute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm", "bubble", "optimizer")
    breakdown = {k: Q_(float(getattr(est, k)), "s") for k in parts}
    return metrics | swing_metrics(s, breakdown), breakdown   # the load swing's frequency and low-draw share


def host_ends(hw: Hardware, job: Job, lay: Layout, gpus: int, metrics: Mapping[str, Q]) -> dict[str, tuple[Q, str]]:
    """Each moved figure's other end over the host's time per eager operation (`launch.HOST_OPS`), by metric.

    No source times Megatron-core's and Transformer Engine's operations on the host (`perf.train.host`): the point
    is one eager `torch.nn.Linear` on an x86 host, and the CUDA launch call alone usually takes up to 20 us. Where
    the host binds a pass the step is at its fastest at the point, so the same job and layout at 20 us an operation
    gives the other end (`Estimate.unsettled`), and a target met at one end only is not provided, with both ends
    (`derived.judge_requirements`), as a TensorRT engine's launches are for serving (`estimate.launch_ends`). Only
    the figures that move: none where the host stays hidden at 20 us too. It costs one more step-time evaluation of
    one layout (about 0.2 ms, against about 160 ms for the whole estimate of llama3-70b-pretrain-b200), so no bound
    is tried first to skip it. A sweep point has it too: its batched path times each chosen layout at 20 us as well
    (`perf.explore.vectorised._rows`), and each point judges its figures, and those made from its rate, at both ends
    (`perf.explore.points.evaluate_point`; docs/perf-model.md, Host time).
    """
    other, _ = figures(estimate_training(hw, replace(job, host_op=HOST_OPS[1]), lay), hw, gpus)
    low, high = (f"{h * 1e6:g}" for h in HOST_OPS)
    why = (f"no source times the host's time per eager operation of this stack on this host: {VALUE_END} at {low} "
           f"us an operation (one eager PyTorch operation measured on an x86 H100 host), {OTHER_END} at {high} us "
           "(the CUDA launch call's usual high end, HolisticTraceAnalysis's docs)")
    return moved(metrics, other, why)


def unsettled(t: Training, arch: Arch, hw: Hardware, lay: Layout, est: TrainingEstimate) -> list[str]:
    """A note with the step time over the switches the job's stack leaves unsettled (`switch_allows.UNSETTLED`).

    Only those the job leaves out and its model and precision use (`perf.train.moot`: a dense model's MoE switches move
    nothing); every combination of their values, the layout kept. Information beside the estimate (the profile's
    values), as the stack range is; none where the stack settles every switch. An end its code lacks is estimated,
    not refused: the job does not state it (megatron-lm-2021's fused rotary embedding).
    """
    open_ = {n: vals for n, (vals, _) in UNSETTLED.get(t.stack, {}).items()
             if getattr(t, n, None) is None
             and moot(n, {}, bool(arch.experts), t.precision, bool(arch.rope)) is None}
    if not open_:
        return []
    times = [float(est.step_time)]
    for combo in itertools.product(*open_.values()):
        knobs = resolve(t.stack, stated_knobs(t) | dict(zip(open_, combo, strict=True)), t.precision)
        job = Job.from_knobs(arch, t.seq_len, t.global_batch, t.precision, knobs, t.stack,
                             t.parallelism.hierarchical_context_parallel_sizes, hw.vendor)
        times.append(float(estimate_training(hw, job, replace(lay, sequence_parallel=knobs.sequence_parallel))
                           .step_time))
    return [f"{t.stack} leaves unsettled {unsettled_words(t.stack, open_)}: over them the step time spans "
            f"{min(times):.4g} s to {max(times):.4g} s (with this layout; switch_allows.UNSETTLED)"]


def stack_range(t: Training, arch: Arch, hw: Hardware, lay: Layout, known: tuple[Job, Layout, TrainingEstimate]
                 ) -> str:
    """A note with the step time under each stack profile, for a workload that states no stack (the layout kept).

    A band beside the estimate, which is the newest profile's (`stack_profiles.DEFAULT_STACK`); it enters no outcome.
    `known` is (job, layout, estimate) of the workload's own reading; a profile that reads the job the same way
    reuses that estimate. A profile that cannot place the layout's pipeline split (`refused.runs_split`: a layout
    string, the slots or stage counts under megatron-lm-2021 or -core-2024) is left out and named.
    """
    done = {(known[0], known[1]): known[2]}
    times = []
    every = variants(stated_knobs(t), t.precision, False, t.stack, hw.vendor)
    kept = variants(stated_knobs(t), t.precision, False, t.stack, hw.vendor, arch.experts, int(lay.tp))
    refusing = sorted({n for n, _ in every} - {n for n, _ in kept})
    run = [(n, k) for n, k in kept if not dispatcher_problem(hw, t, k.moe_dispatcher, bool(arch.experts))]
    nvidia = sorted({n for n, _ in kept} - {n for n, _ in run})  # HybridEP on a part it does not run on
    no_kv = sorted(n for n, _ in run if kv_heads_problem(arch.kv_heads, int(lay.tp), QKV_SUBSHARDING.get(n, True)))
    # a split placed as the layout string, the slots or the stage counts say, which older stacks cannot place (lay28fix:
    # before, a searched pipeline_layout was re-timed under megatron-lm-2021 and -core-2024, which cannot run it)
    no_split = sorted(n for n, _ in run if not runs_split(n, arch.layers, int(lay.pp), int(lay.interleave),
                                                            lay.pipeline))
    # a profile whose code lacks a feature the job states (`stack_features`) is not a stack it could run on
    lacks = {n: gaps for n, _ in run if n not in no_kv and n not in no_split
             and (gaps := missing(n, t, *arch.model_features))}
    for name, knobs in (r for r in run if r[0] not in no_kv and r[0] not in no_split and r[0] not in lacks):
        job = Job.from_knobs(arch, t.seq_len, t.global_batch, t.precision, knobs, name,
                             t.parallelism.hierarchical_context_parallel_sizes, hw.vendor)
        layout = replace(lay, sequence_parallel=knobs.sequence_parallel)
        e = done.get((job, layout))
        if e is None:
            e = done[(job, layout)] = estimate_training(hw, job, layout)
        times.append((float(e.step_time), name, bool(e.fits)))
    lo, hi = min(times), max(times)
    over = (f"over the stack profiles the step time ranges {lo[0]:.4g} s ({lo[1]}) to {hi[0]:.4g} s ({hi[1]}) with "
            "this layout" if len(times) > 1 else "no other stack profile runs this layout")
    return (f"stack not stated: estimated with {newest(t.stack)}, {t.stack}; {over}"
            + (f" ({', '.join(refusing)} left out: an MoE model at tp {int(lay.tp)} needs sequence parallelism, "
               "which they do not run)" if refusing else "")
            + (f" ({', '.join(nvidia)} left out: its HybridEP runs on NVIDIA GPUs only)" if nvidia else "")
            + (f" ({', '.join(no_kv)} left out: tp {int(lay.tp)} is above the {arch.kv_heads} key/value heads, "
               f"which they refuse)" if no_kv else "")
            + (f" ({', '.join(no_split)} left out: not runnable under them, as they cannot place the {arch.layers} "
               f"layers on pp {int(lay.pp)}{f' x interleave {int(lay.interleave)}' if lay.interleave > 1 else ''} "
               "this way, switch_allows.UNEVEN_SPLITS)" if no_split else "")
            + "".join(f" ({n} left out: its code lacks {', '.join(m.short for m in gaps)}, stack_features)"
                      for n, gaps in sorted(lacks.items()))
            + stack_origin(hw, t.stack))
