"""Is one mechanism behind both MoE misses? The training row and the Mixtral serving rows, side by side (issue 20).

Both misses have the same sign, the model too fast: the modern file's worst row,
nemo2604-h100-qwen3-30b-a3b-fp8-ep16 (Qwen3-30B-A3B on 16 H100, EP 16, FP8, HybridEP; +31.6 % on tokens/s, +29.9 % with fp32 gradient reduction), and the
four MLPerf Inference v5.1 Mixtral 8x7B Offline rows (tests/perf/data/mlperf-inference-v5-moe.yaml; +37.0 % to
+55.4 %). These tests put the candidate mechanisms the stacks' code offers against both, with the model's own
functions, and show what each would take to close each row. Their signatures differ: the training row misses a
fixed 2.29 ms a layer pass, which a per-kernel cost of 10 µs over the 222 kernels the model counts would carry;
the serving rows miss 23-33 % of a compute-bound step (73-75 % of it expert GEMMs at 677 or more tokens an expert;
27-36 % and 77-78 % before the FFN element-wise bytes were charged, issue 20), which a per-kernel cost would carry
only at 96-367 µs. What closes one moves the other by a fraction, so no single
mechanism explains both, and nothing here changes the model (docs/perf-model.md, Limitations, "One mechanism for
both MoE misses?"). The code read: Transformer Engine at f031cf87 (the commit the 26.04 stack pins),
NVIDIA/TensorRT-LLM at 000dea273b (cpp/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_kernels.cu).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw import launch as L
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve import inference as I
from archgen.perf.serve.ffn import ffn_bytes
from archgen.perf.serve.pass_costs import kernels_per_pass
from archgen.perf.train import host as H
from archgen.perf.train import router as R
from archgen.perf.train.experts import expert_backward, expert_forward
from archgen.perf.train.job import Job
from archgen.perf.train.stacks import resolve, stated_knobs
from archgen.scoring.cases import _model, case_hardware, read_case_file, read_cases, serve_job, training_estimate

DATA = Path(__file__).parent / "data"
MODERN = Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml"
ROW = "nemo2604-h100-qwen3-30b-a3b-fp8-ep16"
#: The training row per rank: 4,096 tokens a micro-batch, 64 micro-batches a step, 48 MoE layers, EP 16.
TOKENS, PASSES, EP = 4096, 64 * 48, 16


@pytest.fixture(scope="module")
def training(accelerators):
    """The training row: its job and hardware, the time it misses per layer pass, and its kernels per layer pass."""
    cases, _ = read_cases(MODERN)
    case = next(c for c in cases if c.id == ROW)
    hw, t = case_hardware(case, accelerators), case.training
    job = Job.from_knobs(Arch.from_model(case.model), t.seq_len, t.global_batch, t.precision,
                         resolve(t.stack, stated_knobs(t), t.precision))
    step = t.global_batch * t.seq_len / case.measured[0].value
    missing = (step - float(training_estimate(case, hw).step_time)) / PASSES
    fwd, bwd = H.layer_kernels(job, EP, Q.layer_kernels(job.arch, job.recipe, hw.compute_capability, EP))
    experts = float(expert_forward(hw, job, TOKENS, 1, EP) + expert_backward(hw, job, TOKENS, 1, EP))
    return {"job": job, "hw": hw, "missing": missing, "kernels": (float(fwd), float(bwd)), "experts": experts}


def _serving(case, accelerators) -> dict:
    """One Mixtral row as the model times it: the replica's time for `batch` requests (s), the time the measurement
    adds to it, its forward passes, its kernels per pass, and the part of its time in the expert GEMMs."""
    inf, hw = case.inference, case_hardware(case, accelerators)
    own = serve_job(case, hw)   # the row's engine cap (serve2) and KV rule (kvtidy38: it took vLLM's on every row)
    job = I.ServeJob(Arch.from_model(_model(case)), inf.input_len, inf.output_len, inf.precision, inf.kv_precision,
                     inf.kv_reserve, scenario=inf.scenario, max_num_tokens=inf.max_num_tokens, prefill=inf.prefill,
                     max_batch_size=own.max_batch_size, kv_rule=own.kv_rule, kv_fraction=own.kv_fraction)
    est = I.estimate_inference(hw, job, 1, None if inf.batch == "max" else inf.batch)
    b, out, inp, a = float(est.batch), inf.output_len, inf.input_len, job.arch
    chunk = max(job.max_num_tokens, inp)
    model = b * float(est.prefill_per_request) + out * float(est.decode_step)
    measured = b * out / (case.measured[0].value / case.system.count)

    row = {"hw": hw, "arch": a, "batch": b, "model": model, "measured": measured,
           "kernels": float(kernels_per_pass(a, 1, False, job.precision)),
           "passes": ((out, b), (b * inp / chunk, chunk))}  # (how many, tokens each): decode steps, prefill passes

    def experts(tokens):
        m = tokens * a.top_k / a.experts
        return a.layers * (K.gemm_time(hw, job.precision, m, 2 * a.expert_ffn, a.hidden, a.experts)
                           + K.gemm_time(hw, job.precision, m, a.hidden, a.expert_ffn, a.experts))
    return row | {"experts": _over_passes(row, experts)}


def _over_passes(row, per_pass) -> float:
    """`per_pass(tokens)` (s) summed over the row's forward passes for its `batch` requests."""
    return float(sum(n * np.asarray(per_pass(tokens)) for n, tokens in row["passes"]))


