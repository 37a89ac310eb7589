"""Why a requirement's metric is not provided: a declared metric gets no "did you mean" (newuser34).

A POC planner's `archgen gap` of the shipped GB200 NVL72 SU (specs/clusters/gb200-nvl72-su.yaml: a two-tier compute
fabric, `tiers: 2`; hall-liquid states no `peak_pue`, specs/catalog/facilities/hall-liquid.yaml) against targets on
`core.switches`, `spine.oversubscription` and `facility_power_peak`, all in docs/metrics.md, read "has no metric
'core.switches'; did you mean 'leaf.switches'?", "... did you mean 'leaf.oversubscription'?" and "... did you mean
'facility_power'?": as if the planner had misspelt a metric that the design simply does not have.
"""

from __future__ import annotations

from archgen.checks.absent import absent
from archgen.commands.gap import gap
from tests.conftest import SPECS

REQUIREMENTS = """\
kind: Requirements
id: poc
requirements:
  - {id: R-CORE, statement: Core switches, subject: "cluster/*/fabric/compute", metric: core.switches,
     target: "<= 100"}
  - {id: R-SPINE, statement: Non-blocking spines, subject: "cluster/*/fabric/compute",
     metric: spine.oversubscription, target: "<= 1"}
  - {id: R-PEAK, statement: Peak facility power, subject: "cluster/*", metric: facility_power_peak,
     target: "<= 2 MW"}
"""


def test_gap_says_why_a_declared_metric_is_absent(tmp_path) -> None:
    reqs = tmp_path / "reqs"
    reqs.mkdir()
    (reqs / "poc.yaml").write_text(REQUIREMENTS, encoding="utf-8")
    report = gap([SPECS / "clusters" / "gb200-nvl72-su.yaml"], [reqs])
    notes = {r.requirement.id: r.note for r in report.rows}
    assert {r.status for r in report.rows} == {"not provided"}
    fabric = "cluster/gb200-nvl72-su/fabric/compute"
    assert notes["R-CORE"] == f"{fabric} has no core tier (its tiers: leaf, spine), so no 'core.switches'"
    assert notes["R-SPINE"] == f"{fabric}'s spine is its top tier, with no uplinks, so no 'spine.oversubscription'"
    assert notes["R-PEAK"].startswith("cluster/gb200-nvl72-su's facility_power_peak is not provided: docs/metrics.md "
                                      "gives none where the hall states no `peak_pue`")   # then the halls' case
    assert not any("did you mean" in n for n in notes.values())


def test_an_undeclared_name_keeps_its_suggestion() -> None:
    known = {"feed_capacity_usable": None, "it_power": None}
    assert absent("rack/r", "feed_capacity_usabel", known) == (
        "rack/r has no metric 'feed_capacity_usabel'; did you mean 'feed_capacity_usable'?")


def test_a_metric_of_other_jobs_names_them() -> None:
    known = {"busbw": None, "time": None}
    assert absent("workload/w", "ttft", known) == "workload/w is a collective job: 'ttft' is a metric of inference jobs"
