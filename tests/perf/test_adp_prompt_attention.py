"""Under attention DP a hybrid iteration's prompts attend on their own ranks at once, not one after another (serve29).

review42: on DeepSeek-R1 at tp 32 with attention DP (2,000 + 100 tokens, 8,192 in flight, GB200) the prefill and
decode pools (pd2) imply 1,144 output tokens/s a GPU and the aggregated replica 606.6, its prefill 0.158 GPU s a
request against 0.079 in prefill-only passes. The simulated iteration (`scheduler._loop`) added the causal attention
of every prompt chunk in it as if one rank ran them all, where under attention DP each rank holds its own requests
and runs their attention (SGLang's DP attention, TensorRT-LLM's `enable_attention_dp`, `inference` docstring): the
offline prefill pass divides it over the ranks (`inference._forward`, tokens / tp a rank) and so does the decode
attention (`iteration.Pass.dec_unit` / tp). An iteration now charges its busiest rank: the chunks' attention over the
ranks, and at least the largest chunk, which one rank runs whole (`chunks.busiest_rank`).
"""

from __future__ import annotations

import json

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve import inference as I
from archgen.perf.serve.chunks import busiest_rank
from archgen.perf.serve.scheduler import _Pass, iteration_time
from tests.conftest import SPECS, run_cli
from tests.perf.test_pool_passes import TRIAL


@pytest.fixture(scope="module")
def deepseek():
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def test_the_busiest_rank_takes_its_share_of_the_chunks_and_at_least_the_largest():
    def prompt(n):  # a causal prompt's attention core: quadratic in its length
        return 0.0 if n <= 0 else float(n * n)
    # one rank: the sum, as before
    assert busiest_rank(prompt, 3 * prompt(10), 0, 30, 10, 1) == 3 * prompt(10)
    # 32 ranks, 131 whole prompts: 131 / 32 of one prompt's attention
    assert busiest_rank(prompt, 131 * prompt(10), 0, 1310, 10, 32) == pytest.approx(131 / 32 * prompt(10))
    # 8 ranks, two prompts: each on its own rank, so one prompt's attention (not 2 / 8 of one)
    assert busiest_rank(prompt, 2 * prompt(10), 0, 20, 10, 8) == prompt(10)
    # a head chunk from 4 to 10 and a part of 3 of the next: the head chunk is the larger
    seconds = prompt(10) - prompt(4) + prompt(3)
    assert busiest_rank(prompt, seconds, 4, 9, 10, 8) == prompt(10) - prompt(4)


def test_a_hybrid_iteration_charges_the_prompts_attention_as_the_prefill_pass_does(accelerators, deepseek):
    """review42's trial: an iteration of the replica's budget (8,192 tokens a rank, 32 ranks) of 2,000-token prompts
    charges its busiest rank the attention the offline prefill pass of those tokens charges (`_forward` at tokens /
    tp a rank): 3.14 ms a prompt summed over 131 prompts was 0.41 s, 1.4x the rest of the pass."""
    hw = hardware_for(accelerators["gb200"], scale_up_size=72)
    job = I.ServeJob(deepseek, 2000, 100, "fp4", "fp8", ep=32, attention_dp=True, scenario="concurrency")
    tp, chunk = 32, 8192 * 32
    p = _Pass(hw, job, tp, chunk + 1)
    prompts = chunk // 2000  # 131 whole prompts
    full = I._forward(hw, job, prompts * 2000, float(tp), context=2000, batch=prompts, prefill=True)
    bare = I._forward(hw, job, prompts * 2000, float(tp), context=2000, batch=prompts, prefill=True, attention=False)
    got = iteration_time(hw, job, tp, 0, prompts * 2000) - p.rest(prompts * 2000, prompts)
    assert got == pytest.approx(float(full - bare), rel=1e-9)


def test_review42s_trial_reads_the_aggregated_replica_near_its_pools(tmp_path):
    """The trial of review42 (`test_pool_passes.TRIAL`): 606.6 output tokens/s a GPU aggregated against the pools'
    1,144 before; now the aggregated replica's prefill share is within the prefill-only passes' time per request,
    and its tokens/s within 1.5x of the pools' (the hybrid passes carry the decodes on the prompts' passes)."""
    wid = "r1-decode-concurrency"
    (tmp_path / f"{wid}.yaml").write_text(TRIAL.format(id=wid, scenario="concurrency"), encoding="utf-8")
    r = run_cli("estimate", str(SPECS), str(tmp_path), "--workload", wid, "-f", "json")
    assert r.code == 0, r.err
    got = json.loads(r.out)
    m = {k: float(v["value"]) for k, v in got["metrics"].items()}
    pre_pool = 2000 / m["prefill_tokens_per_second_per_gpu"]  # GPU s a request in prefill-only passes
    dec_pool = 100 / m["decode_tokens_per_second_per_gpu"]
    pools = 100 / (pre_pool + dec_pool)  # output tokens/s a GPU of the two pools balanced
    assert pools == pytest.approx(1144, rel=0.01)
    prefill_share = float(got["breakdown"]["prefill_per_request"]["value"]) * 32
    assert prefill_share <= pre_pool  # was 0.158 GPU s against 0.079
    assert 1.0 <= m["tokens_per_second_per_gpu"] / pools < 1.5  # was 606.6 / 1,144 = 0.53
