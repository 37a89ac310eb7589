"""Kernel-level roofline times: GEMMs, attention (flash or materialised), memory-bound ops.

Every function accepts numpy arrays (or floats) for the shape arguments and broadcasts, so a search evaluates
thousands of configurations in one call. Times are in seconds, sizes in bytes, work in FLOP.

Conventions:
    * A GEMM of M x K by K x N costs 2·M·N·K FLOP and moves (M·K + K·N + M·N) elements once (roofline); FP4
      inputs also carry their block scales in the part's FP4 format (`Hardware.fp4`): NVFP4's one FP8 (E4M3) scale
      per 16 values (`BLOCK_SCALE_BYTES`), or on AMD's CDNA 4 OCP MXFP4's one E8M0 scale per 32 (`FP4_SCALE_BYTES`).
    * Its time is max(FLOP / (peak · e_gemm · size_eff · k_eff), bytes / (HBM · e_stream)), where `e_gemm` is the
      best measured dense-GEMM fraction of peak (catalog, per dtype), size_eff = prod over M and N of
      d / (d + d_half) models the tile and wave quantisation ramp of small shapes (d_half = `gemm_half_size`),
      and k_eff the K loop's fixed cost per output tile where the catalog measures it (Hopper:
      `k_loop_efficiency`), the same ramp on K elsewhere;
      e_stream is `hbm_efficiency` unless the catalog measures the dtype's bandwidth-bound GEMMs below it
      (`gemm_stream_efficiency`: NVFP4 GEMMs at decode shapes stream their weights well below a copy's rate).
    * Flash attention runs at `Hardware.flash_efficiency` (the catalog's `efficiency.flash`, default
      `FLASH_EFFICIENCY`) of the GEMM rate times the size ramp of its query length, or at the vector pipe's softmax
      rate when that is slower (`vector_peak`); a causal mask halves its FLOP, and the backward pass runs at
      `FLASH_BWD_RATIO` of the forward rate. The figures are at head dimension 128, so the head dimension is inside
      the efficiency and takes no size ramp of its own. FlashAttention-3 on H100 at head dimension 128
      (pytorch/benchmark PR 2391) runs 430, 517, 566, 590, 614 and 621 TFLOP/s forward at 0.5k to 16k tokens; the
      16k row, 620.73 / (794.5 x 16,384 / 16,512) = 0.787 of H100's best BF16 GEMM, is the default; FlashAttention-2
      on A100 reaches 73 % of peak forward and 63 % backward (Dao, arXiv 2307.08691v1, §1), 0.73 / 0.859 = 0.850 of
      A100's best GEMM (the A100's own figure). Materialised attention is two batched GEMMs (QKᵀ, AV) over the full
      s×s scores plus the memory traffic of mask/softmax/dropout on those scores.
"""

from __future__ import annotations

import numpy as np

from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum, minimum, where

#: Bytes per element of each data type.
DTYPE_BYTES: dict[str, float] = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1,
                                 "fp6": 0.75, "fp4": 0.5}
#: Bytes of an activation element between kernels, 16-bit (BF16): training's activations and their gradients, what
#: TP's reduce-scatters and all-reduces carry, and what the serving engines keep between kernels (a quantised
#: recipe casts from it, `quant`). One definition for training and serving alike.
ACT_BYTES = float(DTYPE_BYTES["bf16"])

