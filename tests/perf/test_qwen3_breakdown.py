"""The modern file's worst row split into the model's terms, each set against the evidence (issue 20).

Row: nemo2604-h100-qwen3-30b-a3b-fp8-ep16 (Qwen3-30B-A3B on 16 H100, EP 16 over two nodes, FP8 current scaling,
HybridEP, Megatron-Bridge 26.04.01: 8,960 tokens/s/GPU). Sign convention (`scoring.scores`, `scoring.curves`): the
error is (predicted - measured) / measured of the measured metric, here tokens per second, so +29.9 % means the
model's step is too SHORT: the model is fast, and what is missing is time the model does not charge.

The breakdown (docs/perf-model.md, "The row term by term") is worked out here from the model's own functions, so it
stays the model's arithmetic: each layer term is re-derived from `kernels`, `quant`, `experts`, `host` and
`exposure` and the terms must add up to `layer.layer_times` and to the step `training_estimate` gives. Nothing is
fitted; the evidence each term is set against lives in the tests that hold it (test_h200_moe_layer.py,
test_small_expert_moe.py, test_stack_2604.py, test_host.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.comm.dispatcher import kernel_times
from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.train import host as H
from archgen.perf.train import router as R
from archgen.perf.train.dispatch_calls import dispatcher_cost
from archgen.perf.train.experts import expert_backward, expert_forward
from archgen.perf.train.job import Job
from archgen.perf.train.layer import elementwise_bytes, layer_times
from archgen.perf.train.ranks import class_times
from archgen.perf.train.stacks import resolve, stated_knobs
from archgen.scoring.cases import case_hardware, predict, read_cases, training_estimate

MODERN = Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml"
ROW = "nemo2604-h100-qwen3-30b-a3b-fp8-ep16"
#: Per rank: 4,096 tokens a micro-batch (micro-batch 1, sequence 4,096), 64 micro-batches a step (1,024 / dp 16),
#: 48 MoE layers, EP 16 in 2 nodes of 8.
TOKENS, MICRO_BATCHES, LAYERS, EP, PER_NODE = 4096, 64, 48, 16, 8


@pytest.fixture(scope="module")
def row(accelerators):
    """The row's case, hardware, job, layer times and estimate."""
    cases, _ = read_cases(MODERN)
    case = next(c for c in cases if c.id == ROW)
    hw, t = case_hardware(case, accelerators), case.training
    job = Job.from_knobs(Arch.from_model(case.model), t.seq_len, t.global_batch, t.precision,
                         resolve(t.stack, stated_knobs(t), t.precision))
    lt = layer_times(hw, job, tp=1, mb=1, cp=1, ep=EP, rc=0, sp=False)
    return case, hw, job, lt, training_estimate(case, hw)


