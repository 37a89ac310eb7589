"""A document lists a check as passed only where it judged something: no input, no pass.

The shipped GB200 NVL72 rack's trays publish no air flow, so COOL007 (rated air flow against the air-side heat) has
nothing to compare there; the DGX H100 rack's systems state 1,105 ft³/min each (DGX H100 user guide), so it does.
"""

from __future__ import annotations

from archgen.checks.scope import applies, rack_figures
from archgen.units import Q_


def _rack(shipped, rid: str):
    return next(r for r in shipped.design.racks if r.spec.id == rid)


def test_air_flow_check_applies_only_where_a_system_states_its_air_flow(shipped) -> None:
    assert not applies("COOL007", ["rack/gb200-nvl72"], [_rack(shipped, "gb200-nvl72")])
    assert applies("COOL007", ["rack/dgx-h100-4"], [_rack(shipped, "dgx-h100-4")])
    needed, rated = rack_figures("COOL007", shipped.racks["rack/dgx-h100-4"])
    assert rated.m_as("ft**3/min") == 4 * 1105


def test_coolant_supply_check_shows_what_it_compared(shipped) -> None:
    """COOL003 and COOL004 pass with their figures: hall-liquid's facility water against the rack's ASHRAE class
    maximum, and that water plus the in-row CDU's 5 K approach against the supply the trays accept."""
    a = shipped.racks["rack/gb200-nvl72"]
    water = a.rack.facility.water.supply.to("degC")
    lp = a.rack.spec.cooling.liquid
    value, limit = rack_figures("COOL003", a)
    assert (value.to("degC").m, limit.to("degC").m) == (water.m, {"W17": 17, "W27": 27, "W32": 32, "W40": 40,
                                                                  "W45": 45, "W+": 60}[lp.class_])
    value, limit = rack_figures("COOL004", a)
    assert abs(value.to("degC").m - (water.m + 5)) < 1e-9 and limit == lp.supply
    assert Q_(value.m, "degC") <= limit.to("degC")


def test_facility_capacity_checks_apply_only_where_the_hall_states_the_capacity(shipped) -> None:
    """PWR010 and COOL009 compare a cluster's total with its hall's stated `critical_it_power` and
    `cooling_capacity`; a hall that states neither (the shipped ones) has nothing to compare, so the document lists
    them as not applicable, not as "pass" (they read as passed for a limit nobody gave)."""
    from dataclasses import replace

    rack = _rack(shipped, "gb200-nvl72")
    assert rack.facility.critical_it_power is None and rack.facility.cooling_capacity is None
    assert not applies("PWR010", ["cluster/gb200-nvl72-su"], [rack])
    assert not applies("COOL009", ["cluster/gb200-nvl72-su"], [rack])
    hall = rack.facility.model_copy(update={"critical_it_power": Q_(250, "kW")})
    stated = replace(rack, facility=hall)
    assert applies("PWR010", ["cluster/gb200-nvl72-su"], [stated])
    assert not applies("COOL009", ["cluster/gb200-nvl72-su"], [stated])


def test_outlet_check_applies_only_where_a_pdu_states_its_outlets(shipped) -> None:
    """PWR016 compares PSU cords with a PDU's `outlets`: the shipped 415 V PDU states none (no datasheet), so the
    DGX H100 rack's document must not list PWR016 as passed."""
    assert not applies("PWR016", ["rack/dgx-h100-4"], [_rack(shipped, "dgx-h100-4")])


def test_air_direction_check_applies_only_where_a_part_is_judged(tmp_path) -> None:
    """review34: a rack whose only part stating an airflow is `passive` (listed, not judged) read COOL018 "pass"."""
    from tests.conftest import case_files, run_specs
    files = case_files("COOL018", "fail_side_exhaust_switch")
    judged = run_specs(tmp_path / "judged", files).racks["rack/r"].rack
    files["specs.yaml"] = files["specs.yaml"].replace("airflow: left-to-right", "airflow: passive")
    passive = run_specs(tmp_path / "passive", files).racks["rack/r"].rack
    assert applies("COOL018", ["rack/r"], [judged])
    assert not applies("COOL018", ["rack/r"], [passive])
