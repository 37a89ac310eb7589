"""A serving run's KV cache: its data type, bytes an element, attention's type and bytes per token (a rank's too).

The cache's bytes per token (`kv_cache_bytes_per_token`, `kv_cache_bytes_per_token_per_rank`) moved here from
`perf.hw.memory`, which holds a training rank's memory (kvtidy38: that module was at its 400 lines).

The KV cache is kept in the weights' precision unless a `kv_precision` is given, FP8 under FP4 weights
(`serving_kv_dtype`); an FP4 cache is NVFP4, its block scales counted in its bytes (`kv_element_bytes`), dequantised
to FP8 for the attention's products (`kv_attention_dtype`), and refused on a part that cannot have written it
(`fp4_kv_problem`). Split from `perf.hw.kernels` for its size; the sources are in each function's docstring.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.generation import another_vendors
from archgen.perf.hw.kernels import BLOCK_SCALE_BYTES, DTYPE_BYTES


def serving_kv_dtype(dtype: str, kv_dtype: str | None = None) -> str:
    """Data type of the KV cache, and of the attention core that reads it, when a model serves in `dtype`.

    The KV cache is kept in the weights' precision unless given, except under FP4 weights. An FP4 KV cache is a
    separately calibrated, opt-in recipe (TensorRT-LLM: "NVFP4 KV cache ... offline quantization with ModelOpt is
    required"), whereas an FP8 KV cache can be enabled for any checkpoint; so FP4 weights default to an FP8 KV
    cache, and the attention kernels run on it in FP8.
    """
    return kv_dtype or ("fp8" if dtype == "fp4" else dtype)


def kv_element_bytes(kv_dtype: str) -> float:
    """Bytes a KV-cache element takes in HBM, its block scales included (newuser60).

    An FP4 KV cache is NVFP4: TensorRT-LLM keeps its block scales in a pool of their own beside the data, one scale
    per 16 FP4 values (NVIDIA/TensorRT-LLM cpp/tests/unit_tests/batch_manager/kvCacheManagerTest.cpp at fb6d3613,
    `FP4BlockScaleManagementTest`: "one additional pool for the block scales", whose block is "the number of FP4
    elements / vectorSize", vectorSize 16), each an FP8 (E4M3) scale (`BLOCK_SCALE_BYTES`): 0.5625 B an element,
    so 56 % of an FP8 cache, where NVIDIA's NVFP4 KV-cache blog says "up to 50%" smaller (developer.nvidia.com/blog/
    optimizing-inference-for-long-context-and-large-batch-sizes-with-nvfp4-kv-cache, 2025-12-08), the data alone.
    """
    return DTYPE_BYTES[kv_dtype] + BLOCK_SCALE_BYTES.get(kv_dtype, 0.0)


def kv_attention_dtype(kv_dtype: str) -> str:
    """The data type the attention core computes in over a KV cache of `kv_dtype` (newuser60).

    An NVFP4 KV cache is dequantised to FP8 before the attention's matrix products (NVIDIA's NVFP4 KV-cache blog,
    2025-12-08, `kv_element_bytes`; FlashInfer's TensorRT-LLM decode kernel takes an FP8 query over an FP4 cache),
    so it runs at the FP8 rate, not the FP4 one; any other cache is computed in its own type.
    """
    return "fp8" if kv_dtype == "fp4" else kv_dtype


def fp4_kv_problem(accelerator: str, peaks: Iterable[str], kv_dtype: str | None, vendor: str = "NVIDIA",
                   compute_capability: float | None = None) -> str | None:
    """Why a serving job may not keep an FP4 KV cache on `accelerator` (it states `peaks`), or None where it may.

    NVFP4 is a Blackwell format ("a new KV format that enables significant performance gains on NVIDIA Blackwell
    GPUs", the NVFP4 KV-cache blog of `kv_element_bytes`): a part with no FP4 peak has no FP4 tensor cores to have
    written it. Before (newuser60) such a job was refused for a missing `peak.fp4`, which asked to state a figure the
    part does not have; its attention now runs in FP8 (`kv_attention_dtype`), which would have estimated it silently.

    The cache's layout (`kv_element_bytes`) is TensorRT-LLM's NVFP4 one, so another vendor's part (`generation.
    another_vendors`: not NVIDIA's, no CUDA compute capability, whose FP4 `defaults_note.fp4_format_note` already
    calls another format) is refused too (nu60fix); it was costed with NVFP4's scales. AMD's CDNA 4 (MI350X, MI355X,
    gfx950) computes FP4 as OCP MXFP4, one E8M0 scale byte per 32 E2M1 values (OCP Microscaling Formats (MX)
    Specification v1.0, 2023-09, MXFP4: k = 32, scale E8M0; ROCm/aiter PR 2037 runs the MI355X's FP4 GEMMs as "a4w4
    blockscale", E8M0 scales per 32, catalog/accelerators/mi355x.yaml; vllm-project/vllm PR 57489, open at
    2026-09-18, calls MXFP4 gfx950-native: "256-byte E2M1 payload + 16 E8M0 scales"), and no FP4 KV cache of theirs
    is modelled.
    """
    if kv_dtype != "fp4":
        return None
    if "fp4" not in peaks:
        return (f"kv_precision fp4 is an NVFP4 KV cache, a format of parts with FP4 tensor cores (NVIDIA Blackwell), "
                f"and accelerator '{accelerator}' states no fp4 peak: state kv_precision fp8 (or bf16)")
    if not another_vendors(vendor, compute_capability):
        return None
    return (f"kv_precision fp4 is costed as an NVFP4 KV cache (TensorRT-LLM's layout: one E4M3 scale per 16 values), "
            f"and accelerator '{accelerator}' ({vendor}) states no CUDA compute capability, so its FP4 is its own "
            "format (AMD's CDNA 4: OCP MXFP4, one E8M0 scale per 32 values), in which a KV cache is not modelled: "
            "state kv_precision fp8 (or bf16)")


def kv_cache_bytes_per_token(arch: Arch, kv_bytes: float) -> float:
    """KV-cache bytes per token of context for the whole model: 2 · layers · kv_heads · head_dim · bytes.

    Under multi-head latent attention, layers · (kv_lora_rank + qk_rope_head_dim) · bytes: one latent and one RoPE
    key per token and layer, shared by every head (vLLM's MLA cache, `[blocks, block_size, 1, kv_lora_rank +
    qk_rope_head_dim]`, vllm/distributed/kv_transfer/kv_connector/utils.py at v0.9.0). In FP8 that is 576 B a layer
    with one scale for the tensor; FlashMLA's 656-B "FP8 with scale" layout (FP32 scales per 128 values, RoPE in BF16)
    is its sparse decoding kernel's, for DeepSeek-V3.2, not the dense MLA's (deepseek-ai/FlashMLA README.md at
    9241ae3e, support matrix; tests/perf/test_mla_fp8_kv_bytes.py, serve29).
    """
    if arch.kv_lora_rank:
        return arch.layers * (arch.kv_lora_rank + arch.kv_rope_dim) * kv_bytes
    return 2.0 * arch.layers * arch.kv_heads * arch.head_dim * kv_bytes


def kv_cache_bytes_per_token_per_rank(arch: Arch, kv_bytes: float, tp, attention_dp: bool):
    """KV-cache bytes per token on one rank of a serving replica of `tp` (array allowed).

    A rank holds its share of the KV heads, one head's copy where kv_heads < tp; under attention DP, every head of
    its own sequences. A latent (MLA) cache has no heads to split: every rank holds it whole (SGLang's data
    parallelism attention docs: "MLA models like DeepSeek have only one KV head. With standard Tensor
    Parallelism: KV cache duplicated across all GPUs").
    """
    whole = kv_cache_bytes_per_token(arch, kv_bytes)
    if arch.kv_lora_rank or attention_dp:
        return whole + 0.0 * np.asarray(tp, dtype=float)
    return whole / arch.kv_heads * np.maximum(arch.kv_heads / np.asarray(tp, dtype=float), 1.0)
