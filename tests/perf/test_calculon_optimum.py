"""Issue 25's bar: archgen's best plan, evaluated in Calculon's model, within 2 % of Calculon's optimum.

The two cases (1T on 4,096 A100, 175B on 1,024 H100) and every figure of Calculon's are in
tests/perf/data/calculon-optima.yaml, with Calculon's commit and how each figure was obtained (Calculon is not a
dependency: the figures were computed by running it, `python -m tests.perf.calculon_plans` and
`bench/calculon_optimum.py`, and are recorded, not recomputed here). The tests hold that archgen's search still
picks the recorded plan (or one as good in archgen's model, so the recorded Calculon figure still stands for its
pick), that the recorded plan is the one `calculon_plans.execution` writes, that no recorded rate beats Calculon's
recorded optimum (the optimum is searched over a space that contains those executions), and the 2 % bar itself,
strict-xfail where the recorded gap misses it.

The bar proper is like for like: archgen's search over the plans Calculon can state (`calculon_plans.search_like`)
against Calculon's optimum over the plans archgen can state (bench/calculon_optimum.py --like-archgen); the tests
below the unrestricted ones hold the recorded pick, that the recorded optimum is a plan archgen can state, the
term-by-term table (`calculon_terms`) against archgen's model now, and the bar.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.perf.explore.plan import _scalar_layout
from archgen.perf.explore.plan_bound import with_switches
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import layout_problems
from archgen.perf.train.pipeline_split import DEFAULT
from archgen.perf.train.training import estimate_training
from tests.perf.calculon_plans import (
    CASES,
    DOMAIN,
    LIKE_JOB,
    LIKE_PIPELINE,
    LIKE_STATED,
    LIKE_ZEROS,
    STACK,
    execution,
    hardware,
    networks,
    search,
    search_like,
)
from tests.perf.calculon_terms import TERMS, archgen_terms

DATA = yaml.safe_load((Path(__file__).parent / "data" / "calculon-optima.yaml").read_text(encoding="utf-8"))
BAR = 0.02
#: Cases whose recorded gap misses the bar, with the measured gap (tests/perf/data/calculon-optima.yaml).
MISSES: dict[str, str] = {
    "1t-4096-a100": "Calculon refuses archgen's pick (tp 4, pp 1, dp 1,024, micro-batch 3, ZeRO-3, activations "
                    "offloaded; since the nemo-2025 profile reduces gradients in BF16, session gradreduce): tier 1 "
                    "491.4 GiB > 80 GiB (ZeRO-3's weight sharding has no Calculon knob); with both tiers lifted 46.83 "
                    "samples/s, -44.4 % against Calculon's 84.22 (tp 8, pp 2, v 32, weights and activations "
                    "offloaded, TP ring overlap)",
    "175b-1024-h100": "Calculon refuses archgen's pick (tp 2, pp 1, micro-batch 3, ZeRO-3, activations "
                      "offloaded, no TP overlap; since grad_accum_fusion): tier 1 180 GiB > 80 GiB (ZeRO-3's weight "
                      "sharding has no Calculon knob); with both tiers lifted 148.50 samples/s, -53.9 % against "
                      "Calculon's 322.45 (tp 4 and pp 2 inside the NVLink domain, v 48, micro-batch 6, activations "
                      "offloaded, TP ring overlap)",
}


@pytest.fixture(scope="module")
def plans(accelerators):
    """archgen's plan search (`estimate --search-plan`'s default stack) for each case."""
    return {key: search(case, accelerators)[0] for key, case in CASES.items()}


def test_the_data_states_calculons_commit_and_every_case():
    assert DATA["calculon"]["commit"] == "caa4b11f8fe1fee3ba57adaacb7590d7deabd053"
    assert set(DATA["cases"]) == set(CASES)


@pytest.mark.parametrize("key", sorted(CASES))
def test_archgen_still_picks_the_recorded_plan(key, plans, accelerators):
    """The recorded plan, or one exactly as fast in archgen's model (a tie: the recorded figure still applies)."""
    plan, rec = plans[key], DATA["cases"][key]["archgen_plan"]
    assert plan.best is not None and plan.estimate is not None and plan.job is not None
    if plan.best == rec["layout"] and plan.switches == rec["switches"]:
        assert execution(plan, CASES[key]) == rec["calculon"]["execution"]
        assert float(plan.estimate.step_time) == pytest.approx(float(rec["step_time_s"]), abs=1e-6)  # recorded to 1 µs
        return
    lay, sw = rec["layout"], rec["switches"]
    job = with_switches(plan.job, {k: v for k, v in sw.items() if k != "sequence_parallel"})
    then = estimate_training(hardware(CASES[key], accelerators), job,
                             _scalar_layout(lay, sw["sequence_parallel"], DEFAULT))
    assert float(plan.estimate.step_time) == pytest.approx(float(then.step_time), rel=1e-9), (
        f"{key}: archgen now picks {plan.best} {plan.switches} ({float(plan.estimate.step_time):.4f} s), not the "
        f"recorded {lay} ({float(then.step_time):.4f} s now): evaluate the new plan in Calculon "
        "(python -m tests.perf.calculon_plans CALCULON) and record it in tests/perf/data/calculon-optima.yaml")


