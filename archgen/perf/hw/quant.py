"""What quantising GEMM operands costs: Transformer Engine's training recipes and TensorRT-LLM's serving casts.

Training (`recipe` of an FP8 or FP4 job), as NVIDIA/TransformerEngine (at d0067d0) implements the recipes:

* Every linear GEMM input (forward) and output gradient (backward) is quantised from BF16 with both usages: a
  row-wise copy for its own GEMM and a column-wise one for the weight-gradient GEMM (`pytorch/module/linear.py`,
  `input_quantizer.set_usage(rowwise=True, columnwise=backward_needs_input ...)`). A quantisation reads the BF16
  tensor (2 B per element) and writes each copy's data and block scales (`FORMAT_BYTES`). Tensor-wise FP8
  (`delayed`, `tensorwise`) writes one copy on Blackwell, whose FP8 GEMMs take any layout, and a transposed second
  one on Hopper (`pytorch/csrc/quantizer.cpp`, `Float8Quantizer::create_tensor`: `with_transpose = columnwise_usage &&
  !is_non_tn_fp8_gemm_supported`). MXFP8 and NVFP4 scale along one direction, so they always write both.
* Per-tensor scales need the tensor's amax before the cast (`AMAX_PASS`): `tensorwise` (Float8CurrentScaling) and
  NVFP4's global scale read the tensor once more, except where the producing kernel computes the amax as it writes
  (`pytorch/csrc/extensions/normalization.cpp` FUSED_NORM_AMAX_FP8 / _NVFP4: the layer norms before QKV and FC1). With
  NVFP4's random Hadamard transform the amax is that of the transformed tensor, so no producer can fuse it
  ("Amax is handled within NVFP4 quantizer"; `NVFP4Quantizer::quantize_impl` runs `nvte_hadamard_transform_amax`
  then the fused RHT cast). `delayed` takes its scale from the amax history (no pass); MXFP8 has only per-block
  scales (no pass). Delayed scaling's norm writes FP8 itself instead of BF16 (FULLY_FUSED): no separate cast, and
  the BF16 write the element-wise traffic counts is not made; on Hopper the transpose for the weight gradient is a
  separate FP8 read and write.
* The MLP activation is Megatron-core's own fused SwiGLU/GeLU (megatron/core/fusions/), which writes BF16, and the
  attention output, the permuted expert tokens and every gradient come from kernels that do not quantise: each is
  a separate cast (with its amax pass where the recipe has one).
* Weights are quantised once per optimizer step: Megatron-core sets TE's `is_first_microbatch` at the start of each
  step (`MegatronModule.set_is_first_microbatch`), and TE keeps the quantised weight for the other micro-batches.
  FP8 weights kept by `fp8_param_gather` need no cast (on Hopper their transpose is refreshed: 1 B read, 1 B
  written). NVFP4's 2D (16x16) weight scaling and its stochastic rounding of gradients happen inside the cast kernel
  (Blackwell's `cvt` with stochastic rounding; TE docs, NVFP4), and the 16x16 Hadamard transform runs on the tensor
  cores inside the fused cast (`quantizer.cpp`: "we are using MMA hardware for computing RHT"): none moves bytes of
  its own.
* The routed experts' rows are padded to the GEMM's alignment (`padding_per_token`, `PAD_CALLS`): Megatron-core's
  `TEGroupedMLP.forward` (megatron/core/transformer/moe/experts.py at 3097d81, lines 1129-1140; at 2edffad, the
  commit Megatron-Bridge v0.4.2 pins, lines 344-352 and 401-402) pads the permuted tokens and their probabilities
  per local expert with TE's `Fp8Padding` and unpads FC2's output with `Fp8Unpadding` under any FP8 or FP4 recipe,
  unless `skip_routed_expert_padding` (moe_utils.py at 3097d81, lines 1430-1443): the router pads the routing map
  (`moe_router_padding_for_quantization`, which archgen does not model, so it is taken as off) or the dispatcher is
  HybridEP, which pads in its own permutation (token_dispatcher.py at 3097d81 line 1072: `pad_multiple`). Each call
  is one autograd function launching one kernel (TE f031cf87 pytorch/module/fp8_padding.py lines 36-42, common/util/
  padding.cu `multi_padding`, up to 64 tensors a launch) that reads every row and writes it again (BF16 hidden
  states, FP32 probabilities); its backward runs the reverse. Stated assumption: the per-expert counts are not
  multiples of the alignment (16, or 32 for MXFP8/NVFP4), the case where TE's `Fp8Padding.forward` does not return
  early (lines 121-126): force-balanced routing draws random logits (moe_utils.py `apply_random_logits`), so its
  counts are aligned only by chance.

The training model charges these bytes at the HBM rate (`kernels.memory_time`): the forward pass's in
`layer.elementwise_bytes`, the backward's in `layer.layer_times`, the weights' once per step in
`training.estimate_training`. Against Transformer Engine's GEMM profiling guide on a B300 (autocast minus
pre-quantised time of the 12 GEMMs of a layer, every call quantising its input and its weight with both usages),
these bytes account for 70-81 % of the measured quantisation time (tests/perf/test_quant.py). Each cast is also
several kernels (`KERNELS`: current scaling's amax pass, scale and cast are four launches per tensor, and
`GroupedLinear` quantises every local expert's slice on its own), each charged `kernels.KERNEL_OVERHEAD`
(`layer_kernels`, `layer.layer_times`): with them 72-84 % of the guide's time. The rest is the casts running
below the HBM rate, which the model does not charge.

Serving (`serving_casts`), as TensorRT-LLM's PyTorch backend runs a Llama-style decoder layer: an FP8 or NVFP4
linear layer quantises a BF16 input with the checkpoint's static input scale (no amax pass) in a kernel of its own
(`_torch/modules/linear.py`: `FP8QDQLinearMethod.apply` calls `static_quantize_e4m3_per_tensor`,
`NVFP4LinearMethod.apply` calls `fp4_quantize(input, module.input_scale, 16, False)`) unless the input arrives
quantised. It does from the attention kernel, which writes the output projection's input in its format
(`_torch/modules/attention.py`: `out_scale = self.o_proj.inv_input_scale`, NVFP4 output with `out_scale_sf`), and
from the fused all-reduce + residual + RMSNorm + quantise kernels, which run only with TP > 1 and hidden > 4,096
(`_torch/models/modeling_llama.py`: `enable_fusion &= config.hidden_size > 4096`, `PRE_MLP_FUSION =
mapping.has_tp() and not enable_attention_dp and enable_fusion`, RESIDUAL_RMS_NORM_QUANT_NVFP4 / _FP8). The SwiGLU
writes BF16 (`_torch/modules/gated_mlp.py`: `swiglu(h1)`), so the down projection quantises its input. Assumed for
MoE layers: the fused MoE op quantises its input once and quantises its expert intermediate inside (no bytes of
its own here); shared experts are plain linears.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from archgen.model.training_rules import te_recipe
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.kernels import ACT_BYTES, element_bytes
from archgen.perf.hw.numeric import NUMBER, where

#: FP8 block scaling's block length (TE f031cf87 pytorch/csrc/quantizer.cpp line 1282, `kBlockLen = 128`) and the
#: bytes of its scale (an FP32 `scale_inv`, quantizer.cpp line 935: `scale_opts.dtype(torch::kFloat32)`).
BLOCK_LEN, BLOCK_SCALE_BYTES = 128.0, 4.0
#: Bytes written per element for one usage (row-wise or column-wise copy): data plus block scales. MXFP8: one E8M0
#: scale per 32 values; NVFP4: one E4M3 scale per 16 values (TE docs, MXFP8 and NVFP4). `blockwise`: activations and
#: gradients in 1 x 128 tiles (TE common/recipe/__init__.py at f031cf87, `Float8BlockScaling`, lines 345-347:
#: x_block_scaling_dim 1, grad_block_scaling_dim 1), one FP32 scale per 128 values; the padding of the scales to a
#: multiple of 4 rows (quantizer.cpp `get_scale_shape`, lines 1273-1320) is left out (none at a multiple of 4).
FORMAT_BYTES = {"delayed": 1.0, "tensorwise": 1.0, "mxfp8": 1.0 + 1.0 / 32.0, "nvfp4": 0.5 + 1.0 / 16.0,
                "blockwise": 1.0 + BLOCK_SCALE_BYTES / BLOCK_LEN}
#: Bytes per element of a weight copy where the recipe scales weights otherwise than activations: `blockwise`'s
#: weights in 128 x 128 blocks (w_block_scaling_dim 2, `Float8BlockScaling` line 346), one FP32 scale per block.
WEIGHT_FORMAT_BYTES = FORMAT_BYTES | {"blockwise": 1.0 + BLOCK_SCALE_BYTES / BLOCK_LEN**2}
#: Whether the recipe needs the tensor's amax before it can cast (a per-tensor scale computed from this tensor).
#: `blockwise` computes each block's amax inside its cast kernel (common/cast/dispatch/quantize.cuh at f031cf87,
#: lines 134-164: `quantize_transpose_vector_blockwise` / `_square_blockwise` take the BF16 input and write data and
#: scales): no pass.
AMAX_PASS = {"delayed": False, "tensorwise": True, "mxfp8": False, "nvfp4": True, "blockwise": False}

#: Dispatchers after which Megatron-core pads the routed experts' rows itself (module docstring; HybridEP pads in
#: its permutation, `skip_routed_expert_padding`).
PAD_DISPATCHERS = ("alltoall", "deepep")
#: Padding calls per MoE layer and pass: the permuted tokens and their probabilities padded, FC2's output unpadded
#: (forward); each one's reverse (backward). One kernel each.
PAD_CALLS = 3.0
#: Bytes per element of the router's probabilities the padding copies (FP32: HybridEP and the router's fused
#: top-k write FP32 probabilities; an assumption for the other dispatchers, whose probabilities may be BF16).
PROB_BYTES = 4.0


def pads_experts(rec: str | None, dispatcher: str) -> bool:
    """Whether Megatron-core pads the routed experts' rows for the recipe `rec` after `dispatcher` (docstring)."""
    return rec is not None and dispatcher in PAD_DISPATCHERS


