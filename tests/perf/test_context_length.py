"""A sequence longer than the model's published context is refused, not estimated.

From a user's MI355X deployment: Llama 3.1 70B asked to serve 200,000-token prompts got TTFT, TPOT and tokens/s,
though its config.json's `max_position_embeddings` is 131,072.
"""

from __future__ import annotations

from functools import partial

from archgen.pipeline import run
from tests.conftest import SPECS
from tests.data.workloads import qwen3_training

SERVE = ("kind: Workload\nid: long\nname: long prompts\nmodel: llama3-70b\ncluster: mi355x-th5\naccelerators: 64\n"
         "inference: {{precision: fp8, tp: 8, input_len: {n}, output_len: 256}}\n")


def test_a_prompt_beyond_the_context_is_refused(spec_tree):
    root = spec_tree({"w.yaml": SERVE.format(n=200_000)})
    result = run([root, SPECS / "clusters" / "mi355x-th5.yaml"]).workloads["workload/long"]
    assert result.estimate is None
    assert "input_len + output_len = 200,256 tokens exceed model 'llama3-70b''s context_length of 131,072" \
        in result.error


def test_a_prompt_within_the_context_is_estimated(spec_tree):
    root = spec_tree({"w.yaml": SERVE.format(n=131_072 - 256)})
    result = run([root, SPECS / "clusters" / "mi355x-th5.yaml"]).workloads["workload/long"]
    assert result.estimate is not None and result.estimate.metrics["ttft"].m > 0


#: Each shipped model's published context (config.json's `max_position_embeddings`; GPT-3's n_ctx, Brown et al.
#: section 2.1), as its catalog file cites it.
PUBLISHED_CONTEXT = {"deepseek-v3": 163_840, "gpt3-175b": 2_048, "llama3-405b": 131_072, "llama3-70b": 131_072,
                     "llama3-8b": 131_072, "mixtral-8x22b": 65_536, "mixtral-8x7b": 32_768,
                     "qwen3-235b-a22b": 40_960, "qwen3-30b-a3b": 40_960}


def test_every_shipped_model_states_its_context():
    import yaml

    models = {}
    for path in sorted((SPECS / "catalog" / "models").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        models[doc["id"]] = doc.get("context_length")
    assert models == PUBLISHED_CONTEXT


TRAIN = partial(qwen3_training, "long", "{tp: 1, pp: 1, dp: 64, ep: 8}", cluster="mi355x-th5", name="long sequences",
                global_batch=64)


def test_a_training_sequence_beyond_qwen3s_context_is_refused(spec_tree):
    root = spec_tree({"w.yaml": TRAIN(seq_len=65_536)})
    result = run([root, SPECS / "clusters" / "mi355x-th5.yaml"]).workloads["workload/long"]
    assert result.estimate is None
    assert "seq_len = 65,536 tokens exceed model 'qwen3-30b-a3b''s context_length of 40,960" in result.error
