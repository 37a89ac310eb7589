"""Under attention DP a prompt's attention-side GEMMs run on the one rank that holds it (serve30, issue 20).

serve29 charged an iteration's prompt attention on its busiest rank (`chunks.busiest_rank`) but left the rest of the
pass (`iteration.Pass.rest`) spreading every token over the ranks, tokens / tp a rank, as the offline prefill pass of
a full chunk does (`inference._forward`). Under attention DP each rank runs its own requests, "in different forward
modes: prefill, decode, or idle" (sgl-project/sglang docs/advanced_features/dp_dpa_smg_guide.md at 0f4513c2, "How
DPA Works"; TensorRT-LLM schedules each rank's requests within its own max_num_tokens, `inference.RANK_LIMITS`), so
a lone prompt's QKV and output projections (MLA's down and up projections), shared experts, dense layers and
norms run on one rank while the others idle; only the routed experts (EP over every rank) share its tokens. The
iteration now charges its busiest rank: its decodes' share and the largest prompt chunk, at least tokens / ranks
(`chunks.busiest_tokens`, `iteration.Pass.rest_on`). Each rank computes its own sequences' logits with the whole LM
head under attention DP (TensorRT-LLM `DecoderModelForCausalLM` builds `LMHead` without a mapping when
`enable_attention_dp`, tensorrt_llm/_torch/models/modeling_utils.py at 000a01de; `enable_lm_head_tp_in_adp` is
off by default), where the simulated pass took every sampled token's logits on one rank.
"""

from __future__ import annotations

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve import inference as I
from archgen.perf.serve.chunks import busiest_tokens, largest_chunk
from archgen.perf.serve.scheduler import _Pass, iteration_time, simulate
from tests.conftest import SPECS


@pytest.fixture(scope="module")
def deepseek():
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def _job(arch, scenario="concurrency", **kw):
    return I.ServeJob(arch, 1024, 16, "fp8", ep=8, attention_dp=True, scenario=scenario, **kw)


def test_the_busiest_rank_holds_its_decodes_share_and_the_largest_chunk():
    # the largest chunk: the head prompt's part from offset 300 (724 of 1,024), or a whole prompt after it
    assert largest_chunk(300, 724, 1024) == 724
    assert largest_chunk(300, 724 + 1024 + 10, 1024) == 1024
    assert largest_chunk(0, 500, 1024) == 500
    # 8 ranks, 64 decodes and one 1,000-token chunk: 8 decodes and the chunk on one rank, not (64 + 1,000) / 8
    assert busiest_tokens(1064, 64, 1000, 8) == 1008
    # eight 1,000-token chunks fill every rank alike
    assert busiest_tokens(8064, 64, 1000, 8) == pytest.approx(8064 / 8)
    assert busiest_tokens(1064, 64, 1000, 1) == 1064  # one rank runs every token


def test_a_lone_prompt_costs_one_ranks_gemms_for_it(accelerators, deepseek):
    """DeepSeek-V3 FP8, tp = ep = 8 with attention DP on B200: a lone 1,024-token prompt on an idle replica reaches its
    first token after one pass whose attention-side GEMMs run M = 1,024 on its rank, the offline closed form's TTFT
    (`estimate_inference`, which already prefills one prompt on one rank, `local = input_len`); before, M = 128."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    job = _job(deepseek)
    cap = int(float(I.estimate_inference(hw, job, 8, None).max_batch))
    run = simulate(hw, job, 8, max_batch=cap, concurrency=1)
    closed = float(I.estimate_inference(hw, job, 8, 1).ttft)
    assert run.ttft.mean == pytest.approx(closed, rel=1e-9)
    p = _Pass(hw, job, 8, 1025)
    spread = p.rest(1024, 1) + p.prompt(1024)  # tokens / tp a rank: serve29's reading
    assert run.ttft.mean > 1.2 * spread


def test_many_prompts_fill_every_rank_as_before(accelerators, deepseek):
    """An iteration of the replica's whole budget (8 x 8,192 tokens of whole 1,024-token prompts) spreads as the offline
    prefill pass does: tokens / tp a rank, the pass unchanged."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    job = _job(deepseek)
    p = _Pass(hw, job, 8, 8 * 8192 + 1)
    assert p.rest_on(65536, 65536 / 8, 64) == p.rest(65536, 64)
    got = iteration_time(hw, job, 8, 0, 65536) - p.rest(65536, 64)
    assert got == pytest.approx(64 / 8 * p.prompt(1024), rel=1e-12)  # serve29's attention share


def test_a_decode_step_samples_each_ranks_own_logits(accelerators, deepseek):
    """The simulated decode step under attention DP is the offline closed form's step: each rank's logits for its own
    b / tp sequences with the whole LM head (before: all b on one rank, 4.7 ms more on a step of 35.1 ms at 4,096 on B200)."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    job = _job(deepseek)
    p = _Pass(hw, job, 8, 4097)
    for b in (8, 512, 4096):
        step = float(I._forward(hw, job, float(b), 8.0, context=1.0, batch=0.0, prefill=False, attention=False))
        assert p.rest(b, b) == pytest.approx(step + p.fixed, rel=1e-12)
