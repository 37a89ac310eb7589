"""A checkpoint storage two clusters of one hall state under one `storage.id` is priced once in the hall's capex.

newuser51: the site PFS (2 M USD) both clusters of an expansion state was counted once in the hall's power but its
price was in each cluster's capex, with no word that the two capex figures hold one system. Each cluster's capex
keeps it (as it stands alone); its capex line says it is shared and gives the hall's capex with it once:
Σ clusters' capex − the price for every cluster but one (the test's 2,000,000 USD: a round input, not a quote).
"""

from __future__ import annotations

from archgen.analyse.storage_cost import STORAGE_KIND
from archgen.render.operations_cost import _basis
from tests.conftest import run_specs
from tests.one_hall import cluster, hall

STORAGE = ("storage: {{capacity: 1 PB, write_bandwidth: 50 GB/s, read_bandwidth: 100 GB/s, basis: assumed, "
           "source: test figure, id: {sid}, power: {{max: 100 kW, basis: assumed, source: test figure}}, "
           "price: {{capex: {price} USD, date: 2025-01, basis: assumed, source: test figure}}}}")


def _run(tmp_path, d_sid: str = "site-pfs", d_price: str = "2000000"):
    files = hall() + cluster("c", STORAGE.format(sid="site-pfs", price="2000000")) \
        + cluster("d", STORAGE.format(sid=d_sid, price=d_price))
    return run_specs(tmp_path, {"specs.yaml": files})


def _storage(run, cid: str):
    [line] = [line for line in run.operations.cost[f"cluster/{cid}"].lines if line.kind == STORAGE_KIND]
    return line


def test_each_capex_says_the_storage_is_shared_and_the_hall_counts_it_once(tmp_path):
    run = _run(tmp_path)
    c, d = run.metrics["cluster/c"]["capex"], run.metrics["cluster/d"]["capex"]
    hall = (c + d).m_as("USD") - 2_000_000
    line = _storage(run, "c")
    assert line.total.m_as("USD") == 2_000_000   # the cluster's own capex keeps the whole system
    assert line.shared == ("shared with cluster 'd' (one system, storage.id 'site-pfs' in facility 'one-hall'): "
                           "its whole price is in each of these clusters' capex; the hall's capex counts it once: "
                           f"{hall:,.0f} USD (2 clusters)")
    assert _storage(run, "d").shared.startswith("shared with cluster 'c' ")
    assert _basis(line).endswith(line.shared)   # the capex table's basis column says it


def test_two_storages_are_not_shared(tmp_path):
    run = _run(tmp_path, d_sid="other-pfs")
    assert _storage(run, "c").shared == "" and _storage(run, "d").shared == ""
