"""The plan search (issue 25 part 3): every switch the stack allows, pruned, and the same best as evaluating all.

The jobs are Megatron-LM's GPT-3 175B (Narayanan et al., SC21, Table 1: 96 layers, hidden 12,288, 96 heads,
sequence 2,048, batch 1,536) on H100 nodes of 8 with 400 Gb/s per GPU and 512 GiB of host memory per GPU.
"""

from __future__ import annotations

import pytest

from archgen.model.switch_allows import ALLOWS
from archgen.perf.explore.plan import search_plan
from archgen.perf.explore.plan_result import PlanResult, plan_text
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.host_share import HostShare
from archgen.perf.train.job import Job
from archgen.perf.train.layouts import search_training
from archgen.perf.train.stacks import resolve
from archgen.units import Q_

GPT3 = Arch(layers=96, hidden=12288, heads=96, kv_heads=96, head_dim=128, ffn=49152, vocab=51200)


@pytest.fixture(scope="module")
def hw(accelerators):
    host = HostShare(Q_(512, "GiB"), Q_(64, "GB/s"), Q_(51.2, "GB/s"), 0.95)
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"),
                        host=host)


def _job(stack: str, gpus_batch: int = 1536, **stated) -> Job:
    return Job.from_knobs(GPT3, 2048, gpus_batch, "bf16", resolve(stack, stated, "bf16"))


@pytest.fixture(scope="module")
def plan_of(hw):
    """`plan_of(stack, batch, gpus, exhaustive=False)`: `search_plan` of GPT-3 on `hw` with nothing stated, each
    search run once per module: the first two tests search the same nemo-2025 plan, and the 256-GPU exhaustive
    megatron-core-2024 search is the pruned search's reference and the row-chunk test's one-call result. A search
    reads only its arguments (the same each time) and the model's modules, which no caller patches before its
    search; tests read a `PlanResult`, never change it."""
    plans: dict[tuple, PlanResult] = {}

    def of(stack: str, batch: int, gpus: int, exhaustive: bool = False) -> PlanResult:
        if (stack, batch, gpus, exhaustive) not in plans:
            plans[stack, batch, gpus, exhaustive] = search_plan(hw, _job(stack, batch), gpus, stack, {},
                                                                exhaustive=exhaustive)
        return plans[stack, batch, gpus, exhaustive]
    return of


def test_the_plan_respects_the_stack_and_lists_what_it_searched(hw, plan_of):
    old = search_plan(hw, _job("megatron-lm-2021", 512), 256, "megatron-lm-2021", {})
    text = plan_text(old, None)
    assert "  searched: overlap_p2p_comm False/True\n" in text and "  held at one value: cp 1; zero 0; offload none;" in text
    # Megatron-LM v2 (2021): no sequence parallelism, no flash attention, no TP overlap, no distributed optimizer,
    # no CP, no offload; only the p2p overlap is a choice (--overlap-p2p-communication)
    assert old.searched["sequence_parallel"] == (False,) and old.searched["attention"] == ("materialized",)
    assert old.searched["zero"] == (0,) and old.searched["cp"] == (1,) and old.searched["offload"] == ("none",)
    assert old.searched["overlap_p2p_comm"] == (False, True)
    assert old.best is not None and old.best["zero"] == 0 and old.switches["overlap_tp_comm"] is False
    assert "flash attention" not in old.turned_on and "sequence_parallel" not in old.turned_on
    new = plan_of("nemo-2025", 512, 256)
    assert {k: new.searched[k] for k in ("zero", "offload")} == {k: ALLOWS[k].nemo_2025[0] for k in ("zero", "offload")}
    assert new.estimate is not None and old.estimate is not None
    assert float(new.estimate.step_time) < float(old.estimate.step_time)  # the newer stack can do more


def test_the_plan_is_never_slower_than_the_layout_search_of_the_stack_profile(hw, plan_of):
    base = search_training(hw, _job("nemo-2025", 512), 256, None, True)
    plan = plan_of("nemo-2025", 512, 256)
    assert plan.estimate is not None and float(plan.estimate.step_time) <= float(base.estimate.step_time)
    assert plan.evaluated < plan.space / 20   # pruned: not every (layout, switches) pair is evaluated


def test_a_stated_switch_is_kept_not_searched(hw):
    job = _job("nemo-2025", 512, overlap_tp_comm=False)
    plan = search_plan(hw, job, 256, "nemo-2025", {"overlap_tp_comm": False})
    assert "overlap_tp_comm" not in plan.searched and plan.kept == {"overlap_tp_comm": False}
    assert plan.switches["overlap_tp_comm"] is False and "overlap_tp_comm" not in plan.turned_on


@pytest.mark.parametrize("stack, gpus, batch, model_only", [
    pytest.param("nemo-2025", 128, 256, False, marks=pytest.mark.slow), ("megatron-core-2024", 256, 512, False),
    ("megatron-core-2024", 36, 72, True)])
