"""A serving workload estimated (`estimate.estimate` calls it).

Offline, server (Poisson arrivals) or a stated concurrency, on the replicas its accelerators hold.
"""

from __future__ import annotations

import math
from dataclasses import replace

from archgen import metrics as registry
from archgen.display import significant
from archgen.errors import WorkloadError
from archgen.model.engine import balancer_problem, engine_problem, foreign_engine_problem
from archgen.model.serving_features import DECODING
from archgen.model.workload import Workload
from archgen.perf.comm.placement import domain_share, replicas_inside
from archgen.perf.hw import kv_cache_dtype as KV
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.launch import LAUNCH_WORDS, TENSORRT_LAUNCH
from archgen.perf.serve.batcher import replica_rate
from archgen.perf.serve.colocation import (
    colocation_convention,
    disaggregated_reading,
    pool_batch,
    pool_metrics,
    pool_times,
)
from archgen.perf.serve.engine_defaults import batch_size_of, job_of, kv_reserve_of, kv_rule_of
from archgen.perf.serve.inference import WHOLE_PROMPTS, InferenceEstimate, estimate_inference
from archgen.perf.serve.lengths import FIRST_TOKEN, OFFLINE_TPOT, kv_convention, lengths_convention
from archgen.perf.serve.parallel_problems import attention_dp_problem, expert_problem
from archgen.perf.serve.pass_costs import host_floor
from archgen.perf.serve.profile_peak import memory_reserve
from archgen.perf.serve.run import KEEP_UP, capacity_metrics, run_breakdown
from archgen.perf.serve.scheduler import estimate_serving, full_run
from archgen.perf.workload.band_families import at_engine_cap, family, quantity_family, run_scenario
from archgen.perf.workload.band_span import Span
from archgen.perf.workload.bands import band
from archgen.perf.workload.defaults_note import assumed_engine
from archgen.perf.workload.defaults_taken import serving_taken
from archgen.perf.workload.efficiency_range import latency_span, over_range, range_ends, span_note
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.moe_serving_note import moe_serving_convention
from archgen.perf.workload.routing_note import routing_note
from archgen.perf.workload.sensitivity import elasticities
from archgen.perf.workload.serving_limits import KV_BOUND, engine_cap, serving_misfit
from archgen.units import Q_

#: Why a TTFT target is not judged on the offline closed form (nor on `server` without an arrival rate).
#: Why a job of one output token has no TPOT (nor 1 / TPOT): TPOT is (latency - TTFT) / (output_len - 1); vLLM's
#: benchmark_serving.py counts a request's TPOT only `if output_len > 1` (newuser93: a run read 0 ms, judged met).
NO_TPOT = ("each request generates one output token: no token follows the first, so there is no time per output "
           "token (TPOT is (latency - TTFT) / (output tokens - 1)) and no decode rate to judge; state two or more")
OFFLINE_TTFT = ("an offline run has no TTFT to hold a target to: every request is queued at once (trtllm-bench "
                "throughput; MLPerf's Offline scenario sets no latency bound), so a request's first token waits for "
                "the queue ahead of it; the figure shown is one prefill on an idle replica, while the decodes run "
                "{batch:,.0f} in flight. State scenario: server with an arrival_rate, or scenario: concurrency with "
                "batch, to judge TTFT on a simulated run")

#: What an offline estimate's `ttft` is (its convention; a sweep's document states it under its TTFT column).
IDLE_TTFT = ("one request's prefill on an idle replica (no queueing), not an offline run's TTFT: a target on it is "
             "not judged")

#: A closed loop's percentiles, in words (newuser104: concurrency 64 read TTFT p50 137.2 ms, p99 137.3 ms, and TPOT
#: p50 = p99, as if a measured run's spread were that small).
IN_STEP = ("; a closed loop of one length replaces each finished request at once, so its requests keep in step and its "
           "percentiles show only the spread the scheduler makes (prompts chunked over iterations), not a measured "
           "run's (varied lengths, the client's timing): a p99 near the mean is the model's, not a run's")