def _layer_terms(hw, job):
    """The model's terms of one MoE layer and micro-batch on one rank (s): forward, backward and EP, by name."""
    a, dt, T = job.arch, job.precision, TOKENS
    q, cc = a.heads * a.head_dim, hw.compute_capability
    bf16 = K.training_core_dtype(dt)  # the router's GEMM is never quantised (`router`'s docstring)
    shapes = [(dt, T, q + 2 * a.kv_heads * a.head_dim, a.hidden), (dt, T, a.hidden, q), (bf16, T, a.experts, a.hidden)]
    attn_f, attn_b = K.attention_times(hw, K.training_core_dtype(dt), batch=1, q_len=T, kv_len=T, heads=a.heads,
                                       head_dim=a.head_dim, kernel=job.attention, causal=True)
    quant_f = T * Q.forward_per_token(a, job.recipe, cc, 1, False, True, None)
    quant_b = T * Q.backward_per_token(a, job.recipe, cc, 1, False, None)
    ew = elementwise_bytes(a, dt, T, 1, False, True, fp8_recipe=job.fp8_recipe, cc=cc, ep=EP,
                           dispatcher=job.moe_dispatcher, fused=job.permute_in_dispatch) - quant_f
    n_f, n_b = H.layer_kernels(job, EP, Q.layer_kernels(a, job.recipe, cc, EP))
    forward = {"attention GEMMs and router": sum(K.gemm_time(hw, *s) for s in shapes),
               "expert GEMMs": expert_forward(hw, job, T, 1, EP), "attention core": attn_f,
               "norms, residuals, SwiGLU, permutation": K.memory_time(hw, ew),
               "FP8 casts": K.memory_time(hw, quant_f), "kernels' fixed cost": n_f * K.KERNEL_OVERHEAD,
               "router loss and random logits": K.memory_time(hw, T * R.router_bytes(a, job.moe_force_balance)[0])}
    backward = {"attention GEMMs and router": sum(K.gemm_backward_time(hw, *s) for s in shapes),
                "expert GEMMs": expert_backward(hw, job, T, 1, EP), "attention core": attn_b,
                "norms, residuals, SwiGLU, permutation": 2.0 * K.memory_time(hw, ew),
                "FP8 casts": K.memory_time(hw, quant_b), "kernels' fixed cost": n_b * K.KERNEL_OVERHEAD,
                "router loss and random logits": K.memory_time(hw, T * R.router_bytes(a, job.moe_force_balance)[1])}
    dispatch, combine = kernel_times(T, a.hidden, a.experts, a.top_k, EP, PER_NODE)
    ep = {"all-to-all kernels (4)": 2.0 * (dispatch + combine), "HybridEP per-call cost": dispatcher_cost(
        hw, job, T, EP, PER_NODE, 1.0)[0]}
    return forward, backward, ep


def test_the_sign_convention_the_row_is_predicted_fast(row, accelerators):
    """+31.6 % on tokens per second: the model's step (22.23 s) is shorter than the measured (29.26 s = 1,024
    sequences of 4,096 tokens at 143,360 tokens/s), by 7.03 s, 2.29 ms for each of the 3,072 layer passes a step
    (64 micro-batches x 48 layers; 22.25 s, 2.28 ms and +31.5 % while the model counted the kernels of a rotary
    embedding the shared file's model does not state, before rope40; 22.23 s, 2.29 ms and +31.6 % while the router's GEMM was timed in FP8, `router`;
    22.53 s, 2.19 ms and +29.8 % while the nemo-2025 profile reduced gradients in
    fp32, before session gradreduce gave the row its recipe's BF16; 22.46 s, 2.21 ms and +30.3 % before the router's
    kernels, `router`). It was +40.6 % (20.81 s, 2.75 ms a pass) while HybridEP's README dispatch was
    read as bytes alone (`dispatcher.TOKEN_NODE`)."""
    case, *_, est = row
    measured = case.measured[0].value
    assert predict(case, accelerators)["tokens_per_second"] / measured - 1 == pytest.approx(0.316, abs=0.001)
    step = 1024 * 4096 / measured
    assert step == pytest.approx(29.257, abs=0.001)
    # 22.533 with fp32 gradient reduction; 22.514 before the masks were conditional; 22.461 before the router's
    # kernels; 22.231 while its GEMM was timed in FP8; 22.247 before rope40 stopped counting a rotary embedding the
    # shared file's model does not state
    assert float(est.step_time) == pytest.approx(22.231, abs=0.01)
    missing = step - float(est.step_time)
    assert missing == pytest.approx(7.03, abs=0.01)
    assert missing / (MICRO_BATCHES * LAYERS) == pytest.approx(2.29e-3, abs=0.01e-3)


