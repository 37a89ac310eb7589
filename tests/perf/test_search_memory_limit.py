"""A workload's own memory requirement bounds its layout search (newuser88).

Llama 3.1 70B BF16 on 512 B200 (the shipped `llama3-70b-pretrain-b200`, nemo-2025) searches to tp 1, pp 2, v 41,
ZeRO-3 with 0.035 GB of the B200's 193.3 GB left, and Llama 3.1 405B BF16 on 1,024 H100 to tp 8, pp 16 with
0.009 GB left, where the model reserves nothing for the caching allocator's fragmentation or kernel workspaces
(`perf.hw.reserve`). A performance engineer states a margin as a requirement, `memory_headroom >= 10 GB`; before,
the search ignored it, returned the same layout and judged the requirement "not met" though layouts meeting it
existed. Now the search keeps to the tightest memory the workload's own `memory_headroom` (>=) and
`memory_per_gpu` (<=) targets allow, where some layout can, and says so; where none can, it searches the whole
memory as before and says that too. The same target written in a Requirements document on the workload bounds it
alike (memreq42): `build` binds it to the workload, and the search keeps within every memory target bound there.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SPECS

BASE = """\
kind: Workload
id: l70-margin
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training: {{seq_len: 8192, global_batch: 512, precision: bf16, stack: nemo-2025{held}}}
"""
REQ = """\
requirements:
  - {{id: REQ-MEM-1, statement: Memory margin, metric: memory_headroom, target: "{target}"}}
"""
#: The B200's memory, 180 GiB (B), and the runtime's reserve of a layout with tp and dp > 1, pp = cp = ep = 1: the
#: CUDA context 0.4 GB and an NCCL communicator of 0.688 GB each (`reserve.runtime_reserve`).
B200, RESERVE = 180 * 2**30, 0.4e9 + 2 * 0.688e9
#: A layout held to tp 8, pp 1, ZeRO 0 (`parallelism`): none of its 12 valid layouts fits at the range's high end.
HELD = ", parallelism: {tp: 8, pp: 1, zero: 0}"


#: The same target in a `Requirements` document on the workload (by its id, or a glob matching it alone): build binds
#: it to the workload, `check` judges it there, and it bounds the search as the workload's own does (memreq42).
DOC = """\
---
kind: Requirements
id: margins-elsewhere
requirements:
  - {{id: REQ-MEM-1, statement: Memory margin, subject: "{subject}", metric: memory_headroom, target: "{target}"}}
"""


def _text(target: str | None, held: str = "", subject: str = "") -> str:
    """The workload, with `target` as its own requirement or, with a `subject`, a Requirements document's on it."""
    stated = "" if not target else DOC.format(subject=subject, target=target) if subject else REQ.format(target=target)
    return BASE.format(held=held) + stated


def _estimate(cli, spec_tree, target: str | None, *flags: str, held: str = "", subject: str = "") -> dict:
    root = spec_tree({"w.yaml": _text(target, held, subject)})
    got = cli("estimate", SPECS, root, "--workload", "l70-margin", "--format", "json", *flags)
    assert "Traceback" not in got.err, got.err
    return json.loads(got.out)


def _headroom(est: dict, end: str = "") -> float:
    return est["metrics"]["memory_headroom" + end]["value"] / 1e9


def _searched(est: dict) -> str:
    return next(n for n in est["notes"] if n.startswith("layout searched"))


