"""Layout validation, search and the workload estimate entry point."""

from __future__ import annotations

import dataclasses
import math
import re
import time

import pytest

from archgen.errors import WorkloadError
from archgen.model.workload import Model, Workload
from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import divisors, interleaves, layout_problems
from archgen.perf.train.layout_times import layout_of
from archgen.perf.train.layouts import search_training
from archgen.perf.train.pipeline_split import DEFAULT
from archgen.perf.train.training import estimate_training
from archgen.perf.workload.derived import judge_requirements
from archgen.perf.workload.estimate import estimate

#: The way out the uneven split's error names (`pipeline_split.uneven_hint`).
UNEVEN_42 = (
    "; place them unevenly with pipeline_layout (Megatron-core's layout string, a stage per '|', e.g. "
    "'Et*13|t*14|(t*13|)*5t*13L' for these 105 layers on pp 4 x v 2); no first_stage_layers / last_stage_layers pair places them on pp x interleave = 4 x 2")

GPT3 = Model(id="gpt3-175b", layers=96, hidden=12288, heads=96, ffn=49152, vocab=51200)
MT530 = Arch(layers=105, hidden=20480, heads=128, kv_heads=128, head_dim=160, ffn=81920, vocab=51200)


def workload(requirements=(), **training) -> Workload:
    t = {"seq_len": 2048, "global_batch": 1536, "precision": "bf16"} | training
    return Workload(id="w", model="gpt3-175b", accelerators=1024, training=t, requirements=list(requirements))


def test_layout_problems_are_explained():
    job = Job(MT530, 2048, 2048)
    assert layout_problems(MT530, job, 64, tp=3, pp=4, dp=4, interleave=2, scale_up_size=8) == [
        "tp x pp x dp x cp = 3 x 4 x 4 x 1 = 48 does not equal the 64 accelerators",
        "tp (3) does not divide the 128 attention heads",
        "tp (3) does not divide the FFN of 81920, which the dense layers' linears split that many ways (Transformer "
        "Engine's Linear asserts it: transformer_engine/pytorch/module/linear.py at d0067d0, line 1625); expected a "
        "size that divides 81920: 1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80, ...",
        "tp (3) and the 128 key/value heads do not divide one another",
        "105 layers (105 slots) cannot be split evenly into pp x interleave = 4 x 2 stages, even with the "
        "embedding and loss as pipeline slots (107)" + UNEVEN_42,
    ]
    assert layout_problems(MT530, job, 64, tp=0, pp=1, dp=64) == ["tp must be a positive integer, got 0"]
    assert layout_problems(MT530, job, 64, tp=16, pp=1, dp=4, scale_up_size=8) == [
        "tp (16) exceeds the scale-up domain of 8 accelerators"]


def test_search_finds_the_fastest_fitting_layout(h100):
    job = Job(MT530, 2048, 2048)
    res = search_training(h100, job, 2240)
    assert res.evaluated > 50 and 0 < res.fitting <= res.evaluated
    assert res.best["tp"] * res.best["pp"] * res.best["dp"] == 2240
    assert bool(res.estimate.fits)
    every = estimate_training(h100, job, layout_of(res.layouts, True, DEFAULT)).step_time  # every layout, timed
    assert float(res.estimate.step_time) == pytest.approx(float(every[res.fits].min()))


def test_a_model_that_does_not_fit_is_a_finding_not_a_crash(h100):
    # 5,128 = 8 x 641 leaves tp x pp <= 8: 66B parameters per GPU never fit in 80 GB unless the weights are
    # sharded over DP as well (ZeRO-3 / FSDP), which the search tries when `zero` is left open
    res = search_training(h100, Job(MT530, 2048, 5128), 5128, {"zero": 1})
    assert res.evaluated > 0 and res.fitting == 0 and res.best is None
    sharded = search_training(h100, Job(MT530, 2048, 5128), 5128)
    assert sharded.best is not None and sharded.best["zero"] == 3


