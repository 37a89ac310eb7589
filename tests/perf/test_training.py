"""Training: FLOP counting against the Megatron formulas, schedule terms, memory against Korthikanti et al."""

from __future__ import annotations

import numpy as np
import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.hw.arch import Arch, megatron_flops
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.memory import activation_bytes, training_memory
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.training import estimate_training
from archgen.units import Q_

GPT3 = Arch(layers=96, hidden=12288, heads=96, kv_heads=96, head_dim=128, ffn=49152, vocab=51200)


def test_parameter_count_matches_narayanan_eq2():
    # P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)): tied embeddings, learned positions, biases (SC21 eq. 2)
    l, h, v, s = 96, 12288, 51200, 2048
    eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (v + s) / (12 * l * h))
    ours = GPT3.params() - v * h + s * h  # ours: untied embeddings, rotary/none, no biases
    assert ours == pytest.approx(eq2, rel=1e-3)
    assert eq2 == pytest.approx(174.6e9, rel=1e-3)  # Table 1, 175B row


def test_model_flops_equal_megatron_72():
    b, s = 1536, 2048
    assert GPT3.model_flops(b * s, s) == pytest.approx(megatron_flops(GPT3, b, s, "model_72"), rel=1e-12)


def test_full_recompute_hardware_flops_equal_megatron_96(a100):
    job = Job(GPT3, 2048, 1536, "fp16", "materialized", False, False)
    est = estimate_training(a100, job, Layout(8, 12, 4, 1, recompute=2, sequence_parallel=False))
    assert float(est.hardware_flops) == pytest.approx(megatron_flops(GPT3, 1536, 2048, "megatron_96"), rel=1e-12)


def test_gated_gqa_flops_per_token():
    llama70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=32000, gated=True)
    params_nonembed = llama70.params() - 2 * 32000 * 8192
    assert llama70.params() == pytest.approx(68.98e9, rel=0.01)  # Llama-2-70B: 68,976,648,192 parameters
    s = 4096
    fwd = llama70.forward_flops_per_token(s)
    assert fwd == pytest.approx(2 * (params_nonembed - 80 * 2 * 8192 - 8192) + 4 * 80 * s * 8192 + 2 * 8192 * 32000,
                                rel=1e-9)


def test_bubble_follows_p_minus_one_over_v_m(h100):
    """The bubble is every other rank's time for one micro-batch over v: (p - 1)/v · t when the ranks are equal.
    The last rank also holds the output layer and the first the embedding, so the busiest (last) rank sets the
    pace and the bubble lies between 6 and 7 of its micro-batch times on 8 ranks."""
    job = Job(GPT3, 2048, 512)
    base = dict(tp=8, dp=4, micro_batch=1, recompute=1)
    one = estimate_training(h100, job, Layout(pp=8, interleave=1, **base))
    two = estimate_training(h100, job, Layout(pp=8, interleave=2, **base))
    m = 512 / 4
    stage = (float(one.step_time) - float(one.bubble) - float(one.pp_comm) - float(one.dp_comm)
             - float(one.optimizer)) / m
    assert 6 * stage < float(one.bubble) < 7 * stage
    assert float(two.bubble) == pytest.approx(float(one.bubble) / 2, rel=1e-9)


def test_mfu_uses_model_flops_and_the_dtype_peak(h100):
    job = Job(GPT3, 2048, 512)
    est = estimate_training(h100, job, Layout(8, 8, 4, 1, recompute=2))
    assert float(est.mfu) == pytest.approx(est.model_flops / float(est.step_time) / 256 / 989e12)
    assert float(est.model_flops_per_gpu) < float(est.hardware_flops) / float(est.step_time) / 256