def test_the_search_keeps_the_margin_a_requirement_states(cli, spec_tree):
    """No memory requirement: the search packs memory at the model's figure (0.035 GB left, as Megatron users pack
    it). `>= 0 GB` and `>= 10 GB` (memfit41): a layout that keeps within them at the allocator range's high end,
    tp 2, pp 1, ZeRO-3, 99.98 GB at the model's figure and 1.776 + (99.98 - 1.776) / 0.57 = 174.07 GB at the high end,
    19.21 GB left of 193.27 GB: met at the worst end (before: `>= 0 GB` bounded nothing and read at risk)."""
    loose = _estimate(cli, spec_tree, None)
    assert _headroom(loose) < 1.0        # the search's own pick: under 1 GB of 193.3 GB left
    assert not any(n.startswith("layout searched") and "high end" in n for n in loose["notes"])
    for target, most in ((">= 0 GB", 193.3), (">= 10 GB", 183.3)):
        est = _estimate(cli, spec_tree, target)
        assert est["layout"] != loose["layout"]
        assert (est["layout"]["tp"], est["layout"]["pp"], est["layout"]["zero"]) == (2, 1, 3)
        memory = est["metrics"]["memory_per_gpu"]["value"]
        assert est["metrics"]["memory_per_gpu_high"]["value"] == pytest.approx(RESERVE + (memory - RESERVE) / 0.57)
        assert _headroom(est, "_low") == pytest.approx((B200 - RESERVE - (memory - RESERVE) / 0.57) / 1e9)
        assert _headroom(est, "_low") >= float(target.split()[1])
        (req,) = est["requirements"]
        assert req["id"] == "REQ-MEM-1" and req["status"] == "met"
        assert (f", kept within REQ-MEM-1 (memory_headroom {target}) at the allocator range's high end (at most "
                f"{most} GB of 193.3 GB per accelerator, with 43% of the memory the caching allocator reserves holding "
                "no tensor); ") in _searched(est)
        # the step time is the chosen layout's own, on the whole part (the limit only narrows the choice)
        assert est["metrics"]["step_time"]["value"] >= loose["metrics"]["step_time"]["value"]


def test_no_layout_at_the_high_end_keeps_the_best_at_the_models_figure_and_says_so(cli, spec_tree):
    """Held to tp 8, pp 1, ZeRO 0, no valid layout fits at the range's high end (with the reserve of tp and dp it
    needs 1.776 + 0.57 x (193.27 - 1.776) = 110.9 GB or less at the model's figure): the search keeps the best there (the
    unbounded search's own pick, 193.10 GB, 0.17 GB left) and says so; the requirement reads at risk. A margin it
    leaves at the model's figure (0.1 GB) bounds the fallback too, and the note says by how much."""
    plain = _estimate(cli, spec_tree, None, held=HELD)
    for target, cut in ((">= 0 GB", ""), (">= 0.1 GB", ", kept within at most 193.2 GB of 193.3 GB per accelerator")):
        est = _estimate(cli, spec_tree, target, held=HELD)
        assert est["layout"] == plain["layout"] and 0.1 <= _headroom(est) < 1.0
        assert _headroom(est, "_low") < 0
        (req,) = est["requirements"]
        assert req["status"] == "at risk"
        assert (f", no layout fits at the allocator range's high end within REQ-MEM-1 (memory_headroom {target}); best "
                f"at the model's figure chosen{cut}; ") in _searched(est)


def test_a_margin_no_layout_keeps_is_searched_without_and_said(cli, spec_tree):
    loose = _estimate(cli, spec_tree, None)
    est = _estimate(cli, spec_tree, ">= 198 GB")
    assert est["layout"] == loose["layout"]
    (req,) = est["requirements"]
    assert req["status"] == "not met"
    assert (", no layout keeps within REQ-MEM-1 (memory_headroom >= 198 GB) (more than the 193.3 GB per "
            "accelerator the part has), at the allocator range's high end or at the model's figure, so the whole "
            "memory was searched; " in _searched(est))


@pytest.mark.parametrize("subject", ["", "workload/l70-margin"])
def test_the_plan_search_keeps_it_too(cli, spec_tree, subject):
    """The workload's own target, or a Requirements document's on it (memreq42), bounds `--search-plan` alike."""
    plain = _estimate(cli, spec_tree, None, "--search-plan")["plan"]
    assert plain["memory_limit"] is None
    plan = _estimate(cli, spec_tree, ">= 10 GB", "--search-plan", subject=subject)["plan"]
    assert plan["memory_limit"] == ("kept within REQ-MEM-1 (memory_headroom >= 10 GB) at the allocator range's high "
                                    "end (at most 183.3 GB of 193.3 GB per accelerator, with 43% of the memory the "
                                    "caching allocator reserves holding no tensor)")
    assert plan["memory_per_gpu_bytes"] <= 183.3e9 < plain["memory_per_gpu_bytes"]
    assert plan["step_time_s"] >= plain["step_time_s"]


SWEEP = """\
kind: Sweep
id: l70-margin-sweep
workload: l70-margin
axes:
  precision: [bf16]
objectives:
  - {metric: tokens_per_second}
"""


