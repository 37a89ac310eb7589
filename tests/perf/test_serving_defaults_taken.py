"""A serving estimate names the `inference` fields it took by default, as a training one does (newuser97).

`defaults_taken` was empty on every serving estimate and `--explain` printed the same output: the engine a job ran
when it named none, its batch cap and KV fraction, `max_num_tokens`, `prefill`, `ffn_activation` were in notes or
nowhere. `defaults_taken.serving_taken` lists each field left out, with the value the estimate ran.
"""

from __future__ import annotations

import json

import pytest

from archgen.scoring.scores import score_case_file
from tests.conftest import SPECS
from tests.perf.test_mlperf_v5_deepseek import DEEPSEEK, DSR1_B200_SERVER

VLLM = """kind: Workload
id: stated-vllm
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, engine: vllm, gpu_memory_utilization: 0.85, tp: 8, input_len: 1024, output_len: 1024,
            max_num_tokens: 4096, prefill: chunked}
"""


def _taken(cli, *args: str) -> dict[str, tuple[str, str]]:
    doc = json.loads(cli("estimate", *args, "--format", "json").out)
    return {d["name"]: (d["value"], d["from"]) for d in doc["defaults_taken"]}


def test_the_shipped_serving_job_names_its_engine_and_its_engines_defaults(cli):
    taken = _taken(cli, str(SPECS), "--workload", "llama3-70b-serve-b200")   # states precision, tp, lengths
    assert taken == {"replicas": ("8", "as many as the scale-up domains hold"),
                     "engine": ("tensorrt-llm", "none stated: NVIDIA's parts' engine"),
                     "max_batch_size": ("2048", "tensorrt-llm default"),
                     "free_gpu_memory_fraction": ("0.9", "tensorrt-llm default"),
                     "kv_reserve": ("full", "field default"), "kv_precision": ("fp8", "with fp8 weights"),
                     "max_num_tokens": ("8192", "field default"), "prefill": ("chunked", "field default"),
                     "ffn_activation": ("separate", "field default"),
                     "quantised_attention": ("all", "field default"),
                     "kernel_launch": ("graph", "tensorrt-llm PyTorch backend default"),   # eager40
                     "output_len_cv": ("none", "not stated: all outputs of one length")}   # offline (dsr1case39)
    text = cli("estimate", str(SPECS), "--workload", "llama3-70b-serve-b200").out
    assert ("\ndefaults taken: replicas 8 (as many as the scale-up domains hold); engine tensorrt-llm (none stated: "
            "NVIDIA's parts' engine); max_batch_size 2048, free_gpu_memory_fraction 0.9 (tensorrt-llm default); ")\
        in text


def test_a_stated_field_is_not_listed_and_vllm_gives_its_own(tmp_path, cli):
    (tmp_path / "w.yaml").write_text(VLLM, encoding="utf-8")
    taken = _taken(cli, str(SPECS), str(tmp_path), "--workload", "stated-vllm")
    assert not {"tp", "engine", "gpu_memory_utilization", "max_num_tokens", "prefill", "precision"} & taken.keys()
    assert taken["max_batch_size"] == ("1024", "vllm default")   # max_num_seqs on a GPU of 70 GiB or more
    assert taken["kv_reserve"] == ("mean", "vllm default")


def test_a_simulated_run_names_the_balancer_and_padding_it_left_to_tensorrt_llm(spec_tree, cli):
    """dsr1case39: the MLPerf v5.1 DeepSeek-R1 B200 Server run as a workload (tests/perf/test_mlperf_v5_deepseek.py)
    read TTFT p99 87.5 ms where its case row reads 293.7 ms: the row states the run's attention-DP balancer and
    CUDA-graph padding, the workload left them to TensorRT-LLM's defaults (off and unpadded) and nothing said so.
    Now its `defaults taken` names both; stated as the row states them, the workload reads the row's figures: one
    physics for the same inputs. An offline job names neither (the closed form holds and pads nothing)."""
    taken = {"adp_balance": ("off", "tensorrt-llm default"), "graph_batch_sizes": ("unpadded", "tensorrt-llm default")}
    specs = spec_tree({"workloads/dsr1.yaml": DSR1_B200_SERVER})
    assert taken.items() <= _taken(cli, str(SPECS), str(specs), "--workload", "dsr1-mlperf-server").items()
    stated = DSR1_B200_SERVER.replace("arrival_rate: 5.02 1/s}", "arrival_rate: 5.02 1/s, graph_batch_sizes: "
                                      "[128, 256, 384, 512], adp_balance: {batching_wait_iters: 3, timeout_iters: 9}}")
    assert stated != DSR1_B200_SERVER
    specs = spec_tree({"workloads/dsr1.yaml": stated})
    doc = json.loads(cli("estimate", str(SPECS), str(specs), "--workload", "dsr1-mlperf-server", "--format",
                         "json").out)
    assert not taken.keys() & {d["name"] for d in doc["defaults_taken"]}
    row = {r.metric: r.predicted for r in score_case_file(DEEPSEEK).results
           if r.id == "mlperf51-deepseek-r1-server-8xb200-tp8-ep8-adp-fp4"}
    for metric in ("ttft", "ttft_p99", "tpot", "tpot_p99"):
        assert doc["metrics"][metric]["value"] == pytest.approx(row[metric], rel=1e-9), metric
    assert doc["metrics"]["ttft_p99"]["value"] == pytest.approx(0.2937, abs=5e-5)   # 87.53 ms without the two
    offline = _taken(cli, str(SPECS), "--workload", "llama3-70b-serve-b200")
    assert not taken.keys() & offline.keys()