#: Bytes of block scales per element of a block-scaled data type: NVFP4 stores one FP8 (E4M3) scale per 16 FP4
#: values (NVIDIA's NVFP4 format: 16-value micro-blocks; Transformer Engine docs, NVFP4), read with its data.
BLOCK_SCALE_BYTES: dict[str, float] = {"fp4": 1.0 / 16.0}
#: Bytes of block scales per FP4 value, by FP4 format: NVFP4 as `BLOCK_SCALE_BYTES`; OCP MXFP4 one E8M0 scale byte
#: per 32 E2M1 values (OCP Microscaling Formats (MX) Specification v1.0, 2023-09, its concrete MX-compliant
#: formats: MXFP4, element E2M1, scale E8M0, block size k = 32), 0.53125 B a value with its 0.5 B of data.
FP4_SCALE_BYTES: dict[str, float] = {"nvfp4": BLOCK_SCALE_BYTES["fp4"], "mxfp4": 1.0 / 32.0}
#: Fixed cost of one kernel on an H100, even inside a CUDA graph: setup and teardown during which no work streams
#: (Hazy Research, "Look Ma, No Bubbles! Designing a Low-Latency Megakernel for Llama-1B", 2025-05-27: about 1.3 us
#: per kernel with CUDA graphs). Serving charges it per kernel of a pass; training per kernel of a layer
#: (`host.layer_kernels`).
KERNEL_OVERHEAD = 1.3e-6
#: Time a bandwidth-bound GEMM kernel runs beyond streaming its bytes: after launch its first weights arrive only after
#: an HBM round trip through an empty pipeline, and its last wave of thread blocks drains while other SMs idle (the
#: "memory latencies" and "stragglers" that Hazy Research's post above names beside the launch cost, which
#: `KERNEL_OVERHEAD` holds). Measured: the intercept of kernel time against bytes moved over DeepGEMM's six M = 64
#: FP8 GEMMs on an H800 (deepseek-ai/DeepGEMM README.md at a6d97a1c1b48, Performance, "Normal GEMMs for dense
#: models": time = 2 M N K / TFLOPS, bytes = time x the table's GB/s; least squares over the six rows: 2.26 us plus
#: bytes at 2.81 TB/s, 0.839 of the H800's 3.35 TB/s HBM3; tests/perf/data/deepgemm-h800-fp8.yaml, `decode_rows`).
#: Serving charges it per GEMM kernel of a pass (`serve.pass_costs.gemm_kernels_per_pass`); measured on Hopper's
#: HBM3 only, applied to every accelerator as `KERNEL_OVERHEAD` is.
GEMM_FILL = 2.26e-6
#: Bytes of the reduction dimension one K-loop step of a Hopper tensor-core GEMM tile consumes: the 128-byte
#: shared-memory swizzle row of a GMMA operand (64 BF16 or 128 FP8 values; DeepGEMM's FP8 kernels use BLOCK_K 128,
#: deepseek-ai/DeepGEMM deep_gemm/jit_kernels/gemm.py `get_smem_size` at a6d97a1c1b48). A step moves the same bytes
#: and, at the data type's tensor rate, takes the same time in every data type.
GEMM_K_STEP_BYTES = 128.0
#: K-loop steps of the shape the catalog's best-GEMM efficiencies are measured at: the H100 FP8 MAMF's best shape,
#: 1024 x 9216 x 14336 (stas00/ml-engineering compute/accelerator/README.md at 744d01e, MAMF table: 14,336 FP8
#: values, 112 steps; its BF16 best shape has K 13,312, 208 steps). The measured efficiency already paid that
#: shape's fixed steps, so `k_loop_efficiency` is 1 there and no longer K is credited beyond the measured maximum.
GEMM_REFERENCE_K_STEPS = 112.0

#: Flash-attention forward throughput relative to the best dense GEMM where the catalog states no other figure
#: (`Efficiency.flash`, `Hardware.flash_efficiency`): FlashAttention-3 on an H100 SXM5, BF16, head dimension 128, no
#: causal mask, 16k tokens: 620.73 TFLOP/s (pytorch/benchmark PR 2391, commit ff65cb6, test plan) over H100's best
#: BF16 GEMM, 794.5 TFLOP/s (ml-engineering MAMF v2 at 744d01e), through the size ramp s / (s + 128) at s = 16,384:
#: 620.73 / (794.5 x 16,384 / 16,512) = 0.787 (the catalog and `Hardware` default, to three places).
FLASH_EFFICIENCY = 0.787
#: Flash attention backward rate over its forward rate: FlashAttention-2 on an A100 80GB SXM4 reaches up to 63 % of
#: the theoretical maximum FLOP/s in the backward pass against up to 73 % in the forward (Dao, arXiv 2307.08691v1,
#: 2023-07-18, §1, last paragraph; §4 repeats the forward's 230 TFLOP/s = 73 %), with the backward's FLOP counted as
#: 2.5x the forward's (§4.1, benchmark setting: 5 matmuls against 2). Both are maxima over §4.1's settings (512 to
#: 16k tokens, head dimension 64 or 128, with and without a causal mask; Figs. 5 and 6), which the text does not
#: say are reached at the same setting: the ratio of two maxima, not one measured pair.
FLASH_BWD_RATIO = 63.0 / 73.0

