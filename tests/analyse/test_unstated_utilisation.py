"""A used-hour cost on a utilisation the hall does not state says so (newuser27, procurement trial).

`FacilityCost.utilisation` defaults to 1: every hour of every accelerator is taken as used, which makes the cost per
used accelerator-hour equal to the owning cost, its lowest value (TCO per accelerator-hour / u, docs/reliability.md).
A buyer's hall with its own contract figures (energy, rent, depreciation: `basis: sourced`) and no utilisation read
`tco_per_used_accelerator_hour <= 3 USD` as "met" at the owning cost with no assumed input named, as it did a
serving job's cost per token. The unstated utilisation is now an assumed input of the figures it enters (the cost
per used and per goodput hour, a job's cost per hour and per token), never of the owning cost; COST003 lists it.
"""

from __future__ import annotations

from archgen.commands.gap import gap
from archgen.model.requirements import Status
from tests.conftest import write_tree
from tests.test_assumed_inputs import PROPOSAL

HALL = """\
kind: Facility
id: our-hall
floor_rating: 1200 kg/m**2
air: {supply: 24 degC}
voltage: 415 V
cost:
  energy: {price: 0.07 USD/kWh, pue: 1.3, basis: sourced, source: "our PPA, contract 7"}
  space_per_rack: 2000 USD/month
  depreciation_years: 5
  discount_rate: 0.10
  basis: sourced
  source: "our colocation contract and finance policy"
"""
PDU = ('  pdu-415v-60a-3ph: {capex: 3000 USD, date: "2025-06", basis: sourced, '
       'source: "vendor quote Q-1, line 3"}\n')
REQUIREMENTS = """\
kind: Requirements
id: buyer
requirements:
- {id: R-OWN, statement: Owning, subject: "cluster/*", metric: tco_per_accelerator_hour, target: "<= 20 USD"}
- {id: R-USED, statement: Used hour, subject: "cluster/*", metric: tco_per_used_accelerator_hour, target: "<= 20 USD"}
"""
UNSTATED = "our-hall utilisation (not stated: every hour taken as used)"


def _gap(root, utilisation: str = "", rate: str = "  discount_rate: 0.10\n"):
    """`gap` of a proposal on our hall with its `utilisation` line (none by default) and its `rate` line."""
    hall = HALL.replace("  discount_rate: 0.10\n", rate)
    files = {"c.yaml": PROPOSAL["c.yaml"].replace("hall-air", "our-hall"), "quote.yaml": PROPOSAL["quote.yaml"] + PDU,
             "hall.yaml": hall.replace("  basis: sourced\n  source: \"our col",
                                       f"{utilisation}  basis: sourced\n  source: \"our col")}
    write_tree(root / "p", files)
    write_tree(root / "r", {"buyer.yaml": REQUIREMENTS})
    g = gap([root / "p"], [root / "r"])
    return {r.requirement.id: r for r in g.rows}, g


def test_an_unstated_utilisation_is_named_under_the_used_hour_cost(tmp_path):
    rows, g = _gap(tmp_path)
    assert rows["R-USED"].status == Status.MET and rows["R-USED"].assumed == (UNSTATED,)
    assert rows["R-OWN"].assumed == ()                        # every input of the owning cost is sourced
    assert rows["R-USED"].value == rows["R-OWN"].value        # u = 1: the used hour costs what an owned one does
    [cost003] = [f for f in g.findings if f.id == "COST003"]
    assert cost003.message == f"cost rests on assumed figures: {UNSTATED}"


def test_a_stated_utilisation_is_no_assumption(tmp_path):
    rows, g = _gap(tmp_path, "  utilisation: 0.8\n")
    # its idle hours: dgx-h100 states no idle draw; the H100's measured one bounds it (cost41, `Accelerator.idle`)
    idle = ("idle draw of dgx-h100 (at most their maximum with each accelerator at its measured idle draw instead of "
            "its TDP)")
    assert rows["R-USED"].assumed == rows["R-OWN"].assumed == (idle,)
    assert [f.message for f in g.findings if f.id == "COST003"] == [f"cost rests on assumed figures: {idle}"]
    assert abs(rows["R-USED"].value.m - rows["R-OWN"].value.m / 0.8) < 1e-9   # owning cost / u (docs/reliability.md)
