"""A liquid path's `cdu` names a CDU, not a rear-door heat exchanger or a CRAH (newuser25, finding 1).

Input: the COOL012 case of four MI355X platforms (48.6 kW to liquid) on an in-row CDU, with the CDU swapped for a
`CoolingUnit` of `type: rdhx` (or `crah`) of the same 1.3 MW. Before, it was counted as the CDU: COOL001 passed
(48.6 kW against 1.3 MW) and the rack document listed "2 x Rear-door heat exchanger" as the liquid loop's CDU,
though a rear door or a CRAH cools the air leaving the rack, not the trays' coolant loop. Now it is REF002, as a
hose named as a rack's manifold is (tests/analyse/test_liquid_bom.py), and nothing counts it as the CDU.
"""

from __future__ import annotations

import pytest

from tests.conftest import case_files, run_specs

#: A test part: an air-side unit with the in-row CDU's capacity, so only its type can refuse it.
AIR_UNIT = """\
kind: CoolingUnit
id: air-unit
name: Air-side unit under test
source: test part
type: {type}
capacity: 1.3 MW
"""


@pytest.mark.parametrize("kind", ["rdhx", "crah"])
def test_an_air_side_unit_named_as_the_cdu_is_refused(tmp_path, kind):
    files = case_files("COOL012", "pass_in_row_cdu_not_placed")
    files["racks/r.yaml"] = files["racks/r.yaml"].replace("cdu: in-row-cdu-1.3mw", "cdu: air-unit")
    files["catalog/air-unit.yaml"] = AIR_UNIT.format(type=kind)
    result = run_specs(tmp_path, files)
    [ref] = [f for f in result.findings if f.id == "REF002"]
    assert ref.message == (f"'air-unit' is a CoolingUnit of type '{kind}', expected a CoolingUnit of type "
                           "'in-rack-cdu' or 'in-row-cdu'")
    assert (ref.severity, ref.object, ref.location.line) == ("error", "rack/r", 12)
    assert result.racks["rack/r"].cooling.cdu is None          # no capacity counted against the liquid heat


def test_an_in_row_cdu_still_serves(tmp_path):
    result = run_specs(tmp_path, case_files("COOL012", "pass_in_row_cdu_not_placed"))
    assert not [f for f in result.findings if f.id == "REF002"]
    assert result.racks["rack/r"].cooling.cdu.usable.m_as("kW") == pytest.approx(1300)   # one of two, N+1