def padding_per_token(a: Arch, rec: str | None, dispatcher: str, tp, etp=None):
    """Bytes per token one MoE layer's quantisation padding moves in one pass (forward or backward, the same).

    The rank holds top_k · etp / tp routed rows per token (`experts`); each padding call reads and writes every row:
    the hidden states padded and FC2's output unpadded (h BF16 values each), the probabilities padded (one FP32).
    0 where Megatron-core does not pad (`pads_experts`).
    """
    if not (a.experts and pads_experts(rec, dispatcher)):
        return 0.0
    rows = a.top_k * (1.0 if etp is None else etp / tp)
    return rows * 2.0 * (2.0 * ACT_BYTES * a.hidden + PROB_BYTES)


def padding_kernels(a: Arch, rec: str | None, dispatcher: str) -> float:
    """Padding kernels per average layer and pass (`PAD_CALLS` in each MoE layer where `pads_experts`; else 0)."""
    if not (a.moe_layers and pads_experts(rec, dispatcher)):
        return 0.0
    return PAD_CALLS * a.moe_layers / a.layers


def recipe(precision: str, fp8_recipe: str = "delayed") -> str | None:
    """The TE recipe of a training precision (`model.training_rules.te_recipe`), FP8's 'delayed' where none is given."""
    return te_recipe(precision, fp8_recipe)


