"""In-rack CDUs are placed in the rack they serve and counted once (newuser16, finding 2).

Input: four AMD MI355X platforms (4 U, 130 kg, 15.2 kW, 85 % to liquid: the catalog's amd-mi355x-platform) on two
in-rack CDUs of the shipped 100 kW class (4 U, 90 kg each), N+1. Before, a rack naming them only in its liquid path
passed every check at 16 U and 700 kg, without the CDUs' 8 U and 180 kg; placed in its slots as well, its rack
document listed four CDUs among its key components (two placed + the liquid path's two).
"""

from __future__ import annotations

import pytest

from archgen.render.rack import rack_parts
from tests.checks.test_cases import findings_of
from tests.conftest import case_files, run_specs


def test_unplaced_in_rack_cdus_are_an_error(tmp_path):
    case = {"files": case_files("COOL012", "fail_in_rack_cdu_not_placed")}
    [f] = findings_of("COOL012", case, tmp_path)
    assert f.severity == "error" and "2 x (4 U, 90 kg)" in f.message


def test_placed_in_rack_cdus_count_once_with_their_space_and_weight(tmp_path):
    result = run_specs(tmp_path, case_files("COOL012", "pass_in_rack_cdus_placed"))
    a = result.racks["rack/r"]
    assert (a.space.used, a.space.weight.m_as("kg")) == (16 + 8, pytest.approx(700 + 180))
    assert a.cooling.cdu.usable.m_as("kW") == pytest.approx(100)          # COOL001: one of two, N+1
    _, counts = rack_parts(a, result.specs)
    assert counts["in-rack-cdu-100kw"] == 2                                 # was 4
    # no COOL error or warning (COOL010 says, as info, that the catalog CDU states no rated_at)
    assert not [f for f in result.findings if f.id.startswith("COOL") and not f.waived and f.severity != "info"]
