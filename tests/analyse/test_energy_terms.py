"""Energy and power figures say what they count (energyfix; found by newuser18 and rackbom).

- Idle hours: the code runs them at each part's `power.idle`, else at its average draw (assumed, COST003); the
  spec reference said they "idle at 0", which on hall-gb at utilisation 0.8 would have been $22.6 M a year where
  archgen computes $28.3 M. The descriptions now say what the code does.
"""

from __future__ import annotations

from archgen.metrics import REGISTRY
from archgen.model.cost import FacilityCost


def _description(name: str) -> str:
    return next(m for m in REGISTRY if m.name == name).description


def test_utilisation_description_says_idle_hours_draw_the_idle_load():
    text = FacilityCost.model_fields["utilisation"].description
    assert "idles at 0" not in text
    assert "`power.idle`" in text and "average draw (assumed" in text


def test_energy_cost_description_names_the_idle_draw():
    text = _description("energy_cost_per_year")
    assert "`power.idle`" in text and "assumed" in text