def test_a_sweep_point_keeps_it_on_the_per_point_path(cli, spec_tree, tmp_path):
    root = spec_tree({"w.yaml": BASE.format(held="") + REQ.format(target=">= 10 GB"), "sweeps/s.yaml": SWEEP})
    got = cli("sweep", root / "sweeps" / "s.yaml", SPECS, root, "--out", tmp_path / "out", "--format", "json")
    assert "Traceback" not in got.err, got.err
    (sweep,) = json.loads(got.out)["sweeps"]
    assert sweep["summary"]["feasible"] == 1        # before: the point searched to 0.035 GB left, REQ-MEM-1 not met
    (point,) = sweep["front"]
    assert point["metrics"]["memory_headroom"]["value"] >= 10e9
    text = cli("sweep", root / "sweeps" / "s.yaml", SPECS, root, "--out", tmp_path / "out")
    assert ("REQ-MEM-1 (memory_headroom >= 10 GB) bounds each point's layout search by memory "
            "(`perf.workload.memory_limit`), which the batch does not take") in text.out


def test_estimate_judges_a_documents_requirements_on_the_workload_as_check_does(cli, spec_tree):
    """tail42: `archgen estimate` judges every requirement bound to the workload, its own and a Requirements
    document's (by glob here), as `check` does; a glob's on a metric the job cannot have (`ttft_p99` on a training job)
    is not applicable there, and left out here. Before, a document's memory target bounded the search unjudged."""
    doc = DOC.format(subject="workload/*", target=">= 10 GB") + (
        '  - {id: REQ-TTFT, statement: First token, subject: "workload/*", metric: ttft_p99, target: "<= 1 s"}\n')
    root = spec_tree({"w.yaml": BASE.format(held="") + doc})
    got = cli("estimate", SPECS, root, "--workload", "l70-margin", "--format", "json")
    assert "Traceback" not in got.err, got.err
    est = json.loads(got.out)
    assert [(r["id"], r["status"]) for r in est["requirements"]] == [("REQ-MEM-1", "met")]
    assert _headroom(est, "_low") >= 10
    text = cli("estimate", SPECS, root, "--workload", "l70-margin").out
    assert "REQ-MEM-1" in text and "REQ-TTFT" not in text


def test_the_per_point_note_agrees_with_how_many_targets_bound_it(tmp_path):
    """memreq42: "REQ-A (…), REQ-B (…) bound each point's…", one target "bounds" it."""
    from archgen.perf.explore.batch_path import per_point
    from tests.conftest import sweep_problems_of

    two = REQ.format(target=">= 10 GB") + ('  - {id: REQ-MEM-2, statement: Memory cap, metric: memory_per_gpu, '
                                          'target: "<= 190 GB"}\n')
    for reqs, words in ((REQ.format(target=">= 10 GB"), "REQ-MEM-1 (memory_headroom >= 10 GB) bounds each point's"),
                        (two, "REQ-MEM-1 (memory_headroom >= 10 GB), REQ-MEM-2 (memory_per_gpu <= 190 GB) bound each "
                              "point's")):
        (tmp_path / "s.yaml").write_text(BASE.format(held="") + reqs + "---\n" + SWEEP, encoding="utf-8")
        assert per_point(sweep_problems_of(tmp_path / "s.yaml", [SPECS, tmp_path])[0]).startswith(words)


@pytest.mark.parametrize(("target", "subject"), [(">= 0 GB", ""), (">= 0 GB", "workload/l70-margin"),
                                                 (">= 0 GB", "workload/l70-m*"), (None, "")])
