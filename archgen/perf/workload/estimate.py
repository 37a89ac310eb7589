"""Estimate a `Workload` on given hardware: the entry point the CLI and the PERF checks call.

`estimate(workload, model, hw, gpus)` returns an `Estimate`: the layout used (given, or the best one searched),
metrics as pint quantities, the step-time breakdown, memory per accelerator, each metric's error band and
elasticities. A model that does not fit is a result with `fits = False` and a note, not an exception. The model does
not judge the workload's requirements: each consumer does, once (`perf.derived.judge_requirements`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from archgen.errors import AnalyseError, WorkloadError
from archgen.model.requirements import Outcome
from archgen.model.workload import Model, Training, Workload
from archgen.perf.comm.collectives import IN_NETWORK, bus_bandwidth, collective_time, require
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import OFFLOAD_CODES, does_not_fit_note, misfit_text, none_fits_note  # noqa: F401 (sweeps import them here)
from archgen.perf.serve.inference import MEMORY_UTILISATION, ServeJob, estimate_inference
from archgen.perf.serve.scheduler import MAX_NUM_TOKENS, estimate_serving, replica_rate
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layouts import layout_problems, no_layout_reason, search_training
from archgen.perf.train.pipeline_split import PipelineOptions, layout_interleave
from archgen.perf.train.stacks import Knobs, open_knobs, stated_knobs, training_knobs, variants
from archgen.perf.train.training import RECOMPUTE_CODES, TrainingEstimate, estimate_training
from archgen.perf.workload.bands import Band, bands, family
from archgen.perf.workload.efficiency_range import efficiency_note
from archgen.perf.workload.sensitivity import elasticities
from archgen.units import Q_, Q


@dataclass(frozen=True)
class Estimate:
    """Everything `estimate` found for one workload."""

    workload: str
    kind: str
    accelerator: str
    gpus: int
    layout: dict[str, int | str]
    metrics: dict[str, Q]
    breakdown: dict[str, Q]
    memory: dict[str, Q]
    fits: bool
    searched: dict[str, int] = field(default_factory=dict)
    sensitivity: dict[str, float] = field(default_factory=dict)
    requirements: list[Outcome] = field(default_factory=list)  # filled by the consumer (`derived.judge_requirements`)
    notes: list[str] = field(default_factory=list)
    conventions: dict[str, str] = field(default_factory=dict)
    hardware: dict[str, Q] = field(default_factory=dict)
    cluster: str = ""
    misfit: str = ""  # why the job does not fit in accelerator memory ("" when it fits); PERF002 reports it
    bands: dict[str, Band] = field(default_factory=dict)  # each metric's measured error (perf.bands)


def pipeline_options(p) -> PipelineOptions:
    """How a `Parallelism` (or a case's training) places the layers on the pipeline ranks."""
    return PipelineOptions(p.embedding_slot, p.loss_slot, p.first_stage_layers, p.last_stage_layers,
                           p.pipeline_layout)


@dataclass(frozen=True)
class TrainingSetup:
    """A training workload as the layout search takes it: the job, what the workload fixes, how it pipelines."""

    job: Job
    knobs: Knobs
    pipeline: PipelineOptions
    fixed: dict[str, int | str | None]  # tp, pp, dp, cp, ep, micro_batch, interleave, recompute, zero (None: searched)
    complete: bool                      # every field but zero given: nothing to search
    layout: dict[str, int | str]        # the layout when complete (zero defaults to the distributed optimizer's)


def training_setup(workload: Workload, arch: Arch, hw: Hardware, gpus: int) -> TrainingSetup:
    """The search's inputs for a training workload.

    A given part of the layout that is invalid on its own is a `WorkloadError` (of the hardware, only
    `hw.scale_up_size` matters).
    """
    t = workload.training
    assert t is not None, "called for a training workload"
    p = t.parallelism
    knobs = training_knobs(t)
    job = Job.from_knobs(arch, t.seq_len, t.global_batch, t.precision, knobs)
    opts = pipeline_options(p)
    interleave = p.interleave
    if p.pipeline_layout is not None and p.pp is not None and interleave is None:
        interleave = layout_interleave(p.pipeline_layout, p.pp)
    fixed: dict[str, int | str | None] = {
        "tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": p.ep, "micro_batch": p.micro_batch,
        "interleave": interleave, "recompute": t.recompute, "zero": p.zero, "offload": p.offload, "etp": p.etp}
    host = bool(np.any(hw.host_capacity > 0))
    complete = None not in (p.tp, p.pp, p.dp, p.micro_batch, interleave, t.recompute)
    # the given part of the layout must be valid on its own; the search only fills in what is missing
    if p.tp is not None and p.pp is not None and p.dp is not None:
        problems = layout_problems(arch, job, gpus, tp=p.tp, pp=p.pp, dp=p.dp, cp=p.cp, ep=p.ep,
                                   micro_batch=p.micro_batch or 1, interleave=interleave or 1,
                                   scale_up_size=hw.scale_up_size, pipeline=opts,
                                   check_batch=p.micro_batch is not None,
                                   offload=OFFLOAD_CODES[p.offload or "none"], host_memory=host, etp=p.etp)
    else:  # tp, cp and ep alone (dp = etp x ep keeps the expert rule to the experts)
        alone = layout_problems(arch, job, gpus, tp=p.tp or 1, pp=1, dp=p.ep * (p.etp or 1), cp=p.cp, ep=p.ep,
                                scale_up_size=hw.scale_up_size, offload=OFFLOAD_CODES[p.offload or "none"],
                                host_memory=host, etp=p.etp)
        problems = [x for x in alone if x.field in ("tp", "cp", "ep", "etp", "offload")]
    if problems:
        raise WorkloadError(workload.id, "; ".join(problems))
    zero = p.zero if p.zero is not None else (1 if knobs.distributed_optimizer else 0)
    stated = {"tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": p.ep, "micro_batch": p.micro_batch,
              "interleave": interleave, "recompute": t.recompute, "zero": zero}
    layout: dict[str, int | str] = {k: v for k, v in stated.items() if v is not None} if complete else {}
    if complete and p.offload is not None and p.offload != "none":
        layout["offload"] = p.offload
    if complete and p.etp is not None:
        layout["etp"] = p.etp
    return TrainingSetup(job, knobs, opts, fixed, complete, layout)


def _training(workload: Workload, arch: Arch, hw: Hardware, gpus: int, with_sensitivity: bool,
              with_stack_range: bool) -> Estimate:
    t = workload.training
    assert t is not None, "called for a training workload"
    setup = training_setup(workload, arch, hw, gpus)
    job, knobs, opts, fixed = setup.job, setup.knobs, setup.pipeline, setup.fixed
    notes: list[str] = []
    searched: dict[str, int] = {}
    est = None
    if setup.complete:
        layout = setup.layout
    else:
        res = search_training(hw, job, gpus, fixed, knobs.sequence_parallel, opts)
        searched = {"evaluated": res.evaluated, "fitting": res.fitting}
        if res.evaluated == 0:
            raise WorkloadError(workload.id, no_layout_reason(arch, job, gpus, fixed, hw))
        if res.best is None:
            misfit = none_fits_note(res.evaluated, gpus, hw.accelerator)
            return Estimate(workload.id, "training", hw.accelerator, gpus, {}, {}, {}, {}, False, searched,
                            notes=[misfit], misfit=misfit)
        layout, est = res.best, res.estimate  # the search has timed its best layout already
        notes.append(f"layout searched: best of {res.fitting} fitting among {res.evaluated} valid layouts")
    num = {k: int(v) for k, v in layout.items() if k not in ("recompute", "offload")}  # the integer fields
    lay = Layout(num["tp"], num["pp"], num["dp"], num["micro_batch"], num["cp"], num["ep"],
                 num["interleave"], RECOMPUTE_CODES[str(layout["recompute"])], knobs.sequence_parallel,
                 num["zero"], opts, OFFLOAD_CODES[str(layout.get("offload", "none"))], num.get("etp"))
    if est is None:
        est = estimate_training(hw, job, lay)
    if with_stack_range and "stack" not in t.model_fields_set and open_knobs(False, stated_knobs(t)):
        notes.append(_stack_range(t, arch, hw, lay, (job, lay, est)))
    notes += efficiency_note(hw, t.precision, lambda h: float(estimate_training(h, job, lay).step_time))
    fits = bool(est.fits)
    misfit = "" if fits else misfit_text(float(est.memory.total), hw.hbm_capacity)
    if not fits:
        notes.append(does_not_fit_note(float(est.memory.total), hw.hbm_capacity))
    s = float(est.step_time)
    metrics = {
        "step_time": Q_(s, "s"),
        "tokens_per_second": Q_(float(est.tokens_per_second), "1/s"),
        "tokens_per_second_per_gpu": Q_(float(est.tokens_per_second) / gpus, "1/s"),
        "tflops_per_gpu": Q_(float(est.tflops_per_gpu), "FLOPS"),
        "mfu": Q_(float(est.mfu), "dimensionless"),
        "memory_per_gpu": Q_(float(est.memory.total), "B"),
        "memory_headroom": Q_(hw.hbm_capacity - float(est.memory.total), "B"),
    }
    parts = ("compute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm", "bubble", "optimizer")
    breakdown = {k: Q_(float(getattr(est, k)), "s") for k in parts}
    memory = {k: Q_(float(getattr(est.memory, k)), "B") for k in ("weights", "gradients", "optimizer", "activations")}
    memory["total"] = Q_(float(est.memory.total), "B")
    if float(est.memory.host):
        memory["host"] = Q_(float(est.memory.host), "B")
    sens = {}
    if with_sensitivity and fits:
        def step(h: Hardware) -> float:
            e = estimate_training(h, job, lay)
            return float(e.step_time) if bool(e.fits) else math.inf
        sens = elasticities(hw, step, t.precision)
    conv = {"flop_counting": "model FLOPs = 3 x forward (2 FLOP per MAC, full s^2 attention, logits included, "
                             "no recomputation)",
            "mfu_peak": f"dense {t.precision} peak of {hw.accelerator}: {hw.peak_for(t.precision) / 1e12:g} TFLOP/s"}
    return Estimate(workload.id, "training", hw.accelerator, gpus, layout, metrics, breakdown, memory, fits, searched,
                    sens, notes=notes, conventions=conv, misfit=misfit)


def _stack_range(t: Training, arch: Arch, hw: Hardware, lay: Layout, known: tuple[Job, Layout, TrainingEstimate]
                 ) -> str:
    """A note with the step time under each stack profile, for a workload that states no stack (the layout kept).

    A band beside the estimate, which is the newest profile's (`switches.DEFAULT_STACK`); it enters no outcome.
    `known` is (job, layout, estimate) of the workload's own reading; a profile that reads the job the same way
    reuses that estimate.
    """
    done = {(known[0], known[1]): known[2]}
    times = []
    for name, knobs in variants(stated_knobs(t), t.precision, False, t.stack):
        job = Job.from_knobs(arch, t.seq_len, t.global_batch, t.precision, knobs)
        layout = replace(lay, sequence_parallel=knobs.sequence_parallel)
        e = done.get((job, layout))
        if e is None:
            e = done[(job, layout)] = estimate_training(hw, job, layout)
        times.append((float(e.step_time), name, bool(e.fits)))
    lo, hi = min(times), max(times)
    return (f"stack not stated: estimated with the newest profile, {t.stack}; over the stack profiles the step time "
            f"ranges {lo[0]:.4g} s ({lo[1]}) to {hi[0]:.4g} s ({hi[1]}) with this layout")


def _inference(workload: Workload, arch: Arch, hw: Hardware, gpus: int, gpus_per_rack: int | None,
               with_sensitivity: bool) -> Estimate:
    inf = workload.inference
    assert inf is not None, "called for an inference workload"
    batch = None if inf.batch == "max" else inf.batch  # 'max' is read as left out by the model's validator
    job = ServeJob(arch, inf.input_len, inf.output_len, inf.precision, inf.kv_precision, inf.kv_reserve, inf.ep,
                   inf.attention_dp, inf.scenario)
    notes: list[str] = []
    if problem := expert_problem(arch, inf.ep):
        raise WorkloadError(workload.id, problem)
    if inf.tp is None:
        cands = [t for t in (1, 2, 4, 8, 16, 32, 64, 72) if t <= hw.scale_up_size and gpus % t == 0
                 and (arch.heads % t == 0 or inf.attention_dp) and t % inf.ep == 0]
        best, best_tp = -1.0, None
        for t in cands:
            rate = replica_rate(inf.arrival_rate, inf.replicas or max(gpus // t, 1))
            e = estimate_serving(hw, job, t, batch, rate)[0]
            if bool(e.fits) and float(e.tokens_per_second_per_gpu) > best:
                best, best_tp = float(e.tokens_per_second_per_gpu), t
        if best_tp is None:
            why = f"the model does not fit on up to {hw.scale_up_size} x {hw.accelerator}"
            if inf.batch is not None and cands:
                most = float(estimate_inference(hw, job, cands[-1], None).max_batch)
                if most >= 1:
                    why = (f"batch {inf.batch} does not fit: at tp {cands[-1]} the KV cache holds at most {most:g} "
                           "sequences")
            return Estimate(workload.id, "inference", hw.accelerator, gpus, {}, {}, {}, {}, False, notes=[why],
                            misfit=why)
        tp = best_tp
        notes.append(f"tp searched: {tp} gives the most tokens/s per accelerator")
    else:
        tp = inf.tp
        if tp > hw.scale_up_size:
            raise WorkloadError(workload.id, f"tp ({tp}) exceeds the scale-up domain of "
                             f"{hw.scale_up_size} accelerators")
        if arch.heads % tp and not inf.attention_dp:
            raise WorkloadError(workload.id, f"tp ({tp}) does not divide the {arch.heads} attention heads")
    replicas = inf.replicas or max(gpus // tp, 1)
    if replicas * tp > gpus:
        raise WorkloadError(workload.id, f"tp x replicas = {tp * replicas} exceeds the {gpus} accelerators")
    if replicas * tp < gpus:
        notes.append(f"{gpus - replicas * tp} of the {gpus} accelerators stay idle ({replicas} replicas of tp {tp})")
    if inf.scenario == "server" and inf.arrival_rate is None:
        notes.append("server scenario without arrival_rate: no queueing is simulated, so the figures are the "
                     "offline ones (latency percentiles are not estimated)")
    rate, closed = replica_rate(inf.arrival_rate, replicas), inf.scenario == "concurrency"
    e, run = estimate_serving(hw, job, tp, batch, rate)
    if run is not None:
        notes.extend(run.notes)
    fits = bool(e.fits)
    misfit = ""
    if not fits and float(e.batch) < 1:
        left = hw.hbm_capacity * MEMORY_UTILISATION - float(e.weights_per_gpu)
        misfit = (f"no sequence fits; one needs {float(e.kv_per_sequence_per_gpu) / 1e9:.2f} GB of KV cache per "
                  f"accelerator, and {MEMORY_UTILISATION:.0%} of HBM after the weights "
                  f"({float(e.weights_per_gpu) / 1e9:.1f} GB) leaves "
                  + (f"{left / 1e9:.2f} GB" if left > 0 else "nothing"))
    elif not fits:
        misfit = (f"weights {float(e.weights_per_gpu) / 1e9:.1f} GB and KV cache of {float(e.batch):g} sequences "
                  f"need {float(e.memory_per_gpu) / 1e9:.1f} GB per accelerator, {hw.hbm_capacity / 1e9:.1f} GB "
                  "available")
    if misfit:
        notes.append(f"does not fit: {misfit}")
    per_gpu = float(e.tokens_per_second_replica) * replicas / gpus  # idle accelerators count
    metrics = {}
    if float(e.batch) >= 1:  # with no sequence in flight there is no latency or throughput to report
        metrics = {"ttft": Q_(float(e.ttft), "s"), "tpot": Q_(float(e.tpot), "s"),
                   "tokens_per_second": Q_(float(e.tokens_per_second_replica) * replicas, "1/s"),
                   "tokens_per_second_per_gpu": Q_(per_gpu, "1/s"),
                   "concurrency": Q_(float(e.batch) if run is None or closed else run.mean_running, "")}
        if run is not None:
            metrics |= {"ttft_p50": Q_(run.ttft.p50, "s"), "ttft_p99": Q_(run.ttft.p99, "s"),
                        "tpot_p50": Q_(run.tpot.p50, "s"), "tpot_p99": Q_(run.tpot.p99, "s")}
    metrics |= {"memory_per_gpu": Q_(float(e.memory_per_gpu), "B"),
                "memory_headroom": Q_(hw.hbm_capacity - float(e.memory_per_gpu), "B")}
    if gpus_per_rack and metrics.get("tokens_per_second_per_gpu"):
        metrics["tokens_per_second_per_rack"] = Q_(per_gpu * gpus_per_rack, "1/s")
    memory = {"weights": Q_(float(e.weights_per_gpu), "B"),
              "kv_cache": Q_(float(e.memory_per_gpu - e.weights_per_gpu), "B"),
              "total": Q_(float(e.memory_per_gpu), "B")}
    # replica time per request, additive: tokens/s per replica = output_len / (prefill + decode)
    breakdown = {"prefill_per_request": Q_(float(e.prefill_per_request), "s"),
                 "decode_per_request": Q_(inf.output_len * float(e.tpot) / float(e.batch), "s")
                 } if "tpot" in metrics else {}
    sens = {}
    if with_sensitivity and fits:
        def tput(h: Hardware) -> float:
            x = estimate_serving(h, job, tp, batch, rate)[0]  # a batch left out follows the KV-cache capacity
            return float(x.tokens_per_second_per_gpu) if bool(x.fits) else math.inf
        sens = elasticities(hw, tput, inf.precision)
    layout: dict[str, int | str] = {"tp": tp, "replicas": replicas, "batch": int(float(e.batch))}
    if inf.ep > 1 or inf.attention_dp:
        layout |= {"ep": inf.ep, "attention_dp": "yes" if inf.attention_dp else "no"}
    conv = {"ttft": "mean over the requests of a simulated run (perf.scheduler: continuous batching, chunked "
                    f"prefill of {MAX_NUM_TOKENS} tokens per iteration, admission by KV cache, queueing) of first "
                    "token - arrival; the closed loop's first N requests are left out (steady state)"
                    if run is not None else "one request's prefill on an idle replica (no queueing)",
            "tpot": "time per output token after the first, (request latency - TTFT) / (output_len - 1), as "
                    "genai-perf and MLPerf's loadgen report it, mean over the simulated requests" if run is not None
                    else "one decode step with `batch` sequences in flight per replica",
            "concurrency": "requests in flight per replica, each replaced when it finishes" if closed else
                           "time-weighted mean of the requests decoding per replica (at most the KV cache's "
                           f"capacity, or `batch`), Poisson arrivals at {rate:.4g} requests/s per replica"
                           if run is not None else
                           "sequences in flight per replica, as many as the KV cache holds unless `batch` is given",
            "overhead": f"{float(e.overhead_per_step) * 1e3:.2f} ms of fixed per-kernel costs per forward pass",
            "kv_cache": f"each sequence holds {'input + output' if inf.kv_reserve == 'full' else 'input + output/2'} "
                        f"tokens (kv_reserve: {inf.kv_reserve})"}
    return Estimate(workload.id, "inference", hw.accelerator, gpus, layout, metrics, breakdown, memory, fits,
                    sensitivity=sens, notes=notes, conventions=conv, misfit=misfit)


def expert_problem(arch: Arch, ep: int) -> str | None:
    """Why `ep` cannot split the model's experts, or None."""
    if ep > 1 and not arch.experts:
        return f"ep ({ep}) needs a mixture-of-experts model; this one is dense"
    if arch.experts and arch.experts % ep:
        return f"ep ({ep}) does not divide the {arch.experts} experts"
    return None


def _collective(workload: Workload, hw: Hardware, gpus: int) -> Estimate:
    c = workload.collective
    assert c is not None, "called for a collective workload"
    size = c.size.m_as("B")
    if c.algorithm in IN_NETWORK and (problem := require(hw, c.algorithm, gpus, min(gpus, hw.scale_up_size))):
        raise WorkloadError(workload.id, problem)
    t = float(collective_time(hw, c.op, size, gpus, algorithm=c.algorithm))
    busbw = float(bus_bandwidth(c.op, size, t, gpus))
    metrics = {"busbw": Q_(busbw, "B/s"), "time": Q_(t, "s")}
    return Estimate(workload.id, "collective", hw.accelerator, gpus, {"op": c.op, "algorithm": c.algorithm},
                    metrics, {"collective": Q_(t, "s")}, {}, True,
                    notes=[f"{c.op} of {c.size:~P} over {gpus} accelerators; size and busbw as nccl-tests "
                           "defines them"])


def estimate(workload: Workload, model: Model | None, hw: Hardware, gpus: int | None = None, *,
             gpus_per_rack: int | None = None, with_sensitivity: bool = True,
             with_stack_range: bool = True) -> Estimate:
    """Estimate `workload` (running `model`) on `gpus` accelerators described by `hw`.

    Args:
        workload: The job, with optional layout and targets.
        model: The model it runs (`workload.model` must name it).
        hw: Hardware (see `hardware.hardware_for`).
        gpus: Accelerators used; defaults to `workload.accelerators`.
        gpus_per_rack: For the per-rack throughput of inference.
        with_sensitivity: Also compute elasticities to each hardware parameter.
        with_stack_range: For a training workload that states no stack, add the note with the step time over the
            stack profiles (a sweep, which does not show notes, leaves it out).

    Returns:
        The estimate, its requirements not judged (`perf.derived.judge_requirements` judges them).
    """
    n = gpus or workload.accelerators
    if not n or n <= 0:
        raise WorkloadError(workload.id, "the number of accelerators must be positive")
    if workload.collective is not None:
        if n < 2:  # as the Workload spec says; a sweep's or a caller's count does not pass through it
            raise WorkloadError(workload.id, f"a collective needs at least 2 accelerators, got {n}")
        return _finished(workload, _collective(workload, hw, n), hw, "collectives")
    if model is None or model.id != workload.model:
        raise AnalyseError(f"workload '{workload.id}' runs model '{workload.model}', not "
                           f"'{model.id if model else None}'", subject=(workload.id, ("model",)))
    arch = Arch.from_model(model)
    est = (_training(workload, arch, hw, n, with_sensitivity, with_stack_range) if workload.training is not None
           else _inference(workload, arch, hw, n, gpus_per_rack, with_sensitivity))
    scenario = workload.inference.scenario if workload.inference is not None else "offline"
    return _finished(workload, est, hw, family(est.kind, bool(arch.experts), scenario))


def precision(workload: Workload) -> str | None:
    """The data type whose tensor peak a workload runs at (None for a collective)."""
    job = workload.training or workload.inference
    return job.precision if job is not None else None


def _finished(workload: Workload, est: Estimate, hw: Hardware, family_: str) -> Estimate:
    """The estimate with its hardware and each metric's error band (`family_`)."""
    return replace(est, bands=bands(family_, est.metrics), hardware=hw.summary(precision(workload)))
