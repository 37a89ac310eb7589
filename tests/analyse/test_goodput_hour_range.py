"""The cost per goodput accelerator-hour carries goodput's range, so a target on it met at the value is at risk.

The input that showed it (new-user trial, a fleet reliability engineer): a vendor requirement
`tco_per_goodput_accelerator_hour <= 2.5 USD` on a 1,152-GPU GB200 cluster read "met" (1.79 USD) in `gap`, with no
range, while `goodput >= 0.9` on the same job read "at risk" (0.919, its range 0.252 to 0.976): the figure is the
cost per used hour over that goodput, so at goodput's low end it is 1.646 / 0.252 = 6.5 USD. Here the shipped GB200
SU: its Llama 3.1 405B job on all 576 GPUs has goodput 0.796 (0.154 to 0.916), cost per used hour 1.63 USD.
"""

from __future__ import annotations

import pytest

from tests.conftest import shipped_edited

CLUSTER = "cluster/gb200-nvl72-su"
REQ = ("  - {id: REQ-COST-GP, statement: Cost per goodput GPU-hour, metric: tco_per_goodput_accelerator_hour, "
       "target: \"<= 3 USD\"}\n")

ANCHOR = "target: \"== 8\"}\n"   # the cluster's last requirement: REQ goes after it


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """`check` of the shipped specs with a cost-per-goodput-hour target on the GB200 SU."""
    return shipped_edited(tmp_path_factory.mktemp("gphour"), "clusters/gb200-nvl72-su.yaml", ANCHOR, ANCHOR + REQ)


def test_its_ends_are_the_used_hour_cost_over_goodputs_ends(result):
    m = result.clusters[CLUSTER].metrics
    used = m["tco_per_used_accelerator_hour"]
    assert m["tco_per_goodput_accelerator_hour"].m == pytest.approx((used / m["goodput"]).m)
    assert m["tco_per_goodput_accelerator_hour_low"].m == pytest.approx((used / m["goodput_high"]).m)
    assert m["tco_per_goodput_accelerator_hour_high"].m == pytest.approx((used / m["goodput_low"]).m)
    assert str(m["tco_per_goodput_accelerator_hour_high"].units) == str(used.units)


def test_a_target_met_at_the_value_but_not_at_goodputs_low_end_is_at_risk(result):
    m = result.clusters[CLUSTER].metrics
    assert m["tco_per_goodput_accelerator_hour"].m < 3 < m["tco_per_goodput_accelerator_hour_high"].m
    status = {j.bound.req.id: j.outcome.status.value for j in result.requirements}
    assert status["REQ-COST-GP"] == "at risk"
    (finding,) = [f for f in result.findings if f.id == "REQ004" and f.requirement == "REQ-COST-GP"]
    assert "tco_per_goodput_accelerator_hour" in finding.message


def test_the_job_reading_charges_the_whole_cluster_to_the_jobs_own_accelerators():
    """Trial item 4: a job on 1,080 of 1,152 GPUs read 1.79 USD per goodput hour, the cluster's cost spread over all
    1,152 (idle spares included). Per goodput hour of the job's own GPUs it is 1.79 x 1,152 / 1,080 = 1.91 USD:
    `tco_per_job_goodput_accelerator_hour`, beside it, with its range on the same goodput ends."""
    from archgen.analyse.operations_stage import goodput_hour_cost
    from archgen.units import Q_

    used, share = Q_(1.646, "USD"), 1152 / 1080
    m = goodput_hour_cost(used, {"goodput": Q_(0.919, ""), "goodput_low": Q_(0.252, ""),
                                 "goodput_high": Q_(0.976, "")}, share)
    assert m["tco_per_goodput_accelerator_hour"].m == pytest.approx(1.79, abs=0.005)
    assert m["tco_per_job_goodput_accelerator_hour"].m == pytest.approx(1.91, abs=0.005)
    for end in ("", "_low", "_high"):
        assert m[f"tco_per_job_goodput_accelerator_hour{end}"].m == pytest.approx(
            m[f"tco_per_goodput_accelerator_hour{end}"].m * share)


def test_a_job_on_every_accelerator_reads_the_same_both_ways(shipped):
    m = shipped.clusters[CLUSTER].metrics   # the SU's 405B job runs on all 576 GPUs
    assert m["tco_per_job_goodput_accelerator_hour"] == m["tco_per_goodput_accelerator_hour"]
