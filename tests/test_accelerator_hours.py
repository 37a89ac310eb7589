"""A training run's accelerator-hours (GPU-hours), the figure published whole runs report (newuser47).

Llama 3.1 405B's model card states 30.84M H100-80GB GPU-hours (huggingface.co/meta-llama/Llama-3.1-405B, "Training
Energy Use"); DeepSeek-V3's report 2.788M H800 GPU-hours (arXiv 2412.19437, Table 1). archgen gave the run's time
(`time_to_train`) but no GPU-hours, so a planner multiplied by hand and could not put a target on them. Now
`accelerator_hours` is the time to train times the job's accelerators, `goodput_accelerator_hours` (with the ends of
goodput's range) the goodput time to train's, each with the step time's band as the times have (`run_bands`).
The design is the shipped 405B GB200 job with Llama 3.1 405B's 15.6e12 tokens (arXiv 2407.21783 section 3.1).
"""

from __future__ import annotations

import json

import pytest

from archgen.metrics import find
from archgen.model.requirements import Requirement, Status
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.derived import judge_requirements
from archgen.perf.workload.run_figures import run_energy
from tests.conftest import shipped_edited

PATH = "workloads/llama3-405b.yaml"
OLD = "  precision: bf16\nrequirements:\n"   # the first: llama3-405b-pretrain-gb200's
NEW = "  precision: bf16\ncheckpoint: {tokens: 15.6e12}\nrequirements:\n"
JOB = "workload/llama3-405b-pretrain-gb200"
LOW, HIGH = TABLE["dense-training"]["step_time"][1:3]
PAIRS = [("time_to_train", "accelerator_hours"), ("goodput_time_to_train", "goodput_accelerator_hours"),
         ("goodput_time_to_train_low", "goodput_accelerator_hours_low"),
         ("goodput_time_to_train_high", "goodput_accelerator_hours_high")]


@pytest.fixture(scope="module")
def run(edited_shipped):
    """The shipped specs with the token budget, through the pipeline once for the session (a `Run` is frozen): the
    edit is conftest's `TOKEN_BUDGET_405B`, so test_job_energy reads the same run."""
    from tests.conftest import TOKEN_BUDGET_405B
    assert (PATH, OLD, NEW) == TOKEN_BUDGET_405B
    return edited_shipped(PATH, OLD, NEW)


@pytest.fixture(scope="module")
def est(run):
    return run.workloads[JOB].estimate


@pytest.mark.parametrize(("time", "hours"), PAIRS)
def test_accelerator_hours_are_the_run_time_times_the_accelerators(est, time, hours):
    assert est.accelerators == 576
    assert est.metrics[hours].m_as("h") == pytest.approx(est.metrics[time].m_as("h") * 576)


@pytest.mark.parametrize("hours", ["accelerator_hours", "goodput_accelerator_hours"])
def test_accelerator_hours_carry_the_step_times_band(est, hours):
    v = est.metrics[hours]
    lo, hi = est.bands[hours].values(v)
    if hours == "accelerator_hours":
        assert (lo.m, hi.m) == (pytest.approx(v.m / (1 + HIGH)), pytest.approx(v.m / (1 + LOW)))
    assert est.bands[hours].describe() == est.bands["step_time"].describe()


def test_a_gpu_hours_target_is_judged_with_the_band(est):
    """A target met at the estimate but not at the band's pessimistic end is at risk, as time to train's is."""
    v = est.metrics["accelerator_hours"].m_as("h")
    slow = v / (1 + LOW)

    def status(target: float) -> Status:
        [o] = judge_requirements([Requirement(id="REQ-X-001", statement="x", metric="accelerator_hours",
                                              target=f"<= {target} h")], est)
        return o.status
    assert status(v * 0.99) is Status.NOT_MET
    assert status((v + slow) / 2) is Status.AT_RISK
    assert status(slow * 1.01) is Status.MET


def test_accelerator_hours_are_declared_in_hours():
    for name in ("accelerator_hours", "goodput_accelerator_hours", "goodput_accelerator_hours_high"):
        m = find("workload", name)
        assert m is not None and m.unit == "h"


def test_estimate_gives_the_runs_time_and_gpu_hours_as_check_does(est, tmp_path_factory, cli):
    """`archgen estimate` has every input of a run's time and GPU-hours (the token budget and its tokens/s); before
    (newuser47) it answered a time-to-train requirement "not provided (`archgen check` computes time_to_train)"."""
    root = tmp_path_factory.mktemp("hours_cli")
    shipped_edited(root, PATH, OLD, NEW.replace(
        "requirements:\n", "requirements:\n  - {id: REQ-GPUH, statement: GPU-hours, metric: accelerator_hours, "
        "target: '<= 1e9 h'}\n"))
    r = cli("estimate", "--workload", JOB.split("/")[1], "--path", str(root / "specs"), "--format", "json")
    out = json.loads(r.out)
    for name in ("time_to_train", "accelerator_hours"):
        assert out["metrics"][name]["value"] == pytest.approx(est.metrics[name].m_as("s"))
        assert out["bands"][name]["error"] == out["bands"]["step_time"]["error"]
    [req] = [q for q in out["requirements"] if q["id"] == "REQ-GPUH"]
    assert req["status"] == "met"


def test_job_it_energy_is_the_jobs_share_of_it_power_times_the_run_time(run):
    """A planner's energy per run: the cluster's maximum IT power x accelerators used / the cluster's x time to
    train (an upper bound: maximum draw, no PUE). Before (newuser47) no figure gave a run's energy."""
    est = run.workloads[JOB].estimate
    cluster = run.clusters["cluster/gb200-nvl72-su"]
    share = cluster.metrics["it_power"] * est.accelerators / cluster.accelerators
    assert est.metrics["job_it_energy"].m_as("MWh") == pytest.approx((share * est.metrics["time_to_train"]).m_as("MWh"))
    assert est.bands["job_it_energy"].describe() == est.bands["step_time"].describe()


def test_run_energy_needs_a_power_and_a_run_time():
    assert run_energy(float("nan"), {"time_to_train": 10.0}) == {}
    assert run_energy(None, {"time_to_train": 10.0}) == {}
    assert run_energy(2.0, {}) == {}
    assert run_energy(2.0, {"time_to_train": 10.0}) == {"job_it_energy": 20.0}


@pytest.mark.parametrize("name", [*(t for t, _ in PAIRS), *(h for _, h in PAIRS)])
def test_run_figures_are_shown_at_the_estimates_significant_figures(name):
    """A run's time and GPU-hours are estimates made from its tokens/s: shown as the step time is, at four significant
    figures, in `estimate`, documents and `check` alike (`display.metric_value`). newuser89: DeepSeek-V3 on 2,048 H800
    read "accelerator_hours 4,730,031 h" beside a band of 4,592,263 to 38,751,388 h."""
    from archgen.display import metric_value
    from archgen.units import Q_

    m = find("workload", name)
    assert m is not None and m.source == "perf/workload/run_figures.py"
    unit = "h" if "hours" in name else "day"
    shown = metric_value(m, Q_(4730031.4 if unit == "h" else 96.2345, unit))
    assert shown == ("4,730,000 h" if unit == "h" else "96.23 days")