@pytest.fixture(scope="module")
def serving(accelerators):
    """The four Mixtral 8x7B Offline rows, by id."""
    return {c.id: _serving(c, accelerators) for c in read_case_file(DATA / "mlperf-inference-v5-moe.yaml").cases}


def _error(row, extra=0.0) -> float:
    """The row's tokens/s error with `extra` seconds added to the model's time for its requests."""
    return row["measured"] / (row["model"] + extra) - 1.0


def test_transformer_engine_runs_one_cublas_gemm_per_local_expert_on_four_streams(training):
    """TE's `GroupedLinear` on Hopper (transformer_engine/common/gemm/cublaslt_gemm.cu at f031cf87,
    `nvte_multi_tensor_gemm`: the CUTLASS grouped GEMM only with NVTE_USE_CUTLASS_GROUPED_GEMM, off by default;
    otherwise `multi_stream_cublas_gemm`) launches one cuBLAS GEMM per expert, round-robin over
    `nvte_get_num_compute_streams()` = 4 streams (common/util/multi_stream.cpp), joined by CUDA events, which are no
    kernels. So the model's count of 2 forward and 4 backward GEMMs per local expert is the code's: 16 and 32 of the
    row's 106 forward and 124 backward kernels a layer pass (8 local experts; 108 and 126 while the model counted a
    rotary embedding the shared file's model does not state, before rope40; 101 and 121 before the router's
    load-balancing loss and random logits, `router`). A split over streams lets small
    GEMMs share the GPU; it adds no kernel and no fixed cost."""
    assert H.EXPERT_GEMMS == (2.0, 4.0)
    local = training["job"].arch.experts / EP
    assert local == 8
    assert training["kernels"] == (106.0, 124.0)  # 108 and 126 before rope40
    gemms = (local * H.EXPERT_GEMMS[0], local * H.EXPERT_GEMMS[1])
    assert gemms == (16.0, 32.0)


