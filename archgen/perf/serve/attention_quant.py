"""Which attention projections a quantised serving checkpoint stores in the serving precision.

ModelOpt's generic recipe quantises every linear layer of the transformer blocks: 'all'. Its DeepSeek recipe leaves
MLA out, so those projections run and are stored in BF16 (`ATTENTION_SOURCE`).
"""

from __future__ import annotations

from archgen.perf.hw.arch import Arch

#: The dtype of the attention projections a checkpoint leaves out of the serving precision (which it stores in it:
#: `ServeJob.quantised_attention`, `model.inference.QuantisedAttention`).
UNQUANTISED_DTYPE = "bf16"
#: Why a checkpoint's attention projections may stay in BF16. ModelOpt's generic recipe quantises every linear layer
#: of the blocks (nvidia/Llama-3.1-405B-Instruct-FP4 model card: "Only the weights and activations of the linear
#: operators within transformers blocks are quantized"): 'all'. Its DeepSeek recipe disables the
#: attention quantisers unless asked (`mtq_cfg["quant_cfg"]["*attn*"] = {"enable": False}`) and quantises `wo` to
#: NVFP4 unless `--disable_wo_quant` (NVIDIA/TensorRT-Model-Optimizer examples/deepseek/ptq.py at 103b1bb137), and
#: its converter writes the left-out FP8 weights back as BF16 (examples/deepseek/quantize_to_nvfp4.py at 1ef1d72a1b,
#: `weight_dequant`). nvidia/DeepSeek-R1-FP4 was made before the wo option ('none': TensorRT-LLM blog3, "The MoE
#: layers inside this checkpoint have been quantized into FP4", docs/source/blogs/tech_blog/blog3_Optimizing_
#: DeepSeek_R1_Throughput_on_NVIDIA_Blackwell_GPUs.md at f0c873f5ff; blog1 at 5685103305: "64x Attention Modules
#: bf16", "3x Dense FFN Layers nvfp4", "58x MoE FFN Layers nvfp4"); nvidia/DeepSeek-R1-FP4-v2 "additionally quantizes
#: the wo module in attention layers" (its model card): 'output'. MLPerf Inference v5.1's NVIDIA DeepSeek-R1 runs
#: that v2 checkpoint with its own hf_quant_config.json, whose exclude_modules list every layer's self_attn.fused_a,
#: q_proj, q_b_proj and kv_b_proj and no o_proj (mlcommons/inference_results_v5.1 at 965182b033,
#: closed/NVIDIA/code/deepseek-r1/tensorrt/hf_quant_config.json).
ATTENTION_SOURCE = ("ModelOpt's DeepSeek recipe (examples/deepseek/ptq.py at 103b1bb137) and the checkpoints "
                    "it made, as the comment above cites them")


def attention_dtypes(arch: Arch, dtype: str, quantised: str = "all") -> list[str]:
    """The data type of each of `Arch.attn_gemms`' projections: `dtype` where `quantised` covers it, else BF16."""
    def covered(name: str) -> bool:
        return quantised == "all" or (quantised == "output" and name == "attention output projection")
    return [dtype if covered(name) else UNQUANTISED_DTYPE for name, _, _ in arch.attn_gemms(1)]
