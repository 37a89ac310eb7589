"""A cluster requirement met on unconfirmed part power figures says so, as a rack's does (newuser46's open list).

`gap` read "REQ-P-004 | cluster/vr-1152 | it_power | 3.16 MW | met" with no inputs named, though the racks' own
requirement read "met (on assumed inputs: ...)" and PWR012 (info) named the same figures. A cluster's power metrics
now rest on its bill of materials' unconfirmed power figures by the racks' rule (`analyse.rack_power_inputs`). The
shipped GB200 SU's IT power (1,146.4 kW against REQ-HALL-PWR-002's 2 MW) rests on gb200-compute-tray power.max and
nvlink5-switch-tray power.max, both listed unconfirmed in their catalog files.
"""

from __future__ import annotations

import json

from archgen.analyse.rack_power_inputs import (
    CLUSTER_LOAD_METRICS,
    CLUSTER_POWER_METRICS,
    TYPICAL_METRICS,
    cluster_power_inputs,
)
from tests.conftest import SPECS


def test_a_cluster_requirement_met_on_unconfirmed_power_names_them(cli):
    findings = json.loads(cli("check", str(SPECS), "--format", "json").out)["findings"]
    met = [f["message"] for f in findings if f["id"] == "REQ005" and f["requirement"] == "REQ-HALL-PWR-002"
           and f["object"] == "cluster/gb200-nvl72-su"]
    [msg] = met
    # 1,146.4 kW before the leaf-spine runs past the DAC's 2 m longest length sold took 132 SR8 modules x 17 W;
    # 1,148.6 kW until they took 66 LACC at 3 m (newuser80)
    assert "it_power = 1,146.6 kW meets <= 2 MW on assumed inputs: " in msg
    # grouped by field as every output lists them (field_words.grouped_inputs); the feeds' AC power holds the
    # shelves' loss
    for figure in ("power.max (unconfirmed) of gb200-compute-tray, nvlink5-switch-tray, ",
                   "; orv3-power-shelf-33kw efficiency (unconfirmed)"):
        assert figure in msg
    assert "power.typical" not in msg   # the IT power is the maximum draw


def test_only_power_metrics_and_each_on_the_figures_it_rests_on(shipped):
    got = cluster_power_inputs(dict(shipped.clusters), shipped.specs)
    m = got["cluster/gb200-nvl72-su"]
    assert set(m) <= set(CLUSTER_POWER_METRICS) and "capex" not in m
    assert all("efficiency" not in w for k in CLUSTER_LOAD_METRICS if k in m for w in m[k])
    assert all("power.typical" not in w for k, ws in m.items() if k not in TYPICAL_METRICS for w in ws)
    # the network's power leaves out the scale-up trays and the compute trays: neither is named for it
    assert not any(w.startswith(("nvlink5-switch-tray ", "gb200-compute-tray ")) for w in m.get("network_power", ()))
    assert "nvlink5-switch-tray power.max (unconfirmed)" in m["it_power"]