def test_the_training_miss_is_a_fixed_cost_per_layer_pass(training):
    """The row misses 2.29 ms a layer pass (7.03 s a step over 3,072 passes; 2.19 ms while the nemo-2025 profile
    reduced its gradients in fp32, before session gradreduce gave it the recipe's BF16; 2.21 ms before the router's
    load-balancing loss and random logits, `router`; 2.75 ms while HybridEP's README dispatch was read as bytes alone,
    `dispatcher.TOKEN_NODE`). Over the 230 kernels the model counts in a pass that is 10.0 µs a kernel beyond the
    1.3 µs it charges (`kernels.KERNEL_OVERHEAD`; 9.8 µs over 234 while a rotary embedding the shared file does not
    state was counted, before rope40; 9.4 µs with fp32 gradients, 9.9 µs over 222 before the router's,
    12.4 µs before), near the 7.7 µs a captured kernel the profiled BF16 twin leaves (tests/perf/test_stack_2604.py).
    The experts' GEMMs, forward and backward, take 0.98 ms: to carry the miss they would have to run at 0.30 of the
    model's rate, where the H200 measures this GEMM family within 20 % of it
    (tests/perf/test_h200_kernels.py, tests/perf/test_h200_moe_layer.py)."""
    missing, n = training["missing"], sum(training["kernels"])
    # 2.19 ms with fp32 gradient reduction and before the dropout masks were conditional; 2.21 ms before the router's
    assert missing == pytest.approx(2.29e-3, abs=0.01e-3)
    assert n == 230.0  # 234 before rope40 (the shared file states no rotary embedding)
    assert missing / n == pytest.approx(10.0e-6, abs=0.1e-6)
    assert training["experts"] == pytest.approx(0.979e-3, rel=0.01)
    assert training["experts"] / (training["experts"] + missing) == pytest.approx(0.30, abs=0.01)


def test_the_serving_miss_scales_with_the_work(serving):
    """The Mixtral rows are compute-bound: at their batch (2,810 and 3,029 on H200 and 4,499 on MI300X, what the KV
    cache holds at each row's stated fraction; 4,736 stated on MI325X) each expert sees 702-1,184 tokens a decode step
    and 2,304 (H200, 9,216-token chunks) or 12,800 (AMD, 51,200-token batches) a prefill pass, and the expert GEMMs
    are 73-74 % of the model's time. The model's time is 23-32 % short of the measured; a per-kernel cost would carry
    that only at 102-386 µs over the model's 452 kernels a pass (276 passes for 2,810 requests on H200), 10 to 39
    times what the training row needs; a slower expert GEMM would carry it at 1.42-1.65 times the model's expert GEMM
    time. (Before the activation's and the combine's bytes were charged, issue 20: 27-36 %, 77-78 %, 113-405 µs,
    1.48-1.71.)"""
    # kvpeak37: the KV cache less the engines' profiling peak held 2,662 on H200 (2,707) and 4,045 on MI300X (4,237),
    # the per-kernel figures 100.1/95.1/366.5 µs and factors 1.43/1.408/1.644 before. kvtidy38: the rows' jobs took
    # vLLM's rule at 0.9, not the fraction each row states (0.9/0.97 under TensorRT-LLM's rule on H200, 0.96/0.97 under
    # vLLM's on AMD) as `serve_job` and the scored prediction do: 99.0/94.1/352.1 µs, 1.428/1.407/1.642 before
    want = {"mlperf51-mixtral-8x7b-offline-8xh200-tp1-fp8-asustek": (102.6, 1.432),
            "mlperf51-mixtral-8x7b-offline-8xh200-tp1-fp8-hpe": (102.2, 1.416),
            "mlperf51-mixtral-8x7b-offline-8xmi325x-tp1-fp8": (253.1, 1.485),
            "mlperf51-mixtral-8x7b-offline-8xmi300x-tp1-fp8": (385.6, 1.647)}
    for cid, row in serving.items():
        missing = row["measured"] - row["model"]
        assert 0.22 < missing / row["measured"] < 0.33, cid
        assert 0.72 < row["experts"] / row["model"] < 0.75, cid
        assert row["kernels"] == 452.0, cid
        per_kernel = missing / (_over_passes(row, lambda _: 1.0) * row["kernels"])
        factor = 1.0 + missing / row["experts"]
        assert (round(per_kernel * 1e6, 1), round(factor, 3)) == want[cid], cid