#: Vector (non-tensor) FLOP per attention score element in the forward pass: scale, running max, exp, sum.
SOFTMAX_FLOP = 4.0

#: Element-wise bytes per token per layer in a training forward pass, in units of h (activation dtype): two layer
#: norms (read + write) and two bias-dropout-residual adds (read 2, write 1), i.e. 2·2 + 2·3 = 10 (serving keeps its
#: own count, `serve.inference.SERVING_ELEMENTWISE_H`).
ELEMENTWISE_H = 10.0
#: With dropout, each bias-dropout-add also writes a 1-byte mask (0.5 h), which the backward reads: Megatron-core
#: runs hidden dropout there (fusions/fused_bias_dropout.py:50,57 at 3097d81, `torch.nn.functional.dropout`), and
#: PyTorch writes a bool mask only for 0 < p < 1 (aten/src/ATen/native/Dropout.cpp `is_fused_kernel_acceptable`; at
#: p = 0 it returns its input), so `hidden_dropout=0.0` writes none. Its Philox draw, in the same kernel, is not timed.
DROPOUT_MASK_H = 2 * 0.5
#: Bytes per rotated value of the fused rotary embedding, (forward, backward): Transformer Engine's
#: `fused_rope_forward_kernel` reads each 16-bit query or key value once and writes it rotated, its backward kernel
#: reads the gradient and writes it rotated back (transformer_engine/common/fused_rope/fused_rope.cu at f031cf87,
#: lines 41-54 and 133-177; the cos/sin table, one per position, is not counted). Megatron-core runs it under
#: `apply_rope_fusion` (models/common/embeddings/rope_utils.py line 287 at 2edffad), once on the query and once on
#: the key (transformer/attention.py lines 1106-1126).
ROPE_BYTES = (2.0 * ACT_BYTES, 2.0 * ACT_BYTES)
#: The same per rotated value without the fusion (`apply_rope_fusion` False, Megatron-core's default): PyTorch's
#: separate operations in `_apply_rotary_pos_emb_bshd` (models/common/embeddings/rope_utils.py lines 73-126 at
#: 2edffad, 3097d81 alike), each reading and writing 16-bit values. Forward, per value: t·cos (read 1, write 1),
#: `_rotate_half`'s -x2 over half the values (0.5 + 0.5) and its `cat` (1 + 1), the product with sin (1 + 1), the sum
#: (2 + 1) and the final `cat` with the empty pass-through part (1 + 1): 12 values. Backward, as autograd derives each
#: step: the two products' gradients (2 x (1 + 1)), the negation's (0.5 + 0.5), the chunk's (a `cat` of the halves'
#: gradients, 1 + 1), the sum of the input's two gradients (2 + 1), the slice `t[..., :rot_dim]`'s (ATen
#: `slice_backward`: a zeroed tensor of the input's size, then a copy: 1 + 1 + 1), the empty pass-through slice's
#: (a zeroed tensor, 1) and the sum of the two (2 + 1): 17 values. The cos and sin tables, one per position, are not
#: counted (as for the fused kernel), nor MLA's de-interleaving `cat` (line 118).
ROPE_UNFUSED_BYTES = (12.0 * ACT_BYTES, 17.0 * ACT_BYTES)
#: Bytes per normed value of a QK norm, Transformer Engine's RMSNorm over one head's query or key (Megatron-core's
#: `q_layernorm`/`k_layernorm`, a `TENorm` of the head dimension: transformer/attention.py lines 1291-1307 and
#: 1488-1492 at 2edffad), (forward, backward): forward reads x and writes z (rmsnorm_fwd_kernels.cuh lines 82 and
#: 133 at f031cf87), backward reads dz and x and writes dx (rmsnorm_bwd_kernels.cuh lines 103-104 and 159); plus
#: the FP32 1/rms of each head vector, written forward and read backward (`QK_NORM_ROW_BYTES`). The weight
#: gradient's partial sums, one per thread block, are not counted.
QK_NORM_BYTES = (2.0 * ACT_BYTES, 3.0 * ACT_BYTES)
QK_NORM_ROW_BYTES = 4.0
#: Forward-pass bytes moved per s×s score element by Megatron's fused scale-mask-softmax (read 2 + write 2),
#: 16-bit scores.
SCORE_BYTES_FWD = 4.0
#: Backward bytes per score element: softmax backward (read probabilities 2, grad 2, write 2).
SCORE_BYTES_BWD = 6.0
#: What attention dropout adds per score element of a materialised kernel (Megatron-core's `DotProductAttention`
#: runs `attention_dropout` on the probabilities, dot_product_attention.py at 3097d81): forward read 2, write 2 and a
#: 1-byte mask; backward read the gradient 2, the mask 1, write 2. A flash kernel keeps no mask (it draws the same
#: Philox numbers again in its backward): that cost is not timed, no cited source measures it.
SCORE_DROPOUT_BYTES_FWD = 5.0
SCORE_DROPOUT_BYTES_BWD = 5.0


