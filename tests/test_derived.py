"""One home for what follows from an estimate (issue 19 part 4): a sweep point's derived metrics, cost per token and
the does-not-fit rule, the same in the pipeline, the per-point sweep and the batched sweep."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.commands import sweep as sw
from archgen.perf.explore import points as per_point
from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.derived import MISFIT_KEEPS, cost_per_token, judged, point_metrics
from archgen.perf.workload.machine import Machine
from tests.conftest import SPECS

ONE = """kind: Sweep
id: one
workload: llama3-70b-pretrain-b200
axes:
  precision: [bf16]
objectives: [{metric: cost_per_token}]
"""


def _machine() -> Machine:
    return Machine("c", Hardware.__new__(Hardware), accelerators=1000, per_rack=72, it_power=1.5e6,
                   cost_per_accelerator_hour=2.5)


def test_a_points_derived_metrics_follow_their_formulas():
    """Power = IT power x used / all accelerators; energy per token = power / tokens per second; cost per token =
    USD per accelerator-hour x accelerators / (goodput tokens per second x 3600)."""
    m = point_metrics({"tokens_per_second": 2.0e5, "step_time": 4.0}, _machine(), 200, True, lambda: (0.8, 0.5, 0.9, 0))
    assert m["power"] == 1.5e6 * 200 / 1000 == 3.0e5
    assert m["accelerators"] == 200.0
    assert m["energy_per_token"] == pytest.approx(3.0e5 / 2.0e5)
    assert m["goodput"] == 0.8 and m["goodput_tokens_per_second"] == pytest.approx(1.6e5)
    assert (m["goodput_low"], m["goodput_high"]) == (0.5, 0.9)
    assert m["goodput_tokens_per_second_low"] == pytest.approx(1.0e5)
    assert m["goodput_tokens_per_second_high"] == pytest.approx(1.8e5)
    assert m["cost_per_token"] == pytest.approx(2.5 * 200 / (1.6e5 * 3600))  # 8.68e-7 USD
    # the dearest token at the low goodput, the cheapest at the high one
    assert m["cost_per_token_high"] == pytest.approx(2.5 * 200 / (1.0e5 * 3600))
    assert m["cost_per_token_low"] == pytest.approx(2.5 * 200 / (1.8e5 * 3600))
    assert cost_per_token(2.5, 200, 1.6e5) == m["cost_per_token"]


def test_a_point_that_does_not_fit_keeps_its_memory_power_and_size_only():
    m = point_metrics({"tokens_per_second": 2.0e5, "memory_per_gpu": 2.1e11, "memory_headroom": -3e10},
                      _machine(), 200, False, lambda: (0.8, 0.5, 0.9, 0))
    assert set(m) == set(MISFIT_KEEPS)
    assert judged("memory_per_gpu", False) and judged("memory_headroom", False)
    assert not judged("step_time", False) and judged("step_time", True)


def test_cost_per_token_is_one_number_in_the_pipeline_and_both_sweep_paths(shipped, tmp_path: Path):
    """The shipped 70B pre-training job on DGX B200: `archgen check`'s cost per token, a sweep point of the same job
    (batched) and the per-point path agree to the last bit."""
    pipeline = shipped.workloads["workload/llama3-70b-pretrain-b200"].estimate.metrics["cost_per_token"].m_as("USD")
    path = tmp_path / "one.yaml"
    path.write_text(ONE, encoding="utf-8")
    _, [result], _ = sw.evaluate_sweeps(path, [SPECS])
    batched = result.rows[0].metrics["cost_per_token"]
    single = per_point.evaluate(result.problem, 0, 1)[0].metrics["cost_per_token"]
    assert pipeline == batched == single
    assert 1e-7 < pipeline < 1e-6  # USD per token: cents per hundred thousand tokens


def _metric_lists() -> dict[frozenset[str], list[str]]:
    """Every module-level constant of archgen that lists two or more registry metrics by literal name, by its set."""
    import ast

    from archgen.metrics import REGISTRY
    from tests.parsed_source import tree

    names = {m.name for m in REGISTRY}
    package = Path(__file__).resolve().parent.parent / "archgen"
    found: dict[frozenset[str], list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in tree(path).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.args \
                    and value.func.id in ("frozenset", "set", "tuple"):
                value = value.args[0]
            if not isinstance(value, ast.Tuple | ast.List | ast.Set) or len(value.elts) < 2:
                continue
            words = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(words) == len(value.elts) and set(words) <= names:
                found.setdefault(frozenset(words), []).append(f"{path.relative_to(package.parent)}:{node.lineno}")
    return found


def test_each_list_of_metrics_is_declared_once():
    """A rule's list of metrics has one home (audit19: the memory metrics a misfit keeps were written again in
    `analyse.assumed`, and the metrics made from a point's power in both `perf.explore.hardware_scope` and
    `analyse.sweep_inputs`); import it from there instead of writing it out."""
    lists = _metric_lists()
    assert frozenset(("power", "energy_per_token", "job_it_energy")) in lists  # the scan sees the lists
    twice = {tuple(sorted(k)): v for k, v in lists.items() if len(v) > 1}
    assert not twice, f"the same metrics listed in several modules: {twice}"
