"""Property tests of the quantity parser: it never crashes or hangs on any input, and formatting round-trips."""

from __future__ import annotations

import math
import time

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from archgen.units import Power, format_quantity, parse_quantity


class M(BaseModel):
    p: Power


#: The hang guard of one example, in CPU seconds of this process (hypothesis's `deadline` is the wall clock, which a
#: loaded or shared machine stretches for any code).
HANG = 0.5


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_accepted_or_rejected_cleanly(text):
    start = time.process_time()
    try:
        M(p=text)
    except ValidationError:
        pass
    assert time.process_time() - start < HANG


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-9, max_value=1e12, allow_nan=False),
       st.sampled_from(["W", "kW", "MW", "BTU/h", "kV*A", "J/s"]))
def test_format_parse_round_trip(magnitude, unit):
    start = time.process_time()
    q = parse_quantity(f"{magnitude!r} {unit}")
    back = parse_quantity(format_quantity(q))
    assert time.process_time() - start < HANG
    assert math.isclose(back.m_as("W"), q.m_as("W"), rel_tol=1e-12)
