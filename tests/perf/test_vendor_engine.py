"""A serving job that names no engine runs its part's vendor's: vLLM on Intel Gaudi, AWS Trainium (nu50fix), Google TPU.

newuser50's trial capped Llama 3.1 70B serving on an HLS-Gaudi3 at TensorRT-LLM's max_batch_size 2,048 ("where the KV
cache would hold 2,428"), an engine Gaudi does not run. Intel serves on Gaudi with vLLM (the vLLM Hardware Plugin
for Intel Gaudi, docs.vllm.ai/projects/gaudi; HabanaAI/vllm-fork before it) and AWS on Trainium with vLLM over NxD
Inference (awsdocs-neuron vllm-user-guide-v1), so the cap is vLLM's max_num_seqs: 1,024 on a part of at least 70 GiB
whose name has no "a100" (vllm-project/vllm vllm/engine/arg_utils.py at 99d7eb5d, `EngineArgs._set_default_args`;
`model.engine.VLLM_MAX_NUM_SEQS`): gaudi3 holds 128 GiB, trainium2 96 GiB. But vLLM reads that memory from its
platform, and the Gaudi, Neuron and TPU platforms report none (`model.engine.VLLM_NO_DEVICE_MEMORY`: vllm-gaudi
platform.py at 091bbadd returns 0, vllm-neuron platform.py at a5ef7c88 and vLLM's TpuPlatform at 60d375cb raise
NotImplementedError), so vLLM takes its default for small devices, 256 (tpuengine).
"""

from __future__ import annotations

import json

import pytest

from archgen.model.engine import VLLM_SMALL_MAX_NUM_SEQS, default_max_batch_size, engine_problem, serving_engine
from tests.conftest import REPO, SPECS

OFFLINE = """kind: Workload
id: serve-offline-gaudi3
name: Llama 3.1 70B offline serving on one HLS-Gaudi3, FP8
model: llama3-70b
cluster: gaudi3-64
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256}
"""


@pytest.mark.parametrize(("vendor", "engine"), [("Intel", "vllm"), (" aws ", "vllm"), ("AMD", "vllm"),
                                                ("NVIDIA", "tensorrt-llm"), ("nvidia", "tensorrt-llm"),
                                                ("Google", "vllm")])
def test_the_unstated_engine_is_the_vendor_s(vendor: str, engine: str) -> None:
    assert serving_engine(None, vendor) == engine
    assert serving_engine("sglang", vendor) == "sglang"
    assert engine_problem(None, None, vendor) is None


@pytest.mark.parametrize("vendor", ["Cerebras", ""])
def test_another_vendor_s_part_has_no_default_engine(vendor: str) -> None:
    """On main such a part ran TensorRT-LLM, a CUDA engine, at its 2,048: no source says it runs there."""
    assert engine_problem("vllm", None, vendor) is None and engine_problem(None, 512, vendor) is None
    problem = engine_problem(None, None, vendor)
    assert problem is not None and "`engine:`" in problem and "`max_batch_size:`" in problem
    with pytest.raises(ValueError, match="no serving engine stated"):
        serving_engine(None, vendor)
    assert serving_engine("tensorrt-llm", vendor) == "tensorrt-llm"


