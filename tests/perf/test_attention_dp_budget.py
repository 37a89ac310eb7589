"""Under attention DP every rank has its own max_num_tokens: the simulated replica's budget is tp of them.

newuser28's open finding 3: the offline prefill chunk and the cap on sequences in flight took max_num_tokens per rank
(x tp for the replica), while the simulator (`scheduler`, now `chunks.prompt_chunks`) gave the whole replica one budget, so prompts
stalled once its decodes passed one rank's budget. TensorRT-LLM admits tp x max_num_active_requests to an
attention-DP replica (tensorrt_llm/_torch/pyexecutor/executor_request_queue.py at 007a7508b8), and NVIDIA's
DeepSeek-R1 B200 run states "`--max_batch_size`: Max batch size in each rank", 384 with max_num_tokens 1,536 at
concurrency 3,072 on tp 8 (docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md at f0c873f5ff):
3,072 decodes could not run within one budget of 1,536 (`inference.RANK_LIMITS`).
"""

from __future__ import annotations

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.chunks import prompt_chunks as _prompts
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.serve.scheduler import _Pass, simulate
from tests.conftest import SPECS


def test_the_prompts_share_what_every_ranks_budget_leaves():
    """8 ranks of 256 tokens, 64 decodes: 8 x 256 - 64 = 1,984 prompt tokens, 1,024 + 960 (one budget: 192)."""
    assert _prompts(range(3), 0, 1024, 256, 64, False, ranks=8) == [(0, 0, 1024), (1, 0, 960)]
    assert _prompts(range(3), 0, 1024, 256, 64, False) == [(0, 0, 192)]
    assert _prompts(range(9), 0, 200, 256, 0, True, ranks=8) == [(r, 0, 200) for r in range(8)]  # one whole a rank


@pytest.fixture(scope="module")
def deepseek():
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def test_two_prompts_prefill_in_one_iteration_of_the_replicas_budget(accelerators, deepseek):
    """DeepSeek-V3 FP8, tp = ep = 8 with attention DP, max_num_tokens 256: two 1,024-token prompts fit the replica's
    2,048 tokens, so both first tokens come after one pass over 2,048 tokens with their two causal prompts (before:
    four iterations each of 256 tokens for the first prompt alone). The two prompts attend on two ranks at once, so
    the pass's busiest rank runs one prompt's attention (`chunks.busiest_rank`; before serve29, both one after the
    other) and one prompt's attention-side GEMMs, M = 1,024 (`chunks.busiest_tokens`; before serve30, 2,048 / 8 = 256:
    0.0262 s, now 0.0451 s). The pooled budget lets that rank run more than its own 256 tokens in the pass; TensorRT-LLM
    would chunk its prompt over four (docs/perf-model.md, the serve30 entry)."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    job = ServeJob(deepseek, 1024, 16, "fp8", ep=8, attention_dp=True, scenario="concurrency", max_num_tokens=256)
    cap = int(float(estimate_inference(hw, job, 8, None).max_batch))
    assert cap == 2048  # 256 a rank, the token budget binding (8 x 256)
    run = simulate(hw, job, 8, max_batch=cap, concurrency=2)  # each pair replaced together on an idle replica
    p = _Pass(hw, job, 8, 2049)
    assert run.ttft.mean == pytest.approx(p.rest_on(2048, 1024, 2) + p.prompt(1024), rel=1e-12)
