"""A sweep's TTFT requirement on an offline serving job says why it is not provided, as `check` does (newuser107).

An offline run queues every request at once, so its TTFT column is one request's prefill on an idle replica and a
target on it is not judged (`serving_estimate.OFFLINE_TTFT`, REQ002 in `check`). A sweep over the shipped
`llama3-70b-serve-b200` with `ttft <= 100 ms` at SHALL found every point not feasible, each reason reading "REQ-T
(SHALL) not provided: target <= 100 ms does not have the dimension of ttft": a time target, refused as if it were
not one, and no word of the offline run. A requirement on a figure the estimate names as not judgeable
(`Estimate.unjudged`) now gives that reason, whoever states it; the point stays infeasible, as `check` fails it.
"""

from __future__ import annotations

from archgen.perf.explore.points import evaluate
from tests.conftest import sweep_problem_written

SWEEP = """kind: Sweep
id: ttft
workload: llama3-70b-serve-b200
axes:
  tp: [8]
  batch: [16]
objectives:
  - {metric: tokens_per_second_per_gpu}
requirements:
  - {id: REQ-T, statement: TTFT, metric: ttft, target: "<= 100 ms"}
"""


def test_an_offline_ttft_requirement_is_not_provided_for_the_offline_reason(tmp_path):
    (row,) = evaluate(sweep_problem_written(tmp_path, SWEEP), 0, 1)
    assert row.status == "ok" and not row.feasible and row.met["REQ-T"] is None
    assert row.metrics["ttft"] > 0   # the figure is shown: one prefill on an idle replica
    assert row.reason.startswith("REQ-T (SHALL) not provided: an offline run has no TTFT to hold a target to: "
                                 "every request is queued at once"), row.reason
    assert "the decodes run 16 in flight" in row.reason
    assert "does not have the dimension" not in row.reason
