"""The GEMM kernel floor: the shortest time a GEMM kernel takes however small, as training launches its GEMMs.

A GEMM kernel cannot end before it has fetched its first operand tiles from HBM through an empty pipeline, run at
least one tile's K loop and stored that tile (`kernels.GEMM_FILL` names the same fill and drain for bandwidth-bound
GEMMs). The roofline (`kernels.gemm_time`) has no such term, so it gives GEMMs of a few hundred rows 1.2-3.7 us where
an H200 measured 4.4-9.3 us (issue 20, part 3).

The floor is a measured property of a part (`Hardware.gemm_floor`, the catalog's `efficiency.gemm_floor`): on Hopper
(h100, h200, h800: one GH100 die) 3.30 us, the shortest cuBLAS GEMM this project timed on an H200 inside a CUDA graph,
4.40 us (768 x 2048 x 256 FP8; tests/perf/data/h200-kernels.json, section gemm_expert_shapes; bench/gpu/kernels.py),
less the 1.10 us a tiny elementwise kernel took in the same graph (section kernel_floor), which every kernel pays and
the model charges apart as `kernels.KERNEL_OVERHEAD`. A measurement, as a bandwidth from BabelStream is: nothing is
fitted. A part without one gets no floor (0), and its GEMMs the roofline alone.

Where a kernel is: Transformer Engine's grouped GEMM (`GroupedLinear`, what Megatron-core's MoE experts run) is, on
Hopper, one cuBLAS GEMM per local expert, issued round-robin over its compute streams (transformer_engine/common/gemm/
cublaslt_gemm.cu `multi_stream_cublas_gemm`, called by `nvte_multi_tensor_gemm` unless NVTE_USE_CUTLASS_GROUPED_GEMM
is set, off by default; NVIDIA/TransformerEngine f031cf87, the commit NeMo 26.04 pins), 4 of them
(transformer_engine/common/util/multi_stream.cpp `get_num_compute_streams`, a constexpr 4, read at 3e125d69). A GEMM
at its floor
waits on latency, not on the SMs, so the streams' kernels overlap: `calls` GEMMs over `streams` streams take at least
ceil(calls / streams) floors. Serving does not use this: every serving GEMM already pays `kernels.GEMM_FILL` on top of
its roofline (`serve.pass_costs`), the same fill measured another way, at least 3.56 us with the launch.
"""

from __future__ import annotations

from archgen.perf.hw import kernels as K
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import ceil, maximum

#: CUDA streams Transformer Engine issues a grouped GEMM's per-expert cuBLAS GEMMs over (multi_stream.cpp, above).
TE_GEMM_STREAMS = 4.0


def floored(hw: Hardware, seconds, calls=1.0, streams=1.0):
    """`seconds` of `calls` GEMM kernels over `streams` streams, or ceil(calls / streams) of the part's floor."""
    if not hw.gemm_floor:
        return seconds
    return maximum(seconds, hw.gemm_floor * ceil(calls / streams))


def gemm_kernel_time(hw: Hardware, dtype: str, m, n, k, batch=1.0, streams=1.0):
    """`kernels.gemm_time` of `batch` GEMMs, each its own kernel (`streams` at once), at least the floor."""
    return floored(hw, K.gemm_time(hw, dtype, m, n, k, batch), batch, streams)


def gemm_kernel_backward_time(hw: Hardware, dtype: str, m, n, k, batch=1.0, streams=1.0):
    """`kernels.gemm_backward_time`, its input-gradient and weight-gradient GEMMs each at least the floor."""
    floor = hw.gemm_floor * ceil(batch / streams) if hw.gemm_floor else None
    return K.gemm_backward_time(hw, dtype, m, n, k, batch, floor)


def gemm_kernel_pass(hw: Hardware, dtype: str, m, n, k):
    """(`gemm_kernel_time`, `gemm_kernel_backward_time`, `kernels.gemm_bytes`, (input gradient, weight gradient)).

    One GEMM kernel in one call, from `kernels.gemm_pass` (issue 25): the same floats as the three calls (a batch of
    one, one stream: the floor once, ceil(1 / 1) = 1 of it), and the backward's two GEMMs' roofline times without the
    floor (`kernels.gemm_time` of (m, k, n) and (k, n, m)), which the TP collectives beside them are measured against
    (`tp_comm.tp_sequence_parallel`).
    """
    fwd, grad_in, grad_w, moved = K.gemm_pass(hw, dtype, m, n, k)
    if not hw.gemm_floor:
        return fwd, grad_in + grad_w, moved, (grad_in, grad_w)
    floor = hw.gemm_floor * 1.0
    return maximum(fwd, floor), maximum(grad_in, floor) + maximum(grad_w, floor), moved, (grad_in, grad_w)
