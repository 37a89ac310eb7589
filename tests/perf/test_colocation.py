"""A serving estimate says that prefill and decode share each replica, and what disaggregation would move (newuser52).

Before, `archgen estimate` of a DeepSeek-R1 (deepseek-v3) job on GB200 NVL72 at concurrency 64, 8,192 + 1,024
tokens, gave TTFT 258.1 ms and TPOT 41.88 ms with conventions for TTFT, TPOT, the KV cache and the memory reserve,
and nowhere said that each replica runs both its prompts and its decodes: an architect sizing a prefill/decode
disaggregated fleet (NVIDIA Dynamo, SGLang, vLLM) could read the figures as theirs, with no KV transfer counted and
no word that none is. Now every serving estimate carries a `prefill_decode` convention (text, JSON, the documents'
notes) saying so, with the prompt KV bytes a disaggregated deployment would send, from the model's architecture.
"""

from __future__ import annotations

import json

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.serve.colocation import prompt_kv_bytes
from tests.conftest import SPECS

#: Llama 3.1 70B (arXiv 2407.21783, Table 3: 80 layers, 8 key/value heads, model dimension 8192 over 64 heads = 128
#: a head): 2 x 80 x 8 x 128 values a token, one byte each in FP8.
LLAMA70B_FP8_PER_TOKEN = 2 * 80 * 8 * 128 * 1.0
#: DeepSeek-V3/R1 (config.json: num_hidden_layers 61, kv_lora_rank 512, qk_rope_head_dim 64): one latent and one
#: RoPE key a token and layer, one byte each in FP8 (the FP4 checkpoint's default KV cache, `kv_cache_dtype.serving_kv_dtype`).
DEEPSEEK_FP8_PER_TOKEN = 61 * (512 + 64) * 1.0

CO_LOCATED = "prefill and decode share each replica (aggregated serving)"


def _arch(model: str) -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / f"{model}.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


@pytest.mark.parametrize(("model", "precision", "kv", "per_token"), [
    ("llama3-70b", "fp8", None, LLAMA70B_FP8_PER_TOKEN),
    ("llama3-70b", "fp8", "bf16", 2 * LLAMA70B_FP8_PER_TOKEN),
    ("deepseek-v3", "fp4", None, DEEPSEEK_FP8_PER_TOKEN),
])
def test_prompt_kv_bytes_follow_the_architecture(model, precision, kv, per_token) -> None:
    total, _ = prompt_kv_bytes(_arch(model), precision, kv, 8192)
    assert total == pytest.approx(8192 * per_token, rel=1e-12)


def test_every_shipped_serving_estimate_says_prefill_and_decode_share_a_replica(shipped) -> None:
    seen = 0
    for w in shipped.workloads.values():
        e = w.estimate
        if e is None or e.kind != "inference" or not e.conventions:
            continue
        seen += 1
        assert e.conventions["prefill_decode"].startswith(CO_LOCATED)
        assert "no KV transfer is counted" in e.conventions["prefill_decode"]
    assert seen


def test_the_estimate_states_the_bytes_a_prefill_pool_would_send(cli) -> None:
    # the shipped Llama 3.1 70B FP8 job: 2,048-token prompts, FP8 KV cache
    r = cli("estimate", "--workload", "llama3-70b-serve-b200", "--format", "json")
    assert r.code == 0, r.err
    text = json.loads(r.out)["conventions"]["prefill_decode"]
    assert f"2,048 tokens x {LLAMA70B_FP8_PER_TOKEN / 1e3:,.1f} kB (FP8, all layers)" in text
    assert f"= {2048 * LLAMA70B_FP8_PER_TOKEN / 1e6:,.1f} MB" in text
    assert "Disaggregated serving" in text and "not modelled" in text
