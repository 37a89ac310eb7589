"""What the TP collectives carry under each recipe, and what the no-overlap path exposes (`perf.train.tp_comm`).

From NVIDIA/TransformerEngine at d0067d0 and NVIDIA/Megatron-LM at d98e8a6:

* TE quantises before it all-gathers: per-tensor FP8 gathers its row-wise data only (transformer_engine/pytorch/
  distributed.py `_all_gather_fp8`, lines 989-1080), MXFP8 and NVFP4 each usage the quantizer asks for with its
  block scales (`_all_gather_mxfp8`, lines 1527-1665): one for the forward input (module/linear.py line 406) and
  the wgrad's input (module/_common.py `set_quantizer_usage_for_wgrad_all_gather`), both for the output gradient
  without userbuffers (linear.py line 905). Reduce-scatters carry 16-bit values.
* Without userbuffers the column-parallel backward gathers its input again beside its dgrad GEMM and
  reduce-scatters the dgrad beside its wgrad GEMM, both async (linear.py lines 992-999 and 1123-1133; Megatron-core
  megatron/core/tensor_parallel/layers.py lines 666-712).
* With userbuffers under MXFP8 the row-parallel wgrad's column-wise output gradient is gathered a second time on
  the dgrad's communication streams, behind the ring's sends (linear.py lines 1185-1215).
"""

from __future__ import annotations

import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train import contention as C
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from archgen.perf.train.tp_comm import gather_bytes, tp_exposed, tp_sequence_parallel
from archgen.units import Q_


def test_gather_bytes_per_recipe():
    """16-bit 2 B; per-tensor FP8 1 B whatever the usages; MXFP8 1 B + one E8M0 scale per 32 values per usage;
    NVFP4 half a byte + one E4M3 scale per 16 values per usage (TE docs, MXFP8 and NVFP4)."""
    assert gather_bytes(None) == 2.0
    assert gather_bytes("delayed", 2.0) == gather_bytes("tensorwise", 2.0) == 1.0
    assert gather_bytes("mxfp8") == 1.0 + 1.0 / 32.0 and gather_bytes("mxfp8", 2.0) == 2.0 * (1.0 + 1.0 / 32.0)
    assert gather_bytes("nvfp4", 2.0) == 2.0 * (0.5 + 1.0 / 16.0)


def test_no_overlap_pairs_each_async_collective_with_its_gemm(h100):
    """One column- and one row-parallel GEMM, collectives of given times. The forward's gather and reduce-scatter
    and the output gradient's gather block (every forward pass pays the forward's); the column-parallel input's
    re-gather shows only beyond its dgrad GEMM g(T, k, n), the dgrad's reduce-scatter only beyond its wgrad GEMM
    g(k, n, T). A long GEMM hides it all; a short one shows its excess; the hidden part is returned apart."""
    T, ag, rs, grad = 4096.0, 4e-4, 3e-4, 7e-4
    g = lambda m, n, k: float(K.gemm_time(h100, "bf16", m, n, k))  # noqa: E731
    for (n, k) in ((65536.0, 8192.0), (256.0, 1024.0)):
        gemms = ((n, k, "ring_exchange", 1.0), (k, n, "pipeline", 1.0))
        gather, scatter = max(0.0, ag - g(T, k, n)), max(0.0, rs - g(k, n, T))
        for passes in (1.0, 2.0):
            shown, hidden = tp_sequence_parallel(h100, "bf16", T, gemms, passes, ag, rs, grad)
            assert float(shown) == pytest.approx(passes * (ag + rs) + grad + gather + scatter, rel=1e-12)
            assert float(hidden) == pytest.approx(ag + rs - gather - scatter, rel=1e-12)
    assert g(T, 8192.0, 65536.0) > ag and g(8192.0, 65536.0, T) > rs  # the long GEMM hides both
    assert g(T, 1024.0, 256.0) < ag and g(1024.0, 256.0, T) < rs  # the short one hides part of each


