"""A ramp-limited load within a step's phases, and a blocking checkpoint as a load dip (nu81fix).

Where ramp rates are stated (GB300 NVL72 power smoothing: NVML's ramp-up and ramp-down rates in W/s), the load moves
at most rate x time: a swing S once a step falls and climbs back within it, S / down + S / up <= step, whatever the
split; by the model's split (not a measured duty cycle) at most min(down x exposed communication time, up x compute
time), said, not taken. A blocking checkpoint holds the GPUs for its blocking time once an interval, a dip as deep as
the swing's depth or ramp_down x that time, the smaller.
"""

from __future__ import annotations

import pytest

from archgen.analyse.swing_phases import checkpoint_dip, dip_words, job_words, ramped_swing, reach_words
from archgen.perf.workload.derived import job_share
from archgen.units import Q_
from tests.analyse.test_job_swing import CLUSTER, JOB
from tests.conftest import REPO, run_specs

UP, DOWN = Q_(10, "kW/s"), Q_(20, "kW/s")


def test_the_swing_a_ramp_reaches_in_a_step() -> None:
    # a 10 s step at 10 kW/s up and 20 kW/s down: S / 10 + S / 20 <= 10 s, so S <= 66.7 kW, whatever the split
    assert ramped_swing((UP, DOWN), Q_(10, "s")).m_as("kW") == pytest.approx(10 / (1 / 10 + 1 / 20))


def test_by_the_models_split_the_compute_phase_may_be_too_short() -> None:
    # 90 % exposed: 1 s of compute climbs 10 kW of a 50 kW depth (5 s needed): at most 10 kW by that split
    words = reach_words(Q_(50, "kW"), (UP, DOWN), Q_(10, "s"), Q_(0.9, ""))
    assert words == ("by the model's split of the step (not a measured duty cycle) the compute time, 1 s, is shorter "
                     "than the 5 s the load needs to climb back 50.0 kW at ramp_up, so its swing is at most 10.0 kW")
    # 10 % exposed: 1 s falls 20 kW of 50 kW: the low phase is too short; a 15 kW depth is reached both ways
    assert "exposed communication is too short to fall 50.0 kW" in reach_words(Q_(50, "kW"), (UP, DOWN),
                                                                                Q_(10, "s"), Q_(0.1, ""))
    assert reach_words(Q_(15, "kW"), (UP, DOWN), Q_(10, "s"), Q_(0.1, "")) == ""


def test_a_checkpoint_dip_is_the_depth_or_the_ramp_over_its_blocking_time() -> None:
    m = {"checkpoint_blocking_time": Q_(56.8, "s"), "checkpoint_interval": Q_(99, "min")}
    assert checkpoint_dip(m, Q_(365, "kW"), None)["checkpoint_power_dip"].m_as("kW") == pytest.approx(365)
    slow = (UP, Q_(5, "kW/s"))                                    # 5 kW/s x 56.8 s = 284 kW < 365 kW
    assert checkpoint_dip(m, Q_(365, "kW"), slow)["checkpoint_power_dip"].m_as("kW") == pytest.approx(284)
    assert checkpoint_dip(m, None, slow)["checkpoint_power_dip"].m_as("kW") == pytest.approx(284)   # ramps alone
    assert checkpoint_dip(m, None, None) == {}
    assert checkpoint_dip({**m, "checkpoint_blocking_time": Q_(0, "s")}, Q_(365, "kW"), None) == {}   # async


def test_the_dip_is_judged_against_the_halls_step_limit() -> None:
    m = {"checkpoint_blocking_time": Q_(56.8, "s"), "checkpoint_interval": Q_(99, "min"),
         "checkpoint_power_dip": Q_(365, "kW")}
    assert dip_words(m, Q_(500, "kW")) == ("a blocking checkpoint holds its GPUs for 56.8 s every 99.0 min, a dip of "
                                           "at most 365.0 kW (`checkpoint_power_dip`), within the hall's "
                                           "`feeds.load_step_limit` 500.0 kW at its fall and its return")
    assert "above the hall's" in dip_words(m, Q_(300, "kW"))
    assert "depth is not provided" in dip_words({k: v for k, v in m.items() if k != "checkpoint_power_dip"}, None)


def _hall(tmp_path, smoothing: str):
    src = REPO / "examples" / "gb300-nvl72-su"
    files = {str(p.relative_to(src)): p.read_text(encoding="utf-8") for p in src.rglob("*.yaml")}
    files["facilities/hall-swing.yaml"] = (
        "kind: Facility\nid: hall-swing\nname: Smoothed hall\nfloor_rating: 2500 kg/m**2\n"
        "water: {supply: 30 degC}\nair: {supply: 25 degC}\nvoltage: 415 V\n"
        f"feeds: {{power_smoothing: {smoothing}}}\n")
    cluster = "clusters/gb300-nvl72-su.yaml"
    files[cluster] = files[cluster].replace("facility: hall-liquid", "facility: hall-swing", 1)
    return run_specs(tmp_path, files)


