"""A pipeline placement a job states that its stack does not run is PERF004, as a stated switch is (lay28fix2).

What each stack places is read from its code (`switch_allows.UNEVEN_SPLITS`, tests/perf/test_stack_splits.py):
Megatron-LM v2.6 asserts an even split (megatron/model/transformer.py line 545) and has no counts, slots or layout
string; core_v0.9.0 has `--decoder-first/last-pipeline-num-layers` (arguments.py lines 1518-1525) and asserts them
away from an interleaved schedule (transformer_block.py lines 56-59); the slots came with ef490839 (2025-02-03) and
`pipeline_model_parallel_layout` with 77732c36 (2025-06-13). Before, a `pipeline_layout` stated under
megatron-core-2024 or stage counts under megatron-lm-2021 were estimated as stated with no word. The project's
convention for a stated value beyond the stack is the located PERF004 warning and an estimate "as stated"
(`beyond_stack`), so a placement follows it; a split that states none and needs one stays refused (lay28fix).

Under nemo-2025 and primus-2025 a stated pp that does not divide the layers, with nothing placing it, is taken as
placed by the string the layout search answers with (Megatron-LM asserts the even split unless the stages are
stated: megatron/training/arguments.py at d98e8a6, line 997); before, it was timed so with a note only.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from archgen.model.switch_allows import placements_beyond
from tests.conftest import SPECS
from tests.data.workloads import training_workload

TEXT = "Et*5|(t*5|)*17(t*4|)*8t*4L"   # Llama 3.1 405B's 126 layers on pp 27: 18 x 5 + 9 x 4


def _par(**stated):
    fields = ("pipeline_layout", "first_stage_layers", "last_stage_layers", "embedding_slot", "loss_slot",
              "interleave")
    return SimpleNamespace(**{f: stated.get(f) for f in fields})


@pytest.mark.parametrize(("stack", "stated", "beyond"), [
    ("megatron-core-2024", {"pipeline_layout": TEXT}, ["pipeline_layout"]),
    ("megatron-core-2024", {"first_stage_layers": 13, "last_stage_layers": 13}, []),
    ("megatron-core-2024", {"first_stage_layers": 16, "last_stage_layers": 14, "interleave": 2},
     ["first_stage_layers", "last_stage_layers"]),
    ("megatron-core-2024", {"embedding_slot": True, "loss_slot": True}, ["embedding_slot", "loss_slot"]),
    ("megatron-core-2024", {"embedding_slot": False}, []),
    ("megatron-lm-2021", {"first_stage_layers": 13}, ["first_stage_layers"]),
    ("megatron-lm-2021", {"pipeline_layout": TEXT}, ["pipeline_layout"]),
    ("nemo-2025", {"pipeline_layout": TEXT, "first_stage_layers": 16, "interleave": 2}, []),
    ("primus-2025", {"embedding_slot": True}, []),
])
def test_placements_beyond_the_stack(stack, stated, beyond):
    assert [name for name, *_ in placements_beyond(stack, _par(**stated))] == beyond


def test_the_message_names_what_the_stack_accepts():
    [(_, value, accepts, source)] = placements_beyond("megatron-core-2024", _par(pipeline_layout=TEXT))
    assert value == TEXT and accepts == ("even splits or first_stage_layers and last_stage_layers at interleave 1",)
    assert "77732c36" in source
    [(_, _, accepts, source)] = placements_beyond("megatron-lm-2021", _par(first_stage_layers=13))
    assert accepts == ("even splits",) and "transformer.py:545" in source


def _write(tmp_path, parallelism: str, **training) -> None:
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-405b", 216, parallelism, cluster="dgx-b200-superpod", seq_len=8192, global_batch=16,
        precision="bf16", recompute="full", **training), encoding="utf-8")


def test_a_layout_string_under_megatron_core_2024_is_perf004(cli, tmp_path):
    _write(tmp_path, f"{{tp: 8, pp: 27, dp: 1, micro_batch: 1, pipeline_layout: '{TEXT}'}}",
           stack="megatron-core-2024")
    r = cli("check", SPECS, tmp_path, "--select", "PERF004")
    assert "w.yaml:12:" in r.out and "warning: PERF004" in r.out
    assert f"w states pipeline_layout {TEXT}, which stack megatron-core-2024 does not run (it allows even splits " \
           "or first_stage_layers and last_stage_layers at interleave 1: " in r.out
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    assert "stated beyond what stack megatron-core-2024 runs (PERF004), estimated as stated: pipeline_layout " \
           f"{TEXT}" in json.loads(r.out)["notes"]


@pytest.mark.parametrize("stack", ["nemo-2025", "primus-2025"])
def test_a_bare_uneven_pp_takes_the_searched_string(cli, tmp_path, stack):
    _write(tmp_path, "{tp: 8, pp: 27, dp: 1, micro_batch: 1, interleave: 1}", stack=stack)
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["layout"]["pipeline_layout"] == TEXT
    assert {"name": "pipeline_layout", "value": TEXT, "from": "places the stated pp, as the layout search would"} \
        in doc["defaults_taken"]
