"""The error refusing an uneven pipeline split names the options that place it (perf/train/pipeline_split.py).

DeepSeek-V3's 61 layers on pp 4 x v 4 cannot be split evenly, with or without the embedding and loss slots; the
error said only that, and a user copying NVIDIA's layout was stuck. Megatron-LM asserts the even split unless
the first or last stage's count is given (megatron/training/arguments.py at d98e8a6, line 997), and a layout string
(--pipeline-model-parallel-layout) places any count: the error now names `pipeline_layout`, and first_stage_layers /
last_stage_layers with counts that pass Megatron-core's checks where there are any.
"""

from __future__ import annotations

from archgen.perf.train.pipeline_split import PipelineOptions, split_problems, uneven_hint
from tests.conftest import SPECS
from tests.data.workloads import training_workload

WORKLOAD = training_workload("dsv3", "deepseek-v3", 256,
                             "{tp: 1, pp: 4, ep: 64, micro_batch: 1, dp: 64, interleave: 4}", seq_len=4096,
                             global_batch=2048, precision="fp8", fp8_recipe="mxfp8", recompute="selective")


def test_61_layers_on_pp_4_x_v_4_names_pipeline_layout(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(WORKLOAD, encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "dsv3")
    assert r.code == 2
    out = r.out + r.err
    assert "61 layers (61 slots) cannot be split evenly into pp x interleave = 4 x 4 stages" in out
    assert "place them unevenly with pipeline_layout" in out  # was: no way out named
    assert "no first_stage_layers / last_stage_layers pair places them on pp x interleave = 4 x 4" in out


def test_the_first_and_last_stage_counts_it_names_are_accepted():
    for layers, pp, v in ((80, 3, 2), (126, 8, 3), (90, 4, 2), (96, 6, 5)):
        (problem,) = split_problems(layers, pp, v)
        if ", or with first_stage_layers " not in problem:
            continue
        first, last = (int(x) for x in problem.split("first_stage_layers ")[1].split(" and last_stage_layers "))
        assert split_problems(layers, pp, v, PipelineOptions(first_stage_layers=first, last_stage_layers=last)) == []
    assert uneven_hint(80, 3, 2).endswith(", or with first_stage_layers 26 and last_stage_layers 26")
