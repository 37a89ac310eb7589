"""An FP4 KV cache holds its block scales and is attended in FP8 (newuser60).

Before, `kv_precision: fp4` took 0.5 B an element, so it held exactly twice the sequences of an FP8 cache (Llama 3.1
70B NVFP4 at tp 8 on a DGX B200, 8,192 + 1,024 tokens: 893 -> 1,786), and its prefill attention ran at the FP4 tensor
rate (TTFT at 65,536 prompt tokens 1,143 -> 1,051 ms, -8 %). TensorRT-LLM keeps an FP4 cache's block scales in a
pool of their own, one per 16 values (cpp/tests/unit_tests/batch_manager/kvCacheManagerTest.cpp at fb6d3613,
`FP4BlockScaleManagementTest`), each an NVFP4 E4M3 scale: 0.5625 B an element (1,588 sequences). NVIDIA's NVFP4
KV-cache blog (2025-12-08) has the cache dequantised to FP8 for the attention's products, so its TTFT is the FP8
cache's. A part without FP4 tensor cores is refused with what to state, not asked for a `peak.fp4` it lacks.
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.hw import kv_cache_dtype as KV
from tests.conftest import SPECS

# Llama 3.1 70B (specs/catalog/models/llama3-70b.yaml: 80 layers, 8 KV heads of 128), tp 8: one KV head a rank
LAYERS, KV_HEADS_PER_RANK, HEAD_DIM = 80, 1, 128
NVFP4_ELEMENT = 0.5 + 1.0 / 16.0   # 4-bit value + one 1-byte E4M3 scale per 16 values


def _estimate(cli, tmp_path, kv: str, extra: str) -> dict:
    root = tmp_path / kv
    root.mkdir()
    (root / "w.yaml").write_text(
        "kind: Workload\nid: w\nname: w\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 8\n"
        f"inference: {{precision: fp4, kv_precision: {kv}, tp: 8, {extra}}}\n", encoding="utf-8")
    r = cli("estimate", SPECS, root, "--workload", "w", "--format", "json")
    assert r.code == 0, r.out + r.err
    return json.loads(r.out)


@pytest.mark.parametrize(("kv", "element"), [("fp8", 1.0), ("fp4", NVFP4_ELEMENT)])
def test_kv_bytes_a_token_count_the_block_scales(cli, tmp_path, kv, element):
    est = _estimate(cli, tmp_path, kv, "input_len: 8192, output_len: 1024")
    per_seq = est["memory"]["kv_cache"]["value"] / est["metrics"]["concurrency"]["value"]
    per_token = per_seq / (8192 + 1024)   # kv_reserve full: the whole request
    assert per_token == pytest.approx(2 * LAYERS * KV_HEADS_PER_RANK * HEAD_DIM * element, rel=1e-9)


def test_an_fp4_cache_is_attended_in_fp8(cli, tmp_path):
    shape = "input_len: 65536, output_len: 64, scenario: concurrency, batch: 1"
    ttft = {kv: _estimate(cli, tmp_path, kv, shape)["metrics"]["ttft"]["value"] for kv in ("fp8", "fp4")}
    assert ttft["fp4"] == pytest.approx(ttft["fp8"], rel=1e-3)


def test_an_fp4_cache_needs_fp4_tensor_cores():
    why = KV.fp4_kv_problem("h100-sxm", ("bf16", "fp8"), "fp4")
    assert why is not None and "state kv_precision fp8" in why and "peak.fp4" not in why
    assert KV.fp4_kv_problem("b200-sxm-180gb", ("bf16", "fp8", "fp4"), "fp4") is None
    assert KV.fp4_kv_problem("h100-sxm", ("bf16", "fp8"), "fp8") is None


def test_an_fp4_cache_on_an_mxfp4_part_is_refused_at_its_key(cli, tmp_path):
    """nu60fix: an MI355X (AMD CDNA 4, whose FP4 is OCP MXFP4: one E8M0 scale per 32 values, OCP MX spec v1.0) was
    given an FP4 KV cache costed with NVFP4's layout (one E4M3 scale per 16); it is refused, at the `kv_precision`
    line, not the workload's `inference:` line."""
    lines = ["kind: Workload", "id: w", "name: w", "model: llama3-70b", "cluster: mi355x-th5", "accelerators: 8",
             "inference:", "  precision: fp8", "  tp: 8", "  input_len: 1024", "  output_len: 1024",
             "  kv_precision: fp4"]
    (tmp_path / "w.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w")
    assert r.code != 0
    assert f"w.yaml:{lines.index('  kv_precision: fp4') + 1}:" in r.err, r.err
    assert "MXFP4" in r.err and "state kv_precision fp8" in r.err


def test_the_fp4_format_is_the_vendors():
    fp4 = ("bf16", "fp8", "fp4")
    assert KV.fp4_kv_problem("b200-sxm-180gb", fp4, "fp4", "nvidia", 10.0) is None
    assert KV.fp4_kv_problem("b200-sxm-180gb", fp4, "fp4", "NVIDIA", None) is None   # NVIDIA's, capability unstated
    assert "MXFP4" in (KV.fp4_kv_problem("mi355x", fp4, "fp4", "AMD", None) or "")
    assert "its own format" in (KV.fp4_kv_problem("x", fp4, "fp4", "Acme", 0.0) or "")
    assert KV.fp4_kv_problem("mi355x", fp4, "fp8", "AMD", None) is None