def test_what_closes_one_row_moves_the_other_by_a_fraction(training, serving):
    """Each row's closing mechanism applied to the other. The training row's 10.0 µs a kernel, charged on every
    kernel of every serving pass, moves the Mixtral rows by 1.8-3.9 points (1.8-3.8 at 9.8 µs, before rope40; 1.8-3.7 at the 9.4 µs it missed by with
    fp32 gradient reduction, before session gradreduce; 1.9-3.9 at the 9.9 µs before the router's kernels were
    counted, `router`; 2.3-4.9 points at the 12.4 µs of HybridEP's README dispatch read as bytes alone).
    The serving rows' slower expert GEMMs (1.41-1.64 times) add 0.40-0.63 ms to the training row's 0.98 ms of expert
    GEMMs, 17-28 % of its 2.29 ms. So the two misses have different signatures (a
    fixed cost per layer pass; a rate on the work) and one mechanism cannot close both."""
    per_kernel = training["missing"] / sum(training["kernels"])
    moved = {}
    for cid, row in serving.items():
        before, after = _error(row), _error(row, _over_passes(row, lambda _: 1.0) * row["kernels"] * per_kernel)
        moved[cid] = round((before - after) * 100, 1)
        factor = 1.0 + (row["measured"] - row["model"]) / row["experts"]
        share = (factor - 1.0) * training["experts"] / training["missing"]
        assert 0.17 < share < 0.30, cid
    # 3.9/3.9/1.9/1.9 before kvtidy38 took each row's stated KV fraction and engine rule (the hpe row 3.8 before kvpeak37)
    assert moved == {"mlperf51-mixtral-8x7b-offline-8xh200-tp1-fp8-asustek": 3.9,
                     "mlperf51-mixtral-8x7b-offline-8xh200-tp1-fp8-hpe": 3.7,
                     "mlperf51-mixtral-8x7b-offline-8xmi325x-tp1-fp8": 1.9,
                     "mlperf51-mixtral-8x7b-offline-8xmi300x-tp1-fp8": 1.8}


def _few_token_floor() -> tuple[float, float]:
    """(fixed seconds, bytes per second) of a grouped BF16 GEMM with 16 tokens per expert on the H200: the line
    through the 8- and 128-expert rows of `grouped_small` (tests/perf/data/h200-kernels.json), time against the
    weight bytes. A reading of this project's measurement, not a model constant."""
    rows = json.loads((DATA / "h200-kernels.json").read_text(encoding="utf-8"))["sections"]["grouped_small"]["rows"]
    few = sorted((r["weight_bytes"], r["s"]) for r in rows if r["tokens_per_group"] == 16)
    (b0, t0), (b1, t1) = few[0], few[-1]
    rate = (b1 - b0) / (t1 - t0)
    return t0 - b0 / rate, rate


def test_the_few_token_grouped_gemm_floor_reaches_neither_row(training, serving, accelerators):
    """The H200's grouped GEMM at 16 tokens per expert takes 10.8 µs plus its weights at 3.3 TB/s (26 µs for 50 MB
    at 8 experts, 253 µs for 805 MB at 128): a fixed cost per grouped call and a slower stream than the model's
    4.0 TB/s, which bind where experts see few tokens (decode at small batch). Neither row is there. The training
    row's experts see 4,096 tokens each, a shape the H200 measures directly: PyTorch's BF16 grouped GEMM over 8
    experts of 4,096 tokens is within 11 % of the model, and even the smallest GEMM measured (4.4 µs) charged on
    each of the row's 48 per-expert cuBLAS GEMMs beyond the 1.3 µs a kernel the model already charges adds 0.15 ms,
    7 % of the 2.29 ms missed. The Mixtral rows' experts see 702 tokens or more; their up/gate GEMM takes 4.1 times
    (H200) what the floor's line gives for the same weights: compute-bound. So this floor closes neither miss."""
    fixed, rate = _few_token_floor()
    assert fixed == pytest.approx(10.8e-6, abs=0.1e-6)
    assert rate == pytest.approx(3.32e12, rel=0.01)
    sections = json.loads((DATA / "h200-kernels.json").read_text(encoding="utf-8"))["sections"]
    h200 = hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=1)
    for r in sections["grouped_gemm"]["rows"]:
        if r["tokens_per_group"] == TOKENS:
            model = K.gemm_time(h200, "bf16", TOKENS, r["n"], r["k"], r["groups"])
            assert abs(model / r["s"] - 1) < 0.11, r
    smallest = min(r["s"] for name in ("gemm_expert_shapes", "gemm_decode") for r in sections[name]["rows"])
    assert smallest == pytest.approx(4.4e-6, abs=0.05e-6)
    local = training["job"].arch.experts / EP
    beyond = sum(H.EXPERT_GEMMS) * local * (smallest - K.KERNEL_OVERHEAD)
    assert beyond == pytest.approx(0.15e-3, abs=0.005e-3)
    assert beyond / training["missing"] == pytest.approx(0.07, abs=0.01)
    row = serving["mlperf51-mixtral-8x7b-offline-8xh200-tp1-fp8-asustek"]
    a = row["arch"]
    m = row["batch"] * a.top_k / a.experts
    up = K.gemm_time(row["hw"], "fp8", m, 2 * a.expert_ffn, a.hidden, a.experts)
    # 2,810 sequences under the row's TensorRT-LLM rule (kvtidy38; 665.5 of 2,662 under vLLM's, 676.75 of 2,707
    # before kvpeak37's profiling peak; the ratio 4.0 then)
    assert m == pytest.approx(702.5)
    assert float(up) / (fixed + a.experts * 2 * a.expert_ffn * a.hidden / rate) == pytest.approx(4.1, abs=0.1)


