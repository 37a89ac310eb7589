"""Each serving case states the KV cache fraction its source's config set, and only that (kvcfg38, issue 20).

The rows' sources quote the setting they read: NVIDIA's MLPerf harness `kvcache_free_gpu_mem_frac`, which it passes
to TensorRT-LLM as KvCacheConfig.free_gpu_memory_fraction (mlcommons/inference_results_v5.1 closed/NVIDIA/code/
llmlib/config.py; v4.1's closed/NVIDIA/code/harness/harness_llm/llm_core.cc), `trtllm-bench
--kv_cache_free_gpu_mem_fraction`, and AMD's vLLM `gpu_memory_utilization` / `--gpu-memory-utilization`. A row whose
source quotes one states the same value under its engine's key (model/kv_memory.py), and a row that states a
fraction quotes where it came from; a source that quotes none leaves the key out, so the engine's default applies.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

DATA = Path(__file__).resolve().parent / "data"
#: The fraction key of each engine, and how a source quotes its setting.
QUOTED = {
    "free_gpu_memory_fraction": re.compile(r"(?:kvcache_free_gpu_mem_frac|kv_cache_free_gpu_mem_fraction) (\d?\.\d+)"),
    "gpu_memory_utilization": re.compile(r"(?:gpu_memory_utilization|--gpu-memory-utilization) (\d?\.\d+)"),
}


def _serving_rows() -> list[tuple[str, str, dict]]:
    rows = []
    for path in sorted(DATA.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):    # a workload file holds several
            if isinstance(doc, dict) and doc.get("schema") == "archgen-validation/1":
                rows += [(path.name, c["id"], c) for c in doc["cases"] if "inference" in c]
    return rows


ROWS = _serving_rows()


@pytest.mark.parametrize(("name", "case"), [(f"{n}:{i}", c) for n, i, c in ROWS], ids=[i for _, i, _ in ROWS])
def test_a_row_states_the_fraction_its_source_quotes(name, case):
    for key, pattern in QUOTED.items():
        quoted = {float(v) for v in pattern.findall(case["source"])}
        stated = case["inference"].get(key)
        assert len(quoted) <= 1, f"{name}: its source quotes {key} as {sorted(quoted)}"
        assert stated == (quoted.pop() if quoted else None), f"{name}: {key} {stated}, its source quotes {quoted}"


def test_the_rows_read_are_the_serving_files():
    """The rows the fractions were read for (kvcfg38): 18 + 5 + 4 + 5 + 10 + 3 state one (mlperf-inference-v5, its
    four Interactive rows since interactive40,
    -deepseek, -moe, heldout-v5, serving-under-load, heldout-trtllm-r1); 55 do not (perf-overview's 40, NIM's 9, the
    v6.1 B300 row, heldout-mlperf-v50's 5, whose harness configs are not in the copies read), their sources quoting
    none."""
    stating = [i for _, i, c in ROWS if any(k in c["inference"] for k in QUOTED)]
    assert len(stating) == 45 and len(ROWS) - len(stating) == 55
