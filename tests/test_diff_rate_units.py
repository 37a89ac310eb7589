"""A rate in `diff` reads as `check` says it: ``tokens/s``, not pint's ``1/s`` (newuser65's trial).

A pull request raising a throughput target showed ``SHALL tokens_per_second >= 600000 1/s → ... >= 2000000 1/s`` and
``1,478,983 1/s → 1,478,983 1/s`` in its comment, beside PERF001's ``1,479,000 tokens/s, target >= 2000000 1/s``.
"""

from __future__ import annotations

from archgen.compare.diff import MetricChange
from archgen.compare.requirement_changes import RequirementState
from archgen.model.requirements import Status
from archgen.output.diff_cells import metric_cells, requirement_value
from archgen.units import Q_


def test_a_rate_metric_reads_in_what_it_counts():
    cells = metric_cells(MetricChange("workload/w", "tokens_per_second", Q_(1_478_983, "1/s"), Q_(1_600_000, "1/s")))
    assert cells[:3] == ("1,478,983 tokens/s", "1,600,000 tokens/s", "+121,017 tokens/s")


def test_a_requirement_value_on_a_rate_reads_in_what_it_counts():
    state = RequirementState("workload/w", "REQ-PERF-002", "Training throughput", "tokens_per_second",
                             ">= 2,000,000 tokens/s", "shall", Status.NOT_MET, Q_(1_478_983, "1/s"))
    assert requirement_value(state) == "1,478,983 tokens/s"

