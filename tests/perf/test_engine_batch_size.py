"""A serving job's unstated `max_batch_size` is its engine's default, not TensorRT-LLM's on every part (newuser46).

Before: every job left to TensorRT-LLM's max_batch_size, 2,048 ("The default value is 2048", NVIDIA/TensorRT-LLM
docs/source/performance/tuning-max-batch-size-and-max-num-tokens.md at 16d2467ea8), AMD parts and vLLM runs
included. Now a job states `engine`; vLLM's default max_num_seqs is 1,024 on a GPU of at least 70 GiB other than an
A100 and 256 on others (vllm-project/vllm vllm/engine/arg_utils.py at 99d7eb5d, `EngineArgs._set_default_args`);
SGLang derives its own from its KV pool, so an SGLang job states it; a job that names no engine runs vLLM on an AMD
part. Llama 3.1 8B at 128 + 128 tokens holds thousands of sequences in the KV cache, so the engine's limit binds.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from archgen.model.engine import default_max_batch_size
from archgen.pipeline import run
from archgen.scoring.cases import read_case_file, serve_job
from tests.conftest import SPECS

SERVE = ("kind: Workload\nid: short\nname: short requests\nmodel: llama3-8b\ncluster: {cluster}\n"
         "accelerators: 8\ninference: {{precision: fp8, tp: 1, input_len: 128, output_len: 128{extra}}}\n")
CASES = SPECS.parent / "tests" / "perf" / "data" / "serving-under-load.yaml"


def _estimate(spec_tree, cluster: str, extra: str = ""):
    root = spec_tree({"w.yaml": SERVE.format(cluster=cluster, extra=extra)})
    return run([root, SPECS / "clusters", SPECS / "racks"]).workloads["workload/short"]


def test_vllm_s_default_by_the_gpu_s_memory() -> None:
    assert default_max_batch_size("vllm", 192e9, "mi300x") == 1024          # 178.8 GiB >= 70 GiB
    assert default_max_batch_size("vllm", 80e9, "a100-80gb") == 256         # an A100, whatever its memory
    assert default_max_batch_size("vllm", 48e9, "l40s") == 256              # 44.7 GiB < 70 GiB
    assert default_max_batch_size("tensorrt-llm", 48e9, "l40s") == 2048
    assert default_max_batch_size("sglang", 192e9, "mi300x") is None        # derived from its KV pool: stated


def test_an_amd_job_with_no_engine_takes_vllm_s_default(spec_tree) -> None:
    est = _estimate(spec_tree, "mi355x-th5").estimate
    assert est.metrics["concurrency"].m == 1024
    assert any("capped at 1,024, the engine's max_batch_size (1,024) runs at once: vLLM's max_num_seqs" in n
               and "no engine stated: vLLM, the engine AMD's parts serve with" in n for n in est.notes), est.notes


@pytest.mark.parametrize(("extra", "most"), [("", 2048), (", engine: tensorrt-llm", 2048), (", engine: vllm", 1024),
                                             (", engine: sglang, max_batch_size: 3000, mem_fraction_static: 0.88", 3000)])
def test_the_stated_engine_sets_the_cap_on_a_b200(spec_tree, extra: str, most: int) -> None:
    est = _estimate(spec_tree, "dgx-b200-superpod", extra).estimate
    assert est is not None and est.metrics["concurrency"].m == most, extra


def test_an_sglang_job_states_its_limit(spec_tree) -> None:
    with pytest.raises(ValidateError) as err:
        _estimate(spec_tree, "dgx-b200-superpod", ", engine: sglang")
    text = str(err.value)
    assert "w.yaml:7:" in text and "inference.max_batch_size: SGLang has no fixed default" in text, text
    assert "_resolve_max_num_reqs" in text


def test_the_mi300x_offline_row_states_its_harness_s_limit() -> None:
    """AMD's v4.1 Offline harness ran max_num_seqs 2048 (mainVllmFp8_Offline.py); the row states it, as vLLM's
    default (1,024 on a 192 GB MI300X) would move its prediction (33,421 -> 32,701 tokens/s)."""
    [row] = [c for c in read_case_file(CASES).cases if c.id == "mlperf41-llama2-70b-offline-8xmi300x-vllm-tp1-fp8"]
    assert row.inference is not None and row.inference.engine == "vllm"
    assert serve_job(row).max_batch_size == 2048
    unstated = row.model_copy(update={"inference": row.inference.model_copy(update={"max_batch_size": None})})
    assert serve_job(unstated).max_batch_size == 1024
