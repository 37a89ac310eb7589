"""MECH003 and MECH004 where a placed part states no weight, and a vertical PDU's `height: 0 U` (newuser29).

Found in a university-lab trial: docs said "0U PDUs still have weight", but `mechanical: {height: 0 U, ...}` was
refused ("expected a rack height greater than 0 U"), so the PDUs went in without `mechanical` and weighed nothing.
Four HGX H200 (130.45 kg each, the DGX H200 figure in NVIDIA's DGX H100/H200 User Guide) in a 170 kg, 600 x 1200 mm
rack read a floor load of (170 + 4 x 130.45) / 0.72 = 960.8 kg/m² against a 1000 kg/m² room: "pass", with six PDUs
left out. At 12 kg each (an assumed figure, for the arithmetic) the rack is (691.8 + 72) / 0.72 = 1060.8 kg/m².
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from tests.conftest import run_specs

AREA = 0.6 * 1.2                        # m², the rack's footprint
SERVERS = 170 + 4 * 130.45              # kg: empty rack + four servers


def _specs(mechanical: str) -> dict[str, str]:
    return {"specs.yaml": f"""kind: Facility
id: room
floor_rating: 1000 kg/m**2
air: {{supply: 24 degC}}
---
kind: PDU
id: vpdu
source: trial
voltage: 208 V
basis: line-to-line
phases: 3
current: 60 A
{mechanical}
---
kind: Rack
id: r
form_factor: {{standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}}
slots:
  - {{at: 2, part: hgx-h200-8gpu, count: 4}}
  - {{at: 1, part: vpdu, count: 6}}
power:
  feeds: {{count: 6, voltage: 208 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}}
  pdus: {{redundancy: N+N}}
cooling:
  air: {{class: A2, delta_t: 20 K}}
facility: room
"""}


def _mech(tmp_path, mechanical: str):
    run = run_specs(tmp_path, _specs(mechanical))
    return run, {f.id: f for f in run.findings if f.id in ("MECH003", "MECH004")}


def test_parts_without_weight_are_named_with_the_weight_they_must_stay_under(tmp_path) -> None:
    run, found = _mech(tmp_path, "")
    assert run.racks["rack/r"].space.floor_load.m_as("kg/m**2") == pytest.approx(SERVERS / AREA)
    floor, payload = found["MECH004"], found["MECH003"]
    assert floor.severity == "info" and payload.severity == "info"
    assert "vpdu x6" in floor.message and "vpdu x6" in payload.message
    assert f"under {(1000 - SERVERS / AREA) * AREA:.1f} kg" in floor.message           # 28.2 kg
    assert f"under {1360 - 4 * 130.45:.1f} kg" in payload.message                       # 838.2 kg


def test_a_zero_u_pdu_states_its_weight(tmp_path) -> None:
    run, found = _mech(tmp_path, "mechanical: {height: 0 U, weight: 12 kg}")
    space = run.racks["rack/r"].space
    assert space.unweighed == () and space.used == 32                    # 0 U: the PDUs take no rack units
    assert space.weight.m_as("kg") == pytest.approx(SERVERS + 6 * 12)
    assert found["MECH004"].severity == "error"
    assert found["MECH004"].value.m_as("kg/m**2") == pytest.approx((SERVERS + 72) / AREA)  # 1060.8
    # weight67: the PDUs weighed, the HGX systems' cables and transceivers are not (no link part states a weight), so
    # the payload is still a floor: information, not a pass
    assert found["MECH003"].severity == "info" and "vpdu" not in found["MECH003"].message
    assert "the cables and transceivers in its ports" in found["MECH003"].message


def test_a_switch_still_refuses_zero_height(tmp_path) -> None:
    bad = {"specs.yaml": "kind: Switch\nid: s\nmechanical: {height: 0 U, weight: 5 kg}\n"}
    with pytest.raises(ValidateError, match="expected a rack height greater than 0 U"):
        run_specs(tmp_path, bad)
