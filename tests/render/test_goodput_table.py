"""The cluster document's training-job goodput table (`render.operations.reliability_section`)."""

from __future__ import annotations

import pytest

from archgen.render.blocks import Table
from archgen.render.operations import reliability_section


def test_the_restart_column_says_it_holds_the_repair_wait(shipped):
    """deliv2 (newuser31 finding 5): "Restart (min) 1,088.3", about 18 h, is mostly the wait for a repair: the GB200
    job uses all 576 GPUs, so no hot spare is idle and a restart after a hardware failure waits for its repair
    (archgen/analyse/reliability.py: the mean repair time times P(no spare free)). The heading and caption say so."""
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    section = reliability_section(shipped, a)
    [table] = [b for b in section.blocks if isinstance(b, Table) and b.id == "goodput"]
    col = [c.heading for c in table.columns].index("Restart + repair wait (min)")
    assert "includes the expected wait for a repair" in table.caption
    g = shipped.operations.goodput["workload/llama3-405b-pretrain-gb200"]
    [row] = [r for r in table.rows if r[0] == "llama3-405b-pretrain-gb200"]
    assert g.spares_available == 0 and g.wait > g.restart > 0     # the wait is most of it
    assert row[col].m_as("s") == pytest.approx(g.restart + g.wait)
