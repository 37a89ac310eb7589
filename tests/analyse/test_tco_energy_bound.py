"""A TCO figure whose energy is at maximum draw is judged as the range it is, not as a point (newuser64).

The energy cost at maximum draw is an upper bound, with 0 its other end (`analyse.job_energy.upper_bounds`): a target
it misses is not provided. The TCO (capital + energy + space) and every figure in proportion to it (per
accelerator-hour, a job's cost per hour, per token, per run) carry that energy, but were judged as points: on the
DGX B200 SuperPOD, `tco_per_accelerator_hour` = 2.321 USD, 10.1 % of it the energy at maximum draw, read plainly
"not met" against `<= 2.2 USD`, though without that energy it is 2.086 USD. It is now not provided there (REQ002,
naming the parts at maximum draw); a target missed at both ends (`<= 2 USD`) is still not met, and one met at the
value (`<= 2.5 USD`) is at risk, not met: the shipped SuperPOD's capex leaves out parts its bill of materials counts
with no price (rails, blanking panels, cords, fibre cords), so the TCO is also a lower bound (cost31), the note
giving the room they must stay under.
"""

from __future__ import annotations

import json

import pytest

from archgen.analyse.cost import HOURS_PER_YEAR
from tests.conftest import run_cli
from tests.test_diff import copy_specs

REQS = """kind: Requirements
id: fin
requirements:
  - {id: FIN-001, statement: owned hour, subject: cluster/dgx-b200-superpod, metric: tco_per_accelerator_hour, target: "<= 2.2 USD"}
  - {id: FIN-002, statement: owned hour, subject: cluster/dgx-b200-superpod, metric: tco_per_accelerator_hour, target: "<= 2 USD"}
  - {id: FIN-003, statement: owned hour, subject: cluster/dgx-b200-superpod, metric: tco_per_accelerator_hour, target: "<= 2.5 USD"}
"""


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    root = copy_specs(tmp_path_factory.mktemp("fin") / "specs")
    (root / "requirements" / "fin.yaml").write_text(REQS, encoding="utf-8")
    r = run_cli("check", str(root), "--format", "json")
    out = json.loads(r.out)
    return {x["requirement"]: x for x in out["requirements"] if x["requirement"].startswith("FIN")}, \
        out["metrics"]["cluster/dgx-b200-superpod"]


def test_a_target_between_the_ends_is_not_provided(judged):
    reqs, m = judged
    assert m["tco_per_accelerator_hour"]["unit"] == "USD/s"   # a rate, per second as every JSON time (reltidy42)
    value = m["tco_per_accelerator_hour"]["value"] * 3600
    low = value - m["energy_cost_per_year"]["value"] / (m["tco_per_year"]["value"] / value)   # no energy cost
    # the capital and space alone, per accelerator-hour: (TCO - energy) / (accelerators x 8,766 h)
    assert low == pytest.approx((m["tco_per_year"]["value"] - m["energy_cost_per_year"]["value"])
                                / (m["accelerators"]["value"] * HOURS_PER_YEAR))
    assert low < 2.2 < value   # 2.086 < 2.2 < 2.321
    assert reqs["FIN-001"]["status"] == "not provided"
    assert "takes the maximum draw of dgx-b200" in reqs["FIN-001"]["note"]


def test_a_target_missed_or_met_at_both_ends_is_judged(judged):
    reqs, _ = judged
    assert reqs["FIN-002"]["status"] == "not met" and reqs["FIN-003"]["status"] == "at risk"
    assert "a lower bound" in reqs["FIN-003"]["note"] and "rail-kit" in reqs["FIN-003"]["note"]