def test_estimate_with_search_and_targets(h100):
    w = workload([{"id": "REQ-PERF-001", "statement": "MFU", "metric": "mfu", "target": ">= 0.3"},
                  {"id": "REQ-PERF-002", "statement": "step", "metric": "step_time", "target": "<= 1 s"}])
    est = estimate(w, GPT3, h100)
    assert est.fits and est.searched["evaluated"] > 100
    assert est.requirements is None  # the model does not judge (None: not judged); each consumer judges once
    assert [o.met for o in judge_requirements(w.requirements, est)] == [True, False]
    assert est.sensitivity["peak"] < -0.3
    # HBM capacity only decides whether the searched layout fits: 0 with more than the 5 % step of headroom,
    # inf when 5 % less memory would no longer hold it (perf/workload/sensitivity.py)
    tight = est.metrics["memory_headroom"] < 0.05 * (est.metrics["memory_headroom"] + est.memory["total"])
    assert est.sensitivity["hbm_capacity"] == (math.inf if tight else 0.0)
    assert math.isclose(sum(v.to("s").magnitude for v in est.breakdown.values()) - est.breakdown["compute"].m,
                        est.metrics["step_time"].m - est.breakdown["compute"].m, rel_tol=1e-6)


def test_explicit_layout_that_does_not_divide_is_a_usage_error(h100):
    w = workload(parallelism={"tp": 8, "pp": 5, "dp": 16, "micro_batch": 1}, recompute="full")
    with pytest.raises(WorkloadError, match=r"workload 'w': tp x pp x dp x cp = 8 x 5 x 16 x 1 = 640 does not equal "
                                         r"the 1024 accelerators"):
        estimate(w, GPT3, h100)


def test_model_that_does_not_fit_anywhere(h100):
    big = Model(id="gpt3-175b", layers=96, hidden=12288, heads=96, ffn=49152, vocab=51200)
    w = Workload(id="w", model="gpt3-175b", accelerators=8, training={"seq_len": 2048, "global_batch": 64})
    est = estimate(w, big, h100)
    assert not est.fits and est.notes[0].startswith("none of the ") and "layouts of 8 x h100-sxm5-80gb fits in HBM" in est.notes[0]


def test_inference_estimate(h100):
    llama = Model(id="llama2-70b", layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=32000,
                  gated_ffn=True)
    w = Workload(id="serve", model="llama2-70b", accelerators=8,
                 inference={"input_len": 2048, "output_len": 256, "precision": "fp8"})
    est = estimate(w, llama, h100, gpus_per_rack=32)
    assert est.fits and est.layout["tp"] in (1, 2, 4, 8)
    m = est.metrics
    # an idle replica's prefill outlasts a decode step; offline a request's tokens come a step apart at the least
    assert m["ttft"].m > m["decode_step_time"].m > 0 and m["tpot"].m >= m["decode_step_time"].m
    assert m["tokens_per_second_per_rack"].m == pytest.approx(32 * m["tokens_per_second_per_gpu"].m)


def test_bad_specs_are_rejected():
    with pytest.raises(ValueError, match="heads \\(96\\) must be a multiple of kv_heads \\(7\\)"):
        Model(id="m", layers=1, hidden=96, heads=96, kv_heads=7, ffn=4, vocab=4)
    with pytest.raises(ValueError, match="greater than 0"):
        Model(id="m", layers=0, hidden=96, heads=96, ffn=4, vocab=4)
    with pytest.raises(ValueError, match="give exactly one of 'training', 'inference' or 'collective'"):
        Workload(id="w", model="m")


def test_cli_estimate_cases_json(cli):
    import json

    from .conftest import CASES
    res = cli("estimate", "--cases", CASES, "--format", "json")
    assert res.code == 0
    rows = json.loads(res.out)
    assert len(rows) == 35
    assert set(rows[0]) == {"id", "metric", "measured", "predicted", "error", "unstated", "band", "in_band",
                            "fits"}  # moe3: unstated; nu45fix: band; fits36: fits (and unfit, admitted where they apply)
    assert rows[0]["fits"] is True
    assert rows[0]["measured"] == {"value": 137e12, "unit": "FLOP/s"}
    assert rows[0]["error"] == pytest.approx((rows[0]["predicted"]["value"] - 137e12) / 137e12)


def test_cli_estimate_usage(cli, tmp_path):
    assert cli("estimate").err == "error: give --cases FILE, or --workload ID (and --cluster ID to run it elsewhere)\n"
    res = cli("estimate", "--cases", tmp_path)
    assert res.code == 2 and res.err == f"error: {tmp_path}: is a directory, expected a file\n"
    from .conftest import CASES
    assert cli("estimate", "--cases", CASES, "--format", "xml").err == \
        "error: unknown format 'xml' (expected one of: text, json)\n"


