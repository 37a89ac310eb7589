"""A rack requirement met on unconfirmed part power figures says so (REQ005, `analyse.rack_power_inputs`; newuser46).

A Vera Rubin NVL72 rack drafted from announcements (rubin tdp 1,800 W, vr-compute-tray power.max 8.2 kW, both listed
unconfirmed) read "rack/vr-nvl72 | Rack IT power | <= 200 kW | 183.6 kW | met" in `gap` and the compliance matrix, as
a rack of datasheet figures would; `check` named such figures only for a cluster (PWR012, info). The shipped GB200
NVL72 rack's tray (`gb200-compute-tray` power.max, derived from the 132 kW rack) and shelves (`orv3-power-shelf-33kw`
efficiency) are listed unconfirmed, and its REQ-COOL-001 (heat to liquid >= 100 kW) is met on them.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

from archgen.analyse.rack_power_inputs import LOAD_METRICS, RACK_POWER_METRICS, rack_power_inputs
from archgen.model.base import Cooling
from archgen.units import Q_
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
    # the liquid parts' draw x fraction, grouped by field as every output lists them (field_words.grouped_inputs)
    assert heat.endswith("inputs: power.max (unconfirmed) of gb200-compute-tray, nvlink5-switch-tray; "
                         "cooling.liquid_fraction (unconfirmed) of gb200-compute-tray, nvlink5-switch-tray")
    for figure in ("orv3-power-shelf-33kw", "sn2201", "mmf-100g-sr4"):   # the shelves' loss, air and optics: no liquid
        assert figure not in heat
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


def test_the_heat_split_names_what_enters_it(shipped):
    """REQ-COOL-001 (heat to liquid) on the GB200 NVL72 read "met (on assumed inputs: ..., sn2201 power.max,
    mmf-100g-sr4 power_per_end, orv3-power-shelf-33kw efficiency)" and left out the trays' unconfirmed liquid fraction
    (newuser106): the liquid heat is the liquid-cooled parts' maximum draw x their fraction; the air's is the input
    less it, so it rests on both (coolinputs42). A rack built here: a hybrid tray whose fraction (not its draw) is
    unconfirmed, on an accelerator whose `tdp` is; an air switch whose `power.max` is; a shelf whose efficiency is."""
    specs = shipped.design.specs
    gpu = specs.get("gb200").model_copy(update={"id": "gpu", "unconfirmed": ["tdp"]})
    tray = specs.get("gb200-compute-tray").model_copy(update={
        "id": "tray", "accelerator": "gpu", "unconfirmed": ["cooling.liquid_fraction"],
        "cooling": Cooling(type="hybrid", liquid_fraction=0.8)})
    switch = specs.get("sn2201").model_copy(update={"id": "switch", "unconfirmed": ["power.max"]})
    shelf = specs.get("orv3-power-shelf-33kw").model_copy(update={"id": "shelf", "unconfirmed": ["efficiency"]})
    rack = SimpleNamespace(path="rack/r", items=[SimpleNamespace(part=p) for p in (shelf, tray, tray, switch)])
    a = SimpleNamespace(rack=rack, metrics=dict.fromkeys(RACK_POWER_METRICS, Q_(1, "kW")))
    m = rack_power_inputs({"rack/r": a}, {"gpu": gpu})["rack/r"]
    tdp, fraction = "gpu tdp (unconfirmed)", "tray cooling.liquid_fraction (unconfirmed)"
    assert m["heat_to_liquid"] == m["coolant_flow"] == (fraction, tdp)
    everything = (fraction, tdp, "switch power.max (unconfirmed)", "shelf efficiency (unconfirmed)")
    for k in ("heat_to_air", "heat_to_rear_door", "air_flow"):
        assert m[k] == everything
    assert m["input_power"] == everything[1:]   # the split is no input of the draw
    assert m["it_power"] == everything[1:3]
    # an air part's unconfirmed fraction it never stated (0 by default) names nothing; stated 0, the whole split's
    quiet = switch.model_copy(update={"unconfirmed": ["cooling.liquid_fraction"]})
    aired = quiet.model_copy(update={"cooling": Cooling(type="air", liquid_fraction=0)})
    rack.items = [SimpleNamespace(part=quiet)]
    assert "rack/r" not in rack_power_inputs({"rack/r": a}, {})
    rack.items = [SimpleNamespace(part=aired)]
    split = ("heat_to_liquid", "heat_to_air", "heat_to_rear_door", "coolant_flow", "air_flow")
    assert rack_power_inputs({"rack/r": a}, {})["rack/r"] == dict.fromkeys(split, ("switch " + fraction[5:],))
