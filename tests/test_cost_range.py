"""One definition of a job's cost range for `check` and a sweep point (issue 22; docs/reliability.md, Cost).

The last session's closing note: `check`'s cost range spanned the hot spares only (goodput's value at both ends),
while a sweep point's spanned goodput's range too, so the same job's `cost_per_token_high` was higher in a sweep.
Both now call `perf.workload.derived.cost_ends`: the low end charges the job's accelerators per goodput token at
`goodput_high`, the high end those and the charged spares per goodput token at `goodput_low`.
"""

from __future__ import annotations

import pytest

SWEEP = """kind: Sweep
id: same-job
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [512]
objectives:
  - {metric: cost_per_token}
"""


def test_check_and_a_sweep_point_give_the_shipped_70b_job_the_same_cost_range(tmp_path, shipped):
    """The shipped 70B job on 512 of the DGX B200 SuperPOD's 1,016 GPUs, by `check` and as a one-point sweep."""
    from archgen.perf.explore.points import evaluate
    from tests.test_sweep import problem_of

    m = shipped.workloads["workload/llama3-70b-pretrain-b200"].estimate.metrics
    (point,) = evaluate(problem_of(tmp_path, SWEEP), 0, 1)
    p = point.metrics
    assert p["tokens_per_second"] == pytest.approx(m["tokens_per_second"].m_as("1/s"))   # the same layout
    for name in ("goodput", "goodput_low", "goodput_high"):
        assert p[name] == pytest.approx(m[name].m, rel=1e-12)
    for name in ("cost_per_token", "cost_per_token_low", "cost_per_token_high"):
        assert p[name] == pytest.approx(m[name].m_as("USD"), rel=1e-9), name
    # the low end is below the value (goodput_high), not the value itself
    assert m["cost_per_token_low"] < m["cost_per_token"] < m["cost_per_token_high"]
