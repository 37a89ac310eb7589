"""The layout search and the layout rules are one rule set (issue 12): a property test over random models and jobs.

Every layout `enumerate_layouts` offers passes `layout_problems`, and every layout `layout_problems` accepts (with
a micro-batch up to the search's bound and any interleave up to one layer per stage) is offered by the search, although
the search tries only the divisors an interleaved split needs (`layout_rules.interleaves`).
"""

from __future__ import annotations

import dataclasses
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import divisors, layout_problems
from archgen.perf.train.layouts import MAX_MICRO_BATCH, enumerate_layouts, nearest_counts
from archgen.perf.train.pipeline_split import PipelineOptions
from archgen.scoring.catalog import load_accelerators

H100 = hardware_for(load_accelerators()["h100-sxm5-80gb"], scale_up_size=8)


@st.composite
def problems(draw):
    kv = draw(st.sampled_from([1, 2, 4, 8]))
    heads = kv * draw(st.sampled_from([1, 2, 3, 4, 8]))
    arch = Arch(layers=draw(st.integers(1, 40)), hidden=heads * 64, heads=heads, kv_heads=kv, head_dim=64,
                ffn=heads * 256, vocab=32000)
    gpus = draw(st.sampled_from([1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64]))
    job = Job(arch, seq_len=draw(st.sampled_from([1024, 2048, 3000])), global_batch=draw(st.integers(1, 256)),
              split_stack=draw(st.sampled_from([None, "megatron-lm-2021", "megatron-core-2024"])))  # lay28fix
    fixed = {"cp": draw(st.sampled_from([1, 1, 2, 3]))}
    hw = dataclasses.replace(H100, scale_up_size=draw(st.sampled_from([1, 2, 4, 8])))
    return arch, job, gpus, fixed, hw


def _offered(arch, job, gpus, fixed, hw) -> set[tuple[int, ...]]:
    arr = enumerate_layouts(arch, job, gpus, hw, fixed)
    keys = ("tp", "pp", "dp", "cp", "micro_batch", "interleave")
    return {tuple(int(arr[k][i]) for k in keys) for i in range(len(arr["tp"]))}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_every_layout_the_search_offers_is_valid_by_the_rules(p):
    arch, job, gpus, fixed, hw = p
    for tp, pp, dp, cp, mb, v in _offered(*p):
        assert layout_problems(arch, job, gpus, tp=tp, pp=pp, dp=dp, cp=cp, micro_batch=mb, interleave=v,
                               scale_up_size=hw.scale_up_size) == [], (tp, pp, dp, cp, mb, v)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_every_valid_layout_is_offered_by_the_search(p):
    arch, job, gpus, fixed, hw = p
    offered = _offered(*p)
    cp = fixed["cp"]
    for tp, pp, mb in itertools.product(divisors(gpus), divisors(gpus), range(1, MAX_MICRO_BATCH + 1)):
        if gpus % (tp * pp * cp):
            continue
        dp = gpus // (tp * pp * cp)
        for v in range(1, arch.layers + 3):   # every interleave up to one layer (slot) per stage, not only those tried
            if not layout_problems(arch, job, gpus, tp=tp, pp=pp, dp=dp, cp=cp, micro_batch=mb, interleave=v,
                                   scale_up_size=hw.scale_up_size):
                assert (tp, pp, dp, cp, mb, v) in offered


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(2, 400))
def test_the_nearest_counts_are_those_a_scan_of_every_domain_finds(p, gpus):
    """`nearest_counts` builds its candidates from tp x cp x pp x dp (issue 23 item 5) instead of trying every
    whole domain between half and double the count; it finds the same counts as that scan."""
    arch, job, _, fixed, hw = p
    d = hw.scale_up_size

    def scan(counts):
        return next((n for n in counts if len(enumerate_layouts(arch, job, n, hw, fixed)["tp"])), None)

    expected = (scan(range((gpus - 1) // d * d, gpus // 2, -d)), scan(range((gpus // d + 1) * d, 2 * gpus, d)))
    assert nearest_counts(arch, job, gpus, hw, fixed) == expected



def test_whole_micro_batch_groups_need_a_multiple_of_pp_micro_batches():
    """Megatron-core runs an interleaved schedule's micro-batches through each virtual stage in groups of
    `microbatch_group_size_per_vp_stage` (pp by default, model_parallel_config.py) and raises when the last group
    holds fewer than pp (pipeline_parallel/schedules.py, Megatron-LM d98e8a6); other counts run only with a larger
    group. `PipelineOptions.whole_groups` keeps to the default groups. Megatron-LM SC21's 1T (128 layers, batch
    3,072) on 4,096 GPUs at tp 4, pp 8: dp 128 and micro-batch 2 give m = 12 per pipeline, accepted in general,
    refused in whole groups (interleaved; accepted without); micro-batch 3 gives 8."""
    arch = Arch(layers=128, hidden=25600, heads=160, kv_heads=160, head_dim=160, ffn=102400, vocab=51200)
    job = Job(arch, seq_len=2048, global_batch=3072)
    whole = PipelineOptions(whole_groups=True)
    common = {"tp": 4, "pp": 8, "dp": 128, "scale_up_size": 8}
    assert layout_problems(arch, job, 4096, micro_batch=2, interleave=16, **common) == []
    assert layout_problems(arch, job, 4096, micro_batch=2, interleave=16, pipeline=whole, **common) == [
        "an interleaved schedule in groups of pp = 8 micro-batches needs a multiple of pp per pipeline, got 12"]
    assert layout_problems(arch, job, 4096, micro_batch=2, interleave=1, pipeline=whole, **common) == []
    assert layout_problems(arch, job, 4096, micro_batch=3, interleave=16, pipeline=whole, **common) == []
    keys = ("tp", "pp", "dp", "cp", "micro_batch", "interleave")
    arr = enumerate_layouts(arch, job, 4096, H100, {"tp": 4, "pp": 8}, whole)
    offered = {tuple(int(arr[k][i]) for k in keys) for i in range(len(arr["tp"]))}
    assert (4, 8, 128, 1, 3, 16) in offered and (4, 8, 128, 1, 2, 1) in offered
    assert not any(mb == 2 and v > 1 for _, _, _, _, mb, v in offered)
    assert (4, 8, 128, 1, 2, 16) in _offered(arch, job, 4096, {"tp": 4, "pp": 8}, H100)
