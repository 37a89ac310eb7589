"""A vLLM job that states no `kv_reserve` holds its KV cache as vLLM does, as it grows ('mean') (newuser93).

`kv_reserve` defaulted to 'full' for every job, TensorRT-LLM's GUARANTEED_NO_EVICT (the whole request reserved at
admission), though a job on an AMD part runs vLLM by default (`model.engine.VENDOR_ENGINES`), which allocates KV
blocks as a sequence grows and preempts when they run out (docs.vllm.ai configuration/optimization, "Preemption"),
and the scored vLLM rows state 'mean' for that reason. Llama 3.1 70B FP8 on one MI355X, 1,024 + 8,192 tokens,
offline: the KV cache held 136 sequences (9,216 tokens each); as vLLM holds them, 245 (5,120 tokens each).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SPECS

#: KV bytes a token on one rank: Llama 3.1 70B's 80 layers x 8 KV heads x 128 x (K, V), FP8 (catalog/models)
PER_TOKEN = 80 * 8 * 128 * 2 * 1


def _estimate(cli, tmp_path, cluster: str, extra: str = "") -> dict:
    (tmp_path / "w.yaml").write_text(
        f"kind: Workload\nid: w\nname: w\nmodel: llama3-70b\ncluster: {cluster}\naccelerators: 1\n"
        f"inference: {{precision: fp8, tp: 1, input_len: 1024, output_len: 8192{extra}}}\n", encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_an_amd_job_holds_its_kv_cache_as_vllm_does(cli, tmp_path):
    est = _estimate(cli, tmp_path, "mi355x-th5")
    held = est["memory"]["kv_cache"]["value"] / est["metrics"]["concurrency"]["value"] / PER_TOKEN
    assert held == pytest.approx(1024 + 8192 / 2, rel=1e-9)   # input + output/2, not the whole request's 9,216
    full = _estimate(cli, tmp_path, "mi355x-th5", ", kv_reserve: full")["metrics"]["concurrency"]["value"]
    assert est["metrics"]["concurrency"]["value"] == pytest.approx(full * 9216 / 5120, abs=2)
    assert est["conventions"]["kv_cache"].startswith("each sequence holds input + output/2 tokens (kv_reserve: mean): "
                                                     "vLLM's, none stated")


@pytest.mark.parametrize(("cluster", "extra", "mean"), [
    ("mi355x-th5", ", kv_reserve: full", False),      # stated: kept
    ("mi355x-th5", ", engine: vllm", True),
    ("dgx-b200-superpod", "", False),                  # TensorRT-LLM, NVIDIA's engine: its scheduler's 'full'
    ("dgx-b200-superpod", ", engine: vllm", True),
])
def test_the_reservation_is_the_stated_one_else_the_engine_s(cli, tmp_path, cluster, extra, mean):
    held = _estimate(cli, tmp_path, cluster, extra)["conventions"]["kv_cache"]
    assert ("(kv_reserve: mean)" in held) == mean, held
