"""The performance model's numbers, pinned to the last bit: a change meant only to make it faster moves none of them.

`tests/perf/data/exact-values.json` holds, as exact hexadecimal floats or digests of float arrays: every shipped
workload's estimate (metrics, breakdown, memory, layout, sensitivities, notes, the nccl-tests curve), the rows of
the shipped sweeps, the validation cases' predictions (and tests/perf/data/nemo-long-sequence.yaml's), a 530B configuration and a 4,572-layout search, and
`collective_time` over a grid of hardware, operations, algorithms, group sizes and message sizes.

A change to the model that moves a number on purpose regenerates the file (`python -m tests.perf.test_exact`) and
the diff is reviewed like a golden file's.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from archgen.perf.comm.collectives import ALGORITHMS, IN_NETWORK, OPS, collective_time, require
from archgen.perf.hw.hardware import Hardware

DATA = Path(__file__).resolve().parent / "data" / "exact-values.json"
REPO = Path(__file__).resolve().parent.parent.parent


def _hex(x) -> str:
    """A float as its exact hexadecimal form (and nan/inf as themselves)."""
    x = float(x)
    return repr(x) if not math.isfinite(x) else x.hex()


def _digest(*arrays) -> str:
    """sha256 of float64 arrays (shape included), 16 hex digits."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a, dtype=float))
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _jsonable(x):
    """Quantities as exact SI magnitudes; containers element by element."""
    from archgen.quantity_json import json_magnitude
    if hasattr(x, "magnitude"):
        return _hex(json_magnitude(x))
    if isinstance(x, float):
        return _hex(x)
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def workloads() -> dict:
    """Every shipped workload estimated on its cluster, as the pipeline does it."""
    from archgen.perf.workload.results import estimate_workloads, judge_workloads
    from archgen.pipeline import analyse_paths, scale_out_paths

    specs, design, _, clusters = analyse_paths([REPO / "specs"])
    out = {}
    for path, r in sorted(judge_workloads(estimate_workloads(specs, scale_out_paths(clusters)), design.workload_requirements).items()):
        e = r.estimate
        out[path] = {"error": r.error} if e is None else {
            "layout": e.layout, "metrics": _jsonable(e.metrics), "breakdown": _jsonable(e.breakdown),
            "memory": _jsonable(e.memory), "fits": e.fits, "searched": e.searched,
            "sensitivity": _jsonable(e.sensitivity), "notes": e.notes,
            "requirements": [o.met for o in e.requirements],
            "curve": _digest(*r.curve) if r.curve else None}
    return out


def sweep_rows() -> dict:
    """The rows of the shipped sweeps, point by point (the per-point path; test_batch holds the batch to it)."""
    from archgen.commands import sweep as sw
    from archgen.commands import sweep_problems
    from archgen.perf.explore.points import evaluate_point

    specs, clusters, sweeps = sw.load(REPO / "specs" / "sweeps" / "llama3-70b.yaml", [REPO / "specs"])
    out = {}
    for p in sweep_problems.problems(specs, clusters, sweeps):
        rows = [evaluate_point(p, i) for i in range(p.size)]
        out[p.sweep.id] = {str(r.index): [r.status, r.reason, r.layout, _jsonable(r.metrics), r.met, r.feasible]
                           for r in rows}
    return out


def cases() -> dict:
    """Each validation case's prediction."""
    from archgen.scoring.scores import score_case_file

    out = {}
    for path in (REPO / "tests" / "data" / "validation-cases.yaml", REPO / "tests" / "data" / "validation-modern.yaml",
                 REPO / "tests" / "perf" / "data" / "nemo-long-sequence.yaml"):
        s = score_case_file(path)
        out[path.name] = {f"{r.id}/{r.metric}": _hex(r.predicted) for r in s.results}
    return out


def _fields(est) -> dict:
    names = ("step_time", "compute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm", "bubble", "optimizer",
             "tokens_per_second", "hardware_flops", "model_flops_per_gpu", "mfu")
    mem = ("weights", "gradients", "optimizer", "activations")
    arrays = [np.asarray(getattr(est, k)) for k in names] + [np.asarray(getattr(est.memory, k)) for k in mem]
    if arrays[0].ndim == 0:
        return {k: _hex(a) for k, a in zip((*names, *(f"memory.{m}" for m in mem)), arrays, strict=True)}
    return {"digest": _digest(*arrays)}


