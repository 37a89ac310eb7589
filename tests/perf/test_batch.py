"""Sweep points evaluated in batches (`perf.explore.vectorised`) give, point for point, the per-point path's rows."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from archgen.perf.comm.collectives import collective_time
from archgen.perf.explore import vectorised as batch
from archgen.perf.explore.batch_path import path_note, per_point
from archgen.perf.explore.points import evaluate_point
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.sweep_notes import scope_notes
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import memory_time, vector_time
from archgen.perf.train.training import estimate_training
from tests.conftest import SPECS, sweep_problems_of


def problems(tmp_path: Path, text: str | None = None) -> list[SweepProblem]:
    """The sweeps of `text` (default: the shipped sweep file) on the shipped specs."""
    path = SPECS / "sweeps" / "llama3-70b.yaml"
    if text is not None:
        path = tmp_path / "sweep.yaml"
        path.write_text(text, encoding="utf-8")
    return sweep_problems_of(path, [SPECS])


def same(fast: PointRow, ref: PointRow) -> None:
    """Every field of a row, every metric (its value to the last bit, and the order the columns come in)."""
    assert fast.index == ref.index
    for f in dataclasses.fields(PointRow):
        if f.name != "metrics":
            assert getattr(fast, f.name) == getattr(ref, f.name), f"point {ref.index}: {f.name} differs"
    assert list(fast.metrics) == list(ref.metrics)
    for k, v in ref.metrics.items():  # a goodput without checkpoint storage is not a number on both paths
        assert fast.metrics[k] == v or (np.isnan(v) and np.isnan(fast.metrics[k])), f"point {ref.index}: {k}"
    assert list(fast.met) == list(ref.met)


# the shipped sweeps, every point of each, and a sweep on every shipped cluster: tests/perf/test_batch_drift.py


MIXED = """kind: Sweep
id: mixed
workload: llama3-70b-pretrain-b200
max_points: 1000000
axes:
  cluster: [dgx-b200-superpod, gb200-nvl72-su]
  accelerator: [h200-sxm-141gb]
  accelerators: [64, 72, 512, 2000]
  precision: [bf16, fp8]
  global_batch: [256, 512]
  hbm_capacity: [1, "0.1 GB"]   # 0.1 GB: no layout fits even offloading (8 GB did, once the nodes had host memory)
  hbm_bandwidth: [0.75, "10 TB/s"]
  peak: [1, "3 PFLOP/s"]
  scale_up_bandwidth: [1, "1800 GB/s"]
  scale_out_bandwidth: [0.5, 2]
  latency: [1, 3]
  vector_peak: [1, 2]
objectives:
  - {metric: tokens_per_second}
  - {metric: energy_per_token}
requirements:
  - {id: REQ-SWP-001, statement: Step time, metric: step_time, target: "<= 12 s"}
  - {id: REQ-SWP-002, statement: Power, metric: power, target: "<= 150 kW", level: should}
