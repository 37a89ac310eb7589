"""An FP8 latent (MLA) KV cache of DeepSeek-V3 / R1 is 576 B a token and layer, not FlashMLA's 656 (serve29).

FlashMLA's "FP8 with scale" cache is 656 B a token: 512 FP8 E4M3 latent values, 4 FP32 scales (one per 128) and the
64-value RoPE key left in BF16 (deepseek-ai/FlashMLA README.md at 9241ae3ef9bac614dd25e45e507e089f888280e0, "FP8 KV
Cache"; csrc/sm90/decode/sparse_fp8/splitkv_mla.cuh: `stride_kv_row == 656`). It is the format of its *sparse*
decoding kernel, DeepSeek-V3.2's DeepSeek Sparse Attention: the README's support matrix gives dense decoding (the
DeepSeek-V3 / R1 MLA the catalog's `deepseek-v3` runs) a BF16 cache only, and vLLM allocates 656 B only for its
`fp8_ds_mla` cache type of the FlashMLA sparse backend, otherwise `head_size` (576) elements of the cache's type
(vllm-project/vllm vllm/v1/attention/backends/mla/flashmla_sparse.py at 60191e18faee97b8d70c19b14f934bdf73a6ac6b,
`get_kv_cache_shape`). So a dense MLA cache in FP8 holds (kv_lora_rank + qk_rope_head_dim) x 1 B a layer, with one
scale for the tensor: 576 B, as `hw.kv_cache_dtype.kv_cache_bytes_per_token` has it. No DeepSeek-V3.2 is in the catalog.
"""

from __future__ import annotations

import yaml

from archgen.model.workload import Model
from archgen.perf.hw import kv_cache_dtype as KV
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.kv_cache_dtype import kv_cache_bytes_per_token
from tests.conftest import SPECS


def _deepseek() -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def test_a_dense_mla_fp8_cache_is_576_bytes_a_token_and_layer():
    a = _deepseek()
    assert (a.layers, a.kv_lora_rank, a.kv_rope_dim) == (61, 512, 64)  # DeepSeek-V3's config.json
    fp8 = kv_cache_bytes_per_token(a, KV.kv_element_bytes("fp8"))
    assert fp8 == 61 * 576  # 35,136 B a token, all layers
    assert fp8 != 61 * 656  # FlashMLA's sparse (V3.2) layout: 512 FP8 + 4 x 4 B scales + 64 x 2 B RoPE
    assert kv_cache_bytes_per_token(a, KV.kv_element_bytes("bf16")) == 61 * 576 * 2