def test_tensorrt_llm_moe_runner_moves_bytes_the_serving_model_does_not_charge(serving):
    """What NVIDIA/TensorRT-LLM's MoE runner moves (read at 000dea273b, the snapshot read; the commit the v5.1 harness
    built was not identified): cpp/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/moe_kernels.cu,
    `CutlassMoeFCRunner::gemm1`, `gemm2`. On Hopper's TMA warp-specialised path GEMM1 runs without its activation
    and writes 2·f per routed row in the 16-bit backbone type (`UnfusedGemmOutputType = BackBoneType`; "Current
    logic requires output type to be non-FP8"); `doActivation` reads them and writes f in FP8 for FC2; FC2 writes h
    per row in 16 bits and, unless the profiler picks its FINALIZE epilogue, `finalizeMoeRoutingKernelLauncher`
    reads the k rows and writes the token's h; the input's expansion reads the FP8 token and writes k rows: in all
    k(7f + 4h) + 2h bytes a token and MoE layer beyond what the GEMMs' roofline charges (242 kB for Mixtral).
    Since issue 20 the serving model charges the activation and the combine, which vLLM's fused MoE runs too
    (`perf.serve.ffn`): k(5f + 2h) + 2h = 168 kB, and the rows moved from +38.7/+37.0/+43.1/+55.4 % to
    +31.3/+29.8/+36.1/+47.6 %. Left: k(2f + 2h) = 74 kB, the GEMMs' 16-bit outputs (counted in FP8 by
    `kernels.gemm_bytes`) and TensorRT-LLM's expansion (vLLM's kernel gathers in place). Charged, they would take
    the rows to +28.3/+26.8/+33.2/+44.4 %, where charging all of the lead on the old model put them."""
    # kvpeak37 (the profiling peak out of the KV cache): 31.3/28.3, 29.8/26.8 and 47.6/44.4 before; kvtidy38 (each
    # row's stated KV fraction and engine rule, `serve_job`'s): 31.2/28.2, 29.7/26.7 and 47.5/44.3 before
    want = {"mlperf51-mixtral-8x7b-offline-8xh200-tp1-fp8-asustek": (31.5, 28.5),
            "mlperf51-mixtral-8x7b-offline-8xh200-tp1-fp8-hpe": (30.3, 27.3),
            "mlperf51-mixtral-8x7b-offline-8xmi325x-tp1-fp8": (36.1, 33.2),
            "mlperf51-mixtral-8x7b-offline-8xmi300x-tp1-fp8": (47.8, 44.7)}
    for cid, row in serving.items():
        a = row["arch"]
        lead = a.top_k * (7 * a.expert_ffn + 4 * a.hidden) + 2 * a.hidden
        charged = ffn_bytes(a, "fp8", 1)[1] / a.moe_layers
        assert (lead, charged) == (241_664, a.top_k * (5 * a.expert_ffn + 2 * a.hidden) + 2 * a.hidden) == \
            (241_664, 167_936)
        rest = lead - charged
        assert rest == a.top_k * (2 * a.expert_ffn + 2 * a.hidden) == 73_728
        hw, layers = row["hw"], a.moe_layers
        extra = _over_passes(row, lambda tokens, hw=hw, n=layers, b=rest: n * K.memory_time(hw, tokens * b))
        got = (round(_error(row) * 100, 1), round(_error(row, extra) * 100, 1))
        assert got == want[cid], cid


