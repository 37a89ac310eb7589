"""A large figure in a message reads in plain digits, never as pint's "1.311×10⁴ Tb/s" nor Python's "1.2e+04" (fmt36).

small36 made NET034's bisection read '13,107.2 Tbit/s' through `display.metric_value`; the other messages that wrote
``f"{q:.4g~P}"`` now go through `display.figure`, and the performance model's notes through `display.significant`.
Each test below gives a family an input that used to print an exponent.
"""

from __future__ import annotations

import pytest

from archgen.analyse.storage_demand import amount
from archgen.display import figure
from archgen.model.reliability import FailureRate
from archgen.perf.workload.band_lookup import bands, delivered
from archgen.units import Q_
from tests.checks.test_cases import CASES, _load, findings_of

EXPONENT = ("×10", "e+")


@pytest.mark.parametrize(("value", "unit", "shown"), [
    (13107.2, "Tbit/s", "13,107 Tb/s"),       # pint: 1.311×10⁴ Tb/s
    (123456789, "USD", "123,456,789 USD"),    # whole, not rounded to zeros: a capex reads to the dollar
    (2345.67, "GB/s", "2,346 GB/s"),          # four figures, grouped as metric_value groups them
    (1.5, "kW", "1.5 kW"),
    (0.0125, "s", "0.0125 s"),
    (7, "percent", "7 %"),
    (5, "", "5"),
])
def test_figure_reads_a_quantity_in_plain_digits(value, unit, shown):
    assert figure(Q_(value, unit)) == shown
    assert figure(Q_(-value, unit)) == f"-{shown}"


def test_figure_keeps_as_many_figures_as_asked():
    assert figure(Q_(1234567.8, "tokens/s"), 6) == "1,234,568 token/s"
    assert figure(Q_(123.45678, "s"), 6) == "123.457 s"


def test_a_model_error_reads_a_long_repair_in_plain_digits():
    with pytest.raises(ValueError, match="repair of 20,000 h is longer than a year") as e:
        FailureRate(afr=0.1, repair="20000 h", basis="assumed", source="test")
    assert not any(x in str(e.value) for x in EXPONENT)


def test_an_analysis_reads_a_large_storage_amount_in_plain_digits():
    assert amount(2e19) == "20,000 PB"     # was 2×10⁴ PB
    assert amount(5e14) == "500 TB"


def test_a_performance_note_reads_a_cluster_request_rate_in_plain_digits():
    """4,000 replicas offered 20,000 requests/s: the delivered band's words read '... of the offered 2e+04 requests/s'
    (Python's ``.4g``) before `display.significant`."""
    found = bands("serving-under-load", ["replica_capacity", "tokens_per_second"], capacity=True)
    text = delivered(found, 20000.0, 4000, 6.0)["tokens_per_second"].delivered
    assert "of the offered 20,000 requests/s" in text, text
    assert not any(x in text for x in EXPONENT), text


def test_a_check_message_reads_a_large_storage_bandwidth_in_plain_digits(tmp_path):
    """REL011's leaf-uplink limit with 30 TB/s of stated storage bandwidth: was '3×10⁴ GB/s exceeds ...'."""
    case = next(c for c in _load(CASES / "REL011.yml")["cases"] if c["name"] == "fail_eight_to_one_storage_leaves_under_3_tbps")
    text = case["files"]["c.yaml"].replace("write_bandwidth: 3 TB/s, read_bandwidth: 3 TB/s",
                                           "write_bandwidth: 30 TB/s, read_bandwidth: 30 TB/s")
    assert text != case["files"]["c.yaml"]
    messages = [f.message for f in findings_of("REL011", {**case, "files": {"c.yaml": text}}, tmp_path)]
    assert any("storage.read_bandwidth 30,000 GB/s exceeds" in m for m in messages), messages
    assert not any(x in m for m in messages for x in EXPONENT), messages
