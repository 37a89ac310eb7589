"""A rack requirement met on unconfirmed part power figures says so (REQ005, `analyse.rack_power_inputs`; newuser46).

A Vera Rubin NVL72 rack drafted from announcements (rubin tdp 1,800 W, vr-compute-tray power.max 8.2 kW, both listed
unconfirmed) read "rack/vr-nvl72 | Rack IT power | <= 200 kW | 183.6 kW | met" in `gap` and the compliance matrix, as
a rack of datasheet figures would; `check` named such figures only for a cluster (PWR012, info). The shipped GB200
NVL72 rack's tray (`gb200-compute-tray` power.max, derived from the 132 kW rack) and shelves (`orv3-power-shelf-33kw`
efficiency) are listed unconfirmed, and its REQ-COOL-001 (heat to liquid >= 100 kW) is met on them.
"""

from __future__ import annotations

import json

from archgen.analyse.rack_power_inputs import LOAD_METRICS, RACK_POWER_METRICS, rack_power_inputs
from tests.conftest import SPECS


def _req005(cli) -> dict[str, list[str]]:
    findings = json.loads(cli("check", str(SPECS), "--format", "json").out)["findings"]
    out: dict[str, list[str]] = {}
    for f in findings:
        if f["id"] == "REQ005":
            out.setdefault(f["requirement"], []).append(f["message"])
    return out


def test_a_rack_requirement_met_on_unconfirmed_power_names_them(cli):
    found = _req005(cli)
    [heat] = found["REQ-COOL-001"]
    assert heat.startswith("REQ-COOL-001 (Heat captured by liquid): heat_to_liquid = 111.7 kW meets >= 100 kW on "
                           "assumed inputs: ")
    for figure in ("gb200-compute-tray power.max (unconfirmed)", "nvlink5-switch-tray power.max (unconfirmed)",
                   "orv3-power-shelf-33kw efficiency (unconfirmed)"):   # the shelves' loss is heat too
        assert figure in heat
    # an IT load is drawn before the shelves convert it: their efficiency is no input of it
    [load] = found["REQ-PWR-010"]
    assert "it_power" in load and "(unconfirmed)" in load and "efficiency" not in load


def test_only_racks_on_unconfirmed_figures_and_only_their_power_metrics(shipped):
    got = rack_power_inputs({p: a for p, a in shipped.racks.items()}, shipped.specs)
    assert "rack/gb200-nvl72" in got
    m = got["rack/gb200-nvl72"]
    assert set(m) <= set(RACK_POWER_METRICS) and "weight" not in m
    assert "orv3-power-shelf-33kw efficiency (unconfirmed)" in m["input_power"]
    assert all("efficiency" not in w for k in LOAD_METRICS if k in m for w in m[k])


def test_a_typical_draw_is_an_input_of_the_typical_power_alone(shipped):
    """qm9700 lists `power.max` and `power.typical` unconfirmed: gb200-su-ib's input power (its maximum draw over the
    shelves' efficiency, `analyse.power_chain.Power`) read "met (on assumed inputs: qm9700 power.max (unconfirmed), qm9700
    power.typical (unconfirmed))" though no typical figure enters it (review21b)."""
    m = rack_power_inputs({p: a for p, a in shipped.racks.items()}, shipped.specs)["rack/gb200-su-ib"]
    assert m["input_power"] == m["it_power"] == ("qm9700 power.max (unconfirmed)",)
    assert m["it_power_typical"] == ("qm9700 power.max (unconfirmed)", "qm9700 power.typical (unconfirmed)")