"""


def test_a_generated_sweep_mixing_job_and_hardware_axes_batched_is_the_per_point_rows(tmp_path, monkeypatch):
    """Clusters, a swapped chip, counts that cannot run or exceed the cluster, factors and values on the hardware.

    The batch runs the whole product; the per-point path a sample that holds each outcome (fits, does not fit,
    invalid) and each axis level. The batch asks the per-point path only for the rows of points that cannot run, one
    per layout set or per level of `scale_up_bandwidth` the switched domain's ports refuse: were it to evaluate the
    sweep point by point (as it did while a swept bandwidth on a switched domain took that path), this test would
    compare the per-point path with itself.
    """
    (p,) = problems(tmp_path, MIXED)
    assert p.size == 2 * 1 * 4 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2
    asked: list[PointRow] = []

    def counted(q: SweepProblem, i: int) -> PointRow:
        asked.append(evaluate_point(q, i))
        return asked[-1]

    monkeypatch.setattr(batch, "evaluate_point", counted)
    fast = batch.evaluate(p, 0, p.size)
    monkeypatch.undo()
    assert [r.index for r in fast] == list(range(p.size))
    sets = p.size // 2 ** 7   # the seven hardware axes of two levels each vary within a layout set
    assert {r.status for r in asked} == {"invalid"} and len(asked) <= 2 * sets, len(asked)
    # gb200-nvl72-su states 1.8 TB/s both ways, 900 GB/s a direction, over 18 links a GPU of its link part; 1800 GB/s
    # is twice that, 36 links, and its 9 x 144 switch ports join 1,296 / 36 = 36 GPUs, not its 72 (as also the chip's
    # 18 links refuse): that level's points of that cluster, a quarter of the sweep (test_switched_sweep_bandwidth.py)
    ports = [r for r in fast if "switch ports join at most 36 accelerators" in r.reason]
    assert len(ports) == p.size // 4 and {r.values["cluster"] for r in ports} == {"gb200-nvl72-su"}
    sample = sorted({*range(0, p.size, 97), *range(5, p.size, 331)})
    refs = {i: evaluate_point(p, i) for i in sample}
    for i, ref in refs.items():
        same(fast[i], ref)
    assert {r.status for r in refs.values()} == {"ok", "does not fit", "invalid"}
    assert any("(NET010)" in r.reason for r in refs.values())
    assert {r.feasible for r in refs.values()} == {True, False}
    for name, levels in p.axes.items():
        assert {repr(refs[i].values[name]) for i in refs} == {repr(v) for v in levels}, name


LAYOUTS = """kind: Sweep
id: layouts
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [64]
  tp: [4, 8]
  pp: [2, 4]
  dp: [2, 4, 8]
  micro_batch: [1, 2]
  interleave: [1, 2]
  recompute: [selective, full]
  hbm_capacity: [1, 0.4]
  scale_up_size: [8, 16]
objectives:
  - {metric: tokens_per_second}
