"""A serving estimate reads its replica as a first-order disaggregated deployment's two pools (newuser79).

Before, an inference architect sizing DeepSeek-R1 prefill and decode pools on GB200 NVL72 (SGLang's PD
disaggregation, lmsys.org/blog/2025-09-25-gb200-part-2: 26,156 input tokens/s a GPU in prefill and 13,386 output
tokens/s in decode at 2,000-token prompts) got one aggregated tokens/s a GPU (606.6 for a tp 32 / ep 32 attention-DP
replica at 2,000 + 100 tokens, concurrency 8,192), with no decode-pool rate, no P:D ratio and "a time not given
here" for the KV transfer. Now the `prefill_decode` convention gives each pool's rate from passes of its own (pd2,
tests/perf/test_pool_passes.py; an offline estimate's breakdown is those passes), the ratio that balances them, and
the prompt KV cache each decode rank receives over its scale-up and scale-out links: bytes / bandwidth, a lower bound.
"""

from __future__ import annotations

import json

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.serve.colocation import disaggregated_reading
from tests.conftest import SPECS

#: DeepSeek-V3/R1 config.json: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64 values a token and layer, one byte
#: each in FP8; MLA's latent cache is whole on every rank (SGLang's DP-attention docs).
DEEPSEEK_FP8_PER_TOKEN = 61 * (512 + 64) * 1.0
#: Llama 3.1 70B (arXiv 2407.21783, Table 3): 80 layers, 8 KV heads of 128; at tp 8 a rank holds one head.
LLAMA70B_FP8_PER_TOKEN_PER_RANK_TP8 = 2 * 80 * 1 * 128 * 1.0
#: GB200 NVL72: 1.8 TB/s of NVLink 5 per GPU, 900 GB/s a direction; one ConnectX-7 at 400 Gb/s (50 GB/s) a GPU.
NVLINK5, CX7 = 900e9, 50e9


def _arch(model: str) -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / f"{model}.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def test_pool_rates_ratio_and_transfer_follow_the_formulas() -> None:
    prefill, decode = 4.925e-3, 0.2266e-3   # replica seconds per request, as a breakdown gives them
    text = disaggregated_reading(_arch("deepseek-v3"), 1.0, True, 2000, 100, 32, (prefill, decode), (NVLINK5, CX7))
    assert f"a prefill pool runs {2000 / prefill / 32:,.0f} input tokens/s per accelerator" in text
    # the decode pool makes tokens 2 to 100, the prefill pool the first (decode36, `lengths.FIRST_TOKEN`)
    assert f"a decode pool {99 / decode / 32:,.0f} output tokens/s per accelerator" in text
    assert f"so {prefill / decode:.3g} prefill accelerators per decode accelerator" in text
    kv = 2000 * DEEPSEEK_FP8_PER_TOKEN   # 70.3 MB
    assert f"receives {kv / 1e6:,.1f} MB" in text
    assert f"{kv / NVLINK5 * 1e3:.3g} ms over its scale-up link" in text   # 0.0781 ms
    assert f"{kv / CX7 * 1e3:.3g} ms over its scale-out share" in text      # 1.41 ms
    assert "lower bound" in text and "Not modelled" in text


def test_a_head_split_cache_sends_each_rank_its_share() -> None:
    text = disaggregated_reading(_arch("llama3-70b"), 1.0, False, 2048, 256, 8, (0.03, 0.006), (NVLINK5, 0.0))
    share = 2048 * LLAMA70B_FP8_PER_TOKEN_PER_RANK_TP8
    assert f"receives {share / 1e6:,.1f} MB" in text
    assert "scale-out" not in text   # a single domain has no scale-out path to state


def test_a_decode_heavy_replica_reads_as_decode_accelerators_per_prefill_one() -> None:
    text = disaggregated_reading(_arch("llama3-70b"), 1.0, False, 1024, 2048, 8, (0.001, 0.13), (NVLINK5, CX7))
    assert "one prefill accelerator per 130 decode accelerators" in text


@pytest.mark.parametrize("times", [(0.0, 1.0), (1.0, 0.0)])
def test_an_untimed_phase_gives_no_reading(times) -> None:
    assert disaggregated_reading(_arch("llama3-70b"), 1.0, False, 1024, 128, 8, times, (NVLINK5, CX7)) == ""


def test_the_estimate_reads_its_own_breakdown(cli) -> None:
    r = cli("estimate", "--workload", "llama3-70b-serve-b200", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    pre, dec = (out["breakdown"][k]["value"] for k in ("prefill_per_request", "decode_per_request"))
    tp = out["layout"]["tp"]
    text = out["conventions"]["prefill_decode"]
    assert f"a prefill pool runs {2048 / pre / tp:,.0f} input tokens/s per accelerator" in text
    assert f"a decode pool {255 / dec / tp:,.0f} output tokens/s per accelerator" in text   # tokens 2 to 256
    assert "a time not given here" not in text
