"""COOL019 at stated flows (mech28): a rack's drop stated at one flow is judged at its design flow, scaled between
the laminar (Hagen-Poiseuille, Δp ∝ Q) and turbulent (Darcy-Weisbach at a fixed friction factor, Δp ∝ Q²) laws, and
the CDU's pressure is named at its rated flow.
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.rack import COOLANTS
from archgen.checks.loop_pressure import at_flow, loop_pressure
from archgen.units import Q_
from tests.conftest import case_files, run_specs


def test_at_flow_brackets_the_two_laws():
    """120 kPa at 80 L/min: 150 (∝ Q) to 187.5 kPa (∝ Q²) at 100 L/min; 30 (∝ Q²) to 60 kPa (∝ Q) at 40 L/min."""
    low, high = at_flow(Q_(120, "kPa"), Q_(80, "L/min"), Q_(100, "L/min"))
    assert (low.m_as("kPa"), high.m_as("kPa")) == pytest.approx((150, 187.5))
    low, high = at_flow(Q_(120, "kPa"), Q_(80, "L/min"), Q_(40, "L/min"))
    assert (low.m_as("kPa"), high.m_as("kPa")) == pytest.approx((30, 60))
    same = at_flow(Q_(1.2, "bar"), Q_(80, "L/min"), Q_(80, "L/min"))
    assert [q.m_as("kPa") for q in same] == pytest.approx([120, 120])


def test_the_ends_are_the_cited_laws():
    """Darcy-Weisbach Δp = f (L/D) ρ v²/2 at a fixed f, and laminar f = 64/Re (Δp = 32 μ L v / D²): the cheguide
    single-phase pressure-drop note `checks.loop_pressure` cites.

    One 10 mm tube, 2 m, PG25 (ρ 1,015 kg/m³, μ taken 2.5 mPa s): the ratio of each law's drops at 12 and 8 L/min is
    `at_flow`'s upper and lower end.
    """
    d, length, rho, mu, f = Q_(10, "mm"), Q_(2, "m"), COOLANTS["pg25"][0], Q_(2.5e-3, "Pa*s"), 0.03

    def darcy(q):
        v = q / (math.pi * d**2 / 4)
        return (f * length / d * rho * v**2 / 2).to("kPa")

    def poiseuille(q):
        v = q / (math.pi * d**2 / 4)
        return (32 * mu * length * v / d**2).to("kPa")

    q0, q1 = Q_(8, "L/min"), Q_(12, "L/min")
    low, high = at_flow(Q_(100, "kPa"), q0, q1)
    assert high.m_as("kPa") / 100 == pytest.approx((darcy(q1) / darcy(q0)).m_as(""))
    assert low.m_as("kPa") / 100 == pytest.approx((poiseuille(q1) / poiseuille(q0)).m_as(""))


def test_the_case_rack_is_judged_at_its_design_flow(tmp_path):
    """The case rack's 120 kPa at 50 L/min at its design flow: liquid heat / (ρ c_p ΔT), PG25, 10 K."""
    files = case_files("COOL019", "fail_drop_stated_at_a_lower_flow")
    run = run_specs(tmp_path, files)
    (a,) = run.racks.values()
    lp = loop_pressure(a)
    assert lp is not None and lp.flow is not None and lp.rack is not None and lp.low is not None
    rho, cp = COOLANTS["pg25"]
    flow = (a.cooling.heat_liquid / (rho * cp * Q_(10, "K"))).to("L/min")
    assert lp.flow.m_as("L/min") == pytest.approx(flow.m_as("L/min"))
    ratio = flow.m_as("L/min") / 50
    assert lp.rack.m_as("kPa") == pytest.approx(120 * ratio**2)
    assert lp.low.m_as("kPa") == pytest.approx(120 * ratio)
    assert lp.needed is not None and lp.needed.m_as("kPa") == pytest.approx(120 * ratio**2 + 40)
    assert lp.rated is not None and lp.rated.m_as("L/min") == 1950 and not lp.beyond_rated


def test_the_document_gives_both_ends_and_both_flows(tmp_path):
    """The rack document's COOL019 row: the scaled range at the design flow, the stated figure, the CDU's rated flow."""
    from archgen.render.rack_cooling import pressure_text

    (a,) = run_specs(tmp_path, case_files("COOL019", "fail_drop_stated_at_a_lower_flow")).racks.values()
    text = pressure_text(a)
    assert "176 kPa–257 kPa at the design flow 73 L/min (stated 120 kPa at 50 L/min" in text, text
    assert text.endswith("/ 200 kPa at the CDU's rated flow 1,950 L/min"), text
