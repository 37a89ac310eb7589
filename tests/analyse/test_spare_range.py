"""A training job's spares, spare power and space and restart time carry their range over the rate sets (nu41cost).

newuser41: 54 spares read "met <= 72" while at one end of goodput's range (the `rsc1-jobs-a100-2024` set) `check`
said no number of hot spares holds goodput 0.9: the spare figures depend on the failure rates whose spread goodput
carries (`goodput_low/high`), yet had no range. Now each has `_low/_high`, the least and most over the same ends
(`analyse.goodput_range.failure_ends`: every published set at both ends of its 95 % Poisson interval), and a
requirement met at the value but not at its range's far end is at risk (REQ004). The shipped Llama 3.1 405B job on
the GB200 SU (576 of 576 GPUs, goodput target 0.9 by default) is the design.
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.goodput import failure_ends, for_job, job_goodput
from archgen.metrics import unbounded
from archgen.model.requirements import Requirement, Status
from archgen.perf.train.goodput import with_unblocked
from archgen.perf.workload.derived import judge_requirements

JOB = "workload/llama3-405b-pretrain-gb200"


@pytest.fixture(scope="module")
def job(shipped):
    return shipped.workloads[JOB], shipped.operations.goodput[JOB]


def test_the_spares_range_is_the_count_at_each_end_of_goodputs_range(shipped, job):
    r, g = job
    a = shipped.clusters[f"cluster/{r.estimate.cluster}"]
    rel = shipped.operations.reliability[a.cluster.path]
    cp = r.workload.checkpoint
    ends = [job_goodput(f, cp, g.checkpoint_size, g.accelerators, g.target)
            for f in with_unblocked(tuple(for_job(f, r.workload) for f in failure_ends(rel, shipped.design.specs, a)),
                                    g.blocking_assumed)]
    counts = [math.inf if e.spares_needed is None else e.spares_needed for e in ends if e is not None]
    m = r.estimate.metrics
    assert (m["spares_low"].m, m["spares_high"].m) == (min(counts), max(counts))
    assert m["spares_low"].m <= m["spares"].m <= m["spares_high"].m
    assert (m["spares"].m, m["spares_low"].m, m["spares_high"].m) == (18, 0, 72)   # 1, 0 and 4 whole NVL72 racks
    # 18 trays and 9 NVLink switch trays per whole idle NVL72 rack (spare_power's rule): proportional to the racks
    assert m["spare_power_high"].m_as("kW") == pytest.approx(m["spare_power"].m_as("kW") * 4)
    assert m["spare_space_high"].m_as("U") == pytest.approx(m["spare_space"].m_as("U") * 4)
    assert m["restart_time_low"] <= m["restart_time"] <= m["restart_time_high"]


@pytest.mark.parametrize("metric, unit", [("spares", ""), ("spare_power", "kW"), ("spare_space", "U"),
                                          ("restart_time", "min")])
def test_a_target_met_at_the_value_but_not_at_the_ranges_far_end_is_at_risk(job, metric, unit):
    est = job[0].estimate
    value, high = est.metrics[metric].m_as(unit), est.metrics[f"{metric}_high"].m_as(unit)
    assert value < high

    def status(target: float) -> Status:
        [o] = judge_requirements([Requirement(id="REQ-X-001", statement="x", metric=metric,
                                              target=f"<= {target} {unit}".strip())], est)
        return o.status

    assert status((value + high) / 2) is Status.AT_RISK   # before: met
    assert status(high * 1.01) is Status.MET
    assert status(value * 0.99) is Status.NOT_MET


def test_an_end_no_count_holds_reads_why():
    assert unbounded("spares_high") == ("no upper bound: at one end of the failure-rate range no number of hot "
                                        "spares holds the goodput target (REL003)")
    assert unbounded("spare_power_high") == unbounded("spares_high")
    assert "more of the job's nodes are in repair than it has spares" in unbounded("restart_time_high")