def _copies(rec: str, cc):
    """Copies written per quantised tensor: one for tensor-wise FP8 on Blackwell (compute capability 10+), else two."""
    if rec in ("delayed", "tensorwise"):
        return where(np.asarray(cc) >= 10.0, 1.0, 2.0)
    return 2.0


def tensor_bytes(rec: str, cc, *, norm_output: bool = False, rht: bool = True, weight: bool = False):
    """Bytes moved per element to quantise one BF16 GEMM operand (both usages), beyond what produced it.

    Args:
        rec: Recipe (`model.switches.Fp8Recipe` or 'nvfp4').
        cc: Compute capability of the accelerator (array allowed).
        norm_output: The tensor is a layer norm's output, written by TE's norm kernel (fused amax or cast). Under
            `blockwise` TE's norm writes BF16 and quantises after it (pytorch/csrc/extensions/normalization.cpp at
            f031cf87, lines 106-131: only FP8 per-tensor, MXFP8 with cuDNN, current scaling and NVFP4 leave
            `Impl::UNFUSED`), so its output is cast like any other input.
        rht: NVFP4's random Hadamard transform on the column-wise copy (TE's default; gradients and inputs).
        weight: A weight (its copies scaled as `WEIGHT_FORMAT_BYTES`).
    """
    copies = _copies(rec, cc)
    data = (WEIGHT_FORMAT_BYTES if weight else FORMAT_BYTES)[rec]
    if norm_output and rec == "delayed":  # the norm writes FP8 instead of BF16; Hopper transposes it afterwards
        return data - ACT_BYTES + (copies - 1.0) * 2.0 * data
    amax = AMAX_PASS[rec] and not (norm_output and not (rec == "nvfp4" and rht))
    return (ACT_BYTES if amax else 0.0) + ACT_BYTES + copies * data