"""


def test_given_layouts_and_searched_remainders_batched_are_the_per_point_rows(tmp_path):
    """Every layout field given (nothing searched: a point fits or not), and with `zero` left to the search."""
    (p,) = problems(tmp_path, LAYOUTS)
    fast = batch.evaluate(p, 0, p.size)
    refs = [evaluate_point(p, i) for i in range(0, p.size, 3)]
    for ref in refs:
        same(fast[ref.index], ref)
    assert {r.status for r in refs} == {"ok", "does not fit", "invalid"}
    assert any(r.reason.startswith("does not fit: needs") for r in refs)
    # searched, a point that fits by offloading fits: a tenth of 0.4 x HBM is too little even for that
    (q,) = problems(tmp_path, LAYOUTS.replace("  dp: [2, 4, 8]\n", "").replace("  interleave: [1, 2]\n", "")
                    .replace("hbm_capacity: [1, 0.4]", "hbm_capacity: [1, 0.01]"))
    fast = batch.evaluate(q, 0, q.size)  # dp, interleave and zero searched
    refs = [evaluate_point(q, i) for i in range(1, q.size, 3)]
    for ref in refs:
        same(fast[ref.index], ref)
    assert {r.status for r in refs} == {"ok", "does not fit"}


def shipped(tmp_path: Path, kind: str) -> SweepProblem:
    """The shipped sweep of a training or an inference workload."""
    return next(p for p in problems(tmp_path) if getattr(p.workload, kind) is not None)


def test_a_chunk_is_the_same_rows_wherever_it_is_cut(tmp_path):
    p = shipped(tmp_path, "training")
    whole = batch.evaluate(p, 0, p.size)
    parts = batch.evaluate(p, 0, 7) + batch.evaluate(p, 7, 20) + batch.evaluate(p, 20, p.size)
    assert parts == whole


def test_serving_sweeps_take_the_per_point_path(tmp_path):
    p = shipped(tmp_path, "inference")
    assert batch.evaluate(p, 3, 6) == [evaluate_point(p, i) for i in range(3, 6)]


def test_a_sweep_on_the_per_point_path_says_so_and_why(tmp_path):
    """Under its tables, in its summary and in its JSON (`scope_notes`, `per_point`); a batched sweep says nothing."""
    serving, training = shipped(tmp_path, "inference"), shipped(tmp_path, "training")
    assert "estimated on its own (the per-point path" in path_note(serving)
    assert "simulation of its own" in path_note(serving) and path_note(serving) in scope_notes(serving, {})
    assert path_note(training) == "" and not any("per-point path" in n for n in scope_notes(training, {}))
    (torus,) = problems(tmp_path, "kind: Sweep\nid: t\nworkload: llama3-70b-pretrain-b200\naxes:\n"
                                  "  cluster: [tpu-v4-pod]\n  scale_up_bandwidth: [1, 2]\n"
                                  "objectives: [{metric: tokens_per_second}]\n")
    assert per_point(torus) == ""   # batched since sweepspeed3 (test_a_torus_and_a_non_nvidia_cluster_...)


def test_the_bound_never_exceeds_the_step_time(tmp_path):
    """m·t_max + bubble of each plan is at most the step time of each of its layouts, at every point."""
    (p,) = problems(tmp_path, MIXED.replace("accelerators: [64, 72, 512, 2000]", "accelerators: [128]"))
    levels = batch._levels(p, 0, 64)
    pos = np.arange(64)
    (pts, setup, prep) = _set(p, levels, pos)
    bound = batch._bounds(pts, setup, prep, slice(0, 64))
    plan_of = np.zeros(len(prep.memory), dtype=int)
    for k, rows in enumerate(prep.plan_rows):
        plan_of[rows[rows >= 0]] = k
    n = len(prep.memory)
    point, row = np.repeat(pos, n), np.tile(np.arange(n), len(pos))
    step = np.asarray(batch._full(pts, setup, prep, point, row).step_time).reshape(len(pos), n)
    assert np.all(bound[:, plan_of] <= step)
    assert np.mean(bound[:, plan_of] / step) > 0.5  # and it is not a trivial bound


def _set(p: SweepProblem, levels, pos):
    from archgen.perf.explore.point_axes import point_hardware as _hardware
    from archgen.perf.explore.point_axes import point_job as _job
    from archgen.perf.explore.vectorised_grid import point_fields
    from archgen.perf.hw.arch import Arch
    from archgen.perf.train.layouts import enumerate_layouts
    from archgen.perf.workload.training_setup import training_setup

    first = p.point(int(pos[0]))
    base = p.bases[(first["cluster"], first.get("accelerator"))]
    workload = _job(p.workload, first)
    hw = _hardware(base.hardware, first, workload.training.precision)
    arch = Arch.from_model(p.model)
    setup = training_setup(workload, arch, hw, workload.accelerators)
    lay = enumerate_layouts(arch, setup.job, workload.accelerators, hw, setup.fixed, setup.pipeline)
    values = [p.point(int(i)) for i in pos]
    fields = point_fields(p, base.hardware, levels, pos, workload.training.precision)
    pts = batch.PointSet(p, pos, values, base, workload.accelerators, hw, fields, workload.training.precision, None)
    return pts, setup, batch._prepare(setup, lay)


def test_hardware_fields_as_arrays_give_each_hardware_its_own_figures():
    """The model's branches on a hardware figure (no vector pipe, no L2, no scale-out fabric) hold point by point."""
    one = Hardware("x", {"bf16": 1e15}, {"bf16": 0.8}, 80e9, 3e12, 8, 450e9, vector_peak=60e12, l2_capacity=50e6,
                   l2_bandwidth=10e12, scale_out_bandwidth=50e9, compute_capability=9.0, in_network_reduction=True)
    figures = {"vector_peak": [0.0, 60e12, 90e12], "l2_bandwidth": [0.0, 10e12, 5e12],
               "scale_out_bandwidth": [0.0, 50e9, 100e9], "hbm_bandwidth": [3e12, 2e12, 4e12]}
    many = dataclasses.replace(one, **{k: np.asarray(v) for k, v in figures.items()})
    each = [dataclasses.replace(one, **{k: v[i] for k, v in figures.items()}) for i in range(3)]
    got = (vector_time(many, 1e12), memory_time(many, 1e9, working_set=1e6),
           collective_time(many, "all_reduce", 1e9, 64, 8))
    for i, hw in enumerate(each):
        assert got[0][i] == vector_time(hw, 1e12)
        assert got[1][i] == memory_time(hw, 1e9, working_set=1e6)
        assert got[2][i] == collective_time(hw, "all_reduce", 1e9, 64, 8)


