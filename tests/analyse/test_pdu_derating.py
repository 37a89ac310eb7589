"""A PDU's capacity in the power budget is the continuous one the phase table uses (newuser16, finding 1).

A rack integrator reading the DGX B200 rack document found the same 415 V / 60 A three-phase PDU at 43.1 kW in the
power budget (PWR001/PWR004: V x A x sqrt(3), the breaker's full rating) and at 3 x 11.50 = 34.5 kW in the load per
phase (x the NEC 210.20 80 % continuous-load derating). The catalog's own source for the PDU
(netbox `dcim/models/power.py`: available power = V x A x sqrt(3) x max utilisation) gives 34.5 kVA. One rule now
serves both: rating x the feeds' derating x power factor.
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.distribution import distribution
from archgen.pipeline import run

CONTINUOUS = 415 * 60 * math.sqrt(3) * 0.8 / 1000      # kW one PDU carries continuously: 34.50 (was 43.13)


def test_budget_and_phase_table_take_one_pdu_capacity(shipped):
    a = shipped.racks["rack/dgx-b200-compute"]
    pdus = a.power.conversion
    assert pdus.kind == "PDUs"
    assert pdus.unit_capacity.m_as("kW") == pytest.approx(CONTINUOUS)          # was 43.13
    assert pdus.usable.m_as("kW") == pytest.approx(2 * CONTINUOUS)             # N+N of 4: was 86.3
    d = distribution(a.rack, pdus.unit_capacity)
    assert all(p.capacity.m_as("kW") * 3 == pytest.approx(CONTINUOUS) for p in d.pdus)


RACK = """kind: Rack
id: r
form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1500 kg, weight: 180 kg}
slots:
  - {at: 3, part: dgx-b200, count: 3}
  - {at: 1, part: pdu-415v-60a-3ph, count: 2}
power:
  feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  air: {class: A2, delta_t: 20 K}
"""


def test_one_pdu_of_two_cannot_carry_three_dgx_b200(spec_tree):
    # 3 x 14.3 kW = 42.9 kW on one PDU when the other side is lost: under the breaker's 43.1 kVA, over the 34.5 kW
    # it carries continuously. Before, PWR001 and PWR004 passed (limit 43.13 kW).
    result = run([spec_tree({"racks/r.yaml": RACK})])
    found = sorted((f.id, round(f.value.m_as("kW"), 2), round(f.limit.m_as("kW"), 2))
                   for f in result.findings if f.id in ("PWR001", "PWR004"))
    assert found == [("PWR001", 42.9, round(CONTINUOUS, 2)), ("PWR004", 42.9, round(CONTINUOUS, 2))]