def weight_bytes(rec: str, cc, *, fp8_weights: bool = False):
    """Bytes per weight quantised once per step (both usages); FP8 weights only refresh Hopper's transpose."""
    if fp8_weights and rec in ("delayed", "tensorwise"):
        return where(np.asarray(cc) >= 10.0, 0.0, 2.0 * FORMAT_BYTES[rec])
    return tensor_bytes(rec, cc, rht=False, weight=True)


def forward_bytes(a: Arch, rec: str, cc, tp, h_sp, moe: bool, rht: bool = True, etp=None):
    """Quantisation bytes per token of one layer's forward pass on one rank: the four linear inputs.

    QKV and FC1 (or the shared experts' FC1) take a layer norm's output; the projection takes the attention's, FC2
    the activation's and the routed experts' FC1 the permuted tokens. `h_sp` is h, or h / tp with sequence
    parallelism (TE quantises before the all-gather). The routed experts see each token's top_k copies gathered over
    the expert-TP group, etp / tp of them per token on this rank (`experts`; etp defaults to tp).
    """
    g = 1.0 if etp is None else etp / tp
    norm = tensor_bytes(rec, cc, norm_output=True, rht=rht)
    other = tensor_bytes(rec, cc, rht=rht)
    q_normed, q = _attention_inputs(a, tp, h_sp)
    if moe:
        plain = a.top_k * (a.hidden * g + a.expert_ffn / tp) + (a.shared_experts * a.expert_ffn / tp)
        normed = q_normed + (h_sp if a.shared_experts else 0.0)
    else:
        plain, normed = a.ffn / tp, q_normed + h_sp
    return normed * norm + (q + plain) * other


def _attention_inputs(a: Arch, tp, h_sp):
    """Elements per token of the attention block's linear inputs on one rank: (a norm's output, any other input).

    QKV takes the layer norm's output, the projection the attention's. Megatron-core's MLA with Transformer Engine
    (megatron/core/models/gpt/gpt_layer_specs.py at d98e8a6, the `multi_latent_attention` spec without
    `mla_down_proj_fusion`): a separate `input_layernorm` (it writes 16 bits), whose output the query's and the KV
    latent's down-projections (`backend.linear()`, duplicated on every rank) each cast as any other input; the
    up-projections are `column_parallel_layer_norm_linear` (the latent norms fused in, `qk_layernorm` true as the
    DeepSeek recipes set it), their latents split by sequence parallelism; the projection reads heads x v_head_dim.
    """
    if not a.kv_lora_rank:
        return h_sp, a.heads * a.head_dim / tp
    latents = (a.q_lora_rank + a.kv_lora_rank) * h_sp / a.hidden
    return latents, 2.0 * h_sp + a.heads * a.v_dim / tp  # without a query latent `linear_q_proj` is the second


