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


def _example(tmp_path, floor: float | None):
    """The example SU's run, in a hall with power smoothing `floor` (None: the shipped hall-liquid, no smoothing)."""
    src = REPO / "examples" / "gb300-nvl72-su"
    files = {str(p.relative_to(src)): p.read_text(encoding="utf-8") for p in src.rglob("*.yaml")}
    if floor is not None:
        files["facilities/hall-swing.yaml"] = (
            "kind: Facility\nid: hall-swing\nname: Smoothed hall\nfloor_rating: 2500 kg/m**2\n"
            "water: {supply: 30 degC}\nair: {supply: 25 degC}\nvoltage: 415 V\n"
            f"feeds: {{power_smoothing: {{floor: {floor}, source: test}}}}\n")
        cluster = "clusters/gb300-nvl72-su.yaml"
        files[cluster] = files[cluster].replace("facility: hall-liquid", "facility: hall-swing", 1)
    return run_specs(tmp_path, files)


def test_with_a_floor_the_swing_is_the_jobs_share_above_it(tmp_path) -> None:
    """A hall with a 0.7 floor: the swing is at most the job's share of the IT power x 0.3 (the same rule PWR022
    judges the cluster's step with, tests/checks/test_power_smoothing.py)."""
    run = _example(tmp_path, 0.7)
    est = run.workloads[JOB].estimate
    it, gpus = run.metrics[CLUSTER]["it_power"], run.metrics[CLUSTER]["accelerators"].m
    share = it.m_as("kW") * est.accelerators / gpus
    assert est.metrics["job_power_swing"].m_as("kW") == pytest.approx(share * 0.3)


def test_parts_stating_their_idle_draw_bound_the_swing(tmp_path, monkeypatch) -> None:
    """Each system and switch stating `power.idle` (no catalog part does: the draw is set here, x `share` of its
    maximum): a part in a communication phase draws at least its idle draw, so the swing is at most the sum of
    (maximum - idle), shelf loss included, and the smaller of that and the floor's bound is taken."""
    from archgen.analyse import job_swing
    from archgen.model.system import max_draw

    def swing(share: float, floor: float | None, root: str) -> float:
        monkeypatch.setattr(job_swing, "idle_draw", lambda p: max_draw(p) * share)
        return _example(tmp_path / root, floor).workloads[JOB].estimate.metrics["job_power_swing"].m_as("kW")

    assert swing(1.0, None, "flat") == pytest.approx(0.0, abs=1e-9)   # idle = maximum: nothing swings
    whole = swing(0.0, None, "zero")                                  # idle 0: every system and switch's draw
    assert swing(0.5, None, "half") == pytest.approx(whole / 2)      # linear in the idle share
    assert swing(0.5, 0.9, "floored") == pytest.approx(min(whole / 2, 0.1 * 1216.8), rel=1e-4)   # the smaller


def test_a_part_states_its_own_smoothing_floor(tmp_path) -> None:
    """nu81fix: GB300 NVL72's smoothing is the trays' and shelves' (NVIDIA Technical Blog 2025, "How New GB300 NVL72
    Features Provide Steady Power for AI"; NVML's floor and ramps are per GPU), so a part states it as
    `power.smoothing`; its floor x its maximum draw is the least it draws while running, the higher of that and
    `power.idle` where both are stated."""
    from archgen.analyse.job_swing import low_draw
    from archgen.model import System
    from archgen.model.system import max_draw

    run = _example(tmp_path, None)
    tray = next(p for p in run.design.specs.of(System) if p.id == "gb300-compute-tray")
    assert low_draw(tray) is None                       # the catalog tray states neither
    power = tray.power.model_validate({**tray.power.model_dump(), "smoothing": {"floor": 0.8, "source": "test"}})
    floored = tray.model_copy(update={"power": power})
    assert low_draw(floored).m_as("W") == pytest.approx(0.8 * max_draw(tray).m_as("W"))
    idle = power.model_copy(update={"idle": max_draw(tray) * 0.9})
    assert low_draw(tray.model_copy(update={"power": idle})).m_as("W") == pytest.approx(0.9 * max_draw(tray).m_as("W"))


def test_the_parts_floor_bounds_the_swing_where_the_hall_states_none_and_the_smaller_governs(tmp_path, monkeypatch):
    """Every system and switch floored at 0.8 of its maximum: the swing is 0.2 of their summed draw (shelf loss
    included, optics not swinging), the same as their idle draw at 0.8 would give; with a hall floor of 0.9 too, the
    hall's 0.1 x the job's IT power is the smaller and governs; with a hall floor of 0.5 the parts' governs."""
    from archgen.analyse import job_swing
    from archgen.model.system import max_draw

    monkeypatch.setattr(job_swing, "low_draw", lambda p: max_draw(p) * 0.8)
    parts = _example(tmp_path / "parts", None).workloads[JOB].estimate.metrics["job_power_swing"].m_as("kW")
    hall = _example(tmp_path / "hall", 0.9)
    it = hall.metrics[CLUSTER]["it_power"].m_as("kW")
    assert parts < 0.2 * it                                      # the optics' draw does not swing
    assert hall.workloads[JOB].estimate.metrics["job_power_swing"].m_as("kW") == pytest.approx(min(parts, 0.1 * it))
    low = _example(tmp_path / "low", 0.5).workloads[JOB].estimate.metrics["job_power_swing"].m_as("kW")
    assert low == pytest.approx(parts)


def test_without_either_the_reason_names_the_part_smoothing_too(example) -> None:
    assert "`power.smoothing.floor`" in example.operations.withheld[JOB]["job_power_swing"]


def test_a_tray_stating_its_smoothing_in_yaml_is_read_and_no_longer_named(tmp_path) -> None:
    """The example SU with the GB300 compute tray restated (CAT007) with `power.smoothing: {floor: 0.8, ...}`: the
    tray's least draw is read from YAML, so the reason names only the parts still stating neither bound."""
    src = REPO / "examples" / "gb300-nvl72-su"
    files = {str(p.relative_to(src)): p.read_text(encoding="utf-8") for p in src.rglob("*.yaml")}
    tray = (REPO / "specs/catalog/systems/gb300-compute-tray.yaml").read_text(encoding="utf-8")
    files["tray.yaml"] = tray.replace("  input: {type: dc}", "  smoothing: {floor: 0.8, source: test}\n"
                                      "  input: {type: dc}", 1)
    assert "smoothing" in files["tray.yaml"]
    run = run_specs(tmp_path, files)
    why = run.operations.withheld[JOB]["job_power_swing"]
    assert "gb300-compute-tray" not in why and "nvlink5-switch-tray" in why
    from archgen.analyse.job_swing import low_draw
    from archgen.model import System
    from archgen.model.system import max_draw
    part = next(p for p in run.design.specs.of(System) if p.id == "gb300-compute-tray")
    assert low_draw(part).m_as("kW") == pytest.approx(0.8 * max_draw(part).m_as("kW"))
