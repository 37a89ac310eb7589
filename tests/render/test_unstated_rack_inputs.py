"""Inputs a rack spec leaves out are shown as such in its document, never as stated figures (newuser25, open 3, 4, 7).

Input: four MI355X platforms on two placed in-rack CDUs (COOL012's pass case) in a hall with 30 °C facility water.
Before: the feeds table showed "Power factor | 1.00" (the default of `power.feeds.power_factor`) like a stated value;
the liquid table gave the CDU's capacity with no word that its rating conditions (`rated_at`) are not stated, and
COOL010 was not applicable, so COOL001's pass read as clean; and the power text said "other equipment in the rack
0.0 kW" for two CDUs whose catalog entry states no `power`.
"""

from __future__ import annotations

import pytest

from archgen.render.blocks import Para, Section, Table
from archgen.render.rack_cooling import cooling
from archgen.render.rack_power import power
from tests.conftest import run_specs

RACK = """kind: Rack
id: r
facility: hall-liquid
form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1400 kg, weight: 180 kg}
slots:
- {at: 9, part: amd-mi355x-platform, count: 4}
- {at: 1, part: pdu-415v-60a-3ph, count: 4}
- {at: 30, part: in-rack-cdu-100kw, count: 2}
power:
  feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  liquid: {cdu: in-rack-cdu-100kw, cdu_count: 2, cdu_redundancy: N+1, racks_per_cdu: 1, supply: 40 degC, delta_t: 10 K, class: W32}
  air: {class: A2, delta_t: 20 K}
"""
FEEDS = "feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}"


def _run(tmp_path, text: str = RACK):
    return run_specs(tmp_path, {"racks/r.yaml": text})


def _rows(section: Section, table_id: str) -> dict[str, str]:
    """Item -> value of the two-column table `table_id` anywhere in `section`."""
    for block in section.blocks:
        if isinstance(block, Table) and block.id == table_id:
            return {str(k): str(v) for k, v in block.rows}
    for sub in section.sections:
        if found := _rows(sub, table_id):
            return found
    return {}


def test_a_defaulted_power_factor_is_marked_assumed(tmp_path):
    a = _run(tmp_path).racks["rack/r"]
    assert _rows(power(a), "feeds")["Power factor"] == (
        "1.00 (assumed: not stated in power.feeds.power_factor, the default)")


def test_a_defaulted_derating_is_marked_assumed(tmp_path):
    # thermal2: "Continuous-load derating | 80 %" read as stated; the 0.8 is NEC 210.20(A)'s 125 % rule (1 / 1.25).
    a = _run(tmp_path).racks["rack/r"]
    assert _rows(power(a), "feeds")["Continuous-load derating"] == (
        "80 % (assumed: not stated in power.feeds.derating, the default, NEC 210.20(A) continuous load)")


@pytest.mark.parametrize(("stated", "row", "shown"), [("power_factor: 0.95", "Power factor", "0.95"),
                                                    ("derating: 1.0", "Continuous-load derating", "100 %")])
def test_a_stated_feed_factor_is_shown_as_stated(tmp_path, stated, row, shown):
    text = RACK.replace(FEEDS, FEEDS.replace("redundancy: N+N}", f"redundancy: N+N, {stated}}}"))
    a = _run(tmp_path, text).racks["rack/r"]
    assert _rows(power(a), "feeds")[row] == shown


def test_unstated_cdu_rating_conditions_are_said_and_found(tmp_path):
    result = _run(tmp_path)
    rows = _rows(cooling(result.racks["rack/r"]), "liquid")
    assert rows["CDU capacity rated at"].startswith("not stated (rated_at)")
    [f] = [f for f in result.findings if f.id == "COOL010"]
    assert f.severity == "info"
    assert f.message == ("CDU in-rack-cdu-100kw states no rated_at: its 100 kW is counted as stated (COOL001), not "
                         "known to hold at facility 'hall-liquid' (facility water 30 °C)")


def test_a_cdu_with_no_power_is_not_provided_not_zero(tmp_path):
    a = _run(tmp_path).racks["rack/r"]
    text = " ".join(b.text for b in power(a).blocks if isinstance(b, Para))
    assert "other equipment in the rack not provided (in-rack-cdu-100kw states no `power`" in text
    assert "other equipment in the rack 0.0 kW" not in text