def _hardware() -> dict[str, Hardware]:
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.scoring.catalog import load_accelerators
    from archgen.units import Q_

    acc = load_accelerators()
    gbps = lambda x: Q_(x, "Gbit/s")  # noqa: E731
    hws = {
        "a100-8-200g": hardware_for(acc["a100-sxm4-80gb"], scale_up_size=8, scale_out_bandwidth=gbps(200)),
        "h100-8-400g": hardware_for(acc["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=gbps(400)),
        "h100-8-400g-tapered-sharp": hardware_for(acc["h100-sxm5-80gb"], scale_up_size=8,
                                                  scale_out_bandwidth=gbps(400), oversubscription=2.0, pod=64,
                                                  scale_out_latency=Q_(35, "us"), scale_out_reduction=True),
        "gb200-72-800g": hardware_for(acc["gb200"], scale_up_size=72, scale_out_bandwidth=gbps(800),
                                      scale_out_reduction=True),
        "mi355x-8-400g": hardware_for(acc["mi355x"], scale_up_size=8, scale_out_bandwidth=gbps(400)),
        "h100-8-single": hardware_for(acc["h100-sxm5-80gb"], scale_up_size=8),
    }
    from dataclasses import replace
    tpu = hardware_for(acc["tpu-v4"], scale_up_size=64, scale_up_bandwidth=Q_(270, "GB/s"))
    hws["tpu-v4-torus-4x4x4"] = replace(tpu, torus=(4, 4, 4), torus_link_bandwidth=45e9)
    return hws


def collectives() -> dict:
    """`collective_time` over hardware x operation x algorithm x group, with arrays and scalars."""
    sizes = 2.0 ** np.arange(3, 35)
    ns = (1, 2, 3, 4, 8, 16, 24, 64, 72, 144, 576, 4096)
    out = {}
    for name, hw in _hardware().items():
        for op in OPS:
            for alg in ALGORITHMS:
                times = []
                for n in ns:
                    for k in (None, 1, 2, 4, 8):
                        # a group array against sizes too: (groups, 1) x (sizes,)
                        group = np.asarray([[1.0], [2.0], [float(n)]])
                        kg = None if k is None else np.minimum(group, float(k))
                        if alg in IN_NETWORK and op in ("all_reduce", "all_gather", "reduce_scatter") and (
                                require(hw, alg, n, min(n, hw.scale_up_size) if k is None else k)
                                or require(hw, alg, group, np.minimum(group, hw.scale_up_size) if k is None else kg)):
                            continue
                        times.append(collective_time(hw, op, sizes, float(n) + 0.0 * sizes, k, alg))
                        times.append([collective_time(hw, op, s, n, k, alg) for s in (8.0, 3e5, 1.5e9)])
                        times.append(collective_time(hw, op, sizes, group, kg, alg))
                out[f"{name}/{op}/{alg}"] = _digest(*times)
    return out


def training() -> dict:
    """The bench's 530B configuration and a 4,572-layout search, field by field."""
    sys.path.insert(0, str(REPO / "bench"))
    from bench_perf import MT530

    from archgen.perf.train.job import Job, Layout
    from archgen.perf.train.layouts import search_training
    from archgen.perf.train.training import estimate_training

    hw = _hardware()["a100-8-200g"]
    job = Job(MT530, 2048, 2240, "bf16", "flash")
    out = {"530b-tp8-pp35-dp8": _fields(estimate_training(hw, job, Layout(8, 35, 8, 1, recompute=2)))}
    res = search_training(hw, job, 2240)
    out["530b-search-2240"] = {"best": res.best, "evaluated": res.evaluated, "fitting": res.fitting,
                               "steps": _digest(_steps(hw, job, res), res.fits), "best_fields": _fields(res.estimate)}
    for name, hw in _hardware().items():
        if not hw.torus:
            out[f"530b-search-2240/{name}"] = _digest(_steps(hw, job, search_training(hw, job, 2240)))
    return out


def _steps(hw: Hardware, job, res) -> np.ndarray:
    """Every layout's step time of the layout search `res` (s), fitting or not: one call over all of them."""
    from archgen.perf.train.layout_times import layout_of
    from archgen.perf.train.pipeline_split import DEFAULT
    from archgen.perf.train.training import estimate_training
    n = len(res.layouts["tp"])
    return np.broadcast_to(estimate_training(hw, job, layout_of(res.layouts, True, DEFAULT)).step_time, (n,)) if n \
        else np.zeros(0)


def values() -> dict:
    """Everything this test pins."""
    return {"workloads": workloads(), "sweeps": sweep_rows(), "cases": cases(), "training": training(),
            "collectives": collectives()}


@pytest.fixture(scope="module")
def now() -> dict:
    return json.loads(json.dumps(values()))


@pytest.fixture(scope="module")
def pinned() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


@pytest.mark.parametrize("part", ["workloads", "sweeps", "cases", "training", "collectives"])
def test_numbers_are_the_pinned_ones(now, pinned, part):
    want, got = pinned[part], now[part]
    assert sorted(got) == sorted(want)
    moved = [k for k in want if got[k] != want[k]]
    assert not moved, f"{len(moved)} of {len(want)} moved, first: {moved[0]}: {got[moved[0]]} != {want[moved[0]]}"


if __name__ == "__main__":
    DATA.write_text(json.dumps(values(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(DATA)
