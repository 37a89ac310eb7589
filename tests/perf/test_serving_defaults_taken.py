"""A serving estimate names the `inference` fields it took by default, as a training one does (newuser97).

`defaults_taken` was empty on every serving estimate and `--explain` printed the same output: the engine a job ran
when it named none, its batch cap and KV fraction, `max_num_tokens`, `prefill`, `ffn_activation` were in notes or
nowhere. `defaults_taken.serving_taken` lists each field left out, with the value the estimate ran.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS

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
                     "quantised_attention": ("all", "field default")}
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
