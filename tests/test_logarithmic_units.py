"""Units on a logarithmic scale are refused wherever a quantity is read (`units.parse_unit`, small27).

No metric or spec field of archgen is a level in decibels, nepers or octaves, so a requirement in one has nothing to
be judged on. Before, an acoustic requirement "<= 85 dB" on the dimensionless `accelerators` was judged met on every
shipped rack (pint takes dB for a dimensionless unit), and "85 dB(A)" (decibel times ampere to pint) stopped `check`
with pint's traceback ("'delta_decibel' is not defined"). The CLI's words are `tests/errors/acoustic_target.txt`.
"""

from __future__ import annotations

import pytest
from pydantic_core import PydanticCustomError

from archgen.model.requirements import Requirement
from archgen.units import LOGARITHMIC, parse_quantity


@pytest.mark.parametrize(("text", "scale"), [("85 dB", "decibel"), ("85 dB(A)", "decibel"), ("-3 dBm", "decibelmilliwatt"),
                                             ("1 Np", "neper"), ("2 octave", "octave"), ("3 dB/m", "decibel")])
def test_a_logarithmic_unit_is_refused_with_its_scale(text, scale):
    with pytest.raises(PydanticCustomError) as e:
        parse_quantity(text)
    assert e.value.message() == (f"unit '{text.split(' ', 1)[1]}' is on a logarithmic scale ({scale}); archgen "
                                 "computes no figure in one")
    assert e.value.context is not None and e.value.context["hint"] == LOGARITHMIC


@pytest.mark.parametrize("text", ["45 degC", "2 degC/min", "2 K/min", "132 kW", "1.8 TB/s"])
def test_linear_and_offset_units_still_read(text):
    assert parse_quantity(text).magnitude


def test_an_acoustic_target_on_a_dimensionless_metric_is_never_judged():
    with pytest.raises(ValueError, match="logarithmic scale"):
        Requirement(id="REQ-X-001", statement="s", subject="rack/*", metric="accelerators", target="<= 85 dB")
