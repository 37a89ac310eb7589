"""What a serving pass's FFN element-wise kernels move: the activation, and an MoE layer's combine of its rows.

The serving model counts these kernels (`pass_costs.DENSE_FFN_KERNELS`, `MOE_FFN_KERNELS`: "activation",
"unpermute and combine") and, until issue 20, charged none of their bytes. As the engines run them by default:

* **Activation, a kernel of its own** (`ffn_activation: separate`, the default). The up/gate GEMM writes its
  (ffn_mats - 1)·f outputs a row in 16 bits; the activation reads them and writes f for the down GEMM.
  * TensorRT-LLM's PyTorch backend: `GatedMLP.forward` runs `gate_up_proj`, then `swiglu` (FlashInfer's
    `silu_and_mul`), then `down_proj` (NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/gated_mlp.py at 01503f5535).
  * TensorRT-LLM's TensorRT backend: `use_fused_mlp` merges the gate and up GEMMs into one GEMM "followed by a
    separate SwiGLU kernel"; the GEMM + SwiGLU kernel is the opt-in `--gemm_swiglu_plugin fp8`, FP8 on Hopper only
    (docs/source/performance/perf-overview.md; the plugin's default is disabled).
  * vLLM: `SiluAndMul` is the custom op `silu_and_mul`, and its Triton fused MoE runs the expert up/gate GEMM into
    `intermediate_cache1` (2·f a routed row, in the activations' 16-bit type), then `torch.ops._C.silu_and_mul`
    into `intermediate_cache2` (f), then the down GEMM (vllm-project/vllm
    vllm/model_executor/layers/fused_moe/fused_moe.py `fused_experts_impl` at 13cb3e4437).
  * TensorRT-LLM's MoE runner on Hopper: GEMM1 runs without its activation and writes 16-bit rows;
    `doActivation` reads them and writes the FC2 input in FP8 (cpp/tensorrt_llm/kernels/cutlass_kernels/moe_gemm/
    moe_kernels.cu at 000dea273b, `CutlassMoeFCRunner::gemm1`; read in session moefix).

  The dense (and shared-expert) activation writes 16 bits, and the FP8/FP4 cast of the down projection's input
  stays the kernel of its own that `quant.serving_casts` charges; the routed experts' writes the down GEMM's input
  type, as `quant.serving_casts` assumes the fused MoE op quantises its intermediate inside.
* **Activation in the GEMM's epilogue** (`ffn_activation: fused`, e.g. a TensorRT engine built with
  `gemm_swiglu_plugin`): the dense FFN and the shared experts move no activation bytes and launch no activation
  kernel. The routed experts keep theirs: neither engine read fuses it.
* **Combine** (every MoE layer): the down GEMM writes each routed row's h in 16 bits, and a kernel of its own sums
  a token's rows into its h: vLLM's `ops.moe_sum` (same file); TensorRT-LLM's `finalizeMoeRoutingKernelLauncher`
  unless its profiler picks the down GEMM's FINALIZE epilogue (moe_kernels.cu), so an upper bound there.

Not charged: TensorRT-LLM's expansion of the FP8 input into top_k rows (vLLM's kernel gathers the rows in place, so
it is one engine's), vLLM's separate FP8 cast of the routed intermediate, and that the GEMMs write 16-bit outputs
where `kernels.gemm_bytes` counts them in the operands' type (it matters only to a memory-bound GEMM).
"""

from __future__ import annotations

from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.kernels import ACT_BYTES


def ffn_bytes(a: Arch, dtype: str, tp, *, ep: float = 1.0, attention_dp: bool = False,
              activation: str = "separate", fp4: str = "nvfp4", load=1.0):
    """Bytes of one forward pass's FFN element-wise kernels on the busiest rank, summed over the layers.

    The routed activation writes the down GEMM's input type (`quant.serving_bytes`: FP4 in format `fp4`). The routed
    rows are the busiest EP rank's: `load` times the mean rank's (`routing.load_factor`).

    Returns:
        (per token the rank's dense FFN and shared experts see, per token the rank's routed experts see): the
        dense side takes the rank's tokens (1/tp of them under attention DP), the experts every token.
    """
    t = 1.0 if attention_dp else tp  # ways the dense FFN and shared experts are split
    per_f = 0.0 if activation == "fused" else ACT_BYTES * a.ffn_mats  # read (ffn_mats - 1)·f, write f, 16 bits
    dense = (a.layers - a.moe_layers) * a.ffn / t * per_f + a.moe_layers * a.shared_experts * a.expert_ffn / t * per_f
    if not a.moe_layers:
        return dense, 0.0 * dense
    write = Q.serving_bytes(dtype, fp4) if dtype in Q.SERVING_BYTES else ACT_BYTES
    # top_k/ep rows of expert_ffn·ep/tp on the mean rank, `load` times that on the busiest
    act = load * a.top_k * a.expert_ffn / tp * (ACT_BYTES * (a.ffn_mats - 1) + write)
    combine = ACT_BYTES * a.hidden * (load * a.top_k / ep + 1.0)  # read the rank's routed rows, write the token's h
    return dense, a.moe_layers * (act + combine)


def ffn_kernels_saved(a: Arch, activation: str) -> float:
    """Activation kernels a pass does not launch when they run in the up/gate GEMM's epilogue (dense, shared)."""
    if activation != "fused":
        return 0.0
    return float(a.layers - a.moe_layers) + (float(a.moe_layers) if a.shared_experts else 0.0)