def _acme(tmp_path, inference: str):
    """The gaudi3 trial's cluster on a copy of the catalog Gaudi 3 whose vendor is 'Acme', serving `inference`."""
    part = (REPO / "specs" / "catalog" / "accelerators" / "gaudi3.yaml").read_text(encoding="utf-8")
    (tmp_path / "acme.yaml").write_text(part.replace("id: gaudi3\n", "id: acme-x1\n", 1)
                                        .replace("vendor: Intel\n", "vendor: Acme\n", 1), encoding="utf-8")
    cluster = (REPO / "tests" / "data" / "gaudi3" / "cluster.yaml").read_text(encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(cluster.replace("accelerator: gaudi3\n", "accelerator: acme-x1\n"),
                                           encoding="utf-8")
    (tmp_path / "serve.yaml").write_text(OFFLINE.replace("tp: 8,", f"tp: 8, {inference}"), encoding="utf-8")


def test_an_unstated_engine_on_another_vendor_s_part_is_refused_at_the_workload(cli, tmp_path) -> None:
    _acme(tmp_path, "")
    out = cli("estimate", str(SPECS), str(tmp_path), "--workload", "serve-offline-gaudi3")
    assert out.code != 0 and "Traceback" not in out.err, out.err
    assert "serve.yaml:" in out.err and "no serving engine stated, and Acme's parts" in out.err, out.err
    assert "`engine:`" in out.err and "`max_batch_size:`" in out.err


@pytest.mark.parametrize(("stated", "most"), [("max_batch_size: 300, ", 300), ("engine: vllm, ", 1024)])
def test_a_stated_engine_or_limit_serves_on_another_vendor_s_part(cli, tmp_path, stated: str, most: int) -> None:
    _acme(tmp_path, stated)   # vLLM on an unknown vendor reads the part's 128 GiB: 1,024 (`VLLM_MAX_NUM_SEQS`)
    est = _estimate(cli, [str(tmp_path)], "serve-offline-gaudi3")
    assert est["metrics"]["concurrency"]["value"] == most
    # no Acme engine profile: the NVIDIA engine the estimate runs is stated (small25, `defaults_note.assumed_engine`)
    engine = "serving engine vllm as it runs" if "engine" in stated else "serving engine not stated, run as a CUDA"
    [said] = est["assumed"]
    assert said.startswith(engine) and "no Acme engine profile, so acme-x1's own serving backend's" in said


def _estimate(cli, parts: list[str], workload: str) -> dict:
    return json.loads(cli("estimate", str(SPECS), *parts, "--workload", workload, "--format", "json").out)


def test_gaudi3_serving_is_capped_by_vllm_not_tensorrt_llm(cli, tmp_path) -> None:
    (tmp_path / "serve.yaml").write_text(OFFLINE, encoding="utf-8")
    est = _estimate(cli, [str(REPO / "tests" / "data" / "gaudi3"), str(tmp_path)], "serve-offline-gaudi3")
    assert est["metrics"]["concurrency"]["value"] == VLLM_SMALL_MAX_NUM_SEQS  # the KV cache holds 2,428
    cap = next(n for n in est["notes"] if n.startswith("sequences in flight per replica capped"))
    assert "vLLM's max_num_seqs" in cap and "no engine stated: vLLM, the engine Intel's parts serve with" in cap
    assert "vllm_gaudi/platform.py at 091bbadd" in cap and "whatever the 128 GiB" in cap
    assert "docs.vllm.ai/projects/gaudi" in cap and "TensorRT-LLM's max_batch_size" not in cap


def test_trainium2_serving_is_capped_by_vllm_over_nxd_inference(cli) -> None:
    est = _estimate(cli, [str(REPO / "tests" / "data" / "trn2")], "llama3-70b-serve-trn2")
    assert est["metrics"]["concurrency"]["value"] == VLLM_SMALL_MAX_NUM_SEQS  # the KV cache holds 1,869
    cap = next(n for n in est["notes"] if n.startswith("sequences in flight per replica capped"))
    assert "the engine AWS's parts serve with" in cap and "NxD Inference" in cap
    assert "vllm_neuron/platform.py at a5ef7c88" in cap and "to 32" in cap


TPU = """kind: Workload
id: serve-offline-tpu-v4
name: Llama 3.1 8B offline serving on eight TPU v4 chips, BF16
model: llama3-8b
cluster: tpu-v4-pod
accelerators: 8
inference: {precision: bf16, tp: 8, input_len: 2048, output_len: 256}
"""


def test_tpu_serving_is_capped_by_vllm_s_256_as_vllm_reads_no_tpu_memory(cli, tmp_path) -> None:
    """Google serves on TPU with vLLM, whose TpuPlatform reports no device memory (get_device_total_memory raises
    NotImplementedError, vllm/platforms/tpu.py at 60d375cb; tpu-inference tpu_platform.py at b0c2f7dc), so
    `_set_default_args` takes its small-device max_num_seqs, 256. On main the job ran TensorRT-LLM's 2,048 and was
    bounded by the KV cache instead (766 sequences)."""
    assert serving_engine(None, "Google") == "vllm"
    assert default_max_batch_size("vllm", 95 * 2**30, "tpu-v5p", "Google") == VLLM_SMALL_MAX_NUM_SEQS  # 95 GiB, still
    (tmp_path / "serve.yaml").write_text(TPU, encoding="utf-8")
    est = _estimate(cli, [str(tmp_path)], "serve-offline-tpu-v4")
    assert est["metrics"]["concurrency"]["value"] == VLLM_SMALL_MAX_NUM_SEQS
    cap = next(n for n in est["notes"] if n.startswith("sequences in flight per replica capped"))
    assert "the engine Google's parts serve with" in cap and "serve-vllm-tpu" in cap and "JetStream" in cap
    assert "get_device_total_memory" in cap and "TensorRT-LLM's max_batch_size" not in cap
