"""A pipeline split is judged by what the job's stack can place (`switch_allows.UNEVEN_SPLITS`; lay28fix).

Read from each framework's code:

* Megatron-LM v2.6 (megatron-lm-2021) asserts an even split: megatron/model/transformer.py line 545,
  `assert args.num_layers % mpu.get_pipeline_model_parallel_world_size() == 0, 'num_layers must be divisible by
  pipeline_model_parallel_size'`. It has no first/last-stage counts, slots or layout string.
* Megatron-LM core_v0.9.0 (megatron-core-2024, the tag its profile reads) has `--decoder-first-pipeline-num-layers`
  and `--decoder-last-pipeline-num-layers` (fa8bb592, 2024-09-05; megatron/training/arguments.py lines 1518-1525).
  `get_num_layers_to_build` asserts "Uneven number of layer not compatible with interleaved pipeline schedule"
  (megatron/core/transformer/transformer_block.py lines 56-59), and without the counts it builds
  `config.num_layers // pipeline_ranks` layers on each rank (lines 83-84): 61 layers on pp 16 would build 48. The
  assertion of an even split came with 9157970 (2024-11-30, core_v0.10.0); the slots and interleaved counts with
  ef490839 (2025-02-03), the layout string with 77732c36 (2025-06-13).

Before, a stated bare uneven pp under those two stacks was estimated with a note; the stack-range note re-timed a
searched layout string under them (DeepSeek-V3 on 256 GB200: "5.614 s (nemo-2025) to 9.367 s (megatron-lm-2021)");
and the nearest counts offered where no layout is valid ignored the stack's rule.
"""

from __future__ import annotations

import json

import pytest

from archgen.model.switch_allows import uneven_splits
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train.job import Job
from archgen.perf.train.layouts import enumerate_layouts
from archgen.perf.train.pipeline_split import PipelineOptions, stage_counts
from archgen.perf.train.refused import bare_split_problem, needed_placement, runs_split
from archgen.scoring.cases import read_case_file
from archgen.scoring.catalog import load_accelerators
from tests.conftest import SPECS
from tests.data.workloads import training_workload

#: Llama 3.1 405B: 126 decoder layers (config.json, huggingface.co/meta-llama/Llama-3.1-405B).
LAYERS = 126
H100 = hardware_for(load_accelerators()["h100-sxm5-80gb"], scale_up_size=8)


def test_the_placements_each_stack_runs():
    assert uneven_splits("megatron-lm-2021") == ()
    assert uneven_splits("megatron-core-2024") == ("counts",)   # core_v0.9.0: first/last counts, not interleaved
    for stack in ("nemo-2025", "primus-2025", None):
        assert set(uneven_splits(stack)) == {"counts", "interleaved_counts", "slots", "layout"}


@pytest.mark.parametrize(("pp", "v", "opts", "need"), [
    (9, 1, PipelineOptions(), None),                          # 126 = 9 x 14
    (27, 1, PipelineOptions(), "layout"),                     # DeepSpeed's uniform partition, placed by a string
    (8, 8, PipelineOptions(), "slots"),                       # 128 slots = 8 x 16 (NVIDIA's 405B recipes)
    (27, 1, PipelineOptions(first_stage_layers=13, last_stage_layers=13), "counts"),
    (8, 2, PipelineOptions(first_stage_layers=14, last_stage_layers=16), "interleaved_counts"),
    (27, 1, PipelineOptions(layout="Et*5|(t*5|)*17(t*4|)*8t*4L"), "layout")])
def test_the_placement_a_split_needs(pp, v, opts, need):
    assert needed_placement(LAYERS, pp, v, opts) == need


def test_megatron_core_2024_runs_stage_counts_but_not_interleaved_nor_strings():
    counts = PipelineOptions(first_stage_layers=13, last_stage_layers=13)
    assert runs_split("megatron-core-2024", LAYERS, 27, 1, counts)
    assert not runs_split("megatron-lm-2021", LAYERS, 27, 1, counts)
    assert not runs_split("megatron-core-2024", LAYERS, 8, 2, PipelineOptions(first_stage_layers=14,
                                                                               last_stage_layers=16))
    assert not runs_split("megatron-core-2024", LAYERS, 27, 1)
    assert not runs_split("megatron-core-2024", LAYERS, 8, 8)
    assert runs_split("nemo-2025", LAYERS, 8, 8) and runs_split("megatron-lm-2021", LAYERS, 9, 1)


