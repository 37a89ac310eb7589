"""The plan search holds every training key a workload states, and lists it as stated (issue 25 part 3, plan38).

A key stated must be honoured or refused, never silently ignored. Before, `--search-plan` dropped a stated `etp`:
the layouts were enumerated at it (the ep that MoE parallel folding allows with it) but timed at etp = tp, and the
best plan did not show it. Qwen3-30B-A3B (the catalog's MoE model) on 64 GB200 under nemo-2025 with nothing stated
plans tp 1, pp 1, dp 64, ep 8, micro-batch 2, no recompute, ZeRO 3, sequence parallelism off, the p2p and EP
overlaps and flash attention on (on the job's hardware, its 64 of each 72-GPU domain, planhw38); each case states
something else, and the plan must take it (the baseline's own value differs, so a search that ignores the key fails
here) and list it among the keys kept as stated, neither searched nor named as the stack profile's value.
"""

from __future__ import annotations

import json

import pytest
import yaml

from archgen.model.workload import Model
from archgen.perf.explore.plan import search_plan
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.memory import OFFLOAD_CODES
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.pipeline_split import DEFAULT
from archgen.perf.train.stacks import resolve
from archgen.perf.train.training import RECOMPUTE_CODES, estimate_training
from tests.conftest import SPECS, run_cli
from tests.data.workloads import qwen3_training

#: (key, the training's keys, its parallelism, where the plan's JSON shows the value, the stated value)
CASES = [
    ("etp", {}, "{tp: 4, etp: 1}", "layout", 1),
    ("ep", {}, "{ep: 4}", "layout", 4),
    ("cp", {}, "{cp: 2}", "layout", 2),
    ("interleave", {}, "{pp: 4, interleave: 2}", "layout", 2),
    ("micro_batch", {}, "{micro_batch: 4}", "layout", 4),
    ("zero", {}, "{zero: 1}", "layout", 1),
    ("offload", {}, "{offload: activations}", "layout", "activations"),
    ("recompute", {"recompute": "full"}, "{}", "layout", "full"),
    ("sequence_parallel", {}, "{sequence_parallel: true}", "switches", True),
    ("attention", {"attention": "materialized"}, "{}", "switches", "materialized"),
    ("overlap_p2p_comm", {"overlap_p2p_comm": False}, "{pp: 4}", "switches", False),
    ("distributed_optimizer", {"distributed_optimizer": False}, "{}", "kept", False),
    ("moe_dispatcher", {"moe_dispatcher": "alltoall"}, "{}", "kept", "alltoall"),
]


def _plan(tmp_path, parallelism: str = "{}", **training: object) -> dict:
    (tmp_path / "w.yaml").write_text(qwen3_training("w", parallelism, stack="nemo-2025", **training), encoding="utf-8")
    r = run_cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan", "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)["plan"]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> dict:
    """The plan with nothing stated."""
    return _plan(tmp_path_factory.mktemp("baseline"))


def _shown(plan: dict, where: str, key: str) -> object:
    if where == "kept":
        return plan["kept"].get(key)
    return plan[where].get(key)  # etp is shown where it is not tp


@pytest.mark.parametrize(("key", "training", "parallelism", "where", "value"), CASES, ids=[c[0] for c in CASES])
def test_a_stated_key_is_held_and_listed_as_stated(tmp_path, baseline, key, training, parallelism, where, value):
    assert _shown(baseline, where, key) != value  # the search left to itself picks another: this case can fail
    plan = _plan(tmp_path, parallelism, **training)
    assert plan["layout"] is not None
    assert plan["kept"][key] == value and _shown(plan, where, key) == value, (plan["kept"], plan["layout"])
    assert key not in plan["searched"] and key not in plan["layout_searched"] and key not in plan["not_searched"]
    if key == "distributed_optimizer":  # held by the ZeRO stages searched: 0 only
        assert plan["searched"]["zero"] == [0] and plan["layout"]["zero"] == 0


def test_the_text_lists_what_is_stated_and_the_best_plan_shows_the_stated_etp(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(qwen3_training("w", "{tp: 4, etp: 1}", stack="nemo-2025", overlap_tp_comm=False),
                                     encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan")
    assert r.code == 0, r.err
    section = r.out.partition("\nPlan search (--search-plan")[2]
    assert "\n  kept as stated: tp=4, etp=1, overlap_tp_comm=false\n" in section and " etp=1: step " in section
    assert "held at its default" not in section  # stated, not held


@pytest.fixture(scope="module")
def qwen3() -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "qwen3-30b-a3b.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def test_the_best_plan_is_timed_at_the_stated_etp(h100, qwen3):
    """The plan's own estimate is that of its layout at the stated etp 1, not at etp = tp (4), which differs; the
    pruned search's best is the exhaustive one's (its bounds are taken at the stated etp)."""
    job = Job.from_knobs(qwen3, 4096, 128, "bf16", resolve("nemo-2025", {}, "bf16"))
    plan = search_plan(h100, job, 32, "nemo-2025", {}, {"tp": 4, "etp": 1})
    assert plan.best is not None and plan.best["etp"] == 1 and plan.best["tp"] == 4 and plan.estimate is not None
    assert plan.kept == {"tp": 4, "etp": 1}
    b = {k: v for k, v in plan.best.items() if isinstance(v, int)}
    at = {etp: float(estimate_training(h100, plan.job, Layout(
        b["tp"], b["pp"], b["dp"], b["micro_batch"], b["cp"], b["ep"], b["interleave"],
        RECOMPUTE_CODES[str(plan.best["recompute"])], bool(plan.switches["sequence_parallel"]), b["zero"], DEFAULT,
        OFFLOAD_CODES[str(plan.best.get("offload", "none"))], etp)).step_time) for etp in (1, None)}
    assert float(plan.estimate.step_time) == at[1] != at[None]
    every = search_plan(h100, job, 32, "nemo-2025", {}, {"tp": 4, "etp": 1}, exhaustive=True)  # pruned at etp 1 too
    assert every.best == plan.best and every.estimate is not None
    assert float(every.estimate.step_time) == float(plan.estimate.step_time)


@pytest.mark.parametrize(("stack", "words"), [
    ("nemo-2025", None),
    ("megatron-core-2024", "the only expert tensor-parallel size the stack runs: Megatron-LM core_v0.9.0 (2024-10-24) "
                           "lacks MoE parallel folding (core_v0.10.0, 7f22e21)")])
def test_an_open_etp_is_searched_or_named_as_held_at_tp_in_the_stacks_words(tmp_path, stack, words):
    """Left out, an MoE model's etp is searched where the stack folds the experts (etp39; plan38 held it at tp and said
    so); a stack whose code cannot fold them (`stack_features.FEATURES`) holds it at tp, and is not told to state
    another."""
    (tmp_path / "w.yaml").write_text(qwen3_training("w", stack=stack), encoding="utf-8")
    r = run_cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan")
    assert r.code == 0, r.err
    if words is None:
        assert "held at its default: etp" not in r.out and "; etp 1/" in r.out.partition("\n  searched: ")[2]
    else:
        assert f"\n  held at its default: etp = tp, {words}\n" in r.out