def test_the_pruned_search_finds_the_exhaustive_optimum(hw, plan_of, stack, gpus, batch, model_only):
    """Branch and bound and the dominance rules drop no plan that could win: the best equals evaluating every
    fitting (layout, switches) pair (with weight offload too: on 36 GPUs the best plan takes it)."""
    job = _job(stack, batch)
    pruned = search_plan(hw, job, gpus, stack, {}, model_only=model_only)
    every = (search_plan(hw, job, gpus, stack, {}, exhaustive=True, model_only=model_only) if model_only else
             plan_of(stack, batch, gpus, exhaustive=True))
    assert every.best is not None and pruned.best == every.best and pruned.switches == every.switches
    assert float(pruned.estimate.step_time) == float(every.estimate.step_time)
    assert pruned.evaluated <= every.evaluated if model_only else pruned.evaluated < every.evaluated  # 36 GPUs: all


def test_cli_search_plan_reports_beside_an_unchanged_estimate(cli):
    plain = cli("estimate", "--workload", "llama3-70b-pretrain-b200")
    plan = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--search-plan")
    assert plan.code == plain.code and "Traceback" not in plan.err
    head, _, section = plan.out.partition("\nPlan search (--search-plan")
    assert head.rstrip() == plain.out.rstrip()   # opt-in: the shipped estimate does not move
    lines = section.splitlines()
    searched = next(ln for ln in lines if ln.strip().startswith("searched:"))
    for knob in ("zero 0/1/2/3", "offload none/activations/optimizer/both", "sequence_parallel", "overlap_tp_comm",
                 "attention flash/materialized", "cp 1/2/4"):
        assert knob in searched, searched
    assert any(ln.strip().startswith("turned on: ") for ln in lines)
    # the layout fields too, with the values the valid layouts take (Llama 3.1 70B: 80 layers, 64 KV heads)
    layout = next(ln for ln in lines if ln.strip().startswith("layout searched:"))
    for knob in ("tp 1/2/4/8;", "micro_batch 1/2/4/8/16;", "interleave 1/2/4/5/8/10/20/40/41;",
                 "recompute none/selective/full"):
        assert knob in layout, layout
    assert "model-only (no stack runs it): weight offload, not searched (--model-only to search it)" in section
    wide = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--search-plan", "--model-only")
    assert wide.code == plan.code and "model-only (no stack runs it): weight offload, searched" in wide.out


#: Mixtral 8x7B's shape (Jiang et al., arXiv 2401.04088: 32 layers, hidden 4,096, 32 heads, 8 KV heads, 8 experts of
#: FFN 14,336, top-2).
MIXTRAL = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=32000, gated=True,
               experts=8, top_k=2, expert_ffn=14336, rope=True, qk_norm=False)
#: The GPUs the mixture-of-experts plans are searched on: two nodes, enough for every ep (1/2/4/8) and still 47,220
#: layouts and 566,640 (layout, switches) pairs with nothing stated, of which the pruned search evaluates 3,072 and
#: the exhaustive one 321,300. On 64 GPUs (134,022 layouts, 1,608,264 pairs) the three exhaustive searches took 9-11
#: of test_plan's 12-15 CPU-s, against about 2 here, and every assertion below held there as it holds here (the same
#: best ep, recomputation and EP overlap in each case).
MOE_GPUS = 16


@pytest.mark.slow
def test_a_mixture_of_experts_plan_searches_ep_and_its_overlap(hw):
    """Mixtral 8x7B on 16 H100 (`MOE_GPUS`): ep and the EP overlap are searched under nemo-2025, the best equals the
    exhaustive one, and no plan overlaps EP with full recomputation."""
    job = Job.from_knobs(MIXTRAL, 4096, 256, "bf16", resolve("nemo-2025", {}, "bf16"))
    pruned = search_plan(hw, job, MOE_GPUS, "nemo-2025", {})
    every = search_plan(hw, job, MOE_GPUS, "nemo-2025", {}, exhaustive=True)
    assert pruned.searched["ep"] == (1, 2, 4, 8) and pruned.searched["overlap_ep_comm"] == (False, True)
    assert pruned.best == every.best and pruned.switches == every.switches
    assert not (pruned.switches["overlap_ep_comm"] and pruned.best["recompute"] == "full")


