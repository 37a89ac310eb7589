"""The p2p CP ring is timed step by step at its slowest hop, one pair of ranks, not as an all-gather (nu53fix).

Transformer Engine's p2p context parallelism (`AttnFuncWithCPAndKVP2P`, transformer_engine/pytorch/attention/
dot_product_attention/context_parallel.py at d0067d0): rank r sends its K/V chunk to rank r + 1 (lines 1418-1419),
cp − 1 steps forward (lines 1698-1716); backward K/V alone on the first step, K/V and dK/dV together in between,
dK/dV alone on the last (lines 2460-2495). All ranks send at once, so a step lasts as long as its slowest hop, and a
hop between scale-up domains runs on the sending accelerator's own NIC. Before, the exchange was three NCCL
all-gathers of the group, whose rings across domains run on every rail NIC of the domain (k of them): newuser53's
short-cp16 (Llama 3 8B, 32,768 tokens, cp 16 over two 8-GPU H100 nodes) showed 1.26 ms of exchange beside 3.27 ms of
attention, nothing exposed; one NIC a hop gives 8.51 ms, 5.24 ms exposed per layer and micro-batch.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from archgen.perf.comm import nccl
from archgen.perf.comm.group import up_bandwidth
from archgen.perf.hw.arch import Arch
from archgen.perf.train import exposure as X
from archgen.perf.train.cp_comm import cp_kv_bytes
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from tests.conftest import SPECS
from tests.data.workloads import training_workload

LLAMA3_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


def _ring(cp: int, hop_time) -> float:
    """The ring's steps: cp − 1 chunks forward; 2 single chunks and cp − 2 double ones backward."""
    return (cp - 1) * hop_time(1) + 2 * hop_time(1) + (cp - 2) * hop_time(2)


def test_a_ring_across_domains_runs_each_hop_on_one_accelerators_nic(h100):
    """cp 16 at tp 1 on 8-GPU nodes: two nodes, so a hop crosses; each hop carries a chunk at one GPU's 400 Gb/s."""
    kv = cp_kv_bytes(LLAMA3_8B, 32768, 1, 1)  # 2 x 32,768 x 8 heads x 128 x 2 B = 134 MB
    chunk = kv / 16
    one_nic = h100.scale_out_bandwidth * h100.scale_out_efficiency  # 50 GB/s x its efficiency
    latency = nccl.NET_STEP * nccl.US + h100.scale_out_latency  # NCCL's NET step, as the pipeline's sends

    def hop(chunks):
        return latency + chunks * chunk / one_nic

    assert X.cp_exchange(h100, kv, 16, 1) == pytest.approx(_ring(16, hop), rel=1e-12)
    # 15 + 2 + 14 x 2 = 45 chunks of 8.39 MB over one NIC: 45 x 8.39 MB / (50 GB/s x 0.9) = 8.39 ms, and 31 steps'
    # latency; the three all-gathers over the node's 8 NICs took 1.26 ms
    assert X.cp_exchange(h100, kv, 16, 1) == pytest.approx(45 * chunk / one_nic + 31 * latency, rel=1e-12)


def test_a_ring_inside_one_domain_runs_on_the_scale_up_link(h100):
    """cp 8 at tp 1 fills one 8-GPU node: every hop is an NVLink send."""
    kv = cp_kv_bytes(LLAMA3_8B, 32768, 1, 1)
    chunk = kv / 8

    def hop(chunks):
        return h100.scale_up_latency + chunks * chunk / up_bandwidth(h100)

    assert X.cp_exchange(h100, kv, 8, 1) == pytest.approx(_ring(8, hop), rel=1e-12)


def test_short_context_across_nodes_exposes_the_ring(h100):
    """short-cp16 on the fixture's H100 nodes: the ring outlasts the attention it hides behind."""
    job = Job(LLAMA3_8B, 32768, 16, "bf16", "flash")
    lt = layer_times(h100, job, tp=1, mb=1, cp=16, ep=1, rc=0, sp=False)
    exchange = X.cp_exchange(h100, cp_kv_bytes(LLAMA3_8B, 32768, 1, 1), 16, 1)
    window = X.CP_WINDOW * lt.attention
    assert exchange > window  # 8.5 ms against 3.3 ms of attention
    assert lt.cp >= exchange - window > 0.0


@pytest.mark.parametrize("rc", [1, 2])
def test_recomputation_runs_the_forward_ring_again(h100, rc):
    """Selective (the core attention, Megatron-core's default `recompute_modules`) and full recomputation both re-run
    Transformer Engine's attention, its ring with it (attention.py at d98e8a6, lines 392-395 and 495;
    CheckpointFunction.backward, tensor_parallel/random.py line 659): cp − 1 more forward hops, beside one more
    attention forward. Before, the exchange and its window were the same whatever the recomputation."""
    kv = cp_kv_bytes(LLAMA3_8B, 32768, 1, 1)
    chunk = kv / 16
    hop = nccl.NET_STEP * nccl.US + h100.scale_out_latency + chunk / (h100.scale_out_bandwidth
                                                                       * h100.scale_out_efficiency)
    assert X.cp_exchange(h100, kv, 16, 1, rc) == pytest.approx(X.cp_exchange(h100, kv, 16, 1) + 15 * hop, rel=1e-12)
    assert X.cp_window(1.0, rc) == X.CP_WINDOW + 1.0
    job = Job(LLAMA3_8B, 32768, 16, "bf16", "flash")
    plain = layer_times(h100, job, tp=1, mb=1, cp=16, ep=1, rc=0, sp=False)
    again = layer_times(h100, job, tp=1, mb=1, cp=16, ep=1, rc=rc, sp=False)
    # short-cp16 (full): 11.4 ms of exchange beside 4.21 ms of attention, 7.16 ms exposed (8.51, 3.27, 5.24 without)
    assert again.cp >= X.cp_exchange(h100, kv, 16, 1, rc) - X.cp_window(again.attention, rc) > plain.cp - 1e-12
    # arrays of layouts (the sweeps' and searches' path) give what one layout does
    both = layer_times(h100, job, tp=1, mb=1, cp=16, ep=1, rc=np.array([0, rc]), sp=False)
    assert both.cp == pytest.approx([plain.cp, again.cp], rel=1e-12)


def test_the_note_says_the_recomputed_forward_runs_the_ring_again(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-8b", 64, "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1}", seq_len=131072, global_batch=16,
        precision="bf16", recompute="selective"), encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    note = next(n for n in json.loads(r.out)["notes"] if n.startswith("context parallelism cp 8: "))
    assert "and the forward ring again in the recomputed attention (Megatron-core re-runs the checkpointed " in note
