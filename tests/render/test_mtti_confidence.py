"""The cluster document gives the MTTI's 95 % confidence interval from its point set's own counts.

The input that showed it (newuser69, a reliability engineer signing off a 16,384-GPU GB200 job): the document gave
"a mean time to interruption of 3.1 h (0.48 h to 10.8 h over the published rate sets ... and their 95 % Poisson
intervals)", the spread between twelve operators' fleets, and no confidence interval of the 3.1 h itself, though
the default set states the counts behind it (Llama 3 Table 5: 268 GPU, 46 host, 63 software, 7 NIC and 35 switch
and cable interruptions). Here the shipped GB200 SU (576 GPUs): the interval is derived by hand from the table's
own rows, with Welch-Satterthwaite's effective count and the Wilson-Hilferty chi-square quantiles, a formula
independent of the code's bisection on the gamma function (Garwood 1936).
"""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from archgen.render.blocks import Para, Table
from archgen.render.operations import reliability_section

Z975 = 1.959963984540054   # the standard normal's 97.5 % quantile


def _chi2(p_z: float, k: float) -> float:
    """Wilson-Hilferty: the chi-square quantile with k degrees of freedom at the normal quantile `p_z`."""
    return k * (1 - 2 / (9 * k) + p_z * math.sqrt(2 / (9 * k))) ** 3


@pytest.fixture(scope="module")
def section(shipped_run):
    return reliability_section(shipped_run, shipped_run.clusters["cluster/gb200-nvl72-su"])


def test_the_interval_is_the_counted_classes_poisson_interval(section):
    (table,) = [b for b in section.blocks if isinstance(b, Table) and b.id == "failure-rates"]
    per_year = {r[0]: r[3] for r in table.rows if r[3] is not None and "(no interruption)" not in r[0]}
    counted = [(per_year["accelerator"], 268), (per_year["host"], 46), (per_year["software"], 63),
               (per_year["nic"], 7), (per_year["cable"] + per_year["transceiver"], 35)]   # one pooled count
    total = sum(per_year.values())        # the switch class is in it at its point rate: it states no count
    known = sum(r for r, _ in counted)
    n = known ** 2 / sum(r ** 2 / k for r, k in counted)
    lo, hi = _chi2(-Z975, 2 * n) / 2 / n, _chi2(Z975, 2 * n + 2) / 2 / n
    want_short = 24 * 365.25 / (total - known + known * hi)
    want_long = 24 * 365.25 / (total - known + known * lo)
    (text,) = [b.text for b in section.blocks if isinstance(b, Para) and "confidence interval" in b.text]
    got = re.search(r"own counts \(Poisson\) is ([\d.]+) h to ([\d.]+) h; the uncertainty of scale_up_switch, "
                    r"switch is not in it", text)   # spares23: the NVLink switch trays, their own class
    assert got is not None, text
    assert float(got[1]) == pytest.approx(want_short, abs=0.051)
    assert float(got[2]) == pytest.approx(want_long, abs=0.051)
    point = float(re.search(r"mean time to interruption of ([\d.]+) h", text)[1])
    assert float(got[1]) < point < float(got[2])
    assert "0.48 h" not in text   # the shipped SU, not the trial's 16k


def test_a_named_set_gives_no_second_interval(shipped_run):
    """Where the range is already the set's own interval (a cluster naming its set), nothing is repeated."""
    from archgen.render.operations import _own_interval
    rel = shipped_run.operations.reliability["cluster/gb200-nvl72-su"]
    assert _own_interval(rel, {"mtti": 1})
    assert _own_interval(dataclasses.replace(rel, spread=()), {"mtti": 1}) == ""