def test_the_layer_terms_add_up_to_the_models_layer(row):
    """One layer and micro-batch, forward 1.388 ms, backward 2.596 ms, EP 2.919 ms (6.90 ms; host hidden: 0):

    | term | forward | backward |
    |---|---|---|
    | attention GEMMs (QKV, output) in FP8, router in BF16 (0.146 and 0.287 with it in FP8, `router`) | 0.149 | 0.290 |
    | expert GEMMs (8 local experts, 4,096 tokens each) | 0.354 | 0.625 |
    | attention core (BF16, 4,096 causal) | 0.227 | 0.657 |
    | norms, residuals, SwiGLU, HybridEP's unfused permutation | 0.277 | 0.554 |
    | FP8 casts (current scaling) | 0.237 | 0.304 |
    | kernels' fixed cost (106 and 124 kernels at 1.3 µs; 108 and 126 while a rotary embedding the shared file does
    not state was counted, 101 and 121 before the router's, `router`) | 0.138 | 0.161 |
    | the router's load-balancing loss and random logits (22 and 21 B a token and expert, `router`) | 0.004 | 0.004 |

    EP: four all-to-all kernels at HybridEP's README kernel times 2.408 ms (a fixed time per token-node plus bytes,
    `dispatcher.TOKEN_NODE`; 1.855 ms as bytes alone), its per-call cost with the routing-map all-gather
    0.510 ms."""
    _, hw, job, lt, _ = row
    forward, backward, ep = _layer_terms(hw, job)
    assert sum(forward.values()) == pytest.approx(float(lt.forward), rel=1e-9)
    assert sum(backward.values()) == pytest.approx(float(lt.backward), rel=1e-9)
    assert sum(ep.values()) == pytest.approx(float(lt.ep), rel=1e-9)
    assert float(lt.host) == pytest.approx(0.0, abs=1e-15) and float(lt.recompute) == 0.0
    ms = {k: round(float(v) * 1e3, 3) for k, v in forward.items()}
    assert ms == {"attention GEMMs and router": 0.149, "expert GEMMs": 0.354, "attention core": 0.227,
                  "norms, residuals, SwiGLU, permutation": 0.277, "FP8 casts": 0.237, "kernels' fixed cost": 0.138,
                  "router loss and random logits": 0.004}
    ms = {k: round(float(v) * 1e3, 3) for k, v in backward.items()}
    assert ms == {"attention GEMMs and router": 0.290, "expert GEMMs": 0.625, "attention core": 0.657,
                  "norms, residuals, SwiGLU, permutation": 0.554, "FP8 casts": 0.304, "kernels' fixed cost": 0.161,
                  "router loss and random logits": 0.004}
    assert {k: round(float(v) * 1e3, 3) for k, v in ep.items()} == {"all-to-all kernels (4)": 2.408,
                                                                    "HybridEP per-call cost": 0.510}


def test_the_step_terms_add_up_to_the_models_step(row):
    """The step, 22.23 s: 48 layers x 64 micro-batches x 6.90 ms (21.19 s; 22.25 and 21.21 s while a rotary embedding
    the shared file's model does not state was counted, before rope40; 22.23 and 21.19 s with the router's GEMM
    in FP8), the output layer and Transformer
    Engine's fused loss 64 x 12.88 ms and the embedding (0.83 s), the weight-gradient accumulation into the BF16
    buffer the recipe sets (grad_reduce_in_fp32 False, the nemo-2025 profile's since session gradreduce) 64 x 2.8 ms
    and the weights' FP8 casts once a step (0.18 s; 0.47 s into an FP32 buffer), the optimizer with clipping
    (0.030 s) and the exposed DP communication (0.006 s; 0.010 s in fp32, 0.004 s before the 16-bit parameters joined
    the first-gathered bucket group). Everything outside the layers comes to 1.04 s (1.34 s with fp32 gradients),
    a seventh of the 7.03 s missing: even twice as long it could not carry the miss, which must lie in the 3,072
    layer passes (2.29 ms each, 33 % of the model's 6.90 ms; 2.19 ms and 32 % with fp32 gradients; 2.75 ms and 43 %
    of 6.34 ms with HybridEP's README dispatch as bytes alone)."""
    case, hw, job, lt, est = row
    a = job.arch
    layers = MICRO_BATCHES * LAYERS * float(lt.total)
    loss = MICRO_BATCHES * float(lt.logits + lt.embed)
    _, _, accumulate = class_times(hw, job, 0.0, 0.0, 0.0, 1, 1, EP, LAYERS, 1, 1)
    weights = K.memory_time(hw, Q.step_weight_bytes(a, job.recipe, hw.compute_capability, 1, EP, LAYERS,
                                                    job.param_gather_dtype == "fp8"))
    once = float(est.optimizer) + float(est.dp_comm)
    total = layers + loss + MICRO_BATCHES * float(accumulate) + float(weights) + once
    assert total == pytest.approx(float(est.step_time), rel=1e-9)
    assert (round(layers, 2), round(loss, 2), round(MICRO_BATCHES * float(accumulate) + float(weights), 2),
            round(once, 3)) == (21.19, 0.83, 0.18, 0.036)  # 0.47 and 0.042 with fp32 gradients; 0.036 before
    # nemo-2025's 134M DDP bucket, 0.037
    # before the FP8 gather's 16-bit parameters (embedding, output layer, norms, routers) joined the edge group
    outside = total - layers
    missing = 1024 * 4096 / case.measured[0].value - float(est.step_time)
    assert outside == pytest.approx(1.04, abs=0.01)
    assert 2.0 * outside < missing
    assert missing / (MICRO_BATCHES * LAYERS) / float(lt.total) == pytest.approx(0.332, abs=0.005)