def test_vectorised_equals_scalar(h100):
    job = Job(GPT3, 2048, 512)
    tps, pps = np.array([8, 4, 8]), np.array([8, 16, 4])
    many = estimate_training(h100, job, Layout(tps, pps, 256 // (tps * pps), 1, recompute=np.array([2, 1, 0])))
    for i in range(3):
        one = estimate_training(h100, job, Layout(int(tps[i]), int(pps[i]), 256 // int(tps[i] * pps[i]), 1,
                                                  recompute=[2, 1, 0][i]))
        assert float(many.step_time[i]) == pytest.approx(float(one.step_time))


def test_activation_memory_matches_korthikanti_table2():
    # no parallelism, no recompute, materialised scores: s b h (34 + 5 a s / h) bytes per layer
    s, b, h, a = 2048, 1, 12288, 96
    per_layer = s * b * h * (34 + 5 * a * s / h)
    got = activation_bytes(GPT3, seq_len=s, micro_batch=b, tp=1, pp=1, cp=1, interleave=1, recompute=0, sp=False,
                           flash=False, microbatches=8)
    assert float(got) == pytest.approx(per_layer * 96)
    # tensor + sequence parallel, selective recompute: s b h 34 / t
    got = activation_bytes(GPT3, seq_len=s, micro_batch=b, tp=8, pp=1, cp=1, interleave=1, recompute=1, sp=True,
                           flash=False, microbatches=8)
    assert float(got) == pytest.approx(s * b * h * 34 / 8 * 96)
    # full recompute keeps the layer inputs: 2 s b h (split by t with SP)
    got = activation_bytes(GPT3, seq_len=s, micro_batch=b, tp=8, pp=1, cp=1, interleave=1, recompute=2, sp=True,
                           flash=False, microbatches=8)
    assert float(got) == pytest.approx(2 * s * b * h / 8 * 96)


def test_optimizer_state_is_sharded_by_the_distributed_optimizer():
    common = dict(precision="bf16", seq_len=2048, micro_batch=1, tp=8, pp=8, cp=1, ep=1, interleave=1, recompute=2,
                  sp=True, flash=True, microbatches=64)
    plain = training_memory(GPT3, dp=16, distributed_optimizer=False, **common)
    zero1 = training_memory(GPT3, dp=16, distributed_optimizer=True, **common)
    assert float(zero1.optimizer) == pytest.approx(float(plain.optimizer) / 16)
    assert float(plain.weights) == pytest.approx(2 * float(plain.gradients) / 4)


def test_sharded_gradients_keep_two_layers_whole_while_they_are_reduce_scattered():
    # Megatron-FSDP (mfsdp_design.md): a layer's param.grad is full-size until its reduce-scatter releases it, so
    # ZeRO-2/3 hold the dp-sharded fp32 gradients plus two layers' full ones (the one computing, the one reducing)
    common = dict(precision="bf16", seq_len=2048, micro_batch=1, tp=8, pp=8, dp=16, cp=1, ep=1, interleave=1,
                  recompute=2, sp=True, flash=True, microbatches=64)
    one = {z: training_memory(GPT3, zero=z, **common) for z in (1, 2, 3)}
    layer = 12 * 12288**2 / 8  # one GPT-3 layer's weights on a tp-8 rank (12 h^2, biases and norms aside)
    whole = float(one[1].gradients)
    assert float(one[2].gradients) == pytest.approx(whole / 16 + 2 * 4 * layer, rel=1e-3)
    assert float(one[3].gradients) == float(one[2].gradients)


def test_a_pipeline_hop_crosses_domains_unless_each_pipeline_fits_one(accelerators):
    gb200 = hardware_for(accelerators["gb200"], scale_up_size=72, scale_out_bandwidth=Q_(400, "Gbit/s"))
    job = Job(GPT3, 2048, 576, overlap_p2p_comm=False)
    size = 2048 * 12288 * 2 / 8  # one micro-batch's activations, split by tp 8 (scatter/gather)
    nvlink, ib = (float(collective_time(gb200, "p2p", size, 2, k)) for k in (2, 1))
    assert ib > 10 * nvlink
    # tp 8 x dp 1 x pp 9 = 72 ranks: each pipeline is one NVL72 domain, every hop on NVLink
    one = estimate_training(gb200, job, Layout(8, 9, 1, 1))
    assert float(one.pp_comm) == pytest.approx(2 * 576 * nvlink, rel=1e-12)
    # dp 2 doubles the stride: a pipeline spans 144 ranks, so its stage 4 (ranks 64-79) straddles two domains and
    # that hop, the slowest, crosses the scale-out fabric (before, two ranks per domain counted it as NVLink)
    two = estimate_training(gb200, job, Layout(8, 9, 2, 1))
    assert float(two.pp_comm) == pytest.approx(2 * 288 * ib, rel=1e-12)


def test_interleaved_p2p_overlap_leaves_only_warmup_and_flush_blocking(h100):
    lay = Layout(8, 8, 4, 1, interleave=2, recompute=1)  # stride 32 on 8-GPU domains: every hop crosses
    p2p = float(collective_time(h100, "p2p", 2048 * 12288 * 2 / 8, 2, 1))
    blocking = estimate_training(h100, Job(GPT3, 2048, 512, overlap_p2p_comm=False), lay)
    overlapped = estimate_training(h100, Job(GPT3, 2048, 512, overlap_p2p_comm=True), lay)
    m = 512 / 4
    assert float(blocking.pp_comm) == pytest.approx(2 * 2 * m * p2p, rel=1e-12)
    # a chunk of six GPT-3 layers' forward (milliseconds) outlasts one 6.3 MB send (0.14 ms at 400 Gb/s x 0.9), so
    # only the 2 (p - 1) sends of warmup and flush stay on the critical path
    assert float(overlapped.pp_comm) == pytest.approx(2 * 7 * p2p, rel=1e-12)
    # Megatron's non-interleaved 1F1B sends block whatever the flag says
    plain = Layout(8, 8, 4, 1, interleave=1, recompute=1)
    assert float(estimate_training(h100, Job(GPT3, 2048, 512, overlap_p2p_comm=True), plain).pp_comm) == \
        pytest.approx(float(estimate_training(h100, Job(GPT3, 2048, 512, overlap_p2p_comm=False), plain).pp_comm))