def _attention_outputs(a: Arch, tp, h_sp):
    """Elements per token of the attention block's linear outputs on one rank but the projection's (h_sp).

    QKV's, or MLA's (`_attention_inputs`): the down-projections' latents (sequence-parallel where the tokens are),
    the query up-projection's heads x (qk_nope_head_dim + qk_rope_head_dim) and the KV up-projection's
    heads x (qk_nope_head_dim + v_head_dim), split by tp.
    """
    if not a.kv_lora_rank:
        return (a.heads + 2 * a.kv_heads) * a.head_dim / tp
    down = (a.q_lora_rank + a.kv_lora_rank + a.kv_rope_dim) * h_sp / a.hidden
    return down + a.heads * (a.qk_head_dim + a.qk_nope_dim + a.v_dim) / tp


def expert_forward_bytes(a: Arch, rec: str | None, cc, tp, etp=None):
    """Of `forward_bytes` in an MoE layer, the routed experts' FC1 and FC2 inputs per token (0 in 16-bit)."""
    if rec is None:
        return 0.0
    return a.top_k * (a.hidden * (1.0 if etp is None else etp / tp) + a.expert_ffn / tp) * tensor_bytes(rec, cc)


def backward_bytes(a: Arch, rec: str, cc, tp, h_sp, moe: bool, rht: bool = True, etp=None):
    """Quantisation bytes per token of one layer's backward pass on one rank: every linear output's gradient."""
    g = 1.0 if etp is None else etp / tp
    qkv = _attention_outputs(a, tp, h_sp)
    up = a.ffn_mats - 1
    if moe:
        ffn = a.top_k * (up * a.expert_ffn / tp + a.hidden * g) + (
            up * a.shared_experts * a.expert_ffn / tp + h_sp if a.shared_experts else 0.0)
    else:
        ffn = up * a.ffn / tp + h_sp
    return (qkv + h_sp + ffn) * tensor_bytes(rec, cc, rht=rht)


def linear_params_per_layer(a: Arch, tp, ep, etp=None):
    """Weights of the linear layers TE quantises, per average layer on one rank (no norms, router or embedding)."""
    dense = a.layers - a.moe_layers
    shared = a.shared_experts * a.expert_params
    per = (dense * (a.attn_params + a.dense_ffn_params) + a.moe_layers * (a.attn_params + shared)) / tp \
        + a.moe_layers * a.experts * a.expert_params / ((tp if etp is None else etp) * ep)
    return per / a.layers


def forward_per_token(a: Arch, rec: str, cc, tp, sp, moe: bool, etp=None):
    """`forward_bytes` with sequence parallelism `sp` (bool, array allowed) splitting the h-sized inputs."""
    return forward_bytes(a, rec, cc, tp, a.hidden / where(sp, tp, 1), moe, etp=etp)


def backward_per_token(a: Arch, rec: str, cc, tp, sp, etp=None):
    """`backward_bytes` of the average layer (dense and MoE layers by their share), with sequence parallelism."""
    h_sp = a.hidden / where(sp, tp, 1)
    moe_share = a.moe_layers / a.layers
    dense = (1 - moe_share) * backward_bytes(a, rec, cc, tp, h_sp, False)
    return dense + (moe_share * backward_bytes(a, rec, cc, tp, h_sp, True, etp=etp) if a.moe_layers else 0.0)


def step_weight_bytes(a: Arch, rec: str, cc, tp, ep, layers, fp8_weights: bool, etp=None):
    """Bytes one rank moves per optimizer step to quantise the weights of its `layers` layers (`weight_bytes`)."""
    return layers * linear_params_per_layer(a, tp, ep, etp) * weight_bytes(rec, cc, fp8_weights=fp8_weights)