def test_the_example_job_with_a_floor_and_ramps(tmp_path) -> None:
    """The example GB300 SU's job (14.02 s step, 6.2 % exposed) in a hall with a 0.7 floor (1,216.8 kW x 0.3 = 365.0
    kW) and 1 kW/s ramps: the swing is at most step / 2 kW (S / 1 + S / 1 <= step), and the row says that by the
    model's split 13.1 s of compute cannot climb back 365 kW, and 0.87 s of exposed communication falls 0.87 kW. The example states no checkpoint storage
    (REL006), so its blocking time and its dip are not provided, with that reason."""
    run = _hall(tmp_path, "{floor: 0.7, ramp_up: 1 kW/s, ramp_down: 1 kW/s, source: test}")
    est = run.workloads[JOB].estimate
    m = est.metrics
    step, share = m["step_time"].m_as("s"), m["exposed_communication_share"].m_as("")
    assert m["job_power_swing"].m_as("kW") == pytest.approx(step / 2)
    words = job_words(run.design.specs, run.clusters[CLUSTER], est)
    assert f"the compute time, {step * (1 - share):.3g} s, is shorter than the 365 s the load needs to climb back " \
        f"365.0 kW at ramp_up, so its swing is at most {step * share:.1f} kW" in words
    withheld = run.operations.withheld[JOB]
    assert "checkpoint_power_dip" not in m
    assert withheld["checkpoint_power_dip"] == withheld["checkpoint_blocking_time"]


def test_ramps_alone_give_the_swing_a_bound(tmp_path) -> None:
    run = _hall(tmp_path, "{ramp_up: 1 kW/s, ramp_down: 3 kW/s, source: test}")
    m = run.workloads[JOB].estimate.metrics
    assert m["job_power_swing"].m_as("kW") == pytest.approx(m["step_time"].m_as("s") / (1 + 1 / 3))


def test_fast_ramps_alone_swing_no_more_than_the_jobs_draw(tmp_path) -> None:
    """review44: ramps alone gave step / (1/up + 1/down) uncapped: at the field's own example, 2 MW/s each way, the
    example job's 14 s step read a swing of ~14 MW on 1,216.8 kW. A draw cannot fall below nothing, so the swing
    (and a checkpoint's dip) is at most the job's share of the IT power at maximum draw, the bound the withheld
    swing's reason already names."""
    run = _hall(tmp_path, "{ramp_up: 2 MW/s, ramp_down: 2 MW/s, source: test}")
    est, a = run.workloads[JOB].estimate, run.clusters[CLUSTER]
    share = job_share(a.metrics["it_power"], est.accelerators, a.accelerators).m_as("kW")
    assert est.metrics["step_time"].m_as("s") * 1000 > share    # the ramp bound alone is above the job's draw
    assert est.metrics["job_power_swing"].m_as("kW") == pytest.approx(share)


def test_a_checkpoint_dip_by_ramps_alone_is_at_most_the_jobs_draw() -> None:
    m = {"checkpoint_blocking_time": Q_(56.8, "s")}
    fast = (Q_(2000, "kW/s"), Q_(2000, "kW/s"))
    assert checkpoint_dip(m, None, fast, Q_(1216.8, "kW"))["checkpoint_power_dip"].m_as("kW") == pytest.approx(1216.8)
    assert checkpoint_dip(m, None, (UP, DOWN), Q_(1216.8, "kW"))["checkpoint_power_dip"].m_as("kW") == \
        pytest.approx(DOWN.m_as("kW/s") * 56.8)


def test_the_parts_slower_ramps_govern_the_jobs_swing(tmp_path, monkeypatch) -> None:
    """power30: a hall ramping at 2 MW/s whose every system and switch states 100 W/s (monkeypatched: no catalog
    part states ramps). The hall's replaced the parts' (review44's item 3), so the job's swing was capped at its
    share of the IT power (1,216.8 kW); the load ramps no faster than its parts allow, so the swing is
    step / (1 / up + 1 / down) at the job's share of the parts' summed ramps, 180.6 kW."""
    from archgen.analyse import job_swing

    monkeypatch.setattr(job_swing, "part_ramps", lambda p: (Q_(100, "W/s"), Q_(100, "W/s")))
    run = _hall(tmp_path, "{ramp_up: 2 MW/s, ramp_down: 2 MW/s, source: test}")
    est, a = run.workloads[JOB].estimate, run.clusters[CLUSTER]
    parts = job_swing.parts_swing(run.design.specs, a)
    up = job_share(parts.up, est.accelerators, a.accelerators).m_as("kW/s")
    step = est.metrics["step_time"].m_as("s")
    assert est.metrics["job_power_swing"].m_as("kW") == pytest.approx(step / (2 / up))
    assert est.metrics["job_power_swing"].m_as("kW") < 0.2 * job_share(a.metrics["it_power"], est.accelerators,
                                                                      a.accelerators).m_as("kW")