@pytest.mark.parametrize("key", sorted(CASES))
def test_the_model_only_search_picks_the_recorded_plan(key, plans, accelerators):
    """With weight offload searched too (Calculon's mechanism; no stack runs it), the recorded pick."""
    rec = DATA["cases"][key]["archgen_plan_model_only"]
    assert rec["model_only"] is True and rec["same_as"] == "archgen_plan"
    wide = search(CASES[key], accelerators, model_only=True)[0]
    assert wide.best == plans[key].best and wide.switches == plans[key].switches and wide.model_only == (), (
        f"{key}: with weight offload archgen now picks {wide.best} {wide.switches}: evaluate it in Calculon "
        "(python -m tests.perf.calculon_plans CALCULON) and record it as archgen_plan_model_only")


@pytest.mark.parametrize("key", sorted(CASES))
def test_no_recorded_rate_beats_calculons_optimum(key):
    case = DATA["cases"][key]
    optimum = case["calculon_optimum"]["sample_rate"]
    for name in ("archgen_plan", "archgen_plan_calculon_knobs"):
        got = case[name]["calculon"]
        if not got.get("refused"):
            assert got["sample_rate"] <= optimum * (1 + 1e-9), f"{key}: {name} beats the recorded optimum"
    assert case["calculon_optimum_without_offload"]["sample_rate"] <= optimum
    assert case["calculon_optimum"]["pp_tier0_check"]["best_rate"] <= optimum * (1 + 1e-9)


@pytest.mark.parametrize("key", [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=MISSES[k]))
                                 if k in MISSES else k for k in sorted(CASES)])
def test_archgens_best_is_within_2_percent_of_calculons_optimum(key):
    case = DATA["cases"][key]
    got, optimum = case["archgen_plan"]["calculon"], case["calculon_optimum"]["sample_rate"]
    assert not got.get("refused"), f"{key}: Calculon refuses archgen's plan: {got['refused']}"
    assert got["sample_rate"] >= optimum * (1 - BAR), (
        f"{key}: {got['sample_rate']:.2f} samples/s against Calculon's {optimum:.2f} "
        f"({got['sample_rate'] / optimum - 1:+.1%})")