def size_efficiency(hw: Hardware, *dims: np.ndarray | float) -> np.ndarray | float:
    """Fraction of the best GEMM rate reached by a GEMM with these dimensions (tile/wave ramp)."""
    f: np.ndarray | float = 1.0
    for d in dims:
        f = f * (d / (d + hw.gemm_half_size))
    return f


def k_loop_efficiency(hw: Hardware, dtype: str, k):
    """Fraction of the measured best GEMM rate a tile reaches with reduction dimension `k`.

    A tile runs n = k · bytes / `GEMM_K_STEP_BYTES` steps of its K loop and, once whatever k is, c =
    `hw.gemm_k_fixed_steps` steps outside it (its epilogue; catalog, read from measured short-K rates, with a
    `gemm_k_fixed_steps_range` that estimates span where the measurements disagree). Its rate is n / (n + c)
    of the K loop's, taken relative to the catalog's measurement at `GEMM_REFERENCE_K_STEPS` and at most 1. A part
    without a measured c keeps the size ramp k / (k + `gemm_half_size`) on K.
    """
    c = hw.gemm_k_fixed_steps
    if not c:
        return k / (k + hw.gemm_half_size)
    n = k * DTYPE_BYTES[dtype] / GEMM_K_STEP_BYTES
    ref = GEMM_REFERENCE_K_STEPS
    return minimum(n / (n + c) * (ref + c) / ref, 1.0)


def training_core_dtype(dtype: str) -> str:
    """Data type of the attention core and the output layer when a model trains in `dtype`.

    Transformer Engine's FP8 and FP4 recipes quantise the transformer layers' linear GEMMs only. The attention core
    stays in BF16 unless FP8 attention is asked for (recipe `fp8_dpa`, False by default), and Megatron-core's output
    layer is its own `ColumnParallelLinear` (megatron/core/models/gpt/gpt_model.py), not a TE module.
    """
    return "bf16" if dtype in ("fp8", "fp4") else dtype


def element_bytes(dtype: str, fp4: str = "nvfp4") -> float:
    """Bytes a block-scaled operand element takes with its scales: FP4 in format `fp4` (`FP4_SCALE_BYTES`)."""
    return DTYPE_BYTES[dtype] + (FP4_SCALE_BYTES[fp4] if dtype == "fp4" else BLOCK_SCALE_BYTES.get(dtype, 0.0))


#: `element_bytes` of every (dtype, FP4 format), looked up by `gemm_bytes` (a call fewer in each GEMM, issue 25).
_ELEMENT_BYTES = {(d, f): element_bytes(d, f) for d in DTYPE_BYTES for f in FP4_SCALE_BYTES}