#: Why a percentile target is not judged on the offline closed form (nor on `server` without an arrival rate): no
#: request is simulated, so there is no distribution to take it from (newuser95: a partner's TTFT p99 read only
#: "not provided for this workload").
OFFLINE_PERCENTILE = ("{metric} is a percentile over a simulated run's requests, and an offline run simulates none "
                      "(the closed form times one prefill and one decode step); state scenario: server with an "
                      "arrival_rate, or scenario: concurrency with batch, to judge it")


def spans_ranges(workload: Workload, arch: Arch, hw: Hardware) -> bool:
    """Whether a serving job's throughput band spans its span over the part's stated efficiency ranges.

    Where no published run of its family was measured on the part (`bands.Band.spread`): the span is then taken even
    where elasticities are not (a sweep's points), so that a point's band is the one `check` gives the same design.
    """
    inf = workload.inference
    assert inf is not None, "called for an inference workload"
    fam = quantity_family(family("inference", bool(arch.experts), run_scenario(inf.scenario, inf.arrival_rate)),
                          "tokens_per_second_per_gpu", at_engine_cap(inf))
    b = band(fam, "tokens_per_second_per_gpu", accelerator=hw.accelerator, simulated=at_engine_cap(inf))
    return b is not None and b.measured and b.on_accelerator == 0 and bool(range_ends(hw, inf.precision))


