"""Under attention DP every rank has its own max_num_tokens: the simulated replica's budget is tp of them.

newuser28's open finding 3: the offline prefill chunk and the cap on sequences in flight took max_num_tokens per rank
(x tp for the replica), while the simulator (`scheduler`, now `chunks.prompt_chunks`) gave the whole replica one budget, so prompts
stalled once its decodes passed one rank's budget. TensorRT-LLM admits tp x max_num_active_requests to an
attention-DP replica (tensorrt_llm/_torch/pyexecutor/executor_request_queue.py at 007a7508b8), and NVIDIA's
DeepSeek-R1 B200 run states "`--max_batch_size`: Max batch size in each rank", 384 with max_num_tokens 1,536 at
concurrency 3,072 on tp 8 (docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md at f0c873f5ff):
3,072 decodes could not run within one budget of 1,536 (`inference.RANK_LIMITS`). Since serve31 the prompts take
what the budgets of the ranks that hold them leave (`chunks.prompt_budget`), not every rank's.
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.chunks import prompt_chunks as _prompts
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.serve.scheduler import _loop, _Pass
from tests.conftest import SPECS


def test_the_prompts_share_what_every_ranks_budget_leaves():
    """8 ranks of 256 tokens, 64 decodes: with a prompt on every rank, 8 x 256 - 64 = 1,984 prompt tokens, 1,024 +
    960 (one budget: 192). With 3 prompts waiting, on 3 ranks of 8 decodes each (serve31, `chunks.prompt_budget`),
    3 x (256 - 8) = 744."""
    assert _prompts(range(9), 0, 1024, 256, 64, False, ranks=8) == [(0, 0, 1024), (1, 0, 960)]
    assert _prompts(range(3), 0, 1024, 256, 64, False, ranks=8) == [(0, 0, 744)]
    assert _prompts(range(3), 0, 1024, 256, 64, False) == [(0, 0, 192)]
    assert _prompts(range(9), 0, 200, 256, 0, True, ranks=8) == [(r, 0, 200) for r in range(8)]  # one whole a rank


@pytest.fixture(scope="module")
def deepseek():
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def test_a_rank_runs_no_more_of_a_prompt_than_its_own_budget(accelerators, deepseek):
    """DeepSeek-V3 FP8, tp = ep = 8 with attention DP, max_num_tokens 256 a rank: two 1,024-token prompts on an idle
    replica lie on two ranks, each prefilling 256 tokens an iteration, so the replica's iteration takes 512 of them
    (serve31; before, the replica's whole 2,048, both first tokens after one pass, 0.0451 s, where TensorRT-LLM
    chunks each prompt over four). The simulated replica keeps one prompt part done, so it runs the 512 on the first
    prompt (first token after 2 iterations) and then the second alone, 256 an iteration (4 more): each iteration's
    busiest rank runs at most 256 prompt tokens (`busiest_tokens`, `busiest_rank`), and the first prompt's decode
    rides along from iteration 3. The mean of the two first tokens, after 2 and 6 iterations, is TensorRT-LLM's
    4."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    job = ServeJob(deepseek, 1024, 16, "fp8", ep=8, attention_dp=True, scenario="concurrency", max_num_tokens=256)
    assert int(float(estimate_inference(hw, job, 8, None).max_batch)) == 2048  # 256 a rank (8 x 256)
    p = _Pass(hw, job, 8, 2049)
    t = _loop(p, job, np.zeros(2), 2048, None, 256)
    P = p.prompt
    now = p.rest_on(512, 256, 0) + max(P(512) / 8, P(256))
    now += p.rest_on(512, 256, 1) + max((P(1024) - P(512)) / 8, P(768) - P(512))
    assert t.first[0] == pytest.approx(now, rel=1e-12)
    for k, off in enumerate((0, 256, 512, 768)):  # 1 decode (its rank's 1/8) + 256 prompt tokens on one rank
        now += p.rest_on(257, 256 + 1 / 8, 1 + (off == 768)) + p.dec_unit * (1025 + k) + (P(off + 256) - P(off))
    assert t.first[1] == pytest.approx(now, rel=1e-12)
    assert (t.first[0] + t.first[1]) / 2 > 1.5 * 0.0451
