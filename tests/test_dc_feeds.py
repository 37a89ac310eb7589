"""Which single-phase ratings `dc_feeds.refuse_dc` lets through as AC (IEC 60038:2009 Table 1, as cited there)."""

from __future__ import annotations

import pytest

from archgen.model.power import PowerInput


def _input(voltage: str, basis: str) -> PowerInput:
    return PowerInput.model_validate({"voltage": voltage, "basis": basis, "phases": 1})


def test_three_wire_1000v_between_lines_is_ac() -> None:
    # Table 1's three-wire 1000 V system: a single-phase load between two lines sees 1000 V, a standard AC supply.
    assert _input("1000 V", "line-to-line").voltage.m_as("V") == 1000.0
    # 400/690 V between two lines: the highest four-wire system, at the limit, judged as AC.
    assert _input("690 V", "line-to-line").voltage.m_as("V") == 690.0


@pytest.mark.parametrize(("voltage", "basis"), [("800 V", "line-to-line"), ("1000 V", "line-to-neutral"),
                                                ("1.5 kV", "line-to-line")])
def test_other_single_phase_above_690v_refused_as_not_modelled(voltage: str, basis: str) -> None:
    # 800 V is no Table 1 voltage (NVIDIA's 800 VDC written with the AC keys); Table 1 has no 1000 V to neutral.
    with pytest.raises(Exception, match="not modelled") as info:
        _input(voltage, basis)
    assert "no standard AC system" not in str(info.value)