def serving_estimate(workload: Workload, arch: Arch, hw: Hardware, gpus: int, gpus_per_rack: int | None,
                     with_sensitivity: bool, launch_host: float | None = None) -> Estimate:
    """A serving workload's estimate on `gpus` accelerators (bands: `estimate`; `launch_host`: `launch_ends`)."""
    inf = workload.inference
    assert inf is not None, "called for an inference workload"
    batch = None if inf.batch == "max" else inf.batch  # 'max' is read as left out by the model's validator
    if unstated := engine_problem(inf.engine, inf.max_batch_size, hw.vendor):
        raise WorkloadError(workload.id, unstated)
    limit, source = batch_size_of(inf, hw)   # the engine's, where the job states none
    reserve, reserve_why = kv_reserve_of(inf, hw.vendor)   # likewise
    rule, fraction, refused = kv_rule_of(inf, hw.vendor)   # likewise
    for field, why in refused:   # at the key at fault, as below
        raise WorkloadError(workload.id, why, subject=(workload.id, ("inference", field)))
    assumed = tuple(a for a in (assumed_engine(hw, inf),) if a)
    job = job_of(inf, arch, limit, reserve, rule, fraction)
    job = job if launch_host is None else replace(job, launch_host=launch_host)
    notes: list[str] = []
    for key, problem in (("engine", foreign_engine_problem(inf.engine, hw.vendor)),
                         ("adp_balance", balancer_problem(inf.engine, hw.vendor, inf.adp_balance is not None)),
                         ("ep", expert_problem(arch, inf.ep, inf.redundant_experts)),
                         ("attention_dp", attention_dp_problem(arch, inf.attention_dp)),
                         ("kv_precision", KV.fp4_kv_problem(hw.accelerator, hw.peak, inf.kv_precision, hw.vendor,
                                                           hw.compute_capability))):
        if problem:   # shown at the key at fault (`commands.common.located`), not at the workload's line
            raise WorkloadError(workload.id, problem, subject=(workload.id, ("inference", key)))
    share = domain_share(hw)  # a replica lies inside one domain, in the job's share of it (`comm.placement`)
    if inf.tp is None:
        cands = [t for t in (1, 2, 4, 8, 16, 32, 64, 72) if t <= share and gpus % t == 0
                 and (arch.heads % t == 0 or inf.attention_dp) and t % inf.ep == 0]
        best, best_tp = -1.0, None
        for t in cands:
            reps = inf.replicas or max(replicas_inside(hw, gpus, t), 1)
            e = estimate_serving(hw, job, t, batch, replica_rate(inf.arrival_rate, reps), replicas=reps,
                                 load=False)[0]  # its tokens/s picks the tp
            if bool(e.fits) and float(e.tokens_per_second_per_gpu) > best:
                best, best_tp = float(e.tokens_per_second_per_gpu), t
        if best_tp is None:
            why = f"the model does not fit on up to {share} x {hw.accelerator}"
            if inf.batch is not None and cands:
                # the KV cache's own capacity, not `max_batch` (capped by the engine: newuser95 read "the KV cache
                # holds at most 2048" of an engine's max_batch_size where the cache held 3,699)
                most = float(estimate_inference(hw, job, cands[-1], None).kv_batch)
                if most >= 1:
                    why = (f"batch {inf.batch:,} does not fit: at tp {cands[-1]} the KV cache holds at most "
                           f"{most:,.0f} sequences")
            return Estimate(workload.id, "inference", hw.accelerator, gpus, {}, {}, {}, {}, False, notes=[why],
                            misfit=why, assumed=assumed)
        tp = best_tp
        notes.append(f"tp searched: {tp} gives the most tokens/s per accelerator")
    else:
        tp = inf.tp
        if tp > hw.scale_up_size:
            raise WorkloadError(workload.id, f"tp ({tp}) exceeds the scale-up domain of "
                             f"{hw.scale_up_size} accelerators")
        if arch.heads % tp and not inf.attention_dp:
            raise WorkloadError(workload.id, f"tp ({tp}) does not divide the {arch.heads} attention heads")
    replicas = inf.replicas or max(replicas_inside(hw, gpus, tp), 1)
    if replicas * tp > gpus:
        raise WorkloadError(workload.id, f"tp x replicas = {tp * replicas} exceeds the {gpus} accelerators")
    if tp > share:
        raise WorkloadError(workload.id, f"tp ({tp}) exceeds the {share} accelerators the job holds in each "
                            f"scale-up domain of {hw.scale_up_size} (placement.per_domain): a replica lies inside "
                            "one domain; lower tp or raise placement.per_domain")
    if replicas > replicas_inside(hw, gpus, tp):
        raise WorkloadError(workload.id, f"{replicas} replicas of tp {tp} do not fit inside the scale-up domains: "
                            f"each share of {share} accelerators holds {share // tp}, so the {gpus} accelerators hold "
                            f"{replicas_inside(hw, gpus, tp)} replicas without one straddling two domains (a replica "
                            "lies inside one domain)")
    if replicas * tp < gpus:
        notes.append(f"{gpus - replicas * tp} of the {gpus} accelerators stay idle ({replicas} replicas of tp {tp})")
    if inf.scenario == "server" and inf.arrival_rate is None:
        notes.append("server scenario without arrival_rate: no queueing is simulated, so the figures are the "
                     "offline ones (latency percentiles are not estimated)" + (
                         "; prefill 'separate' changes nothing in them (the offline form runs every prompt as a pass "
                         "of its own)" if inf.prefill == "separate" else ""))
    rate, closed = replica_rate(inf.arrival_rate, replicas), inf.scenario == "concurrency"
    cap, by_budget = engine_cap(inf.max_num_tokens, limit, tp if inf.attention_dp else 1, source)
    if batch is not None and batch > cap and not closed and not (inf.scenario == "server" and inf.arrival_rate):
        raise WorkloadError(workload.id, f"batch {batch:,} is more sequences than {by_budget}; raise "
                            f"{'max_num_tokens' if inf.max_num_tokens < limit else 'max_batch_size'} or "
                            "lower batch")
    e, run = estimate_serving(hw, job, tp, batch, rate, replicas=replicas)
    if at_engine_cap(inf):
        notes.append(f"the closed loop keeps {batch:,} requests in flight per replica, at least the {cap:,} its "
                     "engine runs at once by the stated max_batch_size and max_num_tokens, so the replica runs at "
                     "that cap the whole run, as an offline run does: its tokens/s (and what is made from it) "
                     "carries the offline family's band, its latencies their own (docs/accuracy.md, Error bands)")
    capped = float(e.kv_batch) > float(e.max_batch)
    if capped and (batch is None or batch > float(e.max_batch)):
        notes.append(f"sequences in flight per replica capped at {float(e.max_batch):,.0f}, {by_budget}, where the "
                     f"KV cache would hold {float(e.kv_batch):,.0f}")
    bound = "" if batch is not None else by_budget if capped else KV_BOUND
    if run is None and inf.input_len > inf.max_num_tokens:
        notes.append(f"input_len {inf.input_len:,} is above max_num_tokens {inf.max_num_tokens:,}: the offline form "
                     f"prefills each prompt whole, in a pass of {inf.input_len:,} tokens of its own, as an engine "
                     f"without context chunking must (its max_num_tokens at least the prompt): {WHOLE_PROMPTS}")
    if run is not None:
        notes.extend(run.notes)
        if inf.batcher is not None:
            notes.append(f"queries reach the replicas in groups (batcher: {inf.batcher.size} queries or "
                         f"{inf.batcher.timeout:~P} after the previous group, each group to the next replica); TTFT "
                         "counts from each query's arrival, its wait for the group included")
    fits = bool(e.fits)
    misfit = "" if fits else serving_misfit(e, hw)
    if misfit:
        notes.append(f"does not fit: {misfit}")
    per_gpu = float(e.tokens_per_second_replica) * replicas / gpus  # idle accelerators count
    routing: Span | None = None   # the tokens/s per accelerator at the routing's ends, for the bands
    if arch.experts and inf.ep > 1 and fits and float(e.batch) >= 1:
        text, routed = routing_note(job, e, per_gpu, lambda j: float(estimate_serving(
            hw, j, tp, batch, rate, replicas=replicas, load=False)[0].tokens_per_second_replica) * replicas / gpus)
        notes.append(text)
        routing = routed if run is None else None   # a simulated run's tokens/s is not the closed form's, the ends'
    metrics = {}
    decodes = inf.output_len > 1   # TPOT is the time per output token after the first (`NO_TPOT`)
    if float(e.batch) >= 1:  # with no sequence in flight there is no latency or throughput to report
        metrics = {"ttft": Q_(float(e.ttft), "s")}
        if decodes and float(e.tpot) > 0:   # TPOT and a user's decode rate, 1 / TPOT: none where no token follows
            metrics |= {"tpot": Q_(float(e.tpot), "s"), "tokens_per_second_per_user": Q_(1.0 / float(e.tpot), "1/s")}
            metrics |= {"decode_step_time": Q_(float(e.decode_step), "s")} if run is None else {}   # offtpot37
        metrics |= {"tokens_per_second": Q_(float(e.tokens_per_second_replica) * replicas, "1/s"),
                    "tokens_per_second_per_gpu": Q_(per_gpu, "1/s"),
                    "concurrency": Q_(float(e.batch) if run is None or closed else run.mean_running, "")}
        if run is not None:
            metrics |= {"ttft_p50": Q_(run.ttft.p50, "s"), "ttft_p99": Q_(run.ttft.p99, "s")}
            if decodes:
                metrics |= {"tpot_p50": Q_(run.tpot.p50, "s"), "tpot_p99": Q_(run.tpot.p99, "s")}
            metrics |= capacity_metrics(run, inf.arrival_rate if not closed else None)
    metrics |= {"memory_per_gpu": Q_(float(e.memory_per_gpu), "B"),
                "memory_headroom": Q_(hw.hbm_capacity - float(e.memory_per_gpu), "B")}
    if gpus_per_rack and metrics.get("tokens_per_second_per_gpu"):
        metrics["tokens_per_second_per_rack"] = Q_(per_gpu * gpus_per_rack, "1/s")
    memory = {"weights": Q_(float(e.weights_per_gpu), "B"),
              "kv_cache": Q_(float(e.memory_per_gpu - e.weights_per_gpu), "B"),
              "total": Q_(float(e.memory_per_gpu), "B")}
    # replica time per request, additive: tokens/s per replica = output_len / (prefill + decode [+ idle])
    breakdown = {} if "ttft" not in metrics else \
        run_breakdown(run, inf.output_len, float(e.tokens_per_second_replica)) if run is not None else \
        {"prefill_per_request": Q_(float(e.prefill_per_request), "s"),
         "decode_per_request": Q_((inf.output_len - 1) * float(e.decode_step) / float(e.batch), "s")}
    sens, span = {}, None
    # an open loop that keeps up serves its offered load whatever the hardware: its elasticities are of what the
    # hardware moves, the replica's capacity (its full closed loop, `full_run`); before newuser68 every one read 0
    keeps_up = run is not None and not closed and run.stable
    latency_spans: tuple[Span, ...] = ()
    if fits and (with_sensitivity or spans_ranges(workload, arch, hw)):
        def tput(h: Hardware) -> float:
            # a batch left out follows the KV-cache capacity
            x = estimate_serving(h, job, tp, batch, rate, replicas=replicas, load=False)[0]  # tokens/s only
            # per the job's accelerators, idle ones counted, as `per_gpu` is (newuser99: 2 replicas of tp 4 on a
            # 64-accelerator job read 120.6 tokens/s per accelerator, "band 598.2 to 1,012 ... wholly above")
            return float(x.tokens_per_second_replica) * replicas / gpus if bool(x.fits) else math.inf

        def capacity(h: Hardware) -> float:
            full = full_run(h, job, tp, batch, replicas)
            return full.tokens_per_second / inf.output_len if full is not None else math.inf
        sens = elasticities(hw, capacity if keeps_up else tput, inf.precision) if with_sensitivity else {}
        ends = over_range(hw, inf.precision, tput)
        tps_metric = registry.find("workload", "tokens_per_second_per_gpu")
        span = ("tokens_per_second_per_gpu", per_gpu, *ends) if ends is not None else None
        if keeps_up and ends is not None and math.isclose(*ends, rel_tol=1e-9):   # the offered load at both ends
            cap_ends = over_range(hw, inf.precision, capacity)
            notes += span_note(hw, inf.precision, cap_ends, "the replica capacity "
                               "(its tokens/s is the offered load at both ends)", "requests/s")   # was 'X to X'
            # the band spans the capacity's range, not the offered load's 'X to X' (newuser99: a replica capacity
            # band on an unmeasured part read the model's error alone, "spans ... (160 to 160 around 160)")
            span = ("replica_capacity", float(metrics["replica_capacity"].m_as("1/s")), *cap_ends) \
                if cap_ends is not None else None
        else:
            notes += span_note(hw, inf.precision, ends, "the tokens/s per accelerator",
                               (tps_metric.rate_unit() if tps_metric else None) or "1/s")
        if ends is not None and run is None and "ttft" in metrics:   # an offline run's latencies: the closed form's
            latency_spans = tuple(s for s in latency_span(hw, inf.precision, e, lambda h: estimate_serving(
                h, job, tp, batch, rate, replicas=replicas, load=False)[0]) if s[0] in metrics)
    # under an arrival rate the batch is only the admission cap (the KV cache's capacity or `batch`); what runs is
    # the simulated concurrency: named so, not to read as the operating batch
    layout: dict[str, int | str] = {"tp": tp, "replicas": replicas,
                                    "max_batch" if run is not None and not closed else "batch": int(float(e.batch))}
    if inf.ep > 1 or inf.attention_dp:
        layout |= {"ep": inf.ep, "attention_dp": "yes" if inf.attention_dp else "no"}
    # newuser79: the replica read as a P:D deployment's pools, each from passes of its own (pd2, `pool_times`)
    pool_b, pool_words = pool_batch(e, run, closed) if breakdown else (0.0, "")
    read = None if {"prefill_per_request", "decode_per_request"} - breakdown.keys() else (
        arch, KV.kv_element_bytes(KV.serving_kv_dtype(inf.precision, inf.kv_precision)), inf.attention_dp,
        inf.input_len, inf.output_len, tp, pool_times(hw, job, tp, pool_b),
        (hw.scale_up_bandwidth, hw.scale_out_bandwidth))
    pools = disaggregated_reading(*read, batch=pool_words) if read else ""
    metrics |= pool_metrics(*read) if read else {}   # nu79fix: and its figures as metrics a requirement can target
    prompts = (f"chunked prefill of {inf.max_num_tokens} tokens per iteration" if inf.prefill == "chunked" else
               f"prompts whole in iterations of their own, up to {inf.max_num_tokens} tokens, the decodes waiting")
    if inf.adp_balance is not None:   # serve31: TensorRT-LLM's balancer holds them (perf/serve/adp_balance.py)
        prompts += (f", prompts held by the attention-DP context balancer (every rank decoding: until each rank has "
                    f"one, then {inf.adp_balance.batching_wait_iters} iterations, or to every "
                    f"{inf.adp_balance.timeout_iters}th iteration)")
    padding = ("" if inf.graph_batch_sizes is None else "; decode-only iterations padded to the next CUDA-graph "
               f"batch size a rank of {', '.join(map(str, inf.graph_batch_sizes))} (perf/serve/graph_padding.py)")
    launch = inf.kernel_launch or "graph"
    floor = float(host_floor(job, tp))
    eager = "" if launch == "graph" else (
        f"; launched without CUDA graphs ({LAUNCH_WORDS[launch]}): a pass takes at least its host's "
        f"{floor * 1e3:.2f} ms of launches" + (f" ({floor / job.launch_host * TENSORRT_LAUNCH[1] * 1e3:.2f} ms at "
                                               f"{TENSORRT_LAUNCH[1] * 1e6:g} us)" if launch == "tensorrt" else "")
        + ", the in-graph costs charged on the GPU beside")
    conv = {"ttft": f"mean over the requests of a simulated run (perf.scheduler: continuous batching, {prompts}, "
                    "admission by KV cache, queueing) of first token - arrival; the closed loop's first N requests are "
                    "left out (steady state)"
                    if run is not None else IDLE_TTFT,
            "tpot": "time per output token after the first, (request latency - TTFT) / (output_len - 1), as "
                    "genai-perf and MLPerf's loadgen report it, mean over the simulated requests" + padding
                    if run is not None else interleaved(e, inf.output_len),
            "tokens_per_second": "output tokens per second, prompt tokens not counted (MLPerf's, trtllm-bench's "
                                 "and AIPerf's throughput; vLLM's total token throughput counts both)",
            "concurrency": "requests in flight per replica, each replaced when it finishes" if closed else
                           "requests in flight per replica (queued, prefilling or decoding) by Little's law, the "
                           f"Poisson arrivals' {rate:.4g} requests/s per replica x the mean request latency"
                           if run is not None and run.stable else
                           "requests decoding per replica, time-weighted over the full replica's busy time (at "
                           "most the KV cache's capacity, or `batch`): arrivals outrun it" if run is not None else
                           "sequences in flight per replica, as many as the KV cache holds (at most max_num_tokens "
                           "and the engine's max_batch_size, per rank under attention DP) unless `batch` is given",
            "overhead": f"{float(e.overhead_per_step) * 1e3:.2f} ms of fixed per-kernel costs per forward pass" + eager,
            "kv_cache": kv_convention(reserve, inf.output_len_cv) + (f": {reserve_why}" if reserve_why else ""),
            "request_lengths": lengths_convention(inf.input_len, inf.output_len, inf.output_len_cv, run is not None)
                               + (IN_STEP if run is not None and closed else ""),
            "ffn_activation": "the FFN activation is a kernel of its own reading the up/gate GEMM's 16-bit output, as "
                              "TensorRT-LLM and vLLM run it by default (ffn_activation: separate)"
                              if inf.ffn_activation == "separate" else
                              "the dense FFN's activation runs in the up/gate GEMM's epilogue, no bytes or kernel of "
                              "its own; routed experts keep theirs (ffn_activation: fused)",
            "memory_reserve": memory_reserve(hw.memory_type, rule, fraction, hw.vendor),
            "prefill_decode": colocation_convention(arch, inf.precision, inf.kv_precision, inf.input_len, pools),
            "decoding": DECODING}
    if arch.experts and (optimistic := moe_serving_convention()) is not None:
        conv["moe_serving"] = optimistic
    if "replicas_to_keep_up" in metrics and run is not None:
        p99 = f"{run.ttft.p99:.4g} s" if math.isfinite(run.ttft.p99) else "no upper bound: arrivals outrun them"
        conv["replicas_to_keep_up"] = KEEP_UP.format(load=run.load, p99=p99)   # newuser104: "inf s" before
    if breakdown:   # newuser97: read as a request's latency (140.6 ms where the requests took 8.8 s)
        conv["breakdown"] = (f"the replica's time per request served, {inf.output_len:,} generated tokens over its "
                             f"{significant(float(e.tokens_per_second_replica))} tokens/s, split into prompts and "
                             "decodes (and waiting, where arrivals leave it idle): not a request's latency, which is "
                             "its time to first token plus (generated tokens - 1) x its TPOT, the replica serving "
                             "others between")
    limits = {}
    if run is not None and not closed and run.stable and inf.arrival_rate is not None:
        flow = f"{significant(inf.arrival_rate.m_as('1/s'))} requests/s x {inf.output_len} tokens"
        why = (f"the offered load, {flow}, sets it: a server run serves what arrives, so no hardware raises it; "
               "raise arrival_rate to ask for more")
        limits = {m: why for m in ("tokens_per_second", "tokens_per_second_per_gpu", "tokens_per_second_per_rack")}
    unjudged = {} if run is not None else {"ttft": OFFLINE_TTFT.format(batch=float(e.batch))} | {
        m: OFFLINE_PERCENTILE.format(metric=m) for m in ("ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99")}
    unjudged |= {} if decodes else dict.fromkeys(("tpot", "tpot_p50", "tpot_p99", "tokens_per_second_per_user",
                                                  "decode_step_time"), NO_TPOT)
    return Estimate(workload.id, "inference", hw.accelerator, gpus, layout, metrics, breakdown, memory, fits,
                    sensitivity=sens, sensitivity_of="replica_capacity" if sens and keeps_up else "",
                    notes=notes, conventions=conv, misfit=misfit, span=span, limits=limits,
                    latency_spans=latency_spans, routing=routing,
                    load=run.load if run is not None else None, unjudged=unjudged, assumed=assumed,
                    batch_bound=bound, defaults=serving_taken(inf, hw.vendor, limit, reserve, rule, fraction, tp,
                                                              replicas))


