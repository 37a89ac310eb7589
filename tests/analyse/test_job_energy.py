"""A job's facility energy per million tokens and a training run's energy (newuser48).

A sustainability report states the energy of one training run and of a million tokens served; on main `check`
gave neither (only a sweep point's IT energy per token, at maximum draw and without the PUE), so the run's energy had
to be rebuilt by hand from the time to train and the cluster's power. Each figure here is the formula of
`archgen.analyse.job_energy`: the job's share of the cluster's average IT load × the hall's annual PUE (The Green
Grid White Paper #49: facility energy over IT energy) over its tokens per second.
"""

from __future__ import annotations

import re

import pytest

from archgen.metrics import find
from tests.conftest import TOKEN_BUDGET_405B, shipped_edited

#: The Llama 3.1 run's token budget: "15T+" tokens (Llama 3.1 model card); 15.6e12 as the shipped docs take it.
TOKENS = 15.6e12
PUE = 1.2   # hall-liquid's `cost.energy.pue` (assumed, specs/catalog/facilities/hall-liquid.yaml)


@pytest.fixture(scope="module")
def run(edited_shipped):
    """The shipped specs with the 405B job's token budget (`TOKEN_BUDGET_405B`: TOKENS), as test_accelerator_hours
    reads them: one run for both."""
    budget = re.search(r"\{tokens: ([^}]+)\}", TOKEN_BUDGET_405B[2])
    assert budget and float(budget.group(1)) == TOKENS
    return edited_shipped(*TOKEN_BUDGET_405B)


def _share(run, workload: str) -> tuple[dict, float]:
    m = run.workloads[f"workload/{workload}"].estimate
    c = run.metrics["cluster/gb200-nvl72-su"]
    load = c["power_average"].m_as("W") * m.accelerators / c["accelerators"].m
    return m.metrics, load * PUE


def test_training_run_energy_is_load_times_pue_times_time_to_train(run):
    m, power = _share(run, "llama3-405b-pretrain-gb200")
    tps = m["tokens_per_second"].m_as("1/s")
    assert m["facility_energy_per_million_tokens"].m_as("J") == pytest.approx(power / tps * 1e6)
    # the same as the hall's draw for the job over its time to train (15.6e12 tokens / tokens per second)
    assert m["job_energy"].m_as("J") == pytest.approx(power * m["time_to_train"].m_as("s"))
    assert m["job_energy"].m_as("J") == pytest.approx(power * TOKENS / tps)


def test_the_halls_run_energy_is_the_it_energy_at_the_average_load_times_the_pue(run):
    # job_it_energy (newuser47) is the job's share of the cluster's maximum IT power x time to train, job_energy its
    # average load's x PUE: on the same run their ratio is PUE x average / maximum (1.2 x 1,122.7 / 1,146.4 kW),
    # and the facility energy per million tokens is job_energy over the run's tokens x 10^6 (review23)
    m = run.workloads["workload/llama3-405b-pretrain-gb200"].estimate.metrics
    c = run.metrics["cluster/gb200-nvl72-su"]
    ratio = PUE * c["power_average"].m_as("W") / c["it_power"].m_as("W")
    assert m["job_energy"].m_as("J") == pytest.approx(m["job_it_energy"].m_as("J") * ratio)
    assert m["facility_energy_per_million_tokens"].m_as("J") == pytest.approx(m["job_energy"].m_as("J") / TOKENS * 1e6)


def test_serving_energy_per_million_tokens_charges_the_jobs_share(run):
    # 72 of the SU's 576 GPUs: an eighth of its average load, x PUE, over the served tokens/s
    m, power = _share(run, "llama3-70b-serve-gb200")
    assert m["facility_energy_per_million_tokens"].m_as("J") == pytest.approx(power / m["tokens_per_second"].m_as("1/s") * 1e6)
    assert "job_energy" not in m   # a service has no run to total


def test_the_figures_carry_the_models_band_and_say_what_they_leave_out(run):
    est = run.workloads["workload/llama3-405b-pretrain-gb200"].estimate
    assert {"facility_energy_per_million_tokens", "job_energy"} <= set(est.bands)
    for name in ("facility_energy_per_million_tokens", "job_energy"):
        text = find("workload", name).description
        assert "PUE" in text and "before goodput" in text


def test_a_requirement_on_the_run_energy_names_what_it_rests_on(tmp_path):
    # REQ005: met on the hall's assumed PUE and the parts' unconfirmed power figures, as the cluster's energy is
    r = shipped_edited(tmp_path, "workloads/llama3-405b.yaml", "  precision: bf16\nrequirements:\n",
                       f"  precision: bf16\ncheckpoint: {{tokens: {TOKENS:g}}}\nrequirements:\n"
                       "  - {id: REQ-E-001, statement: Run energy, metric: job_energy, target: '<= 1000000 MWh'}\n")
    found = [f for f in r.findings if f.id == "REQ005" and "REQ-E-001" in f.message]
    assert len(found) == 1
    # r39fix: the PUE alone (no price enters an energy), where it read "hall-liquid energy price and PUE"
    assert "hall-liquid PUE" in found[0].message and "energy price" not in found[0].message
    assert "power.max (unconfirmed)" in found[0].message


def test_the_old_name_is_read_as_the_new_one_with_a_located_warning(tmp_path):
    # energy_per_million_tokens was renamed facility_energy_per_million_tokens (review23): not 10^6 x a sweep point's
    # energy_per_token (IT at maximum draw); a requirement on the old name is judged on the new with SPC003
    r = shipped_edited(tmp_path, "workloads/llama3-405b.yaml", "  precision: bf16\nrequirements:\n",
                       "  precision: bf16\nrequirements:\n  - {id: REQ-E-002, statement: Energy per token, metric: "
                       "energy_per_million_tokens, target: '<= 100 kWh'}\n")
    [spc] = [f for f in r.findings if f.id == "SPC003" and "energy_per_million_tokens" in f.message]
    assert "'facility_energy_per_million_tokens'" in spc.message and spc.location is not None
    assert any(f.id == "REQ005" and "REQ-E-002" in f.message and "facility_energy_per_million_tokens = " in f.message
               for f in r.findings)
