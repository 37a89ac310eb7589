"""A training sweep's batched path adds a stated second switch hop as `archgen estimate` and the point path do.

nu59fix added a multi-rack domain's stated switch `latency` on the ring steps that cross racks
(`perf.workload.racks_note.second_hop`) in `estimate_on_cluster`, which `archgen estimate` and a sweep's point path
(`perf.explore.points.evaluate_point`) run; the batched path (`perf.explore.vectorised`) built its hardware without
it, so the same point read the one-rack latency there (review27). The pod is tests/test_scale_up_fabric_latency.py's:
64 MI355X over two racks of a UALink domain, its test switch stating 250 ns (the UALink Consortium's under-250 ns
target at 100T; docs/perf-model.md, Scale-up domains over several racks): 1.9 us + 250 ns x 1 / 63 a step on average.
A `latency` axis scales the part's step and the hop is added after, on both paths.
"""

from __future__ import annotations

import pytest

from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import sweep_problems_of
from tests.test_scale_up_cages import RACK
from tests.test_scale_up_fabric_latency import JOB

SWEEP = """---
kind: Sweep
id: s
workload: w
axes:
  tp: [8]
  latency: [1, 2]
objectives:
  - {metric: tokens_per_second}
"""


def _steps(tmp_path, latency: str, batched: bool) -> list[float]:
    from archgen.perf.explore import points, vectorised

    parts = PARTS.split("---\nkind: Rack")[0]
    if latency:
        parts = parts.replace("power: {max: 3 kW}", f"latency: {latency}\npower: {{max: 3 kW}}", 1)
    path = tmp_path / ("hop" if latency else "none") / "c.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(parts + RACK + JOB.replace("GPUS", "64") + SWEEP, encoding="utf-8")
    problem = sweep_problems_of(path, [path.parent])[0]
    rows = (vectorised.evaluate if batched else points.evaluate)(problem, 0, problem.size)
    assert [r.status for r in rows] == ["ok", "ok"]
    return [r.metrics["step_time"] for r in rows]


@pytest.mark.parametrize("batched", [False, True])
def test_a_stated_hop_slows_each_point_on_both_paths(tmp_path, batched) -> None:
    """Before, the batched path's step times were the same with and without the switch's 250 ns."""
    without, hop = _steps(tmp_path, "", batched), _steps(tmp_path, "250 ns", batched)
    assert all(h > w for h, w in zip(hop, without, strict=True)), (hop, without)


def test_the_hop_moves_the_batched_step_as_it_moves_the_point_paths(tmp_path) -> None:
    """What the hop adds at each latency level is the same on both paths (to the model's rounding)."""
    added = [[h - w for h, w in zip(_steps(tmp_path / f"{b}", "250 ns", b), _steps(tmp_path / f"{b}", "", b),
                                    strict=True)] for b in (False, True)]
    assert added[1] == pytest.approx(added[0], rel=1e-6)
