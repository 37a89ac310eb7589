"""The EP overlap's refusal of an uninterleaved pipeline says what to state instead (`layout_rules.interleave_hint`).

Megatron-core's EP overlap with pp > 1 needs virtual pipeline stages (transformer_config.py at d98e8a6); DeepSeek-V3
ran it on PP 16 under DualPipe (arXiv 2412.19437, section 3.2.1), which archgen does not model. newuser47 wrote
DeepSeek-V3's layout (61 layers, pp 16) with `overlap_ep_comm: true` and got "needs an interleaved schedule" with no
way out; `interleave: 2` then failed the even split with a pp 4 x v 4 example. The message now names the
`pipeline_layout` that places 61 layers on pp 16 x interleave 2, and that string is a layout the model accepts.
"""

from __future__ import annotations

from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import ep_overlap_problems, interleave_hint, layout_problems
from archgen.perf.train.pipeline_split import PipelineOptions, layout_interleave, split_problems, spread_layout

#: DeepSeek-V3 as specs/catalog/models/deepseek-v3.yaml states it (MLA left out: it moves no layout rule).
DSV3 = Arch(layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=128, ffn=18432, vocab=129280, gated=True,
            experts=256, top_k=8, expert_ffn=2048, shared_experts=1, dense_layers=3, rope=True, qk_norm=False)
LAYOUT = "Et|(t*2|)*29t|tL"  # 1 + 29 x 2 + 1 + 1 = 61 layers on 32 stages; the first and last hold E and L


def test_the_refusal_names_a_layout_that_places_61_layers_on_pp_16_x_2():
    job = Job(DSV3, 4096, 15360, "fp8", overlap_ep_comm=True)
    ((field, message),) = ep_overlap_problems(job, ep=64, pp=16, interleave=1, recompute=0)
    assert field == "interleave" and "needs an interleaved schedule" in message
    assert f"state pipeline_layout '{LAYOUT}' (61 layers on pp 16 x interleave 2" in message
    assert "DualPipe, DeepSeek-V3's schedule, is not modelled" in message
    # what it names is a layout Megatron-core's string places and the model takes, the overlap with it
    assert spread_layout(61, 16, 2) == LAYOUT and layout_interleave(LAYOUT, 16) == 2
    assert split_problems(61, 16, 2, PipelineOptions(layout=LAYOUT)) == []
    assert ep_overlap_problems(job, ep=64, pp=16, interleave=2, recompute=0) == []
    assert layout_problems(DSV3, job, 2048, tp=1, pp=16, dp=128, ep=64, micro_batch=1, interleave=2,
                           pipeline=PipelineOptions(layout=LAYOUT)) == []
    # without the string, 61 layers do not split evenly over 16 x 2, and that error names the same string
    (uneven,) = split_problems(61, 16, 2)
    assert f"e.g. '{LAYOUT}' for these 61 layers on pp 16 x v 2" in uneven


def test_an_even_split_needs_only_the_interleave():
    assert interleave_hint(64, 16) == "; state interleave 2 (or more) with pp 16"
    assert interleave_hint(20, 16).startswith("; 20 layers are fewer than pp x 2 = 32 virtual stages")


def test_the_spread_is_as_even_as_the_stages_allow():
    """floor(l / s) on every stage, one more on l mod s of them; the ends, with E and L, keep the smaller count."""
    for layers, pp, v in ((61, 16, 2), (126, 8, 3), (105, 4, 2), (64, 16, 2), (33, 16, 2)):
        text = spread_layout(layers, pp, v)
        assert text is not None and split_problems(layers, pp, v, PipelineOptions(layout=text)) == []
        q = layers // (pp * v)
        assert text.startswith(f"E{'t' if q == 1 else f't*{q}'}|") and text.endswith("tL" if q == 1 else f"t*{q}L")
