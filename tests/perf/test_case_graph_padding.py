"""Each serving case pads decode batches to the CUDA-graph sizes its source's config set, and only then (graphs39).

A row's source quotes what its harness config says of CUDA graphs (issue 20). NVIDIA's MLPerf v5.1 harness writes
`cuda_graph_batch_sizes` with `cuda_graph_padding_enabled` into the PyTorch backend's YAML (mlcommons/
inference_results_v5.1 @965182b0 closed/NVIDIA/code/llmlib/config.py `_generate_extra_config_yaml`): the DeepSeek-R1
Server rows state those sizes as `graph_batch_sizes`. Its Llama runs use the TRTLLM_EXECUTOR core, a TensorRT engine
under the C++ executor with TensorRT-LLM's default cudaGraphMode false whatever `use_graphs` says (the headers of
heldout-v5.yaml and mlperf-inference-v5.yaml give the files); AMD's MI325X configs set vLLM's enforce_eager True.
A source that says the run captured no padded graphs leaves the key out; a row that states sizes quotes them.
"""

from __future__ import annotations

import re

import pytest

from tests.perf.test_case_kv_fractions import ROWS

#: A padded capture list as a source quotes it.
PADDED = re.compile(r"use_graphs True, cuda_graph_batch_sizes \[([\d, ]+)\], cuda_graph_padding_enabled True")
#: What a source says of a run that padded no decode batch.
UNPADDED = re.compile(r"use_graphs False|enforce_eager True|cuda_graph_padding_enabled True: unused by the executor core")


@pytest.mark.parametrize(("name", "case"), [(f"{n}:{i}", c) for n, i, c in ROWS], ids=[i for _, i, _ in ROWS])
def test_a_row_pads_the_graph_sizes_its_source_quotes(name, case):
    quoted = [[int(v) for v in m.split(",")] for m in PADDED.findall(case["source"])]
    stated = case["inference"].get("graph_batch_sizes")
    assert len(quoted) <= 1, f"{name}: its source quotes {len(quoted)} capture lists"
    assert stated == (quoted[0] if quoted else None), f"{name}: graph_batch_sizes {stated}, its source quotes {quoted}"
    assert not (quoted and UNPADDED.search(case["source"])), f"{name}: its source says both padded and unpadded"


def test_the_rows_that_say_which():
    """3 rows pad (DeepSeek-R1 Server on B200, GB200, GB300); 17 say their run padded none: the held-out Lenovo and
    Nebius Llama 2 Server rows, mlperf-inference-v5's B200, GB200 and Dell Llama 2 Server, the 8B's two, the three
    405B Server and AMD's MI325X Server, HPE's Mixtral Offline (mlperf-inference-v5-moe.yaml), and NVIDIA's four
    Interactive rows (Llama 2 70B, Llama 3.1 8B, 405B on B200 and GB200; interactive40: 13 before)."""
    padded = sorted(i for _, i, c in ROWS if PADDED.search(c["source"]))
    unpadded = [i for _, i, c in ROWS if UNPADDED.search(c["source"])]
    assert padded == [f"mlperf51-deepseek-r1-server-{s}-tp8-ep8-adp-fp4" for s in ("72xgb200", "72xgb300", "8xb200")]
    assert len(unpadded) == 17 and sum("interactive" in i for i in unpadded) == 4 and {"ho-mlperf51-llama2-70b-server-8xb200-lenovo",
                                    "ho-mlperf51-llama2-70b-server-8xh200-nebius"} <= set(unpadded)
