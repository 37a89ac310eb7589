"""The GEMM kernel floor (`perf.hw.gemm_floor`): a measured figure, per kernel as training issues its GEMMs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from archgen.perf.hw import gemm_floor as F
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train.job import Job
from archgen.perf.train.layer import _layer_forward
from archgen.perf.workload.roofline import training_kernels

SECTIONS = json.loads((Path(__file__).parent / "data" / "h200-kernels.json").read_text(encoding="utf-8"))["sections"]
HOPPER = ("h100-sxm5-80gb", "h200-sxm-141gb", "h800-sxm5-80gb")


def test_the_floor_is_the_h200_measurement(accelerators):
    """The shortest GEMM the H200 ran in a CUDA graph (768 x 2048 x 256 FP8, 4.405 us) less a tiny elementwise
    kernel in the same graph (1.103 us, what `KERNEL_OVERHEAD` charges apart): 3.30 us, on the three parts of the
    GH100 die; no other shipped part states a floor."""
    gemms = [r["s"] for r in SECTIONS["gemm_expert_shapes"]["rows"]]
    measured = min(gemms) - SECTIONS["kernel_floor"]["graph_tiny_add_per_kernel_s"]
    assert min(gemms) == pytest.approx(4.405e-6, abs=1e-9)
    for part, acc in accelerators.items():
        floor = hardware_for(acc, scale_up_size=1).gemm_floor
        if part in HOPPER:
            assert floor == pytest.approx(measured, abs=0.01e-6), part
        else:
            assert floor == 0.0, part


def test_a_part_without_a_floor_keeps_the_roofline(a100):
    """A100 states no floor: a tiny GEMM keeps its roofline time, which is under a microsecond."""
    t = K.gemm_time(a100, "bf16", 16, 128, 128)
    assert t < 1e-6
    assert F.gemm_kernel_time(a100, "bf16", 16, 128, 128) == t


def test_experts_overlap_their_floors_over_four_streams(h100):
    """Transformer Engine issues one cuBLAS GEMM per expert over 4 streams: 1 to 4 tiny experts take one floor,
    5 to 8 two, 9 three; a GEMM above the floor keeps its roofline."""
    floor = h100.gemm_floor
    for experts, floors in ((1, 1), (4, 1), (5, 2), (8, 2), (9, 3)):
        t = F.gemm_kernel_time(h100, "fp8", 16, 128, 256, experts, F.TE_GEMM_STREAMS)
        assert t == pytest.approx(floors * floor), experts
    big = K.gemm_time(h100, "fp8", 4096, 1536, 2048, 8)
    assert F.gemm_kernel_time(h100, "fp8", 4096, 1536, 2048, 8, F.TE_GEMM_STREAMS) == big


def test_the_backward_floors_each_of_its_two_gemms(h100):
    """The input and weight gradients are two kernels, each at least the floor."""
    assert F.gemm_kernel_backward_time(h100, "bf16", 16, 128, 128) == pytest.approx(2 * h100.gemm_floor)
    plain = K.gemm_backward_time(h100, "bf16", 8192, 8192, 8192)
    assert F.gemm_kernel_backward_time(h100, "bf16", 8192, 8192, 8192) == plain


def test_arrays_give_each_points_own_floor(h100):
    """The batched sweep's arrays (`perf.explore`) take the same floor point by point."""
    m = np.array([16.0, 4096.0])
    experts = np.array([8.0, 3.0])
    got = F.gemm_kernel_time(h100, "bf16", m, 1536, 2048, experts, F.TE_GEMM_STREAMS)
    for i in range(2):
        one = F.gemm_kernel_time(h100, "bf16", float(m[i]), 1536, 2048, float(experts[i]), F.TE_GEMM_STREAMS)
        assert got[i] == pytest.approx(one, rel=1e-12)


def test_a_floor_of_zero_is_no_floor(h100):
    """A part with the field at 0 (unmeasured) takes the roofline whatever the shape."""
    bare = dataclasses.replace(h100, gemm_floor=0.0)
    assert F.gemm_kernel_time(bare, "bf16", 16, 128, 128, 8, 4) == K.gemm_time(bare, "bf16", 16, 128, 128, 8)


def test_the_roofline_charges_the_floor_as_the_layer_does(h100):
    """A short sequence at TP 8 with sequence parallelism: the router's GEMM (64 x 8 x 4096) sits at the floor in the
    roofline's kernels, and the floor adds the same time there as to `layer._layer_forward`."""
    moe = Arch(layers=4, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=32000, gated=True,
               experts=8, top_k=2, expert_ffn=14336, shared_experts=1, rope=True, qk_norm=False)
    job = Job(moe, 512, 64, "bf16", "flash")
    sums, layers = [], []
    for hw in (h100, dataclasses.replace(h100, gemm_floor=0.0)):
        r = training_kernels(hw, moe, seq_len=512, dtype="bf16", attention="flash", tp=8, ep=2, micro_batch=1,
                             sequence_parallel=True)
        sums.append(sum(k.time for k in r.kernels))
        layers.append(float(_layer_forward(hw, job, 512, 1, 512, 8, True, 2, moe=True)[0]))
        if hw.gemm_floor:
            router = next(k for k in r.kernels if k.name == "router")
            assert router.time == hw.gemm_floor > K.gemm_time(hw, "bf16", 64, 8, 4096)
    assert sums[0] - sums[1] == pytest.approx(layers[0] - layers[1], rel=1e-9)
    assert sums[0] > sums[1]
