"""A value that a message's decimals would round to zero keeps two significant figures (newuser41, nu41misc).

`archgen check` on an MI355X job whose goodput was 8.7e-06 said REQ001 "goodput = 0.000, target >= 0.9" and REL003
"so goodput is 0.000": a figure that is not zero read as zero. `archgen gap` already showed 8.7e-06
(`display.significant` at two figures); the findings now use the same rule (`display.decimals`).

The design is REL003's failing case (tests/checks/cases/REL003.yml: 64 of 64 H100s in 8 nodes, none idle) on a
test set whose only class is the host, failing once a year (afr 1, the most the validator takes) with a repair of a
year: 8 nodes in repair on average and no spare, so the job waits most of its time and goodput is below 0.0005.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.display import decimals, significant
from archgen.output.estimate import show_value
from tests.conftest import case_files, run_specs

RATES = """kind: FailureRates
id: year-long-repair
name: test rates, every host fails once a year and is repaired in a year
accelerators: [h100-sxm5-80gb]
source: test
classes:
  host: {afr: 1, per_accelerators: 8, repair: 8766 h, basis: assumed, source: test}
"""
REQUIREMENT = ("kind: Requirements\nid: r\nrequirements:\n  - {id: REQ-GP, statement: Goodput, subject: workload/w, "
               "metric: goodput, target: '>= 0.9'}\n")


def test_a_goodput_near_zero_reads_at_two_significant_figures(tmp_path: Path):
    files = case_files("REL003", "fail_job_uses_every_node")
    files["c.yaml"] = files["c.yaml"].replace("facility: hall-air\n",
                                              "facility: hall-air\nfailure_rates: year-long-repair\n")
    r = run_specs(tmp_path, {**files, "f.yaml": RATES, "r.yaml": REQUIREMENT})
    goodput = r.workloads["workload/w"].estimate.metrics["goodput"].m
    assert 0 < goodput < 0.0005   # three decimals read 0.000
    text = significant(goodput, 2)
    # no idle node: the range covers the repair wait down to none (goodput16k), so the target is met at one end only
    [req] = [f for f in r.findings if f.id == "REQ002"]
    assert f"goodput lies between {significant(goodput, 4)} and " in req.message   # before: goodput = 0.000
    [rel] = [f for f in r.findings if f.id == "REL003"]
    assert f"its cluster leaves 0 idle, so goodput is {text};" in rel.message   # before: 0.000


@pytest.mark.parametrize(("value", "digits", "text"), [
    (8.7e-06, 3, "8.7e-06"), (0.00034, 3, "0.00034"), (-0.00034, 3, "-0.00034"), (0.0005, 3, "0.0005"),
    (0.184, 3, "0.184"), (0.0, 3, "0.000"), (1234.5678, 1, "1,234.6"), (0.0523, 2, "0.052"), (0.3, 0, "0.3"),
    (5.3, 0, "5")])
def test_decimals_keep_what_would_round_to_zero(value, digits, text):
    assert decimals(value, digits) == text


def test_the_estimate_text_keeps_a_small_figure():
    """`estimate`'s and `estimate --cases`' dimensionless values (`output.estimate.show_value`) had their own
    three decimals, so 8.7e-06 read 0.000 there too (leftovers21); now `decimals`' rule, the same text above 0.01."""
    assert show_value(8.7e-06, "dimensionless") == "8.7e-06"                      # before: 0.000
    assert show_value(0.5, "dimensionless") == "0.500" and show_value(12.3, "dimensionless") == "12"
