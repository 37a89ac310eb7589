"""Each feed's load and current, normally and with a feed lost, in the rack document and check (nu44power, newuser44).

Input: newuser44's rack, the shipped GB300 NVL72 (8 x 415 V 60 A three-phase feeds, N+1, no power factor stated).
Before: the document and check gave only the feeds' pooled capacity (PWR002/PWR003); newuser44 worked out by hand
17.7 kW a feed normally and, with one of 8 lost, 20.3 kW ≈ 28.2 A against 48 A continuous (60 A x 0.8, NEC
210.20(A)), and the power factor 1.00 that PWR002 assumed passed without a finding.
Expected, from the formula: per feed = the feeds' load / feeds in service; I = P / (√3 x 415 V x PF).
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.feed_load import TYPICAL_POWER_FACTOR
from archgen.render.blocks import Section, Table
from archgen.render.rack_power import power
from tests.conftest import SPECS, run_specs

#: The shipped rack under its own id, so that it is analysed as a spec of the tree, not a library entry.
RACK = (SPECS / "catalog" / "racks" / "gb300-nvl72.yaml").read_text(encoding="utf-8").replace(
    "id: gb300-nvl72", "id: r", 1)
OLD = "current: 60 A, redundancy: N+1}"


def _table(section: Section, table_id: str) -> Table | None:
    for block in section.blocks:
        if isinstance(block, Table) and block.id == table_id:
            return block
    for sub in section.sections:
        if (found := _table(sub, table_id)) is not None:
            return found
    return None


@pytest.fixture(scope="module")
def gb300(tmp_path_factory):
    run = run_specs(tmp_path_factory.mktemp("gb300"), {"racks/r.yaml": RACK})
    return run, run.racks["rack/r"]


def test_the_document_gives_each_feeds_load_and_current_with_one_of_eight_lost(gb300):
    _, a = gb300
    load = a.power.feeds.load.m_as("kW")            # what the 8 feeds carry (the sn2201 are fed from outside)
    table = _table(power(a), "per-feed")
    assert table is not None
    normal, lost = table.rows
    amps = lambda kw, pf=1.0: kw * 1000 / (math.sqrt(3) * 415 * pf)  # noqa: E731
    assert normal[1:4] == ("normal operation", "nothing", 8)
    assert normal[4].m_as("kW") == pytest.approx(load / 8) == pytest.approx(17.7, abs=0.05)
    assert lost[1:4] == ("the spares lost (N+1)", "1 of 8", 7)
    assert lost[4].m_as("kW") == pytest.approx(load / 7) == pytest.approx(20.3, abs=0.05)
    assert lost[5].m_as("A") == pytest.approx(amps(load / 7)) == pytest.approx(28.2, abs=0.05)
    assert lost[6].m_as("A") == pytest.approx(60 * 0.8)                    # continuous rating
    assert lost[8].m_as("A") == pytest.approx(amps(load / 7, TYPICAL_POWER_FACTOR))  # at the typical PF, none stated


def test_every_current_column_states_its_unit_in_its_heading(gb300):
    """newuser108: "Current at PF 0.95" wrote "49.6 A" in its cells, the other columns "(A)" in their headings;
    the Conventions section says a table gives the unit in each column heading."""
    table = _table(power(gb300[1]), "per-feed")
    assert table is not None
    assert [c.heading for c in table.columns if c.title.startswith("Current")] == [
        "Current per feed (A)", f"Current at PF {TYPICAL_POWER_FACTOR:.2f} (A)"]
    assert not any(isinstance(v, str) and v.endswith(" A") for row in table.rows for v in row)


def test_check_names_the_assumed_power_factor_and_the_per_feed_figures(gb300):
    run, a = gb300
    found = [f for f in run.findings if f.id == "PWR002" and f.object == "rack/r"]
    assert [f.severity for f in found] == ["info"]
    usable = 7 * math.sqrt(3) * 415 * 60 * 0.8 * TYPICAL_POWER_FACTOR / 1000    # N+1 of 8 at PF 0.95
    message = found[0].message
    assert message.startswith("power factor not stated (power.feeds.power_factor): judged at 1.00")
    assert f"usable {usable:.1f} kW for {a.power.feeds.load.m_as('kW'):.1f} kW" in message
    assert "each of 8 feeds 17.7 kW" in message and "20.3 kW (28.2 A) with 1 of 8 lost (N+1)" in message


def test_a_stated_power_factor_leaves_no_finding_and_drops_the_typical_column(tmp_path):
    assert OLD in RACK
    run = run_specs(tmp_path, {"racks/r.yaml": RACK.replace(OLD, "current: 60 A, redundancy: N+1, power_factor: 0.98}")})
    a = run.racks["rack/r"]
    assert not [f for f in run.findings if f.id == "PWR002"]
    table = _table(power(a), "per-feed")
    assert table is not None and len(table.columns) == 8
    lost = table.rows[1]
    assert lost[5].m_as("A") == pytest.approx(a.power.feeds.load.m_as("W") / 7 / (math.sqrt(3) * 415 * 0.98))