def test_the_recipes_fused_cross_entropy_is_charged(row, accelerators):
    """The 26.04 recipe fuses the loss (Megatron-Bridge v0.4.0 src/megatron/bridge/recipes/qwen/qwen3_moe.py:
    `cross_entropy_loss_fusion = True`, `cross_entropy_fusion_impl = "te"`, also set for every performance run by
    scripts/performance/utils/overrides.py `_set_common_perf_overrides`), and the row's stack profile, `nemo-2025`,
    says so (`cross_entropy` te). Transformer Engine's Triton kernels (transformer_engine/common/triton/
    cross_entropy.py at f031cf8, the commit the 26.04 pins) read the 16-bit logits twice forward, write the gradient
    over them and scale it in place backward: 10 B a logit (`loss`), 2.15 ms a micro-batch on this row where
    Megatron's unfused FP32 loss moves 52 B, 11.15 ms, and where the model charged 36 B for every stack before the
    switch (7.72 ms). Charged as the recipe runs it, the row went from +38.2 % to +40.6 % (0.36 s a step less),
    further from the measurement: the loss is not where the time is missing. (With HybridEP's README dispatch read
    as a fixed time per token-node plus bytes, `dispatcher.TOKEN_NODE`, the two read +27.9 % and +29.9 %; with the
    recipe's BF16 gradient reduction, the nemo-2025 profile's since session gradreduce, +29.5 % and +31.6 %.)"""
    case, hw, job, lt, est = row
    assert job.cross_entropy == "te"
    logits = TOKENS * job.arch.vocab
    unfused, before, fused = (K.memory_time(hw, b * logits) for b in (52.0, 36.0, 10.0))
    assert [round(float(x) * 1e3, 2) for x in (unfused, before, fused)] == [11.15, 7.72, 2.15]
    gemms = K.gemm_time(hw, "bf16", TOKENS, job.arch.vocab, job.arch.hidden) + K.gemm_backward_time(
        hw, "bf16", TOKENS, job.arch.vocab, job.arch.hidden)
    assert float(lt.logits) == pytest.approx(float(gemms + fused), rel=1e-9)
    step = float(est.step_time) + MICRO_BATCHES * float(before - fused)  # the step as the 36 B loss charged it
    assert step - float(est.step_time) == pytest.approx(0.36, abs=0.01)
    measured = case.measured[0].value
    # 0.278 with fp32 gradient reduction; 0.282 before the router's
    assert 1024 * 4096 / step / measured - 1 == pytest.approx(0.295, abs=0.001)


