"""Estimate a `Workload` on given hardware: the entry point the CLI and the PERF checks call.

`estimate(workload, model, hw, gpus)` returns an `Estimate`: the layout used (given, or the best one searched),
metrics as pint quantities, the step-time breakdown, memory per accelerator, each metric's error band and
elasticities. A model that does not fit is a result with `fits = False` and a note, not an exception. The model does
not judge the workload's requirements: each consumer does, once (`perf.workload.derived.judge_requirements`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from archgen.errors import AnalyseError, WorkloadError
from archgen.model.requirements import Requirement
from archgen.model.unsettled import OTHER_END, VALUE_END, moved
from archgen.model.workload import Model, Workload
from archgen.perf.comm import rccl_net
from archgen.perf.comm.collectives import IN_NETWORK, bus_bandwidth, collective_time, require
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.launch import TENSORRT_LAUNCH
from archgen.perf.workload.band_families import arrival_of, at_engine_cap, family, run_scenario
from archgen.perf.workload.band_lookup import bands, context_of, delivered, keep_up, offline_gap
from archgen.perf.workload.defaults_note import (
    cuda_switches_note,
    defaults_note,
    fp4_format_note,
    fp8_copies_note,
    generation_note,
    kernel_cost_note,
    latency_note,
    library_note,
    mla_core_note,
    nvls_note,
)
from archgen.perf.workload.efficiency_range import link_note, link_span
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.mtp_note import mtp_note
from archgen.perf.workload.serving_estimate import serving_estimate
from archgen.perf.workload.serving_limits import KV_BOUND
from archgen.perf.workload.training_estimate import training_estimate
from archgen.perf.workload.training_setup import on_its_vendor
from archgen.units import Q_


def _collective(workload: Workload, hw: Hardware, gpus: int) -> Estimate:
    c = workload.collective
    assert c is not None, "called for a collective workload"
    size = c.size.m_as("B")
    if c.algorithm in IN_NETWORK and (problem := require(hw, c.algorithm, gpus, min(gpus, hw.scale_up_size))):
        raise WorkloadError(workload.id, problem)
    def busbw_at(h: Hardware) -> float:
        return float(bus_bandwidth(c.op, size, float(collective_time(h, c.op, size, gpus, algorithm=c.algorithm)),
                                   gpus))

    t = float(collective_time(hw, c.op, size, gpus, algorithm=c.algorithm))
    busbw = float(bus_bandwidth(c.op, size, t, gpus))
    metrics = {"busbw": Q_(busbw, "B/s"), "time": Q_(t, "s")}
    ends = link_span(hw, busbw_at)  # the band spans it where no collective was measured on the part (bands.band)
    return Estimate(workload.id, "collective", hw.accelerator, gpus, {"op": c.op, "algorithm": c.algorithm},
                    metrics, {"collective": Q_(t, "s")}, {}, True,
                    notes=[f"{c.op} of {c.size:~P} over {gpus} accelerators; size and busbw as nccl-tests "
                           "defines them", *link_note(hw, busbw_at, ends), *defaults_note(hw, collective=True),
                           *(latency_note(hw) if gpus > 1 and hw.scale_up_size > 1 else []),
                           *(rccl_net.table_note(hw, c.op, size, gpus) if c.algorithm == "auto" else []),
                           *generation_note(hw, training=False), *nvls_note(hw), *library_note(hw, gpus)],
                    span=("busbw", busbw, *ends) if ends is not None else None)


def estimate(workload: Workload, model: Model | None, hw: Hardware, gpus: int | None = None, *,
             gpus_per_rack: int | None = None, with_sensitivity: bool = True,
             with_stack_range: bool = True, elsewhere: Sequence[Requirement] = ()) -> Estimate:
    """Estimate `workload` (running `model`) on `gpus` accelerators described by `hw`.

    Args:
        workload: The job, with optional layout and targets.
        model: The model it runs (`workload.model` must name it).
        hw: Hardware (see `from_spec.hardware_for`).
        gpus: Accelerators used; defaults to `workload.accelerators`.
        gpus_per_rack: For the per-rack throughput of inference.
        with_sensitivity: Also compute elasticities to each hardware parameter.
        with_stack_range: For a training workload that states no stack, add the note with the step time over the
            stack profiles (a sweep, which does not show notes, leaves it out).
        elsewhere: The requirements other documents state on the workload (`build.Design.elsewhere`): its layout
            search keeps within their memory targets as within its own (`perf.workload.memory_limit`).

    Returns:
        The estimate, its requirements not judged (`perf.workload.derived.judge_requirements` judges them).
    """
    workload = on_its_vendor(workload, hw.vendor)  # no stack stated: the vendor's newest profile
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
    within_context(workload, model)
    arch = Arch.of_workload(model, workload)
    est = (training_estimate(workload, arch, hw, n, with_sensitivity, with_stack_range, elsewhere)
           if workload.training is not None
           else launch_ends(serving_estimate(workload, arch, hw, n, gpus_per_rack, with_sensitivity), workload, arch,
                            hw, n, gpus_per_rack))
    inf = workload.inference
    scenario = run_scenario(inf.scenario, inf.arrival_rate) if inf is not None else "offline"
    if est.fits:  # a misfit's last note is why it does not fit (a sweep's reason); it has no figure to qualify
        est = replace(est, notes=[*est.notes, *defaults_note(hw), *latency_note(hw),
                                  *fp4_format_note(hw, precision(workload)),
                                  *fp8_copies_note(hw, precision(workload), workload.training is not None),
                                  *cuda_switches_note(hw, workload.training),
                                  *generation_note(hw, workload.training is not None), *nvls_note(hw),
                                  *kernel_cost_note(hw, workload.training is not None),
                                  *library_note(hw, n), *mtp_note(model, workload.training, est.layout.get("pp")),
                                  *mla_core_note(arch, workload.training is not None)])
    return _finished(workload, est, hw, family(est.kind, bool(arch.experts), scenario))


def launch_ends(est: Estimate, workload: Workload, arch: Arch, hw: Hardware, n: int, gpus_per_rack: int | None
                ) -> Estimate:
    """A TensorRT engine's serving estimate with each figure's other end over the launch range it takes the low end of.

    No source times a TensorRT engine's enqueue per kernel: `perf.hw.launch` cites the CUDA launch call's usual 5-20
    us and the estimate takes 5 us, where a pass the host binds is at its fastest. The same deployment (its tp and
    replicas) estimated at 20 us gives the other end of each figure that moves (`Estimate.unsettled`), so a target met
    at one end only is not provided (review60: a TPOT of 5.70 ms read "met" against 10 ms where 20 us gives at least
    19.28 ms of launches a pass). The ends join what the estimate already holds (`model.unsettled.moved`). Any other
    estimate is returned as it is.
    """
    inf = workload.inference
    if inf is None or inf.kernel_launch != "tensorrt" or not est.fits or "tp" not in est.layout:
        return est
    pinned = inf.model_copy(update={"tp": int(est.layout["tp"]), "replicas": int(est.layout["replicas"])})
    other = serving_estimate(workload.model_copy(update={"inference": pinned}), arch, hw, n, gpus_per_rack, False,
                             launch_host=TENSORRT_LAUNCH[1]).metrics
    low, high = (f"{t * 1e6:g}" for t in TENSORRT_LAUNCH)
    why = (f"no source times a TensorRT engine's host time per kernel launch, the CUDA launch call alone usually "
           f"{low}-{high} us (HolisticTraceAnalysis's docs): {VALUE_END} at {low} us a launch, {OTHER_END} at "
           f"{high} us")
    return replace(est, unsettled=moved(est.metrics, other, why, est.unsettled))   # merged: `model.unsettled.moved`


def within_context(workload: Workload, model: Model) -> None:
    """Refuse a sequence longer than the model's stated `context_length` (no estimate of a model it cannot run).

    And a training job that trains more multi-token-prediction layers than the model has (`mtp_layers`): the
    architecture states its modules, the run chooses to train them. The batched sweep path asks it too
    (`perf.explore.vectorised`), before it enumerates a layout set.
    """
    inf, t = workload.inference, workload.training
    if t is not None and t.mtp_layers > model.mtp_layers:
        raise WorkloadError(workload.id, f"training.mtp_layers {t.mtp_layers} exceeds model '{model.id}''s "
                                         f"mtp_layers ({model.mtp_layers}): the model states the multi-token "
                                         "prediction modules its architecture has; expected at most "
                                         f"{model.mtp_layers}, or state them on the model")
    if model.context_length is None:
        return
    tokens, what = ((inf.input_len + inf.output_len, "input_len + output_len") if inf is not None else
                    (t.seq_len, "seq_len") if t is not None else (0, ""))
    if tokens > model.context_length:
        raise WorkloadError(workload.id, f"{what} = {tokens:,} tokens exceed model '{model.id}''s context_length of "
                                         f"{model.context_length:,} tokens")


def precision(workload: Workload) -> str | None:
    """The data type whose tensor peak a workload runs at (None for a collective)."""
    job = workload.training or workload.inference
    return job.precision if job is not None else None


def _finished(workload: Workload, est: Estimate, hw: Hardware, family_: str) -> Estimate:
    """The estimate with its hardware and each metric's error band (`family_`, on `hw`'s accelerator)."""
    inf = workload.inference
    arrival = arrival_of(inf.scenario) if inf is not None else ""
    got = bands(family_, est.metrics, hw.accelerator, est.span, est.load, context_of(workload), hw.vendor, arrival,
                est.latency_spans, at_engine_cap(inf), est.routing)
    tpot, step = est.metrics.get("tpot"), est.metrics.get("decode_step_time")
    if tpot is not None and step is not None:   # an offline run's TPOT: the tokens/s band by Little's law
        got |= offline_gap(got, tpot.m_as("s"), step.m_as("s"), float(est.metrics["concurrency"].m),
                           est.batch_bound == KV_BOUND)
    capacity = est.metrics.get("replica_capacity")
    if capacity is not None and inf is not None and inf.arrival_rate is not None:   # an open loop's rate
        rate, each = inf.arrival_rate.m_as("1/s"), capacity.m_as("1/s")
        got |= keep_up(got, rate, each)   # whole replicas, each end's count said
        replicas = int(est.layout["replicas"])
        if est.limits or rate > replicas * each:   # it serves what arrives, or its capacity: min(offered, ...)
            got |= delivered(got, rate, replicas, each)
    return replace(est, bands=got, hardware=hw.summary(precision(workload)))