def test_cli_estimate_workload_on_a_shipped_cluster(cli):
    import json
    from pathlib import Path

    from tests.conftest import SPECS
    clusters = sorted((SPECS / "clusters").glob("*.yaml")) if (SPECS / "clusters").is_dir() else []
    if not clusters:
        pytest.skip("no shipped cluster spec")
    data = Path(__file__).resolve().parent / "data" / "llama3-70b.yaml"
    cluster = clusters[0].stem
    res = cli("estimate", "--cluster", cluster, "--workload", "llama3-70b-serve", "--path", SPECS, "--path", data,
              "--format", "json")
    assert res.code in (0, 1), res.err
    out = json.loads(res.out)
    assert out["kind"] == "inference" and out["metrics"]["tpot"]["unit"] == "s"
    assert out["requirements"][0]["id"] == "REQ-PERF-002"
    res = cli("estimate", "--cluster", cluster, "--workload", "nope", "--path", SPECS, "--path", data)
    assert res.code == 2 and res.err.startswith("error: no workload 'nope' in the specs (workloads: ")
    assert "llama3-70b-serve" in res.err and cluster not in res.err.split("workloads: ")[1]
    res = cli("estimate", "--cluster", cluster, "--workload", "llama3-70b-serv", "--path", SPECS, "--path", data)
    assert res.code == 2 and "; did you mean 'llama3-70b-serve'? (workloads: " in res.err
    res = cli("estimate", "--cluster", cluster + "x", "--workload", "llama3-70b-serve", "--path", SPECS, "--path", data)
    assert res.code == 2 and f"no cluster '{cluster}x' in the specs; did you mean '{cluster}'?" in res.err


def test_partial_layout_is_checked_then_searched(h100):
    w = workload(parallelism={"tp": 16})
    with pytest.raises(WorkloadError, match="tp \\(16\\) exceeds the scale-up domain of 8 accelerators"):
        estimate(w, GPT3, h100)
    est = estimate(workload(parallelism={"tp": 4}), GPT3, h100, with_sensitivity=False)
    assert est.layout["tp"] == 4 and est.searched["evaluated"] > 0


def test_no_valid_layout_names_what_does_not_divide(h100):
    """1,000 accelerators cannot split a global batch of 1,536 (3 · 2⁹) into equal DP shares: 1000 = 2³ · 5³ leaves
    dp a multiple of 125 with tp ≤ 8 and pp ≤ 96 stages. A usage error with the nearest layout (largest tp first)
    and the nearest whole 8-GPU domains that work (992 = 8 · 124 = 8 · 4 · 31: pp 31, dp 4), not 'does not fit'."""
    w = workload().model_copy(update={"accelerators": 1000})
    with pytest.raises(WorkloadError, match=r"workload 'w': no parallel layout of 1000 accelerators is valid; the nearest "
                                         r"\(tp=8 pp=1 dp=125 cp=1\): global batch 1536 is not divisible by dp x "
                                         r"micro_batch = 125 x 1; 992 and 1008 accelerators would have one"):
        estimate(w, GPT3, h100)


def test_no_valid_layout_with_stated_offload(h100):
    """A stated offload (a word, not a count) did not reach the explanation as int('none'): a ValueError traceback."""
    w = workload(parallelism={"offload": "none"}).model_copy(update={"accelerators": 1000})
    with pytest.raises(WorkloadError, match=r"no parallel layout of 1000 accelerators is valid; the nearest "):
        estimate(w, GPT3, h100)


@pytest.mark.parametrize(("parallelism", "message"), [
    ({"ep": 8}, "ep (8) needs a mixture-of-experts model"),
    ({"cp": 3}, "cp (3) does not divide the sequence length 2048"),
])
def test_given_fields_are_checked_before_the_search(h100, parallelism, message):
    with pytest.raises(WorkloadError, match=re.escape(f"workload 'w': {message}")):
        estimate(workload(parallelism=parallelism), GPT3, h100)


def test_attention_dp_on_a_dense_model_is_refused(h100):
    """Attention DP on dense Llama 3 70B at tp 8 ran as 8 whole-weight replicas labelled tp 8 (issue 20)."""
    llama = Model(id="m", layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256, gated_ffn=True)
    w = Workload(id="w", model="m", accelerators=8,
                 inference={"tp": 8, "attention_dp": True, "input_len": 128, "output_len": 128})
    with pytest.raises(WorkloadError, match=re.escape("workload 'w': attention_dp needs a mixture-of-experts model")):
        estimate(w, llama, h100)


