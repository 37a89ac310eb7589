"""A TPU's training estimate holds back no CUDA context or NCCL buffers, and says its own reserve is not provided.

nu71fix (newuser71's trial, TPU v5p): every training rank held NVIDIA's reserve (the CUDA context, 0.4 GB, pytorch/
pytorch#109888; 0.688 GB per NCCL communicator, NVIDIA/nccl#964), 1.776 GB on MaxText's Llama 2 70B at tp 2 / dp 256
(98.34 GB per chip). A TPU runs XLA's runtime, with neither: its collectives are compiled into the program. No source
found gives what the TPU runtime keeps of HBM, so none is held (96.57 GB) and the estimate says so, with the figures
found on 32 GiB TPUs (JAX memory_stats bytes_limit, pytorch/xla PR 7086 and jax-ml/jax#1491). Other vendors' GPUs
(AMD, Gaudi, Trainium) still hold NVIDIA's figures, stated as such (newuser50).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.reserve import TRAINING_RESERVE, XLA_RESERVE, holds_reserve, reserve_convention
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.ranks import busiest_memory
from archgen.scoring.cases import case_hardware, read_case_file, training_estimate
from archgen.scoring.catalog import load_accelerators

LLAMA_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)
V5P = Path(__file__).resolve().parent / "data" / "maxtext-v5p.yaml"
GIB = 2 ** 30


@pytest.mark.parametrize(("vendor", "held"), [("NVIDIA", True), ("nvidia", True), ("AMD", True), ("Intel", True),
                                               ("AWS", True), ("Google", False), (" google ", False)])
def test_the_reserve_is_the_runtimes(vendor, held):
    assert holds_reserve(vendor) is held


def test_a_tpu_rank_holds_none():
    lay = Layout(2, 1, 4, 1, sequence_parallel=True, zero=1)
    gpu = busiest_memory(Job(LLAMA_8B, 8192, 64, "bf16"), lay)
    tpu = busiest_memory(Job(LLAMA_8B, 8192, 64, "bf16", runtime_reserve=False), lay)
    assert gpu.reserve == pytest.approx(400e6 + 2 * 688e6) and tpu.reserve == 0.0
    assert float(gpu.total) - float(tpu.total) == pytest.approx(400e6 + 2 * 688e6)


def test_the_convention_says_not_provided_and_what_was_found():
    said = reserve_convention("tpu-v5p", "Google", None)
    assert said == XLA_RESERVE and said.startswith("not provided") and "NVIDIA GPUs' figures" not in said
    # the figures quoted: bytes_limit on a 32 GiB TPU, 0.25 and 1.25 GiB below it
    assert (32 * GIB - 34_088_157_184) / GIB == pytest.approx(0.25, abs=0.005)
    assert (32 * GIB - 33_014_415_360) / GIB == pytest.approx(1.25, abs=0.005)
    assert "0.25 GiB" in said and "1.25 GiB" in said
    assert reserve_convention("h100-sxm5-80gb", "NVIDIA", 9.0) == TRAINING_RESERVE
    assert "NVIDIA GPUs' figures" in reserve_convention("gaudi3", "Intel", None)


def test_the_maxtext_case_is_estimated_without_it():
    (case,) = read_case_file(V5P).cases
    est = training_estimate(case, case_hardware(case, load_accelerators()))
    assert float(est.memory.reserve) == 0.0