#: Kernels Transformer Engine launches to quantise one BF16 tensor, by recipe: (any input, a layer norm's output).
#: Read at NVIDIA/TransformerEngine f031cf87 (v2.14, the commit Megatron-Bridge 26.04-alpha.rc2's uv.lock pins).
#: `tensorwise` (Float8CurrentScalingQuantizer::quantize_impl, pytorch/csrc/quantizer.cpp): the amax pass is two
#: launches (common/recipe/current_scaling.cu `launch_amax_kernel`: `zero_amax_kernel<<<1, 1>>>` then
#: `amax_kernel`), then `compute_scale_from_amax_kernel<<<1, 1>>>` (`nvte_compute_scale_from_amax`) and the cast
#: (`nvte_quantize_v2`; with both usages one `cast_transpose`, common/cast/dispatch/quantize.cuh): 4. After a norm
#: that computes the amax (`create_unquantized_tensor_with_amax`: `amax.zero_()`; `quantize_with_amax`: scale and
#: cast): 3. `delayed` takes its scale from the history: the cast alone (1); its norm writes FP8 itself, so only
#: Hopper's transpose (1; none on Blackwell). `mxfp8`: one kernel writes both usages (1, the norm's output too).
#: `nvfp4`: the amax (`nvte_hadamard_transform_amax` with the random Hadamard transform) and the fused cast (2; its
#: RNG state and scale set-up are not counted, so a lower bound). `blockwise`: one kernel writes both usages with their
#: scales (`Float8BlockQuantizer::quantize` calls `nvte_quantize_v2` once, quantizer.cpp lines 1257-1271), after the
#: norm too (its norm is unfused: `tensor_bytes`): (1, 1).
KERNELS = {"tensorwise": (4.0, 3.0), "delayed": (1.0, 1.0), "mxfp8": (1.0, 1.0), "nvfp4": (2.0, 2.0),
           "blockwise": (1.0, 1.0)}


def layer_kernels(a: Arch, rec: str | None, cc, ep) -> tuple[Any, Any]:
    """Quantisation kernels one rank launches per layer and micro-batch, forward and backward (average layer).

    Forward: the four linear inputs (`forward_bytes`); backward: every linear output's gradient (`backward_bytes`).
    The routed experts run as TE's `GroupedLinear` (Megatron-core `TEGroupedMLP`), which quantises each local
    expert's slice as a tensor of its own (pytorch/module/grouped_linear.py `tex.split_quantize`; cast.cpp
    `multi_tensor_quantize_impl` calls each quantizer in turn), so FC1 and FC2 inputs and gradients count once per
    local expert (experts / ep). The exception is `delayed` on Hopper, whose experts share one
    `nvte_multi_cast_transpose` launch (the fused path of `multi_tensor_quantize_impl`). Returns (forward,
    backward); multiply by `kernels.KERNEL_OVERHEAD` for their fixed cost. 16-bit training (`rec` None): none.
    """
    if rec is None:
        return 0.0, 0.0
    plain, norm = KERNELS[rec]
    local = a.experts / ep if a.experts else 0.0
    if rec == "delayed":
        blackwell = cc >= 10.0
        norm, local = where(blackwell, 0.0, 1.0), where(blackwell, local, 1.0)
    dense = a.layers - a.moe_layers
    fwd = dense * (2.0 * norm + 2.0 * plain)
    bwd = dense * 4.0 * plain
    if a.moe_layers:
        shared = 1.0 if a.shared_experts else 0.0
        fwd = fwd + a.moe_layers * ((1.0 + shared) * norm + (1.0 + 2.0 * local + shared) * plain)
        bwd = bwd + a.moe_layers * (2.0 + 2.0 * local + 2.0 * shared) * plain
    return fwd / a.layers, bwd / a.layers


