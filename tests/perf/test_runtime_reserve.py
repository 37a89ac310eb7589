"""Every training fit holds back the runtime's own memory (newuser38).

Before: nothing was reserved, so the shipped example's Llama 3.1 405B on 576 GB300 "fit" at 292.8 of 298 GB
(5.2 GB free for the CUDA context, NCCL's buffers, fragmentation and workspaces) and the search took it. Now each
rank holds the CUDA context (0.4 GB, pytorch/pytorch#109888) and one NCCL communicator per parallel group the step
uses (0.688 GB each, NVIDIA/nccl#964; the expert all-to-all's 3.28 GB, NVIDIA/nccl#1685), counted in memory_per_gpu,
so every fit check (estimate, layout search, sweeps, plan search: all through `ranks.busiest_memory`) holds it back.
That example: 294.6 GB with 1.78 GB reserved (tp 4, dp 144), the same layout still chosen (8,686 -> 8,578 of 15,468
valid layouts fit). Fragmentation is not reserved (no cited figure) and the estimate says so.
"""

from __future__ import annotations

import dataclasses

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.reserve import TRAINING_RESERVE, runtime_reserve
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.ranks import busiest_memory
from archgen.perf.train.training import estimate_training

LLAMA_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.mark.parametrize(("layout", "communicators", "alltoall"), [
    ((1, 1, 1, 1, 1), 0, False),   # one rank: the context alone
    ((4, 8, 8, 1, 1), 3, False),   # tp, pp and the data-parallel reduction
    ((2, 1, 4, 2, 8), 3, True),    # tp, cp, dp x cp, and EP's all-to-all
])
def test_the_reserve_counts_the_groups_the_step_uses(layout, communicators, alltoall):
    tp, pp, dp, cp, ep = layout
    expected = 400e6 + 688e6 * communicators + (4.34e9 - 1.06e9 if alltoall else 0.0)
    assert runtime_reserve(tp, pp, dp, cp, ep) == pytest.approx(expected)


def test_the_fit_holds_it_back(h100):
    job = Job(LLAMA_8B, 8192, 64, "bf16")
    lay = Layout(2, 1, 4, 1, sequence_parallel=True, zero=1)
    mem = busiest_memory(job, lay)
    assert mem.reserve == pytest.approx(400e6 + 2 * 688e6)
    assert mem.total == pytest.approx(mem.weights + mem.gradients + mem.optimizer + mem.activations + mem.reserve)
    tight = dataclasses.replace(h100, hbm_capacity=float(mem.total) - mem.reserve / 2)  # room for the tensors only
    assert not bool(estimate_training(tight, job, lay).fits)  # fitted on main
    assert bool(estimate_training(dataclasses.replace(h100, hbm_capacity=float(mem.total)), job, lay).fits)


def test_the_estimate_shows_it_and_says_what_it_leaves_out(cli):
    r = cli("estimate", "--workload", "llama3-405b-pretrain-gb300", "--path", "examples/gb300-nvl72-su")
    assert r.code == 0, r.err
    assert "  reserve  " in r.out and f"memory_reserve: {TRAINING_RESERVE}" in r.out
    # the allocator's fragmentation is the memory's range (memband41), workspaces said, not counted
    assert "fragmentation is the band of memory_per_gpu" in TRAINING_RESERVE and "not counted: kernel workspaces" \
        in TRAINING_RESERVE
    assert "  memory_per_gpu  " in r.out and "no allocator waste" in r.out
