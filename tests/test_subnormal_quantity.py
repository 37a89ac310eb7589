"""A quantity whose magnitude is a subnormal double is refused where it is written (newuser39).

`weight: "1e-320 kg"` passed `archgen check` with 0 errors. Below the smallest normal double, 2.2250738585072014e-308
(`sys.float_info.min`, IEEE 754 binary64), a value has lost precision and the next product underflows to 0; no
physical value of a rack comes near it, so it is an exponent or unit mistake. Checked on the magnitude as written and
in SI base units ('1e-300 ng' is 1e-312 kg); legitimate small values (1e-12 s, 1e-30 kg) still pass.
"""

from __future__ import annotations

import sys

import pytest
from pydantic_core import PydanticCustomError

from archgen.units import Q_, parse_quantity
from tests.conftest import SPECS

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")


def test_a_subnormal_weight_is_refused_where_written(spec_tree, cli, monkeypatch):
    # the shipped rack states no enclosure weight (enclosure36): one is written beside its rated payload
    assert "weight: " not in RACK and RACK.count("max_payload: 1360 kg,") == 1
    root = spec_tree({"r.yaml": RACK.replace("max_payload: 1360 kg,", 'max_payload: 1360 kg, weight: "1e-320 kg",')})
    monkeypatch.chdir(root.parent)
    r = cli("check", "specs", "--format", "text")   # before: exit 0, no finding
    assert r.code == 1 and "Traceback" not in r.err
    assert "specs/r.yaml:" in r.err
    assert "weight: '1e-320 kg' is below the smallest normal double (2.2e-308 in SI units); a unit mistake?" in r.err


@pytest.mark.parametrize("written", ["1e-320 kg", "5e-324 s", "-1e-310 W", "1e-300 ng", {"value": 1e-320, "unit": "kg"}])
def test_subnormal_magnitudes_are_refused(written):
    with pytest.raises(PydanticCustomError, match="below the smallest normal double"):
        parse_quantity(written)


@pytest.mark.parametrize("written", ["1e-12 s", "1e-30 kg", "0 kg", "2.3e-308 kg", "-0.0 W"])
def test_small_and_zero_values_pass(written):
    q = parse_quantity(written)
    assert q.magnitude == 0 or abs(q.to_base_units().magnitude) >= sys.float_info.min
    assert q == Q_(float(written.split()[0]), written.split()[1])
