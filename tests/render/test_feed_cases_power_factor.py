"""The failure-case rows of a rack's feeds use PWR002's power factor, and say so (newuser106, item 4; facility43).

Input: the shipped GB200 NVL72 rack under its own id (8 x 415 V 60 A three-phase feeds, N+N, no power factor
stated; its feeds carry 131.4 kW / 0.97 = 135.5 kW). Before: the failure-case table read "Feeds | 4 unit(s) lost
(N+N) | ... 138.0 | 135.5 | 2.5 | 1.8 % | pass" at PF 1.00 without saying so, while PWR002 in the same document
warned that at 0.95 the feeds give 131.1 kW for 135.5 kW. Expected, by hand: 4 x √3 x 415 V x 60 A x 0.8 = 138.0 kW
at PF 1.00, x 0.95 = 131.1 kW; the row shows both, and holds only at 1.00, so it is at risk as PWR002 warns.
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.feed_load import TYPICAL_POWER_FACTOR
from archgen.render.rack_power import power
from tests.conftest import SPECS, run_specs
from tests.render.test_per_feed import _table

RACK = (SPECS / "catalog" / "racks" / "gb200-nvl72.yaml").read_text(encoding="utf-8").replace(
    "id: gb200-nvl72", "id: r", 1)
FEEDS = "current: 60 A, redundancy: N+N}"
#: Four feeds' capacity at PF 1.00 (N+N of 8): √3 x 415 V x 60 A x 0.8 each.
N_N_KW = 4 * math.sqrt(3) * 415 * 60 * 0.8 / 1000


def _rows(tmp_path, feeds: str = FEEDS):
    assert FEEDS in RACK
    run = run_specs(tmp_path, {"racks/r.yaml": RACK.replace(FEEDS, feeds)})
    table = _table(power(run.racks["rack/r"]), "failure-cases")
    assert table is not None
    return run, {row[1]: row for row in table.rows if row[0] == "Feeds"}


def test_unstated_power_factor_shows_both_ends_and_the_spares_lost_case_is_at_risk(tmp_path):
    run, rows = _rows(tmp_path)
    low = N_N_KW * TYPICAL_POWER_FACTOR
    assert (round(N_N_KW, 1), round(low, 1)) == (138.0, 131.1)
    row = rows["4 unit(s) lost (N+N)"]
    load = row[5].m_as("kW")
    assert low < load < N_N_KW
    assert row[3] == "4 × 34.5 kW at PF 1.00 (assumed)"
    assert row[4] == f"{N_N_KW:.1f} ({low:.1f} at PF 0.95)"
    assert row[6] == f"{N_N_KW - load:.1f} ({low - load:.1f} at PF 0.95)"
    assert row[-1] == "at risk (fails at PF 0.95; PWR002)"
    assert rows["all units healthy"][-1] == "pass"     # 262.2 kW at 0.95: both ends hold
    budget = _table(power(run.racks["rack/r"]), "power-budget")
    assert budget is not None and budget.rows[-1][0] == "Feeds (after derating, at PF 1.00 assumed)"
    [pwr002] = [f for f in run.findings if f.id == "PWR002" and f.object == "rack/r"]
    assert pwr002.severity == "warning" and f"feeds usable {low:.1f} kW" in pwr002.message


def test_a_stated_power_factor_is_the_one_figure_and_fails_as_pwr002_does(tmp_path):
    run, rows = _rows(tmp_path, FEEDS.replace("}", ", power_factor: 0.95}"))
    row = rows["4 unit(s) lost (N+N)"]
    assert "PF" not in row[3]
    budget = _table(power(run.racks["rack/r"]), "power-budget")
    assert budget is not None and budget.rows[-1][0] == "Feeds (after derating)"
    assert row[4].m_as("kW") == pytest.approx(N_N_KW * 0.95)
    assert row[-1] == "fail"
    assert [f.severity for f in run.findings if f.id == "PWR002" and f.object == "rack/r"] == ["error"]


def test_feeds_that_hold_at_both_ends_pass(tmp_path):
    _, rows = _rows(tmp_path, FEEDS.replace("60 A", "63 A"))     # 4 x √3 x 415 x 63 x 0.8 x 0.95 = 137.7 kW
    row = rows["4 unit(s) lost (N+N)"]
    assert row[-1] == "pass" and "at PF 0.95" in row[4]


def test_the_power_chart_s_words_say_both_ends_as_the_table_does(tmp_path):
    """The power chart's alt text read "usable (N+N) 138.0 kW" with no power factor while the table beside it shows
    "138.0 (131.1 at PF 0.95)" (facility43's leftover): the feeds' capacities say both, a stated PF only its own."""
    from archgen.render import alt_text
    run, _ = _rows(tmp_path)
    words = alt_text.power(run.racks["rack/r"])
    low = N_N_KW * TYPICAL_POWER_FACTOR
    assert f"usable (N+N) {N_N_KW:.1f} kW at PF 1.00 (assumed; {low:.1f} kW at PF 0.95)" in words
    stated, _ = _rows(tmp_path / "stated", FEEDS.replace("}", ", power_factor: 0.95}"))
    assert "PF" not in alt_text.power(stated.racks["rack/r"])
