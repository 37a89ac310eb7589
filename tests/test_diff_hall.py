"""`archgen diff` says when a hall's headroom moved because another cluster joined or left the hall.

newuser51: a GB200 NVL72 SU added beside an H100 pod in the same hall; `archgen diff before after` read "cluster/h100-pod
it_capacity_headroom 1,187 kW → 41 kW, -96.6 % worse" with no word that the H100 pod itself did not change: the
headroom is the hall's capacity less every cluster's feed load (`analyse.facility.hall_headrooms`). The expected
change here is that formula: minus the joining cluster's feed load (`feed_load`).
"""

from __future__ import annotations

import json

import pytest

from archgen.analyse.facility import feed_load
from archgen.compare.diff import compare
from archgen.output.diff import markdown, to_json
from tests.conftest import run_specs
from tests.one_hall import cluster, hall


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("hall")
    base = run_specs(root / "base", {"specs.yaml": hall() + cluster("c")})
    head = run_specs(root / "head", {"specs.yaml": hall() + cluster("c") + cluster("d")})
    return base, head


def test_the_headroom_row_names_the_cluster_that_joined(runs):
    base, head = runs
    d = compare(base, head)
    [row] = [c for c in d.metrics if (c.object, c.metric) == ("cluster/c", "it_capacity_headroom")]
    joined = head.clusters["cluster/d"]
    assert row.change.m_as("kW") == pytest.approx(-feed_load(joined.metrics["it_power"], joined.metrics).m_as("kW"))
    assert row.hall == "cluster/d joined facility 'one-hall' (a hall's headroom is less every cluster's load)"
    assert "worse ▼: cluster/d joined facility 'one-hall'" in markdown(d)
    [got] = [m for m in json.loads(to_json(d))["metrics"]
             if (m["object"], m["metric"]) == ("cluster/c", "cooling_headroom")]
    assert got["hall"] == row.hall


def test_and_the_one_that_left(runs):
    base, head = runs
    [row] = [c for c in compare(head, base).metrics if (c.object, c.metric) == ("cluster/c", "it_capacity_headroom")]
    assert row.hall.startswith("cluster/d left facility 'one-hall'")


def test_a_cluster_alone_on_both_sides_says_nothing(runs):
    base, _ = runs
    assert all(not c.hall for c in compare(base, base).metrics)


def test_a_hall_total_that_moved_names_the_cluster_that_joined_the_deployed_set(tmp_path):
    # e stands in the hall on both sides; the head lists it as deployed: c's hall totals grow by e's IT power
    specs = hall() + cluster("c") + cluster("d") + cluster("e")
    base = run_specs(tmp_path / "base", {"specs.yaml": specs.replace("cooling_capacity", "deployed: [c, d]\n"
                                                                     "cooling_capacity")})
    head = run_specs(tmp_path / "head", {"specs.yaml": specs.replace("cooling_capacity", "deployed: [c, d, e]\n"
                                                                     "cooling_capacity")})
    [row] = [c for c in compare(base, head).metrics if (c.object, c.metric) == ("cluster/c", "hall_it_power")]
    assert row.change.m_as("kW") == pytest.approx(head.metrics["cluster/e"]["it_power"].m_as("kW"))
    assert row.hall == ("cluster/e joined the clusters deployed in facility 'one-hall' (the hall's headrooms and "
                        "totals count every cluster deployed in it)")
    [left] = [c for c in compare(head, base).metrics if (c.object, c.metric) == ("cluster/d", "hall_it_power")]
    assert left.hall.startswith("cluster/e left the clusters deployed in facility 'one-hall'")
    # e itself: a candidate judged alone in the base, deployed in the head; its headroom row says it joined
    [own] = [c for c in compare(base, head).metrics if (c.object, c.metric) == ("cluster/e", "it_capacity_headroom")]
    assert own.hall.startswith("cluster/e joined the clusters deployed in facility 'one-hall'")


def test_a_hall_that_begins_or_stops_listing_deployed_says_so_not_that_clusters_moved(tmp_path):
    # the same three clusters name the hall on both sides; only the hall's list changes. Before (review25), dropping
    # `deployed: [c, d]` read "cluster/c left facility 'one-hall'" on c and "cluster/c, cluster/d joined facility
    # 'one-hall'" on e, and adding it read "cluster/c, cluster/d left the clusters deployed ..." on e
    specs = hall() + cluster("c") + cluster("d") + cluster("e")
    listed = run_specs(tmp_path / "listed", {"specs.yaml": specs.replace("cooling_capacity", "deployed: [c, d]\n"
                                                                         "cooling_capacity")})
    unlisted = run_specs(tmp_path / "unlisted", {"specs.yaml": specs})
    dropped = {c.object: c.hall for c in compare(listed, unlisted).metrics if c.metric == "it_capacity_headroom"}
    assert dropped["cluster/c"] == dropped["cluster/e"] == (
        "facility 'one-hall' no longer lists `deployed`: every cluster naming it is counted together (a hall's "
        "headroom is less every cluster's load)")
    added = {c.object: c.hall for c in compare(unlisted, listed).metrics if c.metric == "it_capacity_headroom"}
    assert added["cluster/c"].startswith("facility 'one-hall' now lists the clusters deployed in it, cluster/c among")
    assert added["cluster/e"].startswith("facility 'one-hall' now lists the clusters deployed in it, cluster/e not: "
                                         "a candidate judged alone")
    assert not any("joined" in h or "left" in h for h in (*dropped.values(), *added.values()))