def gemm_bytes(dtype: str, m, n, k, batch=1.0, fp4: str = "nvfp4"):
    """Bytes a GEMM of (m x k) @ (k x n) moves once: its operands and output, with the inputs' block scales.

    FP4 inputs carry the scales of format `fp4` (`fp4_format` of the part); the output is not block-scaled.
    """
    per = _ELEMENT_BYTES.get((dtype, fp4))
    if per is None:  # a type or format of no entry: `element_bytes` says which (KeyError)
        per = element_bytes(dtype, fp4)
    return ((m * k + k * n) * per + m * n * DTYPE_BYTES[dtype]) * batch


def gemm_time(hw: Hardware, dtype: str, m, n, k, batch=1.0):
    """Roofline time of `batch` GEMMs of (m x k) @ (k x n) in `dtype`.

    One formula for plain numbers and arrays (`numeric.maximum` and `minimum` stay plain for plain numbers), a plain
    float for one configuration; `size_efficiency(hw, m, n)` is written out, and so is `k_loop_efficiency` where the
    part has no measured fixed steps (its size ramp on k), and `gemm_bytes`, calls fewer in each of an estimate's
    GEMMs (issue 25; tests/perf/test_kernels.py holds the bytes to `gemm_bytes`).

    Args:
        hw: Hardware.
        dtype: Data type of the inputs (selects the peak and the measured efficiency).
        m: Rows of the output (tokens).
        n: Columns of the output.
        k: Reduction dimension.
        batch: Number of independent GEMMs of that shape.

    Returns:
        Seconds (broadcast over the inputs).
    """
    best, stream, per, out = hw.gemm_kept.get(dtype) or _gemm_figures(hw, dtype)
    h = hw.gemm_half_size
    rate = best * (m / (m + h) * (n / (n + h))) * (
        k / (k + h) if not hw.gemm_k_fixed_steps else k_loop_efficiency(hw, dtype, k))
    moved = ((m * k + k * n) * per + m * n * out) * batch  # `gemm_bytes`, written out (a call fewer, issue 25)
    compute, memory = 2.0 * m * n * k * batch / rate, moved / stream
    if type(compute) is float and type(memory) is float:  # `maximum` of two numbers, without the call (issue 25)
        return compute if compute > memory else memory
    return maximum(compute, memory)


def gemm_pass(hw: Hardware, dtype: str, m, n, k):
    """(forward, input gradient, weight gradient, forward bytes) of the GEMM (m x k) by (k x n): one call for three.

    The floats of `gemm_time` of (m, n, k), (m, k, n) and (k, n, m) (`gemm_backward_time`'s two GEMMs) and of
    `gemm_bytes` of (m, n, k), to the bit: the part's figures looked up once, each dimension's ramp worked out once
    (issue 25: an estimate times its layer's GEMMs this way); each GEMM's FLOP and bytes in `gemm_time`'s own order.
    """
    best, stream, per, out = hw.gemm_kept.get(dtype) or _gemm_figures(hw, dtype)
    h = hw.gemm_half_size
    rm, rn, rk = m / (m + h), n / (n + h), k / (k + h)
    lm, ln, lk = (rm, rn, rk) if not hw.gemm_k_fixed_steps else (
        k_loop_efficiency(hw, dtype, m), k_loop_efficiency(hw, dtype, n), k_loop_efficiency(hw, dtype, k))
    moved = (m * k + k * n) * per + m * n * out
    fc, fm = 2.0 * m * n * k / (best * (rm * rn) * lk), moved / stream
    ic, im = 2.0 * m * k * n / (best * (rm * rk) * ln), ((m * n + n * k) * per + m * k * out) / stream
    wc, wm = 2.0 * k * n * m / (best * (rk * rn) * lm), ((k * m + m * n) * per + k * n * out) / stream
    if type(fc) is float and type(fm) is float and type(ic) is float and type(im) is float and type(
            wc) is float and type(wm) is float:  # `maximum` of numbers, without the calls
        return fc if fc > fm else fm, ic if ic > im else im, wc if wc > wm else wm, moved
    return maximum(fc, fm), maximum(ic, im), maximum(wc, wm), moved