def test_serving_that_does_not_fit_reports_memory_only(h100):
    """Weights of 70 GB in FP8 on 8 x 0.8 GB (1 % of the HBM): no sequence fits, so there is no latency or
    throughput to report and only memory requirements are judged."""
    llama = Model(id="m", layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256, gated_ffn=True)
    reqs = [{"id": "REQ-1", "statement": "s", "metric": "tpot", "target": "<= 100 ms"},
            {"id": "REQ-2", "statement": "s", "metric": "memory_headroom", "target": ">= 0 GB"}]
    w = Workload(id="w", model="m", accelerators=8, inference={"tp": 8, "input_len": 128, "output_len": 128},
                 requirements=reqs)
    est = estimate(w, llama, h100.scaled("hbm_capacity", 0.01, "fp8"))
    assert not est.fits and est.layout["batch"] == 0
    assert set(est.metrics) == {"memory_per_gpu", "memory_headroom"} and not est.breakdown and not est.sensitivity
    assert [o.met for o in judge_requirements(w.requirements, est)] == [None, False]
    assert est.notes[-1].startswith("does not fit: no sequence fits; one needs") and "leaves nothing" in est.notes[-1]


def test_cli_estimate_runs_the_workload_on_its_own_cluster_unless_told(cli):
    """`--cluster` is optional; naming another cluster than the workload's is said in a note."""
    import json

    from tests.conftest import SPECS
    if not (SPECS / "workloads" / "llama3-70b.yaml").is_file():
        pytest.skip("no shipped llama3-70b workloads")
    own = json.loads(cli("estimate", "--workload", "llama3-70b-serve-b200", "--path", SPECS, "-f", "json").out)
    assert own["accelerator"] == "b200-sxm-180gb" and not any("instead of" in n for n in own["notes"])
    assert own["cluster"] == "dgx-b200-superpod"
    other = json.loads(cli("estimate", "--workload", "llama3-70b-serve-b200", "--cluster", "gb200-nvl72-su",
                           "--path", SPECS, "-f", "json").out)
    assert other["accelerator"] == "gb200" and other["cluster"] == "gb200-nvl72-su"
    assert other["notes"][0] == "on cluster 'gb200-nvl72-su' instead of the workload's 'dgx-b200-superpod'"


def test_serving_notes_idle_accelerators_and_the_server_scenario(h100):
    llama = Model(id="m", layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256, gated_ffn=True)
    w = Workload(id="w", model="m", accelerators=60,
                 inference={"tp": 8, "input_len": 128, "output_len": 128, "scenario": "server"})
    notes = estimate(w, llama, h100, with_sensitivity=False).notes
    assert "4 of the 60 accelerators stay idle (7 replicas of tp 8)" in notes
    assert any(n.startswith("server scenario without arrival_rate: no queueing is simulated") for n in notes)


def test_cli_estimate_locates_a_bad_layout_in_the_workload_spec(cli, tmp_path):
    from tests.conftest import SPECS
    spec = tmp_path / "w.yaml"
    spec.write_text("kind: Workload\nid: bad-tp\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 8\n"
                    "inference: {precision: fp8, tp: 3, input_len: 128, output_len: 128}\n", encoding="utf-8")
    res = cli("estimate", "--workload", "bad-tp", "--path", SPECS, "--path", spec)
    assert res.code == 2
    assert res.err == f"{spec}:6:1: error: workload 'bad-tp': tp (3) does not divide the 64 attention heads\n"


def test_serving_concurrency_is_the_batch_in_flight_and_per_gpu_counts_idle_accelerators(h100):
    llama = Model(id="m", layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256, gated_ffn=True)
    w = Workload(id="w", model="m", accelerators=60, inference={"tp": 8, "batch": 16, "input_len": 128,
                                                                "output_len": 128})
    est = estimate(w, llama, h100, with_sensitivity=False)
    assert est.metrics["concurrency"].m == 16
    assert est.metrics["tokens_per_second_per_gpu"].m == pytest.approx(est.metrics["tokens_per_second"].m / 60)


