"""A training job's load swing as metrics a requirement can hold to an interconnection's limits (newuser81).

A power-quality engineer signing a training site's interconnection asks how far, how often and with what phase split
its load swings: synchronous training moves every GPU between a compute-heavy and a communication-heavy phase each
step, and compute draws much more (Choukse et al., "Power Stabilization for AI Training Datacenters",
arXiv:2508.14318, abstract). Before, the period was only a note and a document row, and no metric could be named
in a requirement ("unknown metric 'power_swing'"). Now: `swing_frequency` is 1 / step time, the
`exposed_communication_share` the step breakdown's exposed communication over the step time, and `job_power_swing`
the job's share of the IT power x (1 - the hall's `feeds.power_smoothing.floor`), not provided without a floor.
"""

from __future__ import annotations

import pytest

from archgen.perf.workload.swing_note import EXPOSED, swing_metrics
from archgen.units import Q_
from tests.conftest import REPO, run_specs

JOB = "workload/llama3-405b-pretrain-gb300"
CLUSTER = "cluster/gb300-nvl72-su"


def test_the_frequency_is_one_over_the_step_and_the_share_its_exposed_communication() -> None:
    # a 10 s step with 1 s of exposed DP and 0.5 s of TP communication, a 2 s bubble (not counted: stages wait in turn)
    bd = {"compute": Q_(6.5, "s"), "tp_comm": Q_(0.5, "s"), "dp_comm": Q_(1, "s"), "bubble": Q_(2, "s")}
    m = swing_metrics(10.0, bd)
    assert m["swing_frequency"].m_as("Hz") == pytest.approx(0.1)
    assert m["exposed_communication_share"].m_as("") == pytest.approx(0.15)
    assert swing_metrics(0.0, bd) == {}


def test_the_example_job_carries_its_swing_figures_from_its_own_step(example) -> None:
    est = example.workloads[JOB].estimate
    step = est.metrics["step_time"].m_as("s")
    assert est.metrics["swing_frequency"].m_as("Hz") == pytest.approx(1 / step)
    low, high = est.bands["step_time"].values(step)   # the frequency's band is the step time's, turned
    assert est.bands["swing_frequency"].values(1 / step) == pytest.approx((1 / high, 1 / low))
    exposed = sum(est.breakdown[k].m_as("s") for k in EXPOSED)
    assert est.metrics["exposed_communication_share"].m_as("") == pytest.approx(exposed / step)


def test_without_a_smoothing_floor_the_swing_is_not_provided_with_why(example) -> None:
    assert "job_power_swing" not in example.workloads[JOB].estimate.metrics
    why = example.operations.withheld[JOB]["job_power_swing"]
    assert "states no `feeds.power_smoothing.floor`" in why
    share = example.metrics[CLUSTER]["it_power"].to("kW")   # the job uses every accelerator of the SU
    assert f"at maximum draw, {share.m:,.1f} kW" in why


def test_with_a_floor_the_swing_is_the_jobs_share_above_it(tmp_path) -> None:
    """A hall with a 0.7 floor: the swing is at most the job's share of the IT power x 0.3 (the same rule PWR022
    judges the cluster's step with, tests/checks/test_power_smoothing.py)."""
    src = REPO / "examples" / "gb300-nvl72-su"
    files = {str(p.relative_to(src)): p.read_text(encoding="utf-8") for p in src.rglob("*.yaml")}
    files["facilities/hall-swing.yaml"] = ("kind: Facility\nid: hall-swing\nname: Smoothed hall\nfloor_rating: 2500 kg/m**2\n"
                   "water: {supply: 30 degC}\nair: {supply: 25 degC}\nvoltage: 415 V\n"
                   "feeds: {power_smoothing: {floor: 0.7, source: test}}\n")
    cluster = "clusters/gb300-nvl72-su.yaml"
    files[cluster] = files[cluster].replace("facility: hall-liquid", "facility: hall-swing", 1)
    run = run_specs(tmp_path, files)
    est = run.workloads[JOB].estimate
    it, gpus = run.metrics[CLUSTER]["it_power"], run.metrics[CLUSTER]["accelerators"].m
    share = it.m_as("kW") * est.accelerators / gpus
    assert est.metrics["job_power_swing"].m_as("kW") == pytest.approx(share * 0.3)
