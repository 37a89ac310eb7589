"""The cost paragraph states the hall's terms it names: PUE, electricity price, rent, depreciation years, discount rate.

newuser90, a buyer reading the priced MI355X design's document: "capital recovered over the depreciation years at the
discount rate" and "the capital recovery factor is 0.2505 per year" with neither number given, nor the PUE, tariff
and rent the energy and space rows rest on; only cost.csv held them, so the TCO could not be followed from the
document. The shipped GB200 SU's hall: PUE 1.2, 0.0895 USD/kWh, 2,000 USD a rack position a month, five years at 8 %.
"""

from __future__ import annotations

from archgen.analyse.cost import capital_recovery
from archgen.render.operations_cost import cost_section


def test_the_cost_paragraph_states_the_halls_terms(shipped):
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    text = cost_section(shipped, a).blocks[0].text
    assert "PUE and electricity price (1.2 and 0.0895 USD per kWh)" in text
    assert "space at 2,000 USD per month for a rack position" in text
    assert "at the discount rate, 5 years at 8 % a year (docs/reliability.md, Cost)" in text
    crf = shipped.operations.cost["cluster/gb200-nvl72-su"].recovery_factor
    assert crf == capital_recovery(0.08, 5) and f"The capital recovery factor is {crf:.4f} per year" in text