def expert_kernels(rec: str | None, cc, local):
    """Of `layer_kernels`, the routed experts' forward ones in one MoE layer (`local` experts on the rank).

    FC1's and FC2's input per local expert (one shared launch per GEMM for `delayed` on Hopper); none in 16-bit.
    """
    if rec is None:
        return 0.0
    if rec == "delayed":
        local = where(cc >= 10.0, local, 1.0)
    return 2.0 * local * KERNELS[rec][0]


def attention_kernels(rec: str | None, cc) -> tuple[Any, Any]:
    """Of `layer_kernels`, the attention block's: (forward, backward).

    QKV's input after the norm and the projection's input forward, their output gradients backward: what a CUDA
    graph of the `attn` scope captures with the block (`train.host`).
    """
    if rec is None:
        return 0.0, 0.0
    plain, norm = KERNELS[rec]
    if rec == "delayed":
        norm = where(cc >= 10.0, 0.0, 1.0)
    return norm + plain, 2.0 * plain


#: Bytes per element TensorRT-LLM writes when it quantises a serving activation: FP8 per tensor; NVFP4 with its
#: E4M3 scale per 16 values. An FP4 cast on AMD's CDNA 4 writes MXFP4 instead (`serving_bytes`).
SERVING_BYTES = {"fp8": 1.0, "fp4": FORMAT_BYTES["nvfp4"]}
#: TensorRT-LLM's Llama decoder fuses the norm's quantisation into the TP all-reduce only above this hidden size.
NORM_FUSION_HIDDEN = 4096


def serving_bytes(dtype: str, fp4: str = "nvfp4") -> float:
    """Bytes a serving activation cast writes per element (`SERVING_BYTES`); FP4 in format `fp4` with its scales.

    On a part whose FP4 is MXFP4 (`generation.fp4_format`) the GEMMs take MXFP4 activations too (ROCm/aiter's MI355X
    FP4 GEMMs are "a4w4": both operands FP4 with E8M0 scales per 32), so the cast writes that format.
    """
    return element_bytes(dtype, fp4) if dtype == "fp4" else SERVING_BYTES[dtype]


def serving_casts(a: Arch, dtype: str, tp, attention_dp: bool = False, qkv_quantised: bool = True,
                  fp4: str = "nvfp4"):
    """Activation casts of one serving forward pass per token, summed over the layers: (bytes, kernels).

    Each cast reads the BF16 input (`kernels.ACT_BYTES`) and writes `serving_bytes` (FP4 in format `fp4`); 16-bit
    serving has none. Inputs:
    QKV and the FFN's (FC1, or the fused MoE op's) take the norm's output, unless the all-reduce fusion quantises it
    (TP > 1, hidden > `NORM_FUSION_HIDDEN`, and for the FFN side no attention DP); FC2 (or the shared experts' down
    projection) takes the activation's. Under attention DP the dense FFN is whole on every rank. Where the checkpoint
    keeps the attention's input projections in BF16 (`qkv_quantised` False), they need no cast.
    """
    if dtype not in SERVING_BYTES:
        return 0.0, 0.0
    # one replica's tp: a float, whose sums are the same (a 0-d array made every figure after it a numpy scalar)
    tp = float(tp) if isinstance(tp, NUMBER) else np.asarray(tp, dtype=float)
    big = a.hidden > NORM_FUSION_HIDDEN
    qkv = where((tp > 1) & big, 0.0, 1.0) * (1.0 if qkv_quantised else 0.0)
    ffn_in = where((tp > 1) & big & (not attention_dp), 0.0, 1.0)
    t_ffn = 1.0 if attention_dp else tp
    dense, moe = a.layers - a.moe_layers, a.moe_layers
    shared = a.shared_experts * a.expert_ffn
    elems = a.layers * (qkv + ffn_in) * a.hidden + dense * a.ffn / t_ffn + moe * shared / t_ffn
    kernels = a.layers * (qkv + ffn_in) + dense + (moe if a.shared_experts else 0)
    return elems * (ACT_BYTES + serving_bytes(dtype, fp4)), kernels
