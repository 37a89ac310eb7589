"""A multi-rack scale-up domain (GB200 NVL36x2 fixture of `tests.analyse.test_scale_up_racks`) in the documents.

The cluster document's scale-up table states the racks per domain and the trunk links and cables; the port map
(portmap.csv) and the run list (cabling.csv) list the trunk cables between the racks of each domain. Expected counts
follow the fixture's inputs: per domain two racks of 36 GPUs, each rack's 36 x 900 GB/s per direction over 400 Gb/s
(50 GB/s) trunk links = 648 links between the pair, one link per cable of the test part; 9 switch trays a rack.
"""

from __future__ import annotations

import pytest

from archgen.analyse.portmap import port_map
from archgen.render import scale_up, wiring
from archgen.render.cabling import run_list
from tests.analyse.test_scale_up_racks import _run, _text
from tests.conftest import run_specs
from tests.render.test_consistency import _tables

PER_RACK, PER_DIRECTION_GBS, TRUNK_GBS, TRAYS = 36, 900, 50, 9
PER_PAIR = PER_RACK * PER_DIRECTION_GBS // TRUNK_GBS   # 648


@pytest.fixture(scope="module")
def pod(tmp_path_factory):
    """Four NVL36 racks in one row: two 72-GPU domains (racks 1+2 and 3+4)."""
    return _run(tmp_path_factory.mktemp("pod"), racks=4).clusters["cluster/pod"]


def test_the_scale_up_table_states_racks_per_domain_and_trunks(pod) -> None:
    """The table read domains, size, links and switch ports only: nothing said the domain spans two racks."""
    rows = dict(scale_up.rows(pod))
    assert rows["Domains"] == "2" and rows["Accelerators per domain"] == "72"
    assert rows["Racks per domain"].startswith("2 (consecutive racks with accelerators in floor order)")
    assert rows["Trunk link (switch to switch between racks)"] == "test-trunk"
    assert rows["Trunk links per pair of racks"] == f"{PER_PAIR:,}"
    assert rows["Trunk links / cables per domain"] == f"{PER_PAIR:,} / {PER_PAIR:,}"
    assert "not modelled" in rows["Switch hops between accelerators"]


def test_the_topology_row_says_two_hops_between_racks(pod) -> None:
    """newuser59: the Topology row read "one switch hop between any two accelerators" above the hops row's "2
    between racks"; an accelerator links to its own rack's switches only (analyse.scale_up_racks)."""
    rows = dict(scale_up.rows(pod))
    assert "one switch hop between any two" not in rows["Topology"]
    assert rows["Topology"] == ("switched over 2 racks (one switch hop inside a rack, two between racks: each rack's "
                                "switches joined to the other racks' by trunk links)")


def test_a_one_rack_domain_says_one_rack_and_no_trunk(tmp_path) -> None:
    """An NVL72-shaped rack domain (racks: 1) shows 'Racks per domain: 1' and no trunk rows."""
    text = _text(racks=2, span=1, size=36).replace(", trunk_link: test-trunk", "")
    one = run_specs(tmp_path, {"c.yaml": text})
    rows = dict(scale_up.rows(one.clusters["cluster/pod"]))
    assert rows["Racks per domain"] == "1"
    assert not any(k.startswith("Trunk") for k in rows)


def test_the_port_map_lists_every_trunk_cable_with_both_ends(pod) -> None:
    """The trunk runs were laid and in the BOM, but not in portmap.csv (the map looked runs up by fabric id)."""
    pm = port_map(pod)
    trunk = [r for r in pm.rows if (r.fabric, r.tier) == ("scale_up", "trunk")]
    (tier,) = [t for t in pod.cabling.tiers if t.tier == "trunk"]
    assert len(trunk) == pm.by_tier()[("scale_up", "trunk")] == tier.physical == 2 * PER_PAIR
    assert {(r.a.rack, r.b.rack) for r in trunk} == {("nvl36-01", "nvl36-02"), ("nvl36-03", "nvl36-04")}
    assert all(r.a.port == r.b.port == "not provided" and r.links == 1 for r in trunk)
    assert all(r.a.device == r.b.device and r.a.device.startswith("test-nvl36-switch-") for r in trunk)
    per_tray: dict[tuple[str, str], int] = {}
    for r in trunk:
        per_tray[(r.a.rack, r.a.device)] = per_tray.get((r.a.rack, r.a.device), 0) + 1
    assert len(per_tray) == 2 * TRAYS and set(per_tray.values()) == {PER_PAIR // TRAYS}   # 72 a tray
    assert {r.ordered for r in trunk} == {bin_m for _, bin_m in tier.by_option_bin}   # 2.5 m, as the BOM orders
    section = wiring.section(pod, pm)
    counts = _tables(section)["portmap-counts"].rows
    assert ("scale_up", wiring.TIER_TITLES["trunk"], 2 * PER_PAIR, 2 * PER_PAIR) in counts


def test_the_run_list_holds_the_trunk_runs(pod) -> None:
    """cabling.csv listed the fabrics' runs only; the trunks are its runs between the racks of a domain."""
    rows = [r for r in run_list(pod).rows if r[:2] == ("scale_up", wiring.TIER_TITLES["trunk"])]
    assert sum(r[-2] for r in rows) == sum(r[-1] for r in rows) == 2 * PER_PAIR   # links; cables, one link each
    assert {(r[2], r[4]) for r in rows} == {("nvl36-01", "nvl36-02"), ("nvl36-03", "nvl36-04")}