def test_the_refusal_names_what_the_stack_runs():
    lm = bare_split_problem("megatron-lm-2021", LAYERS, 27, 1, ranks=54)
    assert lm is not None and "megatron/model/transformer.py:545" in lm
    assert "state a pp that divides them and the 54 pipeline x data ranks (18)" in lm   # 27 x 2 ranks: 18 or 54
    assert "first_stage_layers" not in lm and "(nemo-2025, primus-2025) with pipeline_layout 'Et*5|" in lm
    core = bare_split_problem("megatron-core-2024", LAYERS, 27, 1)
    assert core is not None and "transformer_block.py:56-59" in core
    assert f"first_stage_layers {stage_counts(LAYERS, 27, 1)[0]}" in core   # 13 and 13: 100 = 25 x 4 left
    slots = bare_split_problem("megatron-core-2024", LAYERS, 8, 8)
    assert slots is not None and "only with the embedding and loss as layer slots" in slots
    assert "with embedding_slot and loss_slot true" in slots
    assert bare_split_problem("nemo-2025", LAYERS, 27, 1) is None
    assert bare_split_problem("megatron-core-2024", LAYERS, 27, 1, PipelineOptions(layout="E|t*126L")) is None


def _estimate(cli, tmp_path, parallelism: str, code: int, **training):
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-405b", 216, parallelism, cluster="dgx-b200-superpod", seq_len=8192, global_batch=16,
        precision="bf16", recompute="full", **training), encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == code, r.err
    return r


@pytest.mark.parametrize("stack", ["megatron-lm-2021", "megatron-core-2024"])
def test_a_stated_bare_uneven_pp_is_refused_at_the_job(cli, tmp_path, stack):
    r = _estimate(cli, tmp_path, "{tp: 8, pp: 27, dp: 1, micro_batch: 1, interleave: 1}", 2, stack=stack)
    assert "w.yaml:6:1: error: workload 'w': the 126 layers do not divide by pp 27, which stack " \
           f"{stack} cannot place" in r.err
    assert "state a pp that divides them and the 27 pipeline x data ranks (9)" in r.err
    # nemo-2025 estimates it as placed by the string the search answers with (`placed_note`; lay28fix2)
    doc = json.loads(_estimate(cli, tmp_path, "{tp: 8, pp: 27, dp: 1, micro_batch: 1, interleave: 1}", 0,
                               stack="nemo-2025").out)
    assert doc["layout"]["pipeline_layout"] == "Et*5|(t*5|)*17(t*4|)*8t*4L"


def test_stated_stage_counts_run_under_megatron_core_2024(cli, tmp_path):
    first, last = stage_counts(LAYERS, 27, 1)
    doc = json.loads(_estimate(cli, tmp_path, f"{{tp: 8, pp: 27, dp: 1, micro_batch: 1, first_stage_layers: {first}, "
                                              f"last_stage_layers: {last}}}", 0, stack="megatron-core-2024").out)
    assert doc["layout"]["pp"] == 27


def test_the_search_keeps_stated_counts_uninterleaved_under_megatron_core_2024():
    """16 + 6 x 16 + 14 = 126 splits into 2 virtual stages a rank too, which core_v0.9.0 asserts against."""
    arch = Arch(layers=LAYERS, hidden=16384, heads=128, kv_heads=8, head_dim=128, ffn=53248, vocab=128256, rope=True, qk_norm=False)
    counts = PipelineOptions(first_stage_layers=16, last_stage_layers=14)
    tried = {}
    for stack in ("megatron-core-2024", "nemo-2025"):
        job = Job(arch, seq_len=8192, global_batch=64, split_stack=stack)
        tried[stack] = set(enumerate_layouts(arch, job, 64, H100, {"tp": 8, "pp": 8}, counts)["interleave"])
    assert tried == {"megatron-core-2024": {1.0}, "nemo-2025": {1.0, 2.0}}


def test_no_valid_layout_names_the_stacks_rule(cli, tmp_path):
    """A stated pp alone (tp and dp searched): the nearest layout's problems are the stack's (item 3)."""
    r = _estimate(cli, tmp_path, "{pp: 27}", 2, stack="megatron-core-2024")
    assert "no parallel layout of 216 accelerators is valid; the nearest (tp=8 pp=27 dp=1 cp=1): the 126 layers " \
           "do not divide by pp 27, which stack megatron-core-2024 cannot place" in r.err


def test_the_stack_range_leaves_out_stacks_that_cannot_run_the_string(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "deepseek-v3", 256, "{}", cluster="gb200-nvl72-su", seq_len=4096, global_batch=1024,
        precision="bf16"), encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    doc = json.loads(r.out)
    assert "pipeline_layout" in doc["layout"]
    [note] = [n for n in doc["notes"] if n.startswith("stack not stated")]
    assert "(megatron-core-2024, megatron-lm-2021 left out: not runnable under them" in note
    assert "(megatron-lm-2021)" not in note and "(megatron-core-2024)" not in note   # before: 9.367 s under lm21


def test_bloom_still_loads():
    """BLOOM-176B ran 70 layers on pp 12 (Megatron-DeepSpeed's uniform partition, which megatron-lm-2021 stands
    for): a measured case is not refused for the stack's split rule (`case_checks.training_problems`)."""
    cases = {c.id: c for c in read_case_file("tests/data/validation-cases.yaml").cases}
    t = cases["bloom-176b"].training
    assert t.pp == 12 and t.stack == "megatron-lm-2021"