#: Kernels the router's auxiliary loss and the benchmark's forced balancing add to an MoE layer pass, counted from
#: Megatron-core at 3097d81 (megatron/core/transformer/moe/router.py `TopKRouter.forward` and `routing`,
#: moe_utils.py) as the 26.04 Qwen3 recipe runs it (Megatron-Bridge v0.4.0: qwen3_moe_bridge.py
#: `moe_router_load_balancing_type = "aux_loss"`, coefficient 1e-3; scripts/performance/configs/qwen/
#: qwen3_llm_pretrain.py `moe_router_fusion = True`, `moe_router_force_load_balancing = True`). Forward: the random
#: logits (`apply_random_logits`, `RandomSTE`: `logits.clone().normal_()`, 2), TE's fused scores for the aux loss
#: (`fused_compute_score_for_moe_aux_loss`), the tokens per expert (`routing_map.sum(dim=0)`; the reduction over
#: the TP×CP group is a no-op at size 1), TE's fused aux loss (`fused_moe_aux_loss`) and the metrics tracker's
#: division and accumulation (`values[layer - 1] += value`): 7. Backward: `MoEAuxLossAutoScaler` (`ones_like`
#: times the scale: 2), the two fused functions' gradients (2) and their sum into the logits' gradient (1): 5.
#: The model now charges them (`router.router_kernels`, read again at 2edffad, the commit v0.4.2 pins).
AUX_LOSS_KERNELS = (7.0, 5.0)


def test_the_router_kernels_the_model_counts_are_microseconds(training):
    """The model's count now holds the router's auxiliary loss and forced balancing (`router`), as the code the
    row ran launches them: 12 kernels a layer pass, 16 µs at the model's 1.3 µs a kernel, 0.7 % of the 2.29 ms
    missed; on the host 12 operations at 13.48 µs, 0.16 ms, which take the forward's issue time from 1.33 to
    1.43 ms (1.36 to 1.46 ms before rope40) against the 2.97 ms its GPU works (docs/perf-model.md, Training, Host time), so the host still does not
    bind (the FP8 recipe graphs nothing). Whatever else a layer pass launches would need about 1,760 such kernels
    (10.0 µs over 1.3 µs each, times 230) to carry the miss on the GPU: the count is not where the time is."""
    assert R.router_kernels(training["job"].arch, True) == AUX_LOSS_KERNELS
    assert training["job"].moe_force_balance  # the recipe's, from the nemo-2025 profile
    extra = sum(AUX_LOSS_KERNELS)
    assert extra * K.KERNEL_OVERHEAD == pytest.approx(15.6e-6, abs=0.1e-6)
    assert extra * K.KERNEL_OVERHEAD / training["missing"] == pytest.approx(0.007, abs=0.001)
    fwd, bwd = training["kernels"]
    assert L.HOST_OP_TIME * extra == pytest.approx(0.162e-3, abs=0.001e-3)
    assert [round(L.HOST_OP_TIME * n * 1e3, 2) for n in (fwd - AUX_LOSS_KERNELS[0], fwd)] == [1.33, 1.43]
    # 1684 with fp32 gradient reduction (before session gradreduce), 1702 before the router's
    assert training["missing"] / K.KERNEL_OVERHEAD == pytest.approx(1759, abs=5)