def _gemm_figures(hw: Hardware, dtype: str) -> tuple:
    """`Hardware.gemm_figures` and `gemm_bytes`' bytes per input and output element, kept in `Hardware.gemm_kept`."""
    best, stream = hw.gemm_figures(dtype)
    per = _ELEMENT_BYTES.get((dtype, hw.fp4)) or element_bytes(dtype, hw.fp4)  # no entry: `element_bytes` says why
    got = best, stream, per, DTYPE_BYTES[dtype]
    if isinstance(best, float) and isinstance(stream, float):
        hw.gemm_kept[dtype] = got
    return got


def gemm_backward_time(hw: Hardware, dtype: str, m, n, k, batch=1.0, floor=None):
    """Backward time of the GEMM (m x k) by (k x n), each of its two GEMMs at least `floor` (`perf.hw.gemm_floor`).

    The input gradient, (m x n) by (n x k), reduces over n; the weight gradient, (k x m) by (m x n), over the m rows.
    """
    grad_in, grad_w = gemm_time(hw, dtype, m, k, n, batch), gemm_time(hw, dtype, k, n, m, batch)
    if floor is None:
        return grad_in + grad_w
    return maximum(grad_in, floor) + maximum(grad_w, floor)


def memory_time(hw: Hardware, nbytes, working_set=None):
    """Time of a memory-bound operation moving `nbytes`; served from L2 when its working set fits there."""
    hbm = nbytes / (hw.hbm_bandwidth * hw.hbm_efficiency)
    if working_set is None or not np.any(np.asarray(hw.l2_bandwidth) > 0):
        return hbm
    with np.errstate(divide="ignore"):  # points of a batch without an L2 figure take the HBM time
        l2 = nbytes / (hw.l2_bandwidth * hw.hbm_efficiency)
    return where((np.asarray(working_set) <= hw.l2_capacity) & (np.asarray(hw.l2_bandwidth) > 0), l2, hbm)


def vector_time(hw: Hardware, flop):
    """Time of non-tensor arithmetic (e.g. softmax exponentials) on the vector pipe."""
    if isinstance(hw.vector_peak, np.ndarray):  # hardware as arrays (`perf.explore.vectorised`): 0 where it is unknown
        with np.errstate(divide="ignore", invalid="ignore"):
            t = flop / (hw.vector_peak * hw.vector_efficiency)
        return where(hw.vector_peak > 0, t, 0.0 * flop)
    if hw.vector_peak <= 0:
        return 0.0 * flop
    return flop / (hw.vector_peak * hw.vector_efficiency)


def attention_forward(hw: Hardware, dtype: str, *, batch, q_len, kv_len, heads, head_dim, kernel: str = "flash",
                      causal: bool = True, dropout: bool = False, v_dim=None):
    """Forward time of the attention core (scores, softmax, weighted sum) for `heads` heads on one device.

    Args:
        hw: Hardware.
        dtype: Compute data type.
        batch: Sequences.
        q_len: Query tokens per sequence.
        kv_len: Key/value tokens per sequence.
        heads: Query heads on this device.
        head_dim: Dimension per head of the query and key.
        kernel: 'flash' (fused, scores never written) or 'materialized' (Megatron fused softmax, scores in HBM).
        causal: Whether a causal mask lets a flash kernel skip half the tiles.
        dropout: Attention dropout (training): a materialised kernel's mask traffic (`SCORE_DROPOUT_BYTES_FWD`).
        v_dim: Dimension per head of the value and output where it is not `head_dim` (MLA's `Arch.v_dim`).

    Returns:
        Seconds.
    """
    if kernel == "flash":
        frac = 0.5 if causal else 1.0
        d = head_dim if v_dim is None else (head_dim + v_dim) / 2  # QKᵀ 2·head_dim, AV 2·v_dim FLOP per score
        flop = 4.0 * batch * heads * q_len * kv_len * d * frac
        rate = hw.gemm_rate(dtype) * hw.flash_efficiency * size_efficiency(hw, q_len)
        softmax = vector_time(hw, SOFTMAX_FLOP * batch * heads * q_len * kv_len * frac)
        return maximum(flop / rate, softmax)  # tensor and vector pipes overlap (FlashAttention-3 style)
    return _materialised(hw, dtype, batch, q_len, kv_len, heads, head_dim, dropout, v_dim)[0]


