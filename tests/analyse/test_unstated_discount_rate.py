"""A capital cost on a discount rate the hall does not state says so (newuser27's open finding 2).

`FacilityCost.discount_rate` defaults to 0: capital is recovered in a straight line, 1/n a year, as if it cost
nothing, the lowest capital cost (capital recovery factor r / (1 - (1 + r)^-n), docs/reliability.md). A buyer's hall
with sourced contract figures and no rate had CRF 0.2 over 5 years, against 0.2638 at 10 %, and a requirement on the
owning cost read plainly "met" with no input named. The unstated rate is now an assumed input of the figures it
enters (the capital recovery factor, the capital cost and every TCO figure), as an unstated utilisation is.
"""

from __future__ import annotations

from archgen.analyse.cost import capital_recovery
from archgen.model.requirements import Status
from archgen.pipeline import run
from tests.analyse.test_unstated_utilisation import _gap

UNSTATED = "our-hall discount rate (not stated: 0, straight-line depreciation)"
USED = "our-hall utilisation (not stated: every hour taken as used)"


def _recovery(root) -> float:
    """The capital recovery factor of the proposal `_gap` wrote under `root`."""
    [cost] = run([root / "p"]).operations.cost.values()
    return cost.recovery_factor


def test_an_unstated_rate_is_named_under_the_owning_cost(tmp_path):
    rows, g = _gap(tmp_path, "  utilisation: 1\n", rate="")
    assert rows["R-OWN"].status == Status.MET and rows["R-OWN"].assumed == (UNSTATED,)
    assert rows["R-USED"].assumed == (UNSTATED,)
    [cost003] = [f for f in g.findings if f.id == "COST003"]
    assert cost003.message == f"cost rests on assumed figures: {UNSTATED}"
    assert _recovery(tmp_path) == 1 / 5   # straight line over the hall's 5 years


def test_a_stated_rate_is_no_assumption(tmp_path):
    rows, g = _gap(tmp_path, "  utilisation: 1\n")
    assert rows["R-OWN"].assumed == rows["R-USED"].assumed == ()
    assert not [f for f in g.findings if f.id == "COST003"]
    assert abs(_recovery(tmp_path) - capital_recovery(0.10, 5)) < 1e-12   # 0.1 / (1 - 1.1^-5) = 0.2638


def test_both_unstated_are_named_in_order(tmp_path):
    rows, _ = _gap(tmp_path, rate="")
    assert rows["R-OWN"].assumed == (UNSTATED,)
    assert rows["R-USED"].assumed == (UNSTATED, USED)