def test_both_sweep_paths_agree_with_the_estimate(cli, spec_tree, tmp_path, target, subject):
    """A sweep point's layout is the estimate's, on the per-point and the batched path alike (memfit41): with
    `>= 0 GB` the layout that fits at the range's high end (tp 2, pp 1, ZeRO-3, 19.21 GB left there; met, not at
    risk), on the per-point path, where the batch sends it; with no memory requirement the one packed at the model's
    figure (tp 1, pp 2), which the batch takes itself. The target written in a Requirements document on the workload,
    by its id or a glob (memreq42), bounds the estimate's search, the sweep's and the one `check` judges it on, alike:
    before, only the workload's own did, and `check` read the document's `>= 0 GB` at risk on tp 1, pp 2 (-144.4 GB
    at the high end)."""
    from archgen.perf.explore.batch_path import per_point
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched
    from archgen.pipeline import run
    from tests.conftest import sweep_problems_of

    est = _estimate(cli, spec_tree, target, subject=subject)
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "s.yaml").write_text(_text(target, subject=subject) + "---\n" + SWEEP, encoding="utf-8")
    p = sweep_problems_of(tmp_path / "sweep" / "s.yaml", [SPECS, tmp_path / "sweep"])[0]
    assert bool(per_point(p)) == bool(target)
    one, (many,) = evaluate_point(p, 0), batched(p, 0, 1)
    for row in (one, many):
        assert {k: row.layout[k] for k in ("tp", "pp", "dp", "zero", "micro_batch")} == \
            {k: est["layout"][k] for k in ("tp", "pp", "dp", "zero", "micro_batch")}
        assert row.metrics["memory_headroom_low"] == pytest.approx(est["metrics"]["memory_headroom_low"]["value"])
    assert (one.layout["tp"], one.layout["pp"]) == ((2, 1) if target else (1, 2))
    if target:
        assert one.metrics["memory_headroom_low"] >= 0 and one.met == many.met == {"REQ-MEM-1": True}
        assert one.at_risk == many.at_risk == ()
        assert "kept within REQ-MEM-1 (memory_headroom >= 0 GB) at the allocator range's high end" in _searched(est)
    # `estimate` judges the document's requirement on the workload as its own, as `check` does, on the same layout
    # (tail42: before, it judged only the workload's own and `estimate` printed none here)
    assert [(r["id"], r["status"]) for r in est["requirements"]] == ([("REQ-MEM-1", "met")] if target else [])
    if subject:
        checked = run([SPECS, tmp_path / "sweep"], select=("REQ001", "REQ004", "PERF001"))
        (judged,) = [j for j in checked.requirements if j.bound.req.id == "REQ-MEM-1"]
        assert (judged.bound.subject, judged.outcome.status.value) == ("workload/l70-margin", "met")
        layout = checked.workloads["workload/l70-margin"].estimate.layout
        assert {k: layout[k] for k in ("tp", "pp", "zero")} == {"tp": 2, "pp": 1, "zero": 3}


