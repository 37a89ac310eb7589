"""A stated `pipeline_layout` with other layout fields left to the search (perf/train/pipeline_split.py).

A Megatron-core layout string (`pipeline_model_parallel_layout`) is how NVIDIA places DeepSeek-V3's 61 layers on
pp 4 x v 4 (Megatron-Bridge's DeepSeek-V3 recipes); a workload that states one and leaves the recompute, the micro
batch or pp to the search ended in a traceback ("only 0-dimensional arrays can be converted to Python scalars"):
the batched search passed every layout's pp as one array to the layout string's split.
"""

from __future__ import annotations

import numpy as np
import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layout_times import layout_of
from archgen.perf.train.layouts import search_training
from archgen.perf.train.pipeline_split import PipelineOptions, split
from archgen.perf.train.training import RECOMPUTE_CODES, estimate_training
from tests.conftest import SPECS
from tests.data.workloads import training_workload

LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
#: 80 layers in 8 stages of 10: pp 8 x v 1, pp 4 x v 2 or pp 2 x v 4
EIGHT = "E" + "t" * 10 + "|" + ("t" * 10 + "|") * 6 + "t" * 10 + "L"


def test_a_layout_string_split_over_several_pp_pads_the_missing_ranks():
    """One call over pp 2, 4 and 8: every layout's ranks as its own classes, the ranks a smaller pp lacks with count
    0 (as the even split's missing middle class), and each row equal to the split of its pp alone."""
    opts = PipelineOptions(layout=EIGHT)
    pp = np.array([2.0, 4.0, 8.0, 4.0])
    s = split(80, pp, np.array([4.0, 2.0, 1.0, 2.0]), opts)
    assert s.layers.shape == (4, 8)
    assert np.sum(s.layers * s.count, axis=-1).tolist() == [80.0] * 4
    assert s.count.sum(axis=-1).tolist() == [2.0, 4.0, 8.0, 4.0]
    for i, p in enumerate(pp):
        alone = split(80, int(p), int(8 // p), opts)
        n = int(p)
        for f in ("layers", "embedding", "loss", "count"):
            assert getattr(s, f)[i, :n].tolist() == getattr(alone, f).tolist()
    assert np.all(s.layers > 0)  # nothing divides by a rank of no layers


@pytest.mark.parametrize("fixed", [
    {"tp": 8, "pp": 4, "dp": 8, "micro_batch": 1},  # pp stated, the recompute and ZeRO stage searched
    {"tp": 8},                                      # pp searched too: 2, 4 and 8 all fit the string
])
def test_the_search_takes_a_layout_string_and_agrees_with_the_stated_layout(h100, fixed):
    job = Job(LLAMA70, 8192, 256)
    opts = PipelineOptions(layout=EIGHT)
    res = search_training(h100, job, 256, fixed, pipeline=opts)
    assert res.best is not None and res.evaluated > 1
    if "pp" not in fixed:
        assert set(res.layouts["pp"].tolist()) == {2.0, 4.0, 8.0}
    b = res.best
    assert b["pp"] * b["interleave"] == 8
    one = estimate_training(h100, job, Layout(b["tp"], b["pp"], b["dp"], b["micro_batch"], 1, 1, b["interleave"],
                                              RECOMPUTE_CODES[b["recompute"]], True, b["zero"], opts))
    every = np.broadcast_to(estimate_training(h100, job, layout_of(res.layouts, True, opts)).step_time,
                            (res.evaluated,))  # every layout, timed in one call
    assert float(one.step_time) == float(res.estimate.step_time) == float(every[res.fits].min())


DSV3 = training_workload(
    "dsv3-layout", "deepseek-v3", 256,
    '{tp: 1, pp: 4, ep: 64, micro_batch: 1, dp: 64, pipeline_layout: "Etttt|(tttt|)*14tL"}',
    name="DeepSeek-V3 on 256 GB200, NVIDIA's pp 4 x v 4 placement, recompute left to the search",
    seq_len=4096, global_batch=2048, precision="fp8")


def test_a_workload_with_a_layout_string_and_a_searched_recompute_is_estimated(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(DSV3, encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "dsv3-layout")
    assert r.code == 0, r.out + r.err
    assert "layout: tp=1, pp=4, dp=64, cp=1, ep=64, micro_batch=1, interleave=4" in r.out
    assert "internal error" not in r.out + r.err
