"""Power distribution in racks with PDUs (issue 11, item 6): outlet map, load per phase, PDU failure cases.

Inputs: DGX H100 six 3.3 kW PSUs in 4+2 and 10.2 kW maximum, DGX B200 six PSUs in 5+1 and 14.3 kW (NVIDIA user
guides, as the catalog cites them); 415 V / 60 A three-phase PDUs with the NEC 80 % continuous-load derating.
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.distribution import distribution, needed_psus
from tests.render.golden_util import table_caption

PHASE_CAPACITY = 415 * 60 * math.sqrt(3) * 0.8 / 3 / 1000    # kW per phase of one PDU: 11.50


@pytest.fixture(scope="module")
def racks(shipped):
    return shipped.racks


def _dist(racks, rid):
    a = racks[f"rack/{rid}"]
    return distribution(a.rack, a.power.conversion.unit_capacity)


def test_needed_psus():
    assert (needed_psus(6, "N+2"), needed_psus(6, "N+1"), needed_psus(2, "N+N"), needed_psus(8, "N")) == (4, 5, 1, 8)


def test_dgx_h100_rack_three_pdus(racks):
    """NVIDIA's three sources for four DGX H100: 24 PSUs round the 3 PDUs (8 each), 1.7 kW per PSU; phases 3/3/2
    PSUs. Losing one PDU drops 2 PSUs of each DGX: 4 remain, the N of 4+2, at 10.2 / 4 = 2.55 kW each."""
    d = _dist(racks, "dgx-h100-4")
    assert d.redundancy == "N+1" and not d.sides and d.unmapped == ("sn2201",)
    assert len(d.outlets) == 24 and all(o.load.m_as("kW") == pytest.approx(10.2 / 6) for o in d.outlets)
    for pdu in d.pdus:
        assert [p.m_as("kW") for p in pdu.phases] == pytest.approx([3 * 1.7, 3 * 1.7, 2 * 1.7])
        assert pdu.capacity.m_as("kW") == pytest.approx(PHASE_CAPACITY)
        assert pdu.imbalance == pytest.approx((13.6 / 3 - 3.4) / (13.6 / 3))     # max deviation from the mean
    assert [c.lost for c in d.cases] == ["PDU 1", "PDU 2", "PDU 3"]
    for c in d.cases:
        assert c.psus_lost == 8 and not c.short and not c.dark
        assert c.worst_phase.m_as("kW") == pytest.approx(3 * 10.2 / 4)
        assert c.margin == pytest.approx(1 - 7.65 / PHASE_CAPACITY)


def test_dgx_b200_rack_sides_a_and_b(racks):
    """Four PDUs in N+N make sides A (1, 2) and B (3, 4); each DGX B200 puts 3 PSUs on either side. A side lost leaves
    3 PSUs where 5+1 needs 5: the PDUs carry the load (57.2 kW over 12 PSUs, 4.77 kW per phase of 11.5), but the
    systems run below full power, which the document states."""
    d = _dist(racks, "dgx-b200-compute")
    assert d.sides and [p.side for p in d.pdus] == ["A", "A", "B", "B"]
    per_system = {}
    for o in d.outlets:
        per_system.setdefault(o.u, []).append(o.side)
    assert all(sides.count("A") == 3 and sides.count("B") == 3 for sides in per_system.values())
    assert all(p.m_as("kW") == pytest.approx(4 * 14.3 / 12) for u in d.pdus for p in u.phases)
    side_a = d.cases[0]
    assert (side_a.lost, side_a.psus_lost, side_a.carried_by) == ("side A (PDUs 1, 2)", 12, "PDUs 3, 4")
    assert side_a.worst_phase.m_as("kW") == pytest.approx(2 * 14.3 / 3)
    assert [left_need for _, *left_need in side_a.short] == [[3, 5]] * 4


def test_rack_without_pdus_has_no_distribution(racks):
    a = racks["rack/gb200-nvl72"]
    assert distribution(a.rack, a.power.conversion.unit_capacity) is None


def test_rack_document_shows_the_map_and_the_cases(shipped, tmp_path, drawn_once):
    from archgen.render import render_all

    render_all(shipped, tmp_path, target="dgx-h100-4", formats=("md",), revision="test", progress=False)
    md = (tmp_path / "dgx-h100-4" / "dgx-h100-4.md").read_text(encoding="utf-8")
    assert "### 7.3 Power distribution" in md and table_caption(md, "PSU-to-PDU outlet map*")
    assert "| dgx-h100 | 3 | 1 | 1 | — | L1 | 1.70 |" in md
    assert "| PDU 1 | 8 PSUs | PDUs 2, 3 | 7.65 | 11.50 | 33.5 % | every part keeps its PSU redundancy's N | pass |" in md
    # the PDUs' continuous capacity, 3 x 11.50 kW (was their breakers' 43.1 kVA: newuser16)
    assert "| PDUs | 1 unit(s) lost (N+1) | 1 of 3 | 2 × 34.5 kW |" in md


def test_a_part_short_of_psus_reads_what_is_left_and_what_is_needed(racks):
    """newuser94: the DGX B200 rack's PDU failure cases read "dgx-b200 at U3: 3 of 5 PSUs needed", which a facility
    engineer reads as "3 of its 5 PSUs are needed" (enough left), the opposite of the fact: 3 PSUs are left where its
    5+1 redundancy needs 5 for full power."""
    from archgen.render.distribution import cases_table

    rows = cases_table(_dist(racks, "dgx-b200-compute")).rows
    effect = rows[0][6]
    assert effect.split("; ")[0] == "dgx-b200 at U3: 3 PSUs left, 5 needed for full power"
    assert "of 5 PSUs needed" not in effect and rows[0][7] == "warn"
