"""A batched training sweep on an AMD part takes the vendor's stack profile, as `archgen estimate` and the point path do.

`estimate` moves a training job that states no stack onto its accelerator's vendor's newest profile
(`training_setup.on_its_vendor`: primus-2025 on AMD, nemo-2025 on others; docs/perf-model.md, Stack profiles), and so
does a sweep's point path, which runs `estimate`. The batched path (`perf.explore.vectorised`) set its layouts up from
the workload as written, so an MI355X point was timed under nemo-2025's switches: the shipped llama3-70b-pretrain-b200
on mi355x-th5 at 64 accelerators read 21.37 s a step there and 22.05 s on the point path (review27; already so at
9eaae691). Both paths now give the same step time; the B200 point, whose vendor's profile is the default, was equal
before and stays so.
"""

from __future__ import annotations

import pytest

from tests.conftest import SPECS, sweep_problems_of

SWEEP = """\
kind: Sweep
id: vendor-stack
workload: llama3-70b-pretrain-b200
axes:
  cluster: [mi355x-th5, dgx-b200-superpod]
  accelerators: [64]
objectives:
  - {metric: tokens_per_second}
"""


def test_the_batched_path_times_each_vendors_stack_as_the_point_path_does(tmp_path) -> None:
    from archgen.perf.explore import points, vectorised

    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP, encoding="utf-8")
    problem = sweep_problems_of(path, [SPECS, tmp_path])[0]
    one, batched = points.evaluate(problem, 0, problem.size), vectorised.evaluate(problem, 0, problem.size)
    assert [r.status for r in one] == [r.status for r in batched] == ["ok", "ok"]
    for a, b in zip(one, batched, strict=True):
        assert b.layout == a.layout
        assert b.metrics["step_time"] == pytest.approx(a.metrics["step_time"], rel=1e-9), a.cluster
