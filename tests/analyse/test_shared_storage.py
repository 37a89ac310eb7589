"""A checkpoint storage that two clusters of one hall state with one `storage.id` counts once in the hall's load.

newuser51: an operator adding a GB200 NVL72 SU beside an H100 SuperPOD in the same hall states the site's parallel
file system (`id: site-pfs`, its draw in `power`) in both clusters, since both checkpoint to it. Each cluster's IT
power holds its draw (docs/reliability.md, "Checkpoint storage: price and power"), and PWR010, COOL009 and the
headroom metrics summed the clusters of the hall, so the hall carried the storage twice: 2,759.4 kW for a design
drawing 2,659.4 kW, a 100 kW storage counted twice. The expected figures here are that sum with the storage once:
hall load = Σ clusters' feed load − the storage's draw (the test's 100 kW, a round input, not a quote).
"""

from __future__ import annotations

import pytest

from tests.conftest import run_specs
from tests.one_hall import cluster, hall

STORAGE = ("storage: {{capacity: 1 PB, write_bandwidth: 50 GB/s, read_bandwidth: 100 GB/s, basis: assumed, "
           "source: test figure, id: {sid}, power: {{max: 100 kW, basis: assumed, source: test figure}}}}")


def _specs(capacity: str, c_storage: str, d_storage: str) -> dict[str, str | bytes]:
    return {"specs.yaml": hall(capacity) + cluster("c", STORAGE.format(sid=c_storage))
            + cluster("d", STORAGE.format(sid=d_storage))}


def _findings(run, check: str) -> list:
    return [f for f in run.findings if f.id == check]


def test_one_storage_counted_once_in_the_hall(tmp_path):
    run = run_specs(tmp_path, _specs("700 kW", "site-pfs", "site-pfs"))
    c, d = run.metrics["cluster/c"], run.metrics["cluster/d"]
    load = (c["it_power"] + d["it_power"]).m_as("kW") - 100   # the 100 kW storage once
    assert 600 < load < 700   # each cluster 2 x 271.3 kW of racks + 100 kW: over 700 kW only with the storage twice
    for m in (c, d):
        assert m["it_capacity_headroom"].m_as("kW") == pytest.approx(700 - load)
        assert m["cooling_headroom"].m_as("kW") == pytest.approx(700 - load)
    assert _findings(run, "PWR010") == [] and [f for f in _findings(run, "COOL009") if f.severity == "warning"] == []


def test_the_warning_names_the_storage_counted_once(tmp_path):
    run = run_specs(tmp_path, _specs("600 kW", "site-pfs", "site-pfs"))
    load = (run.metrics["cluster/c"]["it_power"] + run.metrics["cluster/d"]["it_power"]).m_as("kW") - 100
    [first, _] = _findings(run, "PWR010")
    assert f"the hall carries {load:.1f} kW (checkpoint storage 'site-pfs', stated by 'c' and 'd', counted once at " \
        "100.0 kW)" in first.message
    assert first.value.m_as("kW") == pytest.approx(load)


def test_two_storages_count_twice(tmp_path):
    run = run_specs(tmp_path, _specs("700 kW", "pfs-a", "pfs-b"))
    c, d = run.metrics["cluster/c"], run.metrics["cluster/d"]
    load = (c["it_power"] + d["it_power"]).m_as("kW")
    assert c["it_capacity_headroom"].m_as("kW") == pytest.approx(700 - load)
    assert [f.severity for f in _findings(run, "PWR010")] == ["warning", "warning"]