def attention_backward(hw: Hardware, dtype: str, *, batch, q_len, kv_len, heads, head_dim, kernel: str = "flash",
                       causal: bool = True, v_dim=None):
    """Backward time of the attention core (`attention_times`)."""
    return attention_times(hw, dtype, batch=batch, q_len=q_len, kv_len=kv_len, heads=heads, head_dim=head_dim,
                           kernel=kernel, causal=causal, v_dim=v_dim)[1]


def attention_times(hw: Hardware, dtype: str, *, batch, q_len, kv_len, heads, head_dim, kernel: str = "flash",
                    causal: bool = True, dropout: bool = False, v_dim=None):
    """(`attention_forward`, backward) of the attention core, what the two share worked out once.

    The backward is 2.5x the forward FLOP for flash (5 matmuls against 2) at `FLASH_BWD_RATIO` of the forward rate;
    twice the forward GEMMs plus the score-gradient traffic for a materialised kernel.
    """
    if kernel == "flash":
        fwd = attention_forward(hw, dtype, batch=batch, q_len=q_len, kv_len=kv_len, heads=heads, head_dim=head_dim,
                                kernel=kernel, causal=causal, v_dim=v_dim)
        return fwd, 2.5 / FLASH_BWD_RATIO * fwd
    return _materialised(hw, dtype, batch, q_len, kv_len, heads, head_dim, dropout, v_dim)


def _materialised(hw: Hardware, dtype: str, batch, q_len, kv_len, heads, head_dim, dropout: bool = False,
                  v_dim=None):
    """A materialised attention's (forward, backward) times.

    Its GEMMs, QKᵀ into the s×s scores and AV (twice backward), and the score traffic of each pass (with `dropout`
    the mask's too).
    """
    qk = gemm_time(hw, dtype, q_len, kv_len, head_dim, batch * heads)
    av = gemm_time(hw, dtype, q_len, head_dim if v_dim is None else v_dim, kv_len, batch * heads)
    gemms, scores = qk + av, batch * heads * q_len * kv_len
    fwd, bwd = (SCORE_BYTES_FWD + SCORE_DROPOUT_BYTES_FWD, SCORE_BYTES_BWD + SCORE_DROPOUT_BYTES_BWD) if dropout \
        else (SCORE_BYTES_FWD, SCORE_BYTES_BWD)
    return gemms + memory_time(hw, scores * fwd), 2.0 * gemms + memory_time(hw, scores * bwd)


def decode_attention(hw: Hardware, *, batch, context, kv_heads, head_dim, kv_bytes: float, heads, dtype: str):
    """One decode step's attention on one device: bandwidth-bound read of the KV cache (roofline with its FLOP)."""
    nbytes = 2.0 * batch * context * kv_heads * head_dim * kv_bytes
    flop = 4.0 * batch * heads * context * head_dim
    return maximum(memory_time(hw, nbytes), flop / (hw.gemm_rate(dtype) * hw.flash_efficiency))


def latent_decode_flop_bytes(*, batch, context, rank: int, rope: int, kv_bytes: float, heads):
    """FLOP and bytes of one decode step's multi-head latent attention on one device (the absorbed form).

    Each head scores its query against the latent and the RoPE key (rank + rope values per context token) and sums
    the latent (rank values), so 2·(2·rank + rope) FLOP per head and context token, against one read of the latent
    cache, (rank + rope) values per context token (DeepSeek-V2, arXiv 2405.04434, section 2.1.2 and its appendix on
    absorbing W^UK and W^UV; the layout vLLM's and SGLang's MLA decode kernels read).
    """
    return (2.0 * batch * heads * context * (2.0 * rank + rope),
            batch * context * (rank + rope) * kv_bytes)


def latent_decode_attention(hw: Hardware, *, batch, context, rank: int, rope: int, kv_bytes: float, heads,
                            dtype: str):
    """One decode step's latent attention on one device: the roofline of `latent_decode_flop_bytes`."""
    flop, nbytes = latent_decode_flop_bytes(batch=batch, context=context, rank=rank, rope=rope, kv_bytes=kv_bytes,
                                            heads=heads)
    return maximum(memory_time(hw, nbytes), flop / (hw.gemm_rate(dtype) * hw.flash_efficiency))
