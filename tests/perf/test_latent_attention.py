"""Multi-head latent attention (`Model.mla`): DeepSeek-V3's KV cache and decode attention read its latent, not the
128 heads of 128 its projections are described with (specs/catalog/models/deepseek-v3.yaml)."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.kv_cache_dtype import kv_cache_bytes_per_token, kv_cache_bytes_per_token_per_rank
from archgen.perf.workload.roofline import inference_kernels
from tests.conftest import SPECS, run_cli

#: DeepSeek-V3 served in FP8 (FP8 KV cache) on one DGX B200, 1,024 tokens in and 1,024 out, as TP 8 / EP 8, and the
#: same with attention data parallelism (how SGLang and TensorRT-LLM serve it).
DEEPSEEK = """
kind: Workload
id: dsv3-tp8
model: deepseek-v3
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, tp: 8, ep: 8, input_len: 1024, output_len: 1024}
---
kind: Workload
id: dsv3-adp
model: deepseek-v3
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, tp: 8, ep: 8, attention_dp: true, input_len: 1024, output_len: 1024}
"""

#: DeepSeek-V3's config.json: 61 layers, kv_lora_rank 512, qk_rope_head_dim 64; one FP8 byte per value.
LATENT_BYTES_PER_TOKEN = 61 * (512 + 64) * 1.0


def _deepseek() -> Arch:
    """The library's DeepSeek-V3, as the catalog file states it."""
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def _estimate(spec_tree, workload: str) -> dict:
    specs = spec_tree({"workloads/dsv3.yaml": DEEPSEEK})
    r = run_cli("estimate", "--workload", workload, "--format", "json", "--path", str(SPECS), "--path", str(specs))
    assert r.code == 0, r.err
    return json.loads(r.out)


@pytest.mark.parametrize("attention_dp", [False, True])
def test_the_latent_is_the_kv_cache_and_every_rank_holds_it_whole(spec_tree, attention_dp):
    """35,136 B per token (61 x 576 x 1 B), where 128 heads of 128 gave 61 x 2 x 128 x 128 = 2.0 MB, 57 times as
    much: a rank of TP 8 held 250 kB of it per token (its 16 heads) and batch came out 171 sequences, not 1,248
    (attention DP: 104, not 8,136). Since kvrule37 the cache is TensorRT-LLM's, 0.9 of the HBM the weights leave (the
    job names no engine, so the NVIDIA part's): 1,350 and 9,096 with the profiling peak held
    (kvpeak37; 1,365 and 9,256 without it; vLLM's 0.9 x HBM - weights gave 1,248 and 8,136)."""
    doc = _estimate(spec_tree, "dsv3-adp" if attention_dp else "dsv3-tp8")
    per_token = LATENT_BYTES_PER_TOKEN
    assert float(kv_cache_bytes_per_token_per_rank(_deepseek(), 1.0, 8, attention_dp)) == per_token
    per_sequence = per_token * 2048            # kv_reserve full: input + output
    weights = doc["memory"]["weights"]["value"]
    hbm = doc["hardware"]["hbm_capacity"]["value"]
    # the profiling peak beyond the weights (perf/serve/profile_peak.py): the CUDA context 0.4 GB, the TP group's NCCL
    # communicator 0.688 GB, and the pass's largest BF16 tensor over max_num_tokens 8,192: the 7,168-wide residual
    # stream on TP 8, the whole KV up-projection's output (128 heads x (128 + 128)) under attention DP
    peak = 0.4e9 + 0.688e9 + 8192 * (128 * 256 if attention_dp else 7168) * 2
    held = math.floor(0.9 * (hbm - weights - peak) / per_sequence) * (8 if attention_dp else 1)
    assert doc["metrics"]["concurrency"]["value"] == held
    assert held == (9096 if attention_dp else 1350)


def test_decode_attention_reads_the_latent_once_for_every_head(h100):
    """The roofline's decode attention core: batch x context x 576 B read, 2 x (2 x 512 + 64) FLOP per local head and
    context token (the absorbed form)."""
    roof = inference_kernels(h100, _deepseek(), input_len=1024, output_len=1024, dtype="fp8", kv_dtype=None, tp=8,
                             batch=100)
    core = next(k for k in roof.kernels if k.name == "attention core" and k.phase == "decode")
    context = 1024 + 512
    assert core.bytes_moved == pytest.approx(100 * context * 576 * 1.0)
    assert core.flop == pytest.approx(2 * 100 * (128 / 8) * context * (2 * 512 + 64))


def test_a_model_without_mla_keeps_its_heads():
    """Llama 3.1 70B: 2 x 80 x 8 x 128 values per token; a rank of TP 8 holds one KV head, of TP 16 a copy of one."""
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "llama3-70b.yaml").read_text(encoding="utf-8"))
    a = Arch.from_model(Model.model_validate(doc))
    assert kv_cache_bytes_per_token(a, 2.0) == 2 * 80 * 8 * 128 * 2.0
    assert float(kv_cache_bytes_per_token_per_rank(a, 2.0, 8, False)) == 2 * 80 * 128 * 2.0
    assert float(kv_cache_bytes_per_token_per_rank(a, 2.0, 16, False)) == 2 * 80 * 128 * 2.0


def test_deepseek_v3_has_its_published_parameter_counts():
    """MLA's projections (fused query and KV down-projection, query and KV up-projections, output): 187.1 M weights
    per layer where 128 heads of 128 had 469.8 M, so 671.0 B in all, DeepSeek-V3's "671B total parameters with 37B
    activated for each token" (arXiv 2412.19437, abstract; the 128-head stand-in had 688.3 B)."""
    a = _deepseek()
    assert a.attn_params == 7168 * (1536 + 576) + 1536 * 128 * 192 + 512 * 128 * 256 + 128 * 128 * 7168
    assert a.params() == pytest.approx(671e9, rel=0.001)
    dense = a.layers - a.moe_layers
    active = (dense * a.layer_params(False) + a.moe_layers * (a.attn_params + a.active_ffn_params(True) + 2 * a.hidden)
              + a.embedding_params + a.hidden)
    assert active == pytest.approx(37e9, rel=0.02)
    assert [name for name, *_ in a.attn_gemms(8)] == ["query and KV down-projection", "query up-projection",
                                                      "KV up-projection", "attention output projection"]


def test_a_rank_under_attention_dp_holds_mlas_attention_whole(spec_tree):
    """FP8 DeepSeek-V3 under attention DP: each of the 8 ranks holds every non-expert weight, with MLA's projections
    100.7 GB in all (1/8 of the 653 B expert weights, 15.2 B others in FP8, 3.7 GB of BF16 embeddings); the stand-in's
    attention added 17 GB, which the KV cache now holds."""
    doc = _estimate(spec_tree, "dsv3-adp")
    assert doc["memory"]["weights"]["value"] == pytest.approx(100.7e9, rel=0.001)
