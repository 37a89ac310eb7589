"""A serving job's tokens/s counts output tokens only, and says so (metric description and the estimate's conventions).

From newuser28's trial: docs/metrics.md read "Tokens processed per second by the whole job", while every serving
figure is output tokens per second (the offline closed form's batch x output_len / time, an open loop's arrival rate
x output_len), as MLPerf's, trtllm-bench's and AIPerf's are; vLLM's benchmark_serving.py prints both "Output token
throughput" and "Total Token throughput" (vllm-project/vllm benchmarks/benchmark_serving.py at 0049e29c41), and the
second is (input + output) / output times the first: 17 times at 2,048 + 128 tokens.
"""

from __future__ import annotations

from archgen import metrics
from tests.conftest import SPECS, run_cli

SERVER = ("kind: Workload\nid: srv\nname: server\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 8\n"
          "inference: {precision: fp8, tp: 2, input_len: 2048, output_len: 128, scenario: server, "
          "arrival_rate: 8 1/s}\n")


def test_the_metric_says_a_serving_jobs_tokens_are_its_output():
    m = metrics.find("workload", "tokens_per_second")
    assert m is not None and "a serving job's output tokens only, its prompts' not counted" in m.description


def test_an_open_loops_tokens_per_second_is_its_rate_times_output_len_and_says_so(spec_tree):
    specs = spec_tree({"workloads/srv.yaml": SERVER})
    out = run_cli("estimate", "--workload", "srv", "--path", str(SPECS), "--path", str(specs)).out
    row = next(line for line in out.splitlines() if line.strip().startswith("tokens_per_second "))
    assert row.split()[1] == "1,024"  # 8 requests/s x 128 output tokens, not x (2,048 + 128)
    assert "tokens_per_second: output tokens per second, prompt tokens not counted" in out
