"""TensorRT-LLM, NVIDIA's CUDA engine, is refused on another vendor's part at the `engine` key (newuser93).

`engine` fills what a serving job leaves out (`max_batch_size`). Stated as `tensorrt-llm` on an MI355X (AMD), the job
ran with TensorRT-LLM's default of 2,048 sequences where vLLM's 1,024 applies: Llama 3.1 70B FP8 at tp 8, 1,024 +
1,024 tokens, offline, on mi355x-th5 read 19,820 tokens/s (batch 2,048) against 17,320 with the engine left out,
though TensorRT-LLM supports NVIDIA GPUs alone (nvidia.github.io/TensorRT-LLM supported-hardware.html: "TensorRT LLM
supports the full spectrum of NVIDIA GPU architectures: ... Blackwell ... Hopper ... Ada Lovelace ... Ampere"), as
`model.engine.VENDOR_ENGINES` already says of Gaudi, Trainium and TPU. vLLM and SGLang run on ROCm and stay allowed.
Likewise `adp_balance`, TensorRT-LLM's attention-DP context balancer, is refused under another engine.
"""

from __future__ import annotations

import pytest

from archgen.model.engine import balancer_problem, foreign_engine_problem
from tests.conftest import SPECS

LINES = ["kind: Workload", "id: w", "name: w", "model: llama3-70b", "cluster: mi355x-th5", "accelerators: 8",
         "inference:", "  precision: fp8", "  tp: 8", "  input_len: 1024", "  output_len: 1024"]


def test_tensorrt_llm_on_an_amd_part_is_refused_at_its_key(cli, tmp_path):
    lines = [*LINES, "  engine: tensorrt-llm"]
    (tmp_path / "w.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w")
    assert r.code != 0, r.out
    assert f"w.yaml:{lines.index('  engine: tensorrt-llm') + 1}:" in r.err, r.err
    assert "NVIDIA GPUs" in r.err and "Traceback" not in r.err


@pytest.mark.parametrize("engine", ["vllm", "sglang\n  max_batch_size: 512\n  mem_fraction_static: 0.85"])
def test_the_engines_that_run_on_rocm_are_taken(cli, tmp_path, engine):
    (tmp_path / "w.yaml").write_text("\n".join([*LINES, f"  engine: {engine}"]) + "\n", encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w")
    assert r.code == 0, r.err


def test_the_rule():
    assert foreign_engine_problem("tensorrt-llm", "AMD") is not None
    assert foreign_engine_problem("tensorrt-llm", "Intel") is not None
    assert foreign_engine_problem("tensorrt-llm", "NVIDIA") is None
    assert foreign_engine_problem("tensorrt-llm", "") is None      # a part of no stated vendor: not known
    assert foreign_engine_problem("vllm", "AMD") is None
    assert foreign_engine_problem(None, "AMD") is None


R1 = ["kind: Workload", "id: w", "name: w", "model: deepseek-v3", "accelerators: 8", "inference:", "  precision: fp8",
      "  tp: 8", "  ep: 8", "  attention_dp: true", "  input_len: 1024", "  output_len: 1024", "  scenario: server",
      "  arrival_rate: 10 1/s", "  adp_balance: {batching_wait_iters: 3, timeout_iters: 9}"]


@pytest.mark.parametrize(("cluster", "engine", "taken"), [
    ("mi355x-th5", None, False),                  # vLLM, AMD's engine: its run read TTFT 165 ms against 76 ms without
    ("dgx-b200-superpod", "vllm", False),
    ("dgx-b200-superpod", None, True),            # TensorRT-LLM, NVIDIA's: the balancer the MLPerf rows ran
    ("dgx-b200-superpod", "tensorrt-llm", True),
])
def test_the_context_balancer_is_tensorrt_llm_s(cli, tmp_path, cluster, engine, taken):
    """`adp_balance` is TensorRT-LLM's executor setting (`attention_dp_config: {enable_balance: true, ...}`,
    `AttentionDpConfig`); the model holds prompts as that executor does. Under another engine it is refused at its
    line, not run as if that engine held prompts so (newuser93)."""
    lines = [*R1[:4], f"cluster: {cluster}", *R1[4:], *([f"  engine: {engine}"] if engine else [])]
    (tmp_path / "w.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = cli("estimate", SPECS, tmp_path, "--workload", "w")
    if taken:
        assert r.code in (0, 1) and "inference workload 'w'" in r.out, r.err
        return
    assert r.code != 0 and f"w.yaml:{len(R1) + 1}:" in r.err, r.err
    assert "TensorRT-LLM's" in r.err and "Traceback" not in r.err


def test_the_balancer_rule():
    assert balancer_problem(None, "AMD", True) is not None
    assert balancer_problem("vllm", "NVIDIA", True) is not None
    assert balancer_problem(None, "NVIDIA", True) is None
    assert balancer_problem(None, "AMD", False) is None
    assert balancer_problem(None, "", True) is not None   # no engine known: not TensorRT-LLM's to take
