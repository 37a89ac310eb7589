"""A sequence longer than the model's published context is refused, not estimated.

From a user's MI355X deployment: Llama 3.1 70B asked to serve 200,000-token prompts got TTFT, TPOT and tokens/s,
though its config.json's `max_position_embeddings` is 131,072.
"""

from __future__ import annotations

from archgen.pipeline import run
from tests.conftest import SPECS

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