def test_the_miss_set_against_the_profiled_bf16_twin(row, accelerators):
    """The only profiled run of this shape is the card's BF16 twin (tests/perf/data/bridge-moe-overlap-profile.yaml:
    16 H100, EP 16, HybridEP, EP overlap off, the permutation fused into HybridEP, router graphs). The model misses it
    by 1.14 ms a layer pass (24.71 s measured, 21.21 s modelled; 1.26 ms and 20.84 s before its file stated
    Qwen3's rotary embedding and QK norms and rope40 charged them); its rank-0 profile splits that into
    communication kernels 8.25 s against the model's four all-to-alls at HybridEP's README kernel times, 7.40 s
    (+0.28 ms a layer pass; +0.83 ms and 5.70 s with the README's dispatch read as bytes alone), other kernels
    14.58 s against the model's compute, optimizer and DP, 12.25 s (+0.76 ms; 11.87 s and +0.88 ms before rope40;
    11.80 s before the router's
    load-balancing loss and random logits, `router`), and host gaps 1.89 s against
    HybridEP's per-call cost, 1.57 s (+0.11 ms). The communication figure is 9.079 ms of overlap over a share
    printed to two decimals (0.11 %): 0.105-0.115 % gives 7.89-8.65 s, so the communication excess is 0.16-0.41 ms
    and the compute excess 0.64-0.88 ms (their sum is fixed; 0.76-1.00 ms before rope40).
    The FP8 row leaves 2.29 ms, 1.15 ms more than its twin (1.02 ms before rope40; the shared file states neither
    the rotary embedding nor the QK norms, which the twin's file states, so about 0.12 ms of that is the two,
    charged on the twin alone; 2.19 and 0.93 ms while the nemo-2025 profile reduced its
    gradients in fp32; the twin states BF16): no profile covers that part (FP8 casts' host work, no
    router graphs, HybridEP's unfused permutation, which the model charges at 0.51 ms; PyTorch's FP8 grouped GEMMs
    measured 13-19 % slower than the model at these shapes on an H200, about 0.17 ms)."""
    import yaml

    data = Path(__file__).parent / "data"
    off = yaml.safe_load((data / "bridge-moe-overlap-profile.yaml").read_text(encoding="utf-8"))["runs"]["overlap-off"]
    cases, _ = read_cases(data / "bridge-26.04.yaml")
    twin = next(c for c in cases if c.id == "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off")
    est = training_estimate(twin, case_hardware(twin, accelerators))
    passes = MICRO_BATCHES * LAYERS
    a2a = 2.0 * sum(float(x) for x in kernel_times(TOKENS, 2048, 128, 8, EP, PER_NODE)) * passes
    compute = float(est.compute) + float(est.optimizer) + float(est.dp_comm)
    per_call = float(est.ep_comm) - a2a
    assert float(est.step_time) == pytest.approx(compute + a2a + per_call, rel=1e-9)

    def split(share):
        """(communication, other kernels, host gaps) of the profiled step (s) at a communication-hidden share."""
        comm = off["comm_compute_overlap_ms"] / share / 1e3
        return comm, off["gpu_active_ms"] / 1e3 - comm + off["comm_compute_overlap_ms"] / 1e3, \
            (off["step_ms"] - off["gpu_active_ms"]) / 1e3

    comm, other, gaps = split(off["comm_hidden_percent"] / 100.0)
    excess = [(comm - a2a) / passes, (other - compute) / passes, (gaps - per_call) / passes]
    assert [round(x * 1e3, 2) for x in excess] == [0.28, 0.76, 0.11]  # 0.88 before rope40, 0.9 before the router's
    twin_miss = (twin.measured[0].value - float(est.step_time)) / passes
    assert sum(excess) == pytest.approx(twin_miss, abs=0.01e-3)
    assert twin_miss == pytest.approx(1.14e-3, abs=0.01e-3)  # 1.26 ms before rope40, 1.29 ms before the router's
    low, high = split(0.00115)[0], split(0.00105)[0]
    assert [round((c - a2a) / passes * 1e3, 2) for c in (low, high)] == [0.16, 0.41]
    case, *_, fp8 = row
    fp8_miss = (1024 * 4096 / case.measured[0].value - float(fp8.step_time)) / passes
    assert fp8_miss - twin_miss == pytest.approx(1.15e-3, abs=0.01e-3)