# Like for like (issue 25, part 1 of the brief): archgen's search over the plans Calculon can state
# (`calculon_plans.search_like`) against Calculon's optimum over the plans archgen can state
# (bench/calculon_optimum.py --like-archgen), with the same switches stated both sides.
#: Cases whose like-for-like gap misses the bar, with the measured gap and where it comes from (terms, docs).
LIKE_MISSES: dict[str, str] = {
    "1t-4096-a100": "like for like, archgen picks tp 4, pp 8, v 16, micro-batch 3, selective recompute, ZeRO-2, "
                    "activations offloaded: 74.97 samples/s in Calculon, -11.0 % against Calculon's "
                    "84.22 (tp 8, pp 2, v 32, weights and activations offloaded, TP ring overlap); in archgen's model "
                    "that optimum takes 50.43 s against the pick's 44.55 s: TP overlap cost 4.50 s, exposed weight "
                    "write-back 4.14 s and DP 1.94 s that Calculon does not charge (terms; docs/perf-model.md)",
    "175b-1024-h100": "like for like, since the nemo-2025 profile reduces gradients in BF16 (session gradreduce; "
                      "Calculon's DP moves 16-bit weights too, calculon/llm/llm.py:1696), archgen picks tp 2, pp 2, "
                      "v 24, micro-batch 3, ZeRO-2, weights, activations and optimizer offloaded, no TP overlap: "
                      "224.32 samples/s in Calculon, -28.6 % against Calculon's 313.98 (tp 8, micro-batch 12, "
                      "activations offloaded, TP ring overlap), the plan archgen picked with fp32 gradients; in "
                      "archgen's model that optimum takes 5.93 s against the pick's 5.90 s; most of Calculon's gap is "
                      "its DP term, 1.45 s against archgen's 0.18 s (each rank on its own NIC's 50 GB/s, where "
                      "archgen's DP group, 2 ranks to a node, uses both NICs; docs/perf-model.md)",
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_the_like_for_like_pick_is_the_recorded_one(key, accelerators):
    rec = DATA["cases"][key]["archgen_plan_like"]
    assert rec["stack"] == STACK and rec["stated"] == LIKE_STATED and tuple(rec["zeros"]) == LIKE_ZEROS
    assert rec["job"] == LIKE_JOB
    assert rec["model_only"] is True and rec["pipeline"] == "no embedding or loss slot"
    plan = search_like(CASES[key], accelerators)[0]
    assert plan.best is not None and plan.estimate is not None
    assert plan.best == rec["layout"] and plan.switches == rec["switches"], (
        f"{key}: archgen's like-for-like search now picks {plan.best} {plan.switches} "
        f"({float(plan.estimate.step_time):.4f} s): evaluate it in Calculon (python -m tests.perf.calculon_terms "
        "CALCULON) and record it as archgen_plan_like in tests/perf/data/calculon-optima.yaml")
    assert execution(plan, CASES[key]) == rec["calculon"]["execution"]
    assert float(plan.estimate.step_time) == pytest.approx(float(rec["step_time_s"]), abs=1e-6)


@pytest.mark.parametrize("key", sorted(CASES))
def test_calculons_like_for_like_optimum_is_a_plan_archgen_can_state(key):
    """The restriction of bench/calculon_optimum.py `like_archgen`, checked on the recorded optimum."""
    rec = DATA["cases"][key]["calculon_optimum_like"]
    assert rec["searched"]["like_archgen"] is True
    exe = rec["execution"]
    tp, pp, dp = exe["tensor_par"], exe["pipeline_par"], exe["data_par"]
    m = exe["batch_size"] // (dp * exe["microbatch_size"])
    assert tp <= DOMAIN and {k: exe[k] for k in networks(tp, pp, dp)} == networks(tp, pp, dp)
    assert exe["tensor_par_overlap"] in ("none", "ring") and exe["tensor_par_comm_type"] in ("ar", "rs_ag")
    assert not exe["seq_par_ag_redo"] and exe["data_par_overlap"] == (dp > 1)
    assert exe["pipeline_interleaving"] == 1 or m % pp == 0
    assert CASES[key].arch.layers % (pp * exe["pipeline_interleaving"]) == 0
    case = CASES[key]
    job = Job(case.arch, seq_len=2048, global_batch=case.batch)
    assert layout_problems(case.arch, job, case.gpus, tp=tp, pp=pp, dp=dp, micro_batch=exe["microbatch_size"],
                           interleave=exe["pipeline_interleaving"], scale_up_size=DOMAIN, pipeline=LIKE_PIPELINE) == []
    assert rec["sample_rate"] <= DATA["cases"][key]["calculon_optimum"]["sample_rate"] * (1 + 1e-9)


@pytest.mark.parametrize("key", sorted(CASES))
def test_the_recorded_terms_are_archgens_now_and_add_up(key, accelerators):
    """The term table (docs/perf-model.md) holds: archgen's columns are what archgen gives now, every column's
    terms add up to its total, and Calculon's totals are its recorded step times."""
    case, terms = DATA["cases"][key], DATA["cases"][key]["terms"]
    optimum = dict(case["calculon_optimum_like"]["execution"])
    pick = case["archgen_plan_like"]["calculon"]["execution"]
    for column, exe in (("optimum_in_archgen", optimum), ("pick_in_archgen", pick)):
        now = archgen_terms(CASES[key], exe, accelerators)
        assert {t: round(v, 3) for t, v in now.items()} == terms[column], column
    for column in ("optimum_in_calculon", "optimum_in_archgen", "pick_in_calculon", "pick_in_archgen"):
        col = terms[column]
        assert sum(col[t] for t in TERMS[:7]) == pytest.approx(col["total"], abs=0.01), column
    assert terms["optimum_in_calculon"]["total"] == pytest.approx(case["calculon_optimum_like"]["total_time_s"],
                                                                  abs=1e-3)
    assert terms["pick_in_calculon"]["total"] == pytest.approx(case["archgen_plan_like"]["calculon"]["total_time_s"],
                                                               abs=1e-3)


@pytest.mark.parametrize("key", [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=LIKE_MISSES[k]))
                                 if k in LIKE_MISSES else k for k in sorted(CASES)])
def test_like_for_like_archgens_best_is_within_2_percent_of_calculons_optimum(key):
    case = DATA["cases"][key]
    got, optimum = case["archgen_plan_like"]["calculon"], case["calculon_optimum_like"]["sample_rate"]
    assert got["sample_rate"] <= optimum * (1 + 1e-9), f"{key}: archgen's pick beats Calculon's recorded optimum"
    assert not got.get("refused"), f"{key}: Calculon refuses archgen's plan: {got['refused']}"
    assert got["sample_rate"] >= optimum * (1 - BAR), (
        f"{key}: {got['sample_rate']:.2f} samples/s against Calculon's {optimum:.2f} "
        f"({got['sample_rate'] / optimum - 1:+.1%})")