def test_estimate_training_takes_one_hardware_per_layout(tmp_path):
    (p,) = problems(tmp_path, MIXED.replace("accelerators: [64, 72, 512, 2000]", "accelerators: [128]"))
    pos = np.arange(0, 64, 7)
    pts, setup, prep = _set(p, batch._levels(p, 0, 64), np.arange(64))
    rows = np.arange(len(pos)) * 13 % len(prep.memory)
    many = batch._full(pts, setup, prep, pos, rows)
    for j, (i, r) in enumerate(zip(pos, rows, strict=True)):
        one = batch._full(pts, setup, prep, np.array([i]), np.array([r]))
        assert np.asarray(many.step_time)[j] == np.asarray(one.step_time)[0]
        assert np.asarray(many.memory.total)[j] == np.asarray(one.memory.total)[0]
    assert estimate_training  # the function both go through


def test_a_torus_and_a_non_nvidia_cluster_batched_are_the_per_point_rows(tmp_path):
    """A TPU v4 pod (torus collectives, `perf.comm.torus`) and MI355X (no NCCL generation), with hardware axes."""
    (p,) = problems(tmp_path, """kind: Sweep
id: other-fabrics
workload: llama3-70b-pretrain-b200
axes:
  cluster: [tpu-v4-pod, mi355x-th5]
  accelerators: [256, 512]
  hbm_bandwidth: [1, 1.5]
  scale_up_bandwidth: [1, 2]
objectives: [{metric: tokens_per_second}]
""")
    fast = batch.evaluate(p, 0, p.size)
    for i in range(p.size):
        same(fast[i], evaluate_point(p, i))


OLD_STACK = """kind: Workload
id: old-stack
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 128
training: {seq_len: 8192, global_batch: 256, precision: bf16, stack: megatron-core-2024}
"""


def test_an_older_stacks_sweep_searches_only_what_it_runs_batched_as_per_point(tmp_path):
    """Megatron-core 2024 runs ZeRO 0-1 and no offload (`switch_allows.ALLOWS`): no point's layout takes more, in the
    batched path as in the per-point one, also where the memory binds (hbm_capacity 0.05)."""
    (tmp_path / "w.yaml").write_text(OLD_STACK, encoding="utf-8")
    path = tmp_path / "sweep.yaml"
    path.write_text("kind: Sweep\nid: old\nworkload: old-stack\naxes:\n  accelerators: [64, 128]\n"
                    "  hbm_capacity: [0.05, 1]\nobjectives: [{metric: tokens_per_second}]\n", encoding="utf-8")
    (p,) = sweep_problems_of(path, [SPECS, tmp_path])
    fast = batch.evaluate(p, 0, p.size)
    for i in range(p.size):
        same(fast[i], evaluate_point(p, i))
    ok = [r for r in fast if r.status == "ok"]
    assert ok and all(r.layout["zero"] <= 1 and "offload" not in r.layout for r in ok)
    assert any(r.status == "does not fit" for r in fast)  # 9 GB of HBM: nothing the 2024 stack runs fits