def test_mxfp8_second_gather_queues_behind_the_ring(h100):
    """Userbuffers under MXFP8: the row-parallel dgrad's ring gathers the row-scaled output gradient (`gather`),
    and the column-scaled copy follows on the same streams, beside what is left of the dgrad GEMM:
    max(0, second - max(0, dgrad - gather)). With a GEMM long enough the ring hides and so does the second gather
    where the GEMM outlasts both; otherwise its excess shows."""
    T, tp, rs = 4096.0, 8.0, 1e-4
    g = lambda m, n, k: float(K.gemm_time(h100, "bf16", m, n, k))  # noqa: E731
    n, k = 8192.0, 16384.0
    dgrad = g(T, k, n)
    assert 0.5 * dgrad / (tp - 1) < g(T / tp, k, n)  # each ring chunk outlasts its send below
    row = ((n, k, "pipeline", 1.0),)
    base = float(tp_exposed(h100, "bf16", T, tp, row, 1.0, rs, 0.25 * dgrad, 0.0))
    for second in (0.25 * dgrad, 0.5 * dgrad):
        got = float(tp_exposed(h100, "bf16", T, tp, row, 1.0, rs, 0.25 * dgrad, second))
        assert got - base == pytest.approx(max(0.0, second - 0.75 * dgrad), abs=1e-15)
    got = float(tp_exposed(h100, "bf16", T, tp, row, 1.0, rs, 0.5 * dgrad, dgrad))
    assert got - float(tp_exposed(h100, "bf16", T, tp, row, 1.0, rs, 0.5 * dgrad, 0.0)) == pytest.approx(
        0.5 * dgrad, rel=1e-12)


def test_a_layer_without_overlap_under_mxfp8_by_hand(accelerators):
    """A dense layer at TP 8 with SP on one 8-GPU B200 NVLink node, MXFP8, no TP overlap, 4,096 tokens of h = 8192: per pair
    the input's gather (1 + 1/32 B an element), the output's 16-bit reduce-scatter and the output gradient's
    gather with both usages (2 (1 + 1/32) B) block; the input's re-gather and the dgrad's reduce-scatter run beside
    the column-parallel dgrad and wgrad GEMMs: FC1's outlast them, QKV's (1,280 columns a rank) do not and show
    their excess (checked); what hides takes NCCL's 16 SMs from the GEMM."""
    b200 = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    arch = Arch(layers=1, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=32768, gated=True, rope=True, qk_norm=False)
    job = Job(arch, 4096, 1, precision="fp8", fp8_recipe="mxfp8")
    lt = layer_times(b200, job, tp=8.0, mb=1.0, cp=1.0, ep=1.0, rc=0.0, sp=True)
    size = 4096 * 8192
    one, both = (float(collective_time(b200, "all_gather", size * b, 8, 8)) for b in (1 + 1 / 32, 2 * (1 + 1 / 32)))
    rs, ar = (float(collective_time(b200, op, size * 2.0, 8, 8)) for op in ("reduce_scatter", "all_reduce"))
    assert float(lt.hbm + C.comm_share(b200, 2 * size * 2.0 * 7 / 8, ar)) < 1.0  # no HBM contention
    g = lambda m, n, k: float(K.gemm_time(b200, "fp8", m, n, k))  # noqa: E731
    qkv, fc1 = (64 + 16) * 128 / 8, 2 * 28672 / 8
    assert max(one, rs) < min(g(4096, 8192, fc1), g(8192, fc1, 4096))  # FC1's GEMMs hide both
    assert g(4096, 8192, qkv) < min(rs, one)  # QKV's are shorter than both: their excess shows
    shown = sum(max(0.0, one - g(4096, 8192, n)) + max(0.0, rs - g(8192, n, 4096)) for n in (qkv, fc1))
    want = 2 * (one + rs + both) + shown + 16 / b200.multiprocessors * (2 * (one + rs) - shown)
    assert float(lt.tp) == pytest.approx(want, rel=1e-12)


def test_calculons_none_puts_every_tp_collective_on_the_critical_path(accelerators):
    """`Job.tp_async_backward` off (Calculon's `tensor_par_overlap: none`: calculon-ai/calculon caa4b11,
    calculon/llm/layers.py lines 935-937, a TPComm layer's exposed time is its whole network time): the layer above
    exposes all five collectives of each pair, 2 (one + rs + both) + 2 (one + rs), and takes no SMs for them."""
    b200 = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    arch = Arch(layers=1, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=32768, gated=True, rope=True, qk_norm=False)
    job = Job(arch, 4096, 1, precision="fp8", fp8_recipe="mxfp8", tp_async_backward=False)
    lt = layer_times(b200, job, tp=8.0, mb=1.0, cp=1.0, ep=1.0, rc=0.0, sp=True)
    size = 4096 * 8192
    one, both = (float(collective_time(b200, "all_gather", size * b, 8, 8)) for b in (1 + 1 / 32, 2 * (1 + 1 / 32)))
    rs = float(collective_time(b200, "reduce_scatter", size * 2.0, 8, 8))
    assert float(lt.tp) == pytest.approx(2 * (one + rs + both) + 2 * (one + rs), rel=1e-12)
    async_on = layer_times(b200, Job(arch, 4096, 1, precision="fp8", fp8_recipe="mxfp8"), tp=8.0, mb=1.0, cp=1.0,
                           ep=1.0, rc=0.0, sp=True)
    assert float(async_on.tp) < float(lt.tp)  # the default hides part of the pairs (the test above)
