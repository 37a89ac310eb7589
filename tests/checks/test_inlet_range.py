"""COOL015 (newuser29 open 2): a part's own operating inlet range against the hall's air supply.

NVIDIA DGX H100/H200 User Guide (introduction, environmental specifications): operating temperature 5-30 °C, also in
/work/shared/notes/rack-cluster-anchors.md §2.1. ASHRAE class A2 allows 10-35 °C (TC 9.9 Thermal Guidelines), so a
33 °C hall passes COOL005 and fails COOL015 by 3 K.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from archgen.model.base import Cooling
from tests.checks.test_cases import CASES, _load, findings_of


def test_hot_hall_fails_by_three_kelvin(tmp_path) -> None:
    case = next(c for c in _load(CASES / "COOL015.yml")["cases"] if c["name"] == "fail_hot_hall_within_a2")
    found = findings_of("COOL015", case, tmp_path)
    assert len(found) == 2
    for f in found:
        assert f.value.m_as("degC") - f.limit.m_as("degC") == pytest.approx(33 - 30)
    assert "unconfirmed" in found[1].message and "hgx-h200-8gpu" in found[1].message


def test_range_out_of_order_is_refused() -> None:
    with pytest.raises(ValidationError, match="above inlet_max"):
        Cooling.model_validate({"inlet_min": "35 degC", "inlet_max": "30 degC"})
