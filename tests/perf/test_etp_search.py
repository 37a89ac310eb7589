"""An MoE model's expert tensor-parallel size is searched where the workload leaves it out (issue 25 part 3, etp39).

Megatron-core's MoE parallel folding (core_v0.10.0 on) lets etp be any size with etp x ep dividing a pipeline stage's
tp x cp x dp ranks (`layouts.expert_tp_sizes`). plan38 held a left-out etp at tp, Megatron-core's default, and said
so; the layout search, the plan search and the sweep's batched search now vary it under a stack that folds, and hold
it at tp (saying why) under one that cannot. Qwen3-30B-A3B (128 experts, expert FFN 768) on 32 H100 at tp 4: held at
etp 4 the layout search takes ep 4 at 1.625 s a step; searched, etp 1 and ep 2 at 1.135 s.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from archgen.commands import sweep as sw
from archgen.commands import sweep_problems
from archgen.model.workload import Model
from archgen.perf.explore import vectorised
from archgen.perf.explore.plan import search_plan
from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.layouts import enumerate_layouts, least_memory, search_training
from archgen.perf.train.pipeline_split import DEFAULT
from archgen.perf.train.stacks import resolve
from tests.conftest import SPECS, run_cli
from tests.data.workloads import qwen3_training


def _job(model: str, batch: int) -> Job:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / f"{model}.yaml").read_text(encoding="utf-8"))
    arch = Arch.from_model(Model.model_validate(doc))
    return Job.from_knobs(arch, 4096, batch, "bf16", resolve("nemo-2025", {}, "bf16"), "nemo-2025")


@pytest.fixture(scope="module")
def job() -> Job:
    return _job("qwen3-30b-a3b", 128)


def test_the_layout_search_takes_an_etp_other_than_tp(h100, job):
    held = search_training(h100, job, 32, {"tp": 4})
    searched = search_training(h100, job, 32, {"tp": 4}, search_etp=True)
    assert held.best is not None and "etp" not in held.best and held.best["ep"] == 4  # etp = tp = 4
    assert searched.best is not None and searched.best["etp"] == 1 and searched.best["tp"] == 4
    assert searched.best["ep"] == 2 and held.estimate is not None and searched.estimate is not None
    assert (f"{float(held.estimate.step_time):.4g}", f"{float(searched.estimate.step_time):.4g}") == ("1.648", "1.158")  # 1.625, 1.135 before rope40
    assert set(searched.layouts["etp"].tolist()) == {1.0, 2.0, 4.0, 8.0}  # each divides 768 and the 8-GPU domain
    assert (searched.layouts["etp"] * searched.layouts["ep"] <= searched.layouts["tp"] * searched.layouts["dp"]).all()


def test_mixtral_8x22b_with_tp_left_open_folds_its_experts(h100):
    """docs/perf-model.md's second figure: Mixtral 8x22B on 128 H100, nothing stated but the stack."""
    job = _job("mixtral-8x22b", 256)
    held, searched = (search_training(h100, job, 128, {}, search_etp=fold) for fold in (False, True))
    assert held.best is not None and searched.best is not None and held.estimate and searched.estimate
    assert (held.best["tp"], held.best["ep"], "etp" in held.best) == (2, 4, False)
    assert (searched.best["tp"], searched.best["ep"], searched.best["etp"]) == (2, 8, 1)
    assert (f"{float(held.estimate.step_time):.4g}", f"{float(searched.estimate.step_time):.4g}") == ("3.46", "3.334")  # 3.451, 3.325 before rope40


def test_the_pruned_plan_search_finds_the_exhaustive_best_with_etp_searched(h100, job):
    plan = search_plan(h100, job, 32, "nemo-2025", {}, {"tp": 4})
    every = search_plan(h100, job, 32, "nemo-2025", {}, {"tp": 4}, exhaustive=True)
    assert plan.best is not None and plan.best["etp"] == 1 and plan.searched["etp"] == (1, 2, 4, 8)
    assert every.best == plan.best and every.switches == plan.switches and plan.evaluated < every.evaluated
    assert plan.estimate is not None and every.estimate is not None
    assert float(every.estimate.step_time) == float(plan.estimate.step_time)
    assert "etp 1" in plan.turned_on


@pytest.mark.parametrize("stack", ["nemo-2025", "megatron-core-2024"])
def test_the_estimate_and_its_plan_search_etp_only_where_the_stack_folds(tmp_path, stack):
    (tmp_path / "w.yaml").write_text(qwen3_training("w", "{tp: 4}", stack=stack), encoding="utf-8")
    r = run_cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--search-plan", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    plan = out["plan"]
    if stack == "nemo-2025":
        assert out["layout"].get("etp", 4) != 4 and plan["layout"].get("etp", 4) != 4
        assert plan["searched"]["etp"] and "etp" not in plan["not_searched"]
    else:  # core_v0.9.0 has no MoE parallel folding: etp = tp, the only size it runs
        assert "etp" not in out["layout"] and "etp" not in plan["layout"] and "etp" not in plan["searched"]
        assert "lacks MoE parallel folding" in plan["not_searched"]["etp"]["why"]


def test_the_sweeps_batched_search_takes_the_estimates_etp(tmp_path):
    (tmp_path / "w.yaml").write_text(qwen3_training("w", "{}", stack="nemo-2025"), encoding="utf-8")
    (tmp_path / "s.yaml").write_text("kind: Sweep\nid: s\nworkload: w\naxes:\n  tp: [2, 4]\n"
                                     "objectives: [{metric: tokens_per_second}]\n", encoding="utf-8")
    (problem,) = sweep_problems.problems(*sw.load(tmp_path / "s.yaml", [SPECS, tmp_path]))
    rows = vectorised.evaluate(problem, 0, problem.size)
    assert [r.status for r in rows] == ["ok", "ok"]
    for row in rows:
        (tmp_path / "p.yaml").write_text(qwen3_training("p", f"{{tp: {row.values['tp']}}}", stack="nemo-2025"),
                                         encoding="utf-8")
        r = run_cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "p", "--format", "json")
        assert r.code == 0, r.err
        assert {k: v for k, v in row.layout.items() if k != "pipeline_layout"} == json.loads(r.out)["layout"]
    assert any("etp" in row.layout for row in rows), [row.layout for row in rows]


def test_the_layout_nearest_to_fitting_names_its_etp(h100, job):
    """Where no layout fits, the note's nearest one (`least_memory`) shows an etp other than tp, as a best layout."""
    lay = enumerate_layouts(job.arch, job, 32, h100, {"tp": 4}, search_etp=True)
    for etp, shown in ((1, True), (4, False)):
        one = np.flatnonzero(lay["etp"] == etp)[:1]
        text, _, _ = least_memory(h100, job, {k: v[one] for k, v in lay.items()}, True, DEFAULT)
        assert text.startswith("tp 4, ") and text.endswith(", etp 1") is shown, text
