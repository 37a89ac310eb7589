"""Values as datasheets print them, copied by hand into a spec (newuser49's trial): read with their meaning or refused
with a message that says how to write them."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from archgen.units import FlowRate, parse_quantity


class Flow(BaseModel):
    f: FlowRate


@pytest.mark.parametrize("text", ["1105 CFM", "1105 cfm", "1.105 kCFM", "1105 ft**3/min"])
def test_cfm_is_a_cubic_foot_per_minute(text):
    """CFM is the name of ft³/min (NVIDIA DGX H100/H200 user guide, specifications: '1,105 CFM'); pint read 'cfm' as
    the centifermi, a length, and did not know 'CFM'."""
    assert Flow(f=text).f.m_as("ft**3/min") == pytest.approx(1105)
    assert parse_quantity(text).m_as("m**3/h") == pytest.approx(1105 * 0.3048**3 * 60)  # 1 ft = 0.3048 m exactly


def test_cfm_is_not_a_length():
    with pytest.raises(ValidationError, match="expected a volumetric flow"):
        Flow(f="1105 fm")   # the femtometre is still a length, refused as a flow
