"""`archgen check --format json` carries the requirements compliance matrix, met requirements included (newuser61).

Before, a requirement met cleanly was in the JSON only as a count of passed checks: a verification record built from
it (the programme's handover to a vendor) lost every requirement it had verified. The rack is tests/test_cli.py's:
five DGX H100 at 10.2 kW each (power.max, catalog/systems/dgx-h100.yaml), 5 x 10.2 = 51 kW of IT load, in 5 x 8 = 40
U of a 42 U rack, so 2 U free.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli
from tests.test_cli import OVERLOADED

REQUIREMENTS = """requirements:
  - {id: REQ-PWR-001, statement: Rack IT load, metric: it_power, target: "<= 60 kW"}
  - {id: REQ-PWR-002, statement: Rack IT load (tight), metric: it_power, target: "<= 40 kW"}
  - {id: REQ-MECH-001, statement: Space left for a switch, metric: u_free, target: ">= 1 U", verification: inspection}
waivers:
  - {check: REQ001, requirement: REQ-PWR-002, reason: accepted at design review 3, owner: power team}
"""


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    root = tmp_path_factory.mktemp("matrix")
    (root / "r.yaml").write_text(OVERLOADED.split("requirements:\n")[0] + REQUIREMENTS, encoding="utf-8")
    doc = json.loads(run_cli("check", root, "--format", "json").out)
    return {r["requirement"]: r for r in doc["requirements"]}


def test_a_met_requirement_is_in_the_matrix(matrix):
    met = matrix["REQ-PWR-001"]
    assert (met["status"], met["check"], met["subject"], met["level"]) == ("met", "REQ001", "rack/hot", "shall")
    assert met["value"] == {"value": pytest.approx(5 * 10_200), "unit": "W"}
    assert met["limit"] == {"value": pytest.approx(60_000), "unit": "W"}
    assert met["file"].endswith("r.yaml") and met["line"] == 11
    assert (met["verification"], met["to_verify"]) == ("analysis", False)


def test_a_waived_miss_keeps_its_reason(matrix):
    waived = matrix["REQ-PWR-002"]
    assert waived["status"] == "not met" and waived["waived"].startswith("accepted at design review 3")


def test_a_requirement_another_method_decides_says_so(matrix):
    space = matrix["REQ-MECH-001"]
    assert space["value"] == {"value": pytest.approx((42 - 5 * 8) * 0.04445), "unit": "m"}   # 2 U of 44.45 mm
    assert (space["status"], space["verification"], space["to_verify"]) == ("met", "inspection", True)
    assert space["shown"] == "met (predicted by analysis, to be verified by inspection)"
