"""A workload's own memory requirement bounds its layout search (newuser88).

Llama 3.1 70B BF16 on 512 B200 (the shipped `llama3-70b-pretrain-b200`, nemo-2025) searches to tp 1, pp 2, v 41,
ZeRO-3 with 0.035 GB of the B200's 193.3 GB left, and Llama 3.1 405B BF16 on 1,024 H100 to tp 8, pp 16 with
0.009 GB left, where the model reserves nothing for the caching allocator's fragmentation or kernel workspaces
(`perf.hw.reserve`). A performance engineer states a margin as a requirement, `memory_headroom >= 10 GB`; before,
the search ignored it, returned the same layout and judged the requirement "not met" though layouts meeting it
existed. Now the search keeps to the tightest memory the workload's own `memory_headroom` (>=) and
`memory_per_gpu` (<=) targets allow, where some layout can, and says so; where none can, it searches the whole
memory as before and says that too.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS

BASE = """\
kind: Workload
id: l70-margin
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training: {{seq_len: 8192, global_batch: 512, precision: bf16, stack: nemo-2025}}
requirements:
  - {{id: REQ-MEM-1, statement: Memory margin, metric: memory_headroom, target: "{target}"}}
"""


def _estimate(cli, spec_tree, target: str, *flags: str) -> dict:
    root = spec_tree({"w.yaml": BASE.format(target=target)})
    got = cli("estimate", SPECS, root, "--workload", "l70-margin", "--format", "json", *flags)
    assert "Traceback" not in got.err, got.err
    return json.loads(got.out)


def _headroom(est: dict) -> float:
    return est["metrics"]["memory_headroom"]["value"] / 1e9


def test_the_search_keeps_the_margin_a_requirement_states(cli, spec_tree):
    loose = _estimate(cli, spec_tree, ">= 0 GB")
    assert _headroom(loose) < 1.0        # the search's own pick: under 1 GB of 193.3 GB left
    est = _estimate(cli, spec_tree, ">= 10 GB")
    assert _headroom(est) >= 10.0 and est["layout"] != loose["layout"]
    (req,) = est["requirements"]
    # judged across its range over the caching allocator's waste (memband41): the layout kept leaves 10 GB or more
    # even at the range's low end, so met (before, at risk: no band)
    assert req["id"] == "REQ-MEM-1" and req["status"] == "met"
    assert est["metrics"]["memory_headroom_low"]["value"] >= 10e9
    note = next(n for n in est["notes"] if n.startswith("layout searched"))
    assert (", kept within REQ-MEM-1 (memory_headroom >= 10 GB): at most 183.3 GB of 193.3 GB per accelerator; "
            in note)
    # the step time is the chosen layout's own, on the whole part (the limit only narrows the choice)
    assert est["metrics"]["step_time"]["value"] >= loose["metrics"]["step_time"]["value"]


def test_a_margin_no_layout_keeps_is_searched_without_and_said(cli, spec_tree):
    loose = _estimate(cli, spec_tree, ">= 0 GB")
    est = _estimate(cli, spec_tree, ">= 198 GB")
    assert est["layout"] == loose["layout"]
    (req,) = est["requirements"]
    assert req["status"] == "not met"
    note = next(n for n in est["notes"] if n.startswith("layout searched"))
    assert (", no layout keeps within REQ-MEM-1 (memory_headroom >= 198 GB) (more than the 193.3 GB per "
            "accelerator the part has), so the whole memory was searched; " in note)


def test_the_plan_search_keeps_it_too(cli, spec_tree):
    plain = _estimate(cli, spec_tree, ">= 0 GB", "--search-plan")["plan"]
    assert plain["memory_limit"] is None
    plan = _estimate(cli, spec_tree, ">= 10 GB", "--search-plan")["plan"]
    assert plan["memory_limit"] == ("kept within REQ-MEM-1 (memory_headroom >= 10 GB): at most 183.3 GB of 193.3 GB "
                                    "per accelerator")
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
    root = spec_tree({"w.yaml": BASE.format(target=">= 10 GB"), "sweeps/s.yaml": SWEEP})
    got = cli("sweep", root / "sweeps" / "s.yaml", SPECS, root, "--out", tmp_path / "out", "--format", "json")
    assert "Traceback" not in got.err, got.err
    (sweep,) = json.loads(got.out)["sweeps"]
    assert sweep["summary"]["feasible"] == 1        # before: the point searched to 0.035 GB left, REQ-MEM-1 not met
    (point,) = sweep["front"]
    assert point["metrics"]["memory_headroom"]["value"] >= 10e9
    text = cli("sweep", root / "sweeps" / "s.yaml", SPECS, root, "--out", tmp_path / "out")
    assert ("REQ-MEM-1 (memory_headroom >= 10 GB) bounds each point's layout search by memory "
            "(`perf.workload.memory_limit`), which the batch does not take") in text.out


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
    assert memory_limit(workload(("memory_headroom", ">= 0 GB")), 193.3e9) is None


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
    assert limit("memory_headroom", ">= 0 GB") is None
