"""A CDU that states no flow: the coolant flow its rack group needs is said to be not judged (lo23power, item 2).

Input: COOL002's case `fail_cdu_states_no_flow`, four GB200 compute trays on an in-rack CDU stating a capacity and no
`flow`. Before, COOL002 passed it in silence and the rack document's liquid table read "Group flow needed / CDU flow
usable | 28 L/min / —". The flow needed is V̇ = Q̇ / (ρ c_p ΔT) with PG25's ρ 1,015 kg/m³ and c_p 3.93 kJ/(kg K)
(ASHRAE Handbook—Fundamentals 2021, ch. 31, the constants `analyse.rack.COOLANTS` cites).
"""

from __future__ import annotations

import pytest

from archgen.render.rack_cooling import cooling
from tests.checks.test_cases import findings_of
from tests.conftest import case_files, run_specs
from tests.render.test_unstated_rack_inputs import _rows


def test_a_cdu_without_flow_is_an_info_finding_not_a_pass(tmp_path):
    case = {"files": case_files("COOL002", "fail_cdu_states_no_flow")}
    [f] = findings_of("COOL002", case, tmp_path)
    assert f.severity == "info" and "states no flow" in f.message and f.limit is None


def test_the_flow_needed_is_heat_over_rho_cp_delta_t_and_the_cdu_flow_reads_not_provided(tmp_path):
    run = run_specs(tmp_path, case_files("COOL002", "fail_cdu_states_no_flow"))
    a = run.racks["rack/l"]
    needed = a.cooling.heat_liquid.m_as("W") / (1015 * 3930 * 10) * 60_000          # m³/s -> L/min
    assert a.cooling.cdu_flow_needed.m_as("L/min") == pytest.approx(needed)
    row = _rows(cooling(a), "liquid")["Group flow needed / CDU flow usable"]
    assert row == f"{needed:.0f} L/min / not provided (the CDU states no flow; COOL002)"
