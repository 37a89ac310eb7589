"""Plain `archgen estimate` names what it took by default rather than from the spec (`perf.workload.defaults_taken`).

Before (newuser47's open list): the text said only "layout searched", and the recompute the search picked, the stack
a job that names none gets and that stack's FP8 recipe were listed under `--explain` alone, though they decide the
answer (DeepSeek-V3 on 2,048 H800: `recompute=full`, `fp8_recipe tensorwise` from nemo-2025).
"""

from __future__ import annotations

import json

from archgen.model.workload import Training
from archgen.perf.train.stacks import explain
from archgen.perf.workload.defaults_taken import defaults_line, defaults_taken
from archgen.perf.workload.estimate_result import Taken
from tests.conftest import run_cli

WORKLOAD = "llama3-70b-pretrain-b200"  # specs/workloads/llama3-70b.yaml: seq_len, global_batch, bf16; no layout
LAYOUT = {"tp": 4, "pp": 1, "dp": 128, "cp": 1, "ep": 1, "micro_batch": 4, "interleave": 1, "recompute": "none",
          "zero": 3}
SEARCHED = {k: None for k in LAYOUT} | {"cp": 1, "ep": 1}


def test_text_and_json_name_every_default_the_estimate_took():
    text = run_cli("estimate", "--workload", WORKLOAD)
    json_out = run_cli("estimate", "--workload", WORKLOAD, "--format", "json")
    assert text.code == 0 and json_out.code == 0, (text.err, json_out.err)
    layout = json.loads(json_out.out)["layout"]
    (line,) = [x for x in text.out.splitlines() if x.startswith("defaults taken: ")]
    taken = json.loads(json_out.out)["defaults_taken"]
    # the layout the search picked, each field by name (the workload states none of it)
    searched = [t["name"] for t in taken if t["from"] == "searched"]
    assert searched == ["tp", "pp", "dp", "micro_batch", "interleave", "recompute", "zero"]
    assert {t["name"]: t["value"] for t in taken if t["from"] == "searched"} == {
        k: str(layout[k]) for k in searched}
    assert f"recompute {layout['recompute']}" in line and line.count("(searched)") == 1
    assert {"name": "stack", "value": "nemo-2025", "from": "none stated: the newest profile"} in taken
    # the profile's switches the job uses are there; the ones its layout or model make moot are not
    profile = {t["name"] for t in taken if t["from"] == "stack nemo-2025"}
    used = {u.name for u in explain(Training(seq_len=8192, global_batch=512, precision="bf16"),
                                    {**layout, "tp": int(layout["tp"])}, False) if u.used and u.name != "stack"}
    assert profile == used and "moe_dispatcher" not in profile and "fp8_recipe" not in profile
    assert line == "defaults taken: " + defaults_line(tuple(Taken(t["name"], t["value"], t["from"]) for t in taken))


def test_what_the_spec_states_is_not_a_default():
    """A stated stack, recipe and recompute leave the list; the stated stack's other values are named by it."""
    t = Training.model_validate({"seq_len": 4096, "global_batch": 15360, "precision": "fp8", "stack": "nemo-2025",
                                 "fp8_recipe": "blockwise", "recompute": "full",
                                 "parallelism": {"pp": 16, "dp": 128, "ep": 64, "zero": 1}})
    got = defaults_taken(t, LAYOUT | {"recompute": "full", "pp": 16, "dp": 128, "ep": 64, "tp": 1, "zero": 1},
                         SEARCHED | {"pp": 16, "dp": 128, "ep": 64, "zero": 1, "recompute": "full"}, True, True, "")
    names = {x.name: x for x in got}
    assert not {"stack", "fp8_recipe", "recompute", "pp", "dp", "ep", "zero"} & set(names)
    assert names["tp"] == Taken("tp", "1", "searched") and names["cp"] == Taken("cp", "1", "field default")
    assert names["moe_dispatcher"].source == "stack nemo-2025"
    # the estimate's own run: FP8 from a defaulted stack is named with its recipe
    left = Training.model_validate({"seq_len": 4096, "global_batch": 15360, "precision": "fp8"})
    line = defaults_line(defaults_taken(left, LAYOUT, SEARCHED, True, True, ""))
    assert "fp8_recipe tensorwise" in line and line.endswith("(stack nemo-2025)")


def test_a_job_no_layout_fits_still_names_its_defaults():
    """Where no searched layout fits there is no layout to name, but the stack and its switches still decided."""
    left = Training.model_validate({"seq_len": 4096, "global_batch": 15360, "precision": "fp8"})
    got = defaults_taken(left, {}, SEARCHED, True, True, "")
    assert got[0] == Taken("stack", "nemo-2025", "none stated: the newest profile")
    assert not {"tp", "recompute", "micro_batch"} & {x.name for x in got}
    assert Taken("fp8_recipe", "tensorwise", "stack nemo-2025") in got