def interleaved(e: InferenceEstimate, output_len: int) -> str:
    """An offline run's TPOT in words: a request's mean gap by Little's law, not the decode step (newuser95, offtpot37).

    `lengths.offline_gap` gives the figure; this says what it holds, with the run's own numbers.
    """
    rate, b, step = float(e.tokens_per_second_replica), float(e.batch), float(e.decode_step)
    if output_len < 2 or rate <= 0 or b < 1:   # no token after the first, or nothing in flight: no gap to explain
        return f"time per output token after the first: {FIRST_TOKEN}"
    life = b * output_len / rate   # Little's law: the sequences in flight over the requests finished per second
    return (f"time per output token after the first, (request latency - TTFT) / (output_len - 1), as a benchmark "
            f"of such a run reports it ({OFFLINE_TPOT}): by Little's law each request lives {b:,.0f} in flight x "
            f"{output_len:,} tokens / {rate:,.0f} tokens/s per replica = {life:,.4g} s, its own prompt's share of a "
            f"prefill pass ({float(e.prefill_per_request) * 1e3:,.4g} ms) before its first token and the rest over "
            f"its output_len - 1 gaps: each is one decode step of {b:,.0f} sequences ({step * 1e3:,.4g} ms, "
            "decode_step_time, the least gap) plus its share of the other requests' prompts prefilled between the "
            "steps. That is the closed form's own schedule, every slot decoding and prompts prefilled as slots free: "
            "at this tokens/s, the most a request waits between its tokens on average. An engine that gives its "
            "token budget to the decodes first keeps fewer decoding and more waiting for their prompts, a shorter "
            "TPOT and a longer wait for the first token (scenario: concurrency simulates that). Mean lengths in a "
            f"steady state, so about: {FIRST_TOKEN}")