def test_serving_batch_that_fits_no_tp_names_the_batch(h100):
    llama = Model(id="m", layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256, gated_ffn=True)
    w = Workload(id="w", model="m", accelerators=8, inference={"batch": 100000, "input_len": 128, "output_len": 128})
    est = estimate(w, llama, h100, with_sensitivity=False)
    assert not est.fits and est.notes[0].startswith("batch 100,000 does not fit: at tp 8 the KV cache holds at most ")
    # the cache's own capacity (newuser95: it read the engine's max_batch_size, 2,048, as what the cache holds)
    held = float(est.notes[0].rsplit("at most ", 1)[1].split(" sequences")[0].replace(",", ""))
    assert held > 2048


def test_cli_says_where_the_accelerator_count_came_from(cli):
    from tests.conftest import SPECS
    if not (SPECS / "workloads" / "llama3-405b.yaml").is_file():
        pytest.skip("no shipped llama3-405b workload")
    res = cli("estimate", "--workload", "llama3-405b-pretrain-gb200", "--cluster", "dgx-b200-superpod", "--path", SPECS)
    assert res.code == 2 and "no parallel layout of 1016 accelerators is valid" in res.err
    assert res.err.endswith("(the workload gives no accelerator count, so it takes all 1,016 of cluster "
                            "'dgx-b200-superpod')\n")


def test_the_interleaves_tried_are_the_divisors_a_split_needs():
    """Issue 23 item 5: a 10,000-layer model on pp 2 tried every interleave up to 5,001 (one layer per virtual stage).
    An interleaved split needs v to divide each rank's share (Megatron-core `get_num_layers_to_build`): 10,000 / 2 =
    5,000 = 2³ · 5⁴ (20 divisors) or, with the embedding and loss slots, 10,002 / 2 = 5,001 = 3 · 1,667 (4)."""
    assert interleaves(10_000, 2) == sorted(set(divisors(5000)) | set(divisors(5001)))
    assert len(interleaves(10_000, 2)) == 23   # 1 is a divisor of both
    assert interleaves(126, 8) == [1, 2, 4, 8, 16]   # Llama 3.1 405B: 128 slots, 16 per rank (pp 8 x v 8 is in)
    assert interleaves(96, 1) == [1]


def test_a_ten_thousand_layer_model_is_searched_in_bounded_work(h100):
    big = Arch(layers=10_000, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, rope=True, qk_norm=False)
    start = time.process_time()
    res = search_training(h100, Job(big, 8192, 512), 512)
    assert time.process_time() - start < 20   # a hang guard, not a benchmark (about 0.05 s here)
    assert res.evaluated == 7500 and res.best is None   # none fits in 80 GB (7,380 before embedding- and loss-only
    # virtual stages were accepted: 120 layouts whose slots complete a stage)
    assert set(res.layouts["interleave"]) <= {float(v) for p in (2, 4, 8) for v in interleaves(10_000, p)} | {1.0}


def test_a_ten_million_accelerator_job_without_a_layout_is_explained_in_bounded_work(h100):
    """Issue 23 item 5: 10,000,512 accelerators scanned every 8-GPU count between half and double for the nearest
    with a layout (241 s). None exists: dp divides the batch of 1,536, tp ≤ 8 and pp ≤ 96 hold at most
    8 · 96 · 1,536 = 1,179,648 accelerators; the nearest layout and the reason are still given."""
    w = workload().model_copy(update={"accelerators": 10_000_512})
    start = time.process_time()
    with pytest.raises(WorkloadError, match=r"no parallel layout of 10000512 accelerators is valid; the nearest \(tp=8 "
                                         r"pp=1 dp=1250064 cp=1\): global batch 1536 is not divisible") as err:
        estimate(w, GPT3, h100)
    assert time.process_time() - start < 20   # a hang guard (about 0.01 s here)
    assert "would have one" not in str(err.value)


def test_bandwidths_a_billion_times_too_small_are_slow_not_a_crash(h100):
    """Issue 23 item 8: every bandwidth scaled by 1e-9 left NCCL's intra-domain search no speed to run at (zero
    channels) and divided by zero; NCCL's search falls back to one ring (search.cc), so the step is just slow."""
    names = [f.name for f in dataclasses.fields(h100) if f.name.endswith("bandwidth")]
    slow = dataclasses.replace(h100, **{n: getattr(h100, n) * 1e-9 for n in names})
    res = search_training(slow, Job(MT530, 2048, 2048), 2240)
    fast = search_training(h100, Job(MT530, 2048, 2048), 2240)
    assert res.best is not None and math.isfinite(float(res.estimate.step_time))
    assert float(res.estimate.step_time) > 1e6 * float(fast.estimate.step_time)