def test_the_limit_moves_no_time():
    """What `memory_limit.searched_within` rests on: the memory cut moves which layouts fit, not what one costs. The
    bench's configuration (530B, tp 8 pp 35 dp 8 on A100 80 GB) on its HBM (85.9 GB) and on 10 GB (its busiest rank
    takes 18.7): the same step, MFU and memory to the bit; only the capacity, and so whether it fits, differ."""
    import dataclasses
    import sys
    from pathlib import Path

    from archgen.perf.hw.from_spec import hardware_for
    from archgen.perf.train.job import Job, Layout
    from archgen.perf.train.training import estimate_training
    from archgen.scoring.catalog import load_accelerators
    from archgen.units import Q_

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_perf import MT530

    hw = hardware_for(load_accelerators()["a100-sxm4-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(200, "Gbit/s"))
    job, layout = Job(MT530, 2048, 2240, "bf16", "flash"), Layout(8, 35, 8, 1, recompute=2)
    whole, cut = (estimate_training(h, job, layout) for h in (hw, dataclasses.replace(hw, hbm_capacity=10e9)))
    assert (whole.step_time, whole.mfu, whole.tokens_per_second, whole.memory) == \
        (cut.step_time, cut.mfu, cut.tokens_per_second, cut.memory)
    assert (whole.capacity, cut.capacity) == (hw.hbm_capacity, 10e9)
    assert bool(whole.fits) != bool(cut.fits)   # the busiest rank's memory lies between the two


def test_the_tightest_target_sets_the_limit_and_every_one_is_named():
    """`memory_headroom >= 10 GB` (183.3 GB of a B200's 193.3) and `memory_per_gpu <= 150 GB`: the limit is 150 GB,
    and `by` names both targets, a layout within it keeping within each; a `>= 0 GB` headroom bounds nothing."""
    from archgen.in_code import document
    from archgen.model.requirements import Requirement
    from archgen.model.workload import Workload
    from archgen.perf.workload.memory_limit import memory_limit

    def workload(*targets: tuple[str, str]) -> Workload:
        reqs = [{"id": f"REQ-MEM-{i}", "statement": "margin", "metric": m, "target": t}
                for i, (m, t) in enumerate(targets, 1)]
        return document(Workload, {"id": "w", "model": "llama3-70b", "cluster": "c", "accelerators": 8,
                                   "training": {"seq_len": 8192, "global_batch": 512, "precision": "bf16"},
                                   "requirements": reqs})

    both = memory_limit(workload(("memory_headroom", ">= 10 GB"), ("memory_per_gpu", "<= 150 GB")), 193.3e9)
    assert both is not None and (both.limit, both.capacity) == (150e9, 193.3e9)
    assert both.by == "REQ-MEM-1 (memory_headroom >= 10 GB), REQ-MEM-2 (memory_per_gpu <= 150 GB)"
    # memreq42: a target another document states on it bounds it too, named after the workload's own
    doc = Requirement(id="REQ-DOC-1", statement="margin", subject="workload/w", metric="memory_headroom",
                      target=">= 60 GB")
    tighter = memory_limit(workload(("memory_per_gpu", "<= 150 GB")), 193.3e9, (doc,))
    assert tighter is not None and tighter.limit == pytest.approx(133.3e9)
    assert tighter.by == "REQ-MEM-1 (memory_per_gpu <= 150 GB), REQ-DOC-1 (memory_headroom >= 60 GB)"
    alone = memory_limit(workload(), 193.3e9, (doc,))
    assert alone is not None and alone.by == "REQ-DOC-1 (memory_headroom >= 60 GB)"
    whole = memory_limit(workload(("memory_headroom", ">= 0 GB")), 193.3e9)   # memfit41: the high end's bound
    assert whole is not None and whole.limit == whole.high_end == 193.3e9
    assert memory_limit(workload(), 193.3e9) is None
    # the sweep's per-point note names them with their verb (memreq42 found the plural read "bounds")
    from archgen.perf.workload.memory_limit import bounded_by
    assert bounded_by(workload(("memory_per_gpu", "<= 150 GB")), (doc,)) == \
        "REQ-MEM-1 (memory_per_gpu <= 150 GB), REQ-DOC-1 (memory_headroom >= 60 GB) bound"
    assert bounded_by(workload(), (doc,)) == "REQ-DOC-1 (memory_headroom >= 60 GB) bounds"
    assert bounded_by(workload()) == ""


def test_a_strict_target_keeps_no_layout_at_its_bound():
    """`memory_per_gpu < 150 GB` and `memory_headroom > 10 GB` are honoured, not read as `<=` and `>=` (tidy34, from
    review51): the limit is the largest float below the bound, so a layout of exactly 150 GB (or 183.3 GB of 193.3),
    which would not meet the target, does not fit under it (`fits` is total <= capacity); `> 0 GB` keeps a byte."""
    import math

    from archgen.in_code import document
    from archgen.model.workload import Workload
    from archgen.perf.workload.memory_limit import memory_limit

    def limit(metric: str, target: str):
        req = {"id": "REQ-MEM-1", "statement": "margin", "metric": metric, "target": target}
        return memory_limit(document(Workload, {"id": "w", "model": "llama3-70b", "cluster": "c", "accelerators": 8,
                                                "training": {"seq_len": 8192, "global_batch": 512, "precision": "bf16"},
                                                "requirements": [req]}), 193.3e9)

    below = limit("memory_per_gpu", "< 150 GB")
    assert below is not None and below.limit == math.nextafter(150e9, 0) and not 150e9 <= below.limit
    assert limit("memory_per_gpu", "<= 150 GB").limit == 150e9
    room = limit("memory_headroom", "> 10 GB")
    assert room is not None and room.limit == math.nextafter(193.3e9 - 10e9, 0) < limit("memory_headroom", ">= 10 GB").limit
    whole = limit("memory_headroom", "> 0 GB")
    assert whole is not None and whole.limit == math.nextafter(193.3e9, 0)
    assert limit("memory_headroom", ">= 0 GB").limit == 193.3e9     # the high end's bound alone (memfit41)