@pytest.mark.parametrize("recompute", ["selective", "full"])
def test_the_plan_overlaps_ep_with_selective_recompute_as_megatron_allows(hw, recompute):
    """Megatron-core refuses `overlap_moe_expert_parallel_comm` with full recomputation (and with "moe" among the
    recomputed modules), not with selective recomputation of the attention core (transformer_config.py at d98e8a6,
    `__post_init__`; `layout_rules.ep_overlap_problems`). Mixtral 8x7B on 16 H100 (`MOE_GPUS`) with the recomputation
    stated: under selective the best plan keeps the EP overlap on (ep 8), equal to the exhaustive search; under full
    no plan with ep > 1 overlaps."""
    job = Job.from_knobs(MIXTRAL, 4096, 256, "bf16", resolve("nemo-2025", {}, "bf16"))
    pruned = search_plan(hw, job, MOE_GPUS, "nemo-2025", {}, {"recompute": recompute})
    every = search_plan(hw, job, MOE_GPUS, "nemo-2025", {}, {"recompute": recompute}, exhaustive=True)
    assert pruned.best == every.best and pruned.switches == every.switches
    assert pruned.best["recompute"] == recompute
    if recompute == "selective":
        assert pruned.best["ep"] > 1 and pruned.switches["overlap_ep_comm"] is True
    else:
        assert not (pruned.best["ep"] > 1 and pruned.switches["overlap_ep_comm"])


def test_cli_search_plan_refuses_what_it_cannot_search(cli):
    r = cli("estimate", "--workload", "llama3-70b-serve-b200", "--search-plan")
    assert r.code == 2 and "workload 'llama3-70b-serve-b200' is not a training job" in r.err
    r = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--model-only")
    assert r.code == 2 and "--model-only widens the plan search: give it with --search-plan" in r.err


@pytest.mark.parametrize("stack, zeros", [("megatron-lm-2021", {0}), ("megatron-core-2024", {0, 1})])
def test_the_estimates_layout_search_keeps_to_the_stack_so_the_plan_is_never_slower(cli, tmp_path, stack, zeros):
    """The estimate's own layout search takes only the ZeRO stages the stated stack runs (`switch_allows.ALLOWS`), as the
    plan search does: on the 2021 stack it took ZeRO-3 and the plan search's best read 18.8 % slower than it."""
    import json

    from tests.conftest import REPO

    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: old\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 512\n"
        f"training: {{seq_len: 8192, global_batch: 512, precision: bf16, stack: {stack}}}\n", encoding="utf-8")
    doc = json.loads(cli("estimate", "--workload", "old", "--path", str(REPO / "specs"), "--path", str(tmp_path),
                         "--search-plan", "--format", "json").out)
    assert doc["layout"]["zero"] in zeros and "offload" not in doc["layout"]
    assert doc["plan"]["layout_searched"]["tp"] == [1, 2, 4, 8] and "interleave" in doc["plan"]["layout_searched"]
    assert doc["plan"]["step_time_s"] <= doc["metrics"]["step_time"]["value"]


@pytest.mark.parametrize("flags", [("--search-plan",), ("--search-plan", "--model-only")])
def test_search_plan_with_cases_is_a_usage_error(cli, flags):
    """Scoring cases searches no plan: the flag is refused, not ignored (it was, silently)."""
    from .conftest import CASES
    res = cli("estimate", "--cases", CASES, *flags)
    assert res.code == 2
    assert res.err == "error: --search-plan searches a training workload's plan: give it with --workload, not --cases\n"


def test_a_plan_evaluated_in_row_chunks_is_the_one_call_bit_for_bit(hw, plan_of, monkeypatch):
    """`plan_bound.Search` evaluates each plan `ROWS` layouts per `estimate_training` call: with chunks of 500
    rows (the 256-GPU exhaustive search's 509 and 1,749 rows in 2 and 4 chunks, the last one short), every step
    time and fit is the bits the one call over all the rows gives, and so is the search's outcome."""
    import numpy as np

    from archgen.perf.explore import plan_bound
    from archgen.perf.train.layout_times import layout_of
    from archgen.perf.train.training import estimate_training

    chunked, seen = plan_bound.Search._times, []

    def checked(self, job, sub, todo):  # type: ignore[no-untyped-def]
        got, n = chunked(self, job, sub, todo), len(sub["tp"])
        whole = estimate_training(self.bounds.hw, job, layout_of(
            {k: np.tile(v, len(todo)) for k, v in sub.items()}, np.repeat(todo, n), self.bounds.pipeline))
        step, fits = (np.broadcast_to(f, (n * len(todo),)) for f in (whole.step_time, whole.fits))
        for j, sp in enumerate(todo):
            assert got[sp][0].tobytes() == np.ascontiguousarray(step[j * n:(j + 1) * n]).tobytes()
            assert np.array_equal(got[sp][1], fits[j * n:(j + 1) * n])
        seen.append(n)
        return got

    job = _job("megatron-core-2024", 512)
    one = plan_of("megatron-core-2024", 512, 256, exhaustive=True)   # before the patches
    monkeypatch.setattr(plan_bound, "ROWS", 500)
    monkeypatch.setattr(plan_bound.Search, "_times", checked)
    many = search_plan(hw, job, 256, "megatron-core-2024", {}, exhaustive=True)
    assert max(seen) > 500 and any(n % 500 for n in seen)   # several chunks, a short last one
    assert (many.best, many.switches, many.evaluated, many.fitting) == (one.best, one.switches, one.evaluated,
                                                                      one.fitting)
    assert float(many.estimate.step_time) == float(one.estimate.step_time)
