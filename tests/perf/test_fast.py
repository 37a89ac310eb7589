"""One layout given as plain numbers (the fast path) against the same layout as arrays of one (the batched path).

`training.estimate_training` keeps a layout of plain numbers plain through the model's formulas (numpy on 0-d
arrays costs a microsecond an operation; issue 25), while a layout of arrays takes the vectorised path a search
and a batched sweep take. Both run the same formulas; this test holds them to the same bits on every estimate that
the validation cases and the shipped workloads make (each call is repeated with the layout as arrays of one
element), and on the bench's 530B configuration. `test_exact` pins the numbers themselves.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from archgen.perf.train import training
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.training import TrainingEstimate

REPO = Path(__file__).resolve().parent.parent.parent
ORIGINAL = training.estimate_training
FIELDS = ("step_time", "compute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm", "bubble", "optimizer",
          "tokens_per_second", "model_flops", "hardware_flops", "model_flops_per_gpu", "mfu", "peak", "capacity", "gpus",
          "host_capacity", "fits")
MEMORY = ("weights", "gradients", "optimizer", "activations", "host", "total")
ARRAYS = ("tp", "pp", "dp", "micro_batch", "cp", "ep", "interleave", "recompute", "sequence_parallel", "zero",
          "offload", "etp")


def _is_one(layout: Layout) -> bool:
    """Whether every field of `layout` is a plain number (one layout, the fast path)."""
    return not any(isinstance(getattr(layout, k), np.ndarray | list | tuple) for k in ARRAYS)


def as_arrays(layout: Layout) -> Layout:
    """The same layout with every numeric field an array of one element (the batched path)."""
    return dataclasses.replace(layout, **{k: np.asarray([getattr(layout, k)]) for k in ARRAYS
                                          if getattr(layout, k) is not None})


def _bits(x) -> np.ndarray:
    return np.asarray(x, dtype=float).reshape(-1)


def differences(fast: TrainingEstimate, ref: TrainingEstimate) -> list[str]:
    """Fields whose values differ in any bit (nan equal to nan), as 'name: fast vs reference'."""
    out = []
    pairs = [(k, getattr(fast, k), getattr(ref, k)) for k in FIELDS]
    pairs += [(f"memory.{k}", getattr(fast.memory, k), getattr(ref.memory, k)) for k in MEMORY]
    for name, a, b in pairs:
        fa, fb = _bits(a), _bits(b)
        if fa.shape != (1,) or fb.shape != (1,) or not np.array_equal(fa, fb, equal_nan=True):
            out.append(f"{name}: {a!r} vs {b!r}")
    return out


@pytest.fixture
def compared(monkeypatch):
    """Every `estimate_training` of one layout, repeated on the batched path: the list of (layout, differences)."""
    seen: list[tuple[Layout, list[str]]] = []

    def checked(hw, job, layout, *given):  # `given`: a caller's layer times and DP timer (`layout_times._timed`)
        est = ORIGINAL(hw, job, layout, *given)
        if _is_one(layout) and np.ndim(hw.hbm_capacity) == 0:
            seen.append((layout, differences(est, ORIGINAL(hw, job, as_arrays(layout)))))
        return est

    import archgen.perf.workload.estimate
    import archgen.perf.workload.results  # noqa: F401 (what calls `estimate_training`, imported before it is wrapped)

    for name, mod in list(sys.modules.items()):
        if name.startswith("archgen.") and getattr(mod, "estimate_training", None) is ORIGINAL:
            monkeypatch.setattr(mod, "estimate_training", checked)
    return seen


def _report(seen: list[tuple[Layout, list[str]]]) -> list[str]:
    return [f"{layout}: {d}" for layout, d in seen if d]


def test_validation_cases(compared):
    from archgen.model.stack_profiles import STACKS
    from archgen.scoring.cases import case_hardware, read_cases, training_estimate
    from archgen.scoring.catalog import load_accelerators
    from archgen.scoring.scores import score_case_file

    accs, trained = load_accelerators(), 0
    for name in ("validation-cases.yaml", "validation-modern.yaml"):
        score_case_file(REPO / "tests" / "data" / name)  # each case's prediction
        for case in read_cases(REPO / "tests" / "data" / name)[0]:
            if case.training is not None:
                for stack in STACKS:  # the case's layout under every stack profile's switches too
                    training_estimate(case, case_hardware(case, accs), stack=stack)
                trained += 1
    assert trained >= 26 and len(compared) == (1 + len(STACKS)) * trained
    assert _report(compared) == []


@pytest.mark.slow
def test_shipped_workloads(compared):
    from archgen.perf.workload.results import estimate_workloads
    from archgen.pipeline import analyse_paths, scale_out_paths

    specs, _, _, clusters = analyse_paths([REPO / "specs"])
    estimate_workloads(specs, scale_out_paths(clusters))
    assert len(compared) >= 60  # each training workload, its sensitivities and stack range: 64 calls in 2026-12
    assert _report(compared) == []


def test_bench_configuration():
    """The bench's single configuration (530B, tp8 pp35 dp8 on A100): plain numbers in, plain numbers out."""
    sys.path.insert(0, str(REPO / "bench"))
    from bench_perf import MT530

    from archgen.perf.hw.from_spec import hardware_for
    from archgen.scoring.catalog import load_accelerators
    from archgen.units import Q_

    hw = hardware_for(load_accelerators()["a100-sxm4-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(200, "Gbit/s"))
    job = Job(MT530, 2048, 2240, "bf16", "flash")
    one = Layout(8, 35, 8, 1, recompute=2)
    est = ORIGINAL(hw, job, one)
    assert differences(est, ORIGINAL(hw, job, as_arrays(one))) == []
    assert all(isinstance(getattr(est, k), float) for k in FIELDS[:-5])  # plain floats: the class axis too


def test_offload_codes_and_sharding_stages():
    """bench_calculon's one-configuration plan (1T on 4,096 A100, offload) under every offload code and ZeRO stage.

    The plain-number path works out only the offload terms and the stage's DP time a layout takes (`where` on the
    batched path works out all of them and picks): the two must agree to the bit on each.
    """
    from tests.perf.calculon_plans import CASES
    from tests.perf.calculon_terms import archgen_plan, layout_of

    exe = {"tensor_par": 4, "pipeline_par": 8, "data_par": 128, "microbatch_size": 3, "pipeline_interleaving": 16,
           "activation_recompute": "attn_only", "tensor_par_comm_type": "rs_ag", "optimizer_sharding": True,
           "tensor_par_overlap": "none", "data_par_overlap": True, "weight_offload": False,
           "activations_offload": True, "optimizer_offload": True}
    hw, job, plan = archgen_plan(CASES["1t-4096-a100"], exe)
    assert plan == layout_of(exe)[0]
    checked = 0
    for code in range(8):
        for zero in range(4):
            one = dataclasses.replace(plan, offload=code, zero=zero)
            est = ORIGINAL(hw, job, one)
            assert differences(est, ORIGINAL(hw, job, as_arrays(one))) == [], (code, zero)
            checked += 1
    assert checked == 32
