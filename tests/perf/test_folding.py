"""Layouts NVIDIA runs (issue 20 part 5): MoE parallel folding and virtual stages that hold only the embedding or
only the loss. Expectations are derived by hand from Megatron-core's rules (cited beside each test)."""

from __future__ import annotations

import numpy as np
import pytest

from archgen.perf.arch import Arch
from archgen.perf.memory import activation_bytes, params_per_gpu, training_memory
from archgen.perf.pipeline import split, split_problems
from archgen.perf.ranks import busiest_memory, rank_times
from archgen.perf.search import layout_problems
from archgen.perf.training import Job, Layout, estimate_training, layer_times

LLAMA405 = Arch(layers=126, hidden=16384, heads=128, kv_heads=8, head_dim=128, ffn=53248, vocab=128256, gated=True)
#: Llama 3.1 405B, by hand: attention h(q + 2kv) + qh = 16384 x 18432 + 16384^2, SwiGLU 3 x 16384 x 53248, two norms.
LAYER_405B = 16384 * 18432 + 16384 * 16384 + 3 * 16384 * 53248 + 2 * 16384
EMBED_405B = 128256 * 16384


def test_126_layers_on_pp16_v8_hold_the_embedding_and_the_loss_alone():
    """NVIDIA's GB200 recipe for Llama 3.1 405B (Megatron-Bridge performance-summary-archive.md, 26.04.01: TP4 PP16
    VP8): 126 + 2 slots = 128 = 16 ranks x 8 virtual stages of one slot each, so rank 0's first virtual stage builds
    no decoder layer (the embedding alone) and the last rank's last one only the loss. Megatron-core builds it
    (transformer_block.py `get_num_layers_to_build`: num_layers_to_build >= 0); before, 126 < 16 x 8 was refused."""
    job = Job(LLAMA405, 8192, 1536, "fp8")
    assert layout_problems(LLAMA405, job, 256, tp=4, pp=16, dp=4, interleave=8) == []
    assert split_problems(126, 16, 8) == []
    s = split(126, 16, 8)
    assert s.layers.tolist() == [7.0, 8.0, 7.0] and s.count.tolist() == [1.0, 14.0, 1.0]
    assert s.embedding.tolist() == [1.0, 0.0, 0.0] and s.loss.tolist() == [0.0, 0.0, 1.0]
    # one decoder layer fewer than the slots: 16 x 8 = 128 slots hold 126 layers
    assert float(np.sum(s.layers * s.count)) == 126
    # with neither slot the layers leave stages empty: refused, as Megatron-core's divisibility assertion does
    assert layout_problems(LLAMA405, job, 256, tp=4, pp=16, dp=4, interleave=9)


def test_the_embedding_and_loss_stages_time_and_memory(h100):
    """Each rank class is timed on what it holds: rank 0 on 7 layers and the embedding, the middle ranks on 8 layers,
    the last on 7 layers and the output layer with the loss; the busiest (a middle rank, 8 layers) sets the pace.
    Parameters by hand: rank 0 holds 7 layers and the vocab x h embedding, a middle rank 8 layers, tp 4 splits all."""
    job = Job(LLAMA405, 8192, 1536, "fp8")
    s = split(126, 16, 8)
    p = params_per_gpu(LLAMA405, 4, 16, 1, s.layers, s.embedding, s.loss)
    assert p.tolist() == pytest.approx([(7 * LAYER_405B + EMBED_405B) / 4, 8 * LAYER_405B / 4,
                                        (7 * LAYER_405B + EMBED_405B) / 4])
    lt = layer_times(h100, job, tp=4, mb=1, cp=1, ep=1, rc=0, sp=True)
    rk = rank_times(h100.with_axis(), job, lt.total, lt.logits, lt.embed, tp=4, pp=16, ep=1, v=8, sl=s)
    t = rk.t_rank - (s.layers * lt.total + s.embedding * lt.embed + s.loss * lt.logits)  # gradient accumulation
    # the accumulation is per parameter, so it follows the classes' parameters
    assert (t / p).tolist() == pytest.approx([float(t[1] / p[1])] * 3)
    assert float(rk.t_max) == pytest.approx(float(rk.t_rank[1]))
    assert float(rk.busiest) == 8.0
    # the loss rank holds one fewer layer than a middle rank but the output layer: it is not the pace-setter here
    assert float(rk.t_rank[2]) < float(rk.t_rank[1])
    est = estimate_training(h100, job, Layout(4, 16, 4, 1, interleave=8, sequence_parallel=True))
    m = 1536 / 4
    assert float(est.compute) + float(est.tp_comm) == pytest.approx(m * float(rk.t_max), rel=1e-3)
    # memory: the busiest class; the embedding rank adds vocab x h / tp weights to 7 layers, the loss rank the fp32
    # logits of a micro-batch (8192 x 128256 / 4 x 4 B) to 7 layers
    x = lambda v: np.asarray(v, dtype=float)[..., None]  # noqa: E731 (against the class axis)
    kw = dict(precision="fp8", seq_len=8192, micro_batch=x(1), tp=x(4), pp=x(16), dp=x(4), cp=x(1), ep=x(1),
              interleave=x(8), recompute=x(0), sp=x(True), flash=True, microbatches=x(m), zero=x(1),
              weight_bytes=job.weight_bytes, dropout=job.dropout)
    mem = training_memory(LLAMA405, **kw, layers=s.layers, embedding=s.embedding, loss=s.loss, position=s.position)
    assert np.asarray(mem.weights).tolist() == pytest.approx((job.weight_bytes * p).tolist())
    act = activation_bytes(LLAMA405, **{k: kw[k] for k in ("seq_len", "micro_batch", "tp", "pp", "cp", "interleave",
                                                           "recompute", "sp", "flash", "microbatches")},
                           precision="fp8", dropout=job.dropout, layers=s.layers, position=s.position)
    assert (np.asarray(mem.activations) - act).tolist() == pytest.approx([0.0, 0.0, 8192 * 128256 / 4 * 4.0])
    busiest = busiest_memory(job, Layout(4, 16, 4, 1, interleave=8, sequence_parallel=True))
    assert float(busiest.total) == pytest.approx(float(np.max(np.asarray(mem.total))))
