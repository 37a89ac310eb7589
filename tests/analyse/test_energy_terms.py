"""Energy and power figures say what they count (energyfix; found by newuser18 and rackbom).

- Idle hours: the code runs them at each part's `power.idle`, else at its average draw (assumed, COST003); the
  spec reference said they "idle at 0", which on hall-gb at utilisation 0.8 would have been $22.6 M a year where
  archgen computes $28.3 M. The descriptions now say what the code does.
- In-rack CDUs: their draw was in the rack's `rack_load` and in no cluster figure; the cluster's
  `rack_cooling_power` holds it, and the hall's headrooms and checks (PWR010, PWR011's UPS, COOL009) count it.
- The sweep's `energy_per_token` is IT energy at maximum draw without the PUE, and now says so.
- A PDU rated in kW is real power: the feeds' power factor no longer derates it a second time.
"""

from __future__ import annotations

import pytest
import yaml

from archgen.analyse.power_chain import pdu_capacity
from archgen.checks.hall_load import feed_power, feed_words
from archgen.metrics import REGISTRY
from archgen.model.cost import FacilityCost
from archgen.model.power import PDU
from archgen.model.rack import Feeds
from tests.conftest import SPECS, case_files, run_specs


def _description(name: str) -> str:
    return next(m for m in REGISTRY if m.name == name).description


def test_utilisation_description_says_idle_hours_draw_the_idle_load():
    text = FacilityCost.model_fields["utilisation"].description
    assert "idles at 0" not in text
    assert "`power.idle`" in text and "average draw" in text and "measured idle draw (assumed" in text


def test_energy_cost_description_names_the_idle_draw():
    text = _description("energy_cost_per_year")
    assert "`power.idle`" in text and "assumed" in text


#: The COOL012 case rack (four MI355X platforms on two in-rack CDUs), its CDU stating a draw (a test figure, not a
#: datasheet's), in a cluster of 10 such racks in a hall that states its critical IT power and cooling.
_CDU = (SPECS / "catalog" / "cooling" / "in-rack-cdu-100kw.yaml").read_text(encoding="utf-8") + "power: 3 kW\n"
_CLUSTER = """kind: Facility
id: hall-liquid
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
voltage: 415 V
critical_it_power: 1 MW
cooling_capacity: 1 MW
---
kind: Cluster
id: c
facility: hall-liquid
units:
- id: su
  racks:
  - {rack: r, count: 10}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 10, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
"""


def test_in_rack_cdu_draw_is_in_the_cluster_feed_load(tmp_path):
    # rackbom: an in-rack CDU's draw was in its rack's `rack_load` and in no cluster figure, so the hall's critical
    # IT power and cooling headrooms left out 10 racks x 2 CDUs x 3 kW = 60 kW the rack feeds carry
    files = case_files("COOL012", "pass_in_rack_cdus_placed") | {"cdu.yaml": _CDU, "cluster.yaml": _CLUSTER}
    r = run_specs(tmp_path, files)
    rack, m = r.racks["rack/r"], r.metrics["cluster/c"]
    assert rack.power.other_power.m_as("kW") == pytest.approx(6)
    assert m["rack_cooling_power"].m_as("kW") == pytest.approx(60)
    feeds = m["it_power"].m_as("kW") + 60
    assert m["it_capacity_headroom"].m_as("kW") == pytest.approx(1000 - feeds)
    assert m["cooling_headroom"].m_as("kW") == pytest.approx(1000 - feeds)
    assert feed_power(m).m_as("kW") == pytest.approx(feeds)
    assert feed_words(m) == "IT power with the racks' cooling units (in-rack CDUs)"


def test_a_hall_that_powers_the_it_but_not_the_rack_cdus_fails_pwr010(tmp_path):
    # the hall's critical IT power between the IT power and what the rack feeds carry: PWR010 passed on main
    first = run_specs(tmp_path / "a", case_files("COOL012", "pass_in_rack_cdus_placed") |
                      {"cdu.yaml": _CDU, "cluster.yaml": _CLUSTER})
    it = first.metrics["cluster/c"]["it_power"].m_as("kW")
    hall = _CLUSTER.replace("critical_it_power: 1 MW", f"critical_it_power: {it + 30:.3f} kW")
    r = run_specs(tmp_path / "b", case_files("COOL012", "pass_in_rack_cdus_placed") |
                  {"cdu.yaml": _CDU, "cluster.yaml": hall})
    found, = [f for f in r.findings if f.id == "PWR010"]
    assert found.message.startswith("IT power with the racks' cooling units (in-rack CDUs)")
    assert found.value.m_as("kW") == pytest.approx(it + 60)


def test_energy_per_token_says_it_is_it_energy_at_maximum_draw_without_pue():
    # newuser18: the sweep's energy_per_token is the point's share of the maximum IT power over tokens per second,
    # with no PUE; it was described as "Power over tokens per second", which reads as the hall's energy
    metric = next(m for m in REGISTRY if m.name == "energy_per_token")
    assert metric.title == "IT energy per token"
    assert "maximum IT power" in metric.description and "without the PUE" in metric.description


def _pdu(capacity: str | None) -> PDU:
    doc = yaml.safe_load((SPECS / "catalog" / "power" / "pdu-415v-60a-3ph.yaml").read_text(encoding="utf-8"))
    return PDU.model_validate(doc | ({"capacity": capacity} if capacity else {}))


def test_a_pdu_rated_in_kw_is_not_derated_by_the_power_factor_again():
    # newuser18: a PDU rated 20 kW on feeds at power factor 0.9 carried 20 x 0.8 x 0.9 = 14.4 kW; a kW rating is
    # real power already, so it carries 20 x 0.8 = 16 kW. A kVA rating (and V x A x √3) still takes the factor.
    feeds = Feeds(count=2, voltage="415 V", basis="line-to-line", phases=3, current="60 A", power_factor=0.9)
    assert pdu_capacity(_pdu("20 kW"), feeds).m_as("kW") == pytest.approx(16.0)
    assert pdu_capacity(_pdu("20 kVA"), feeds).m_as("kW") == pytest.approx(14.4)
    assert pdu_capacity(_pdu(None), feeds).m_as("kW") == pytest.approx(415 * 60 * 3 ** 0.5 * 0.8 * 0.9 / 1000)
