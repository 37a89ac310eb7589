"""A front end's ports out of the cluster (`reserved[].north_south`) give its north-south bandwidth and ratio.

Input: the passing case of NET024 (two racks of four DGX H100 and a converged 200G storage / in-band fabric on
their storage NICs) with 4 border-leaf ports to the site core. Formula: bandwidth = north-south ports x the fabric's
line rate (4 x 200 Gb/s = 800 Gb/s); oversubscription = the node ports' bandwidth over it, each port at the rate it
runs at (a node port at the fabric's `speed`, NET016/NET026; a reserved port is a leaf access port at it too), so
(node ports x 200 Gb/s) / 800 Gb/s. Without the key neither metric is given, and NET024 says the front end's way out
is not provided (info). A fabric with north-south ports but no node ports (an OOB that takes only the switches'
management ports) has no ratio: a requirement on it is not provided, with why (review43: it read 0, which met any
`<=` target).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.conftest import REPO, write_tree

CASES = REPO / "tests" / "checks" / "cases" / "NET024.yml"


def _case(name: str) -> dict[str, str]:
    data = YAML(typ="safe").load(CASES.read_text(encoding="utf-8"))
    return next(c["files"] for c in data["cases"] if c["name"] == name)


def test_north_south_ports_give_bandwidth_and_ratio(tmp_path: Path) -> None:
    r = run([REPO / "specs", write_tree(tmp_path, _case("pass_management_and_converged_front_end"))], select=("NET",))
    m = r.metrics["cluster/c/fabric/storage"]
    node_ports = r.clusters["cluster/c"].fabrics[1].node_ports
    assert m["north_south_bandwidth"].to("Gbit/s").m == 4 * 200
    assert m["north_south_oversubscription"].m == pytest.approx(node_ports * 200 / (4 * 200))
    assert not [f for f in r.findings if f.id == "NET024" and f.object.startswith("cluster/c/")]


def test_front_end_without_them_says_so(tmp_path: Path) -> None:
    files = _case("fail_converged_front_end_without_north_south_ports")
    r = run([REPO / "specs", write_tree(tmp_path, files)], select=("NET",))
    assert "north_south_bandwidth" not in r.metrics["cluster/c/fabric/storage"]
    found = [f for f in r.findings if f.id == "NET024" and f.object.startswith("cluster/c/")]
    assert [(f.object, f.severity) for f in found] == [("cluster/c/fabric/storage/north-south", "info")]


def test_cabling_says_the_north_south_far_end_is_not_placed(tmp_path: Path) -> None:
    """newuser82's leftover 4: the 4 north-south ports' run is the floor's longest, assumed, with the core unplaced.

    Floor of the case: 2 racks at 600 mm pitch in one row, tray drop 1.5 m and archgen's default slack:
    2 x 1.5 m + 0.6 m (the racks' span) + slack, the length `analyse.cabling.floor_span` gives.
    """
    from archgen.render.cabling import cabling

    r = run([REPO / "specs", write_tree(tmp_path, _case("pass_management_and_converged_front_end"))], select=("NET",))
    a = r.clusters["cluster/c"]
    text = " ".join(str(b) for b in cabling(a).blocks)
    [run_] = [t for t in a.cabling.runs if t.fabric == "storage" and t.tier == "access"]
    span = float(run_.length[run_.a_rack < 0].max())
    assert "fabric storage, 4 north-south link(s) to the site core, its position not stated" in text
    assert f"{span:.1f} m each" in text
    slack = a.cluster.spec.floor.slack.m_as("m")
    assert span == pytest.approx(2 * 1.5 + 0.6 + slack)


_OOB = """  endpoints: {nodes: true, switches: true}
  leaf: {uplinks: 2, uplink_speed: 100 Gb/s}"""
_NO_NODES = """  endpoints: {nodes: false, switches: true}
  reserved: [{name: OOB uplinks to the site management network, ports: 2, north_south: true}]
  leaf: {uplinks: 2, uplink_speed: 100 Gb/s}"""
_REQS = """requirements:
- {id: REQ-NS-1, statement: Out-of-band north-south taper, subject: cluster/c/fabric/oob,
   metric: north_south_oversubscription, target: "<= 8"}
- {id: REQ-NS-2, statement: Compute north-south taper, subject: cluster/c/fabric/compute,
   metric: north_south_oversubscription, target: "<= 8"}
"""


def test_no_node_ports_gives_no_ratio(tmp_path: Path) -> None:
    """An OOB with 2 north-south ports and no node ports: bandwidth 2 x 1 Gb/s, ratio not provided (was 0, met)."""
    files = _case("pass_management_and_converged_front_end")
    assert _OOB in files["clusters/c.yaml"]
    files["clusters/c.yaml"] = files["clusters/c.yaml"].replace(_OOB, _NO_NODES) + _REQS
    r = run([REPO / "specs", write_tree(tmp_path, files)], select=("NET", "REQ"))
    m = r.metrics["cluster/c/fabric/oob"]
    assert r.clusters["cluster/c"].fabrics[2].node_ports == 0
    assert m["north_south_bandwidth"].to("Gbit/s").m == 2 * 1
    assert "north_south_oversubscription" not in m
    why = r.operations.withheld["cluster/c/fabric/oob"]["north_south_oversubscription"]
    assert why == ("fabric oob attaches no node ports (`endpoints.nodes` false, or no node with NIC ports of its "
                   "role), so no node bandwidth is weighed against its 2 north-south port(s)")
    status = {j.bound.req.id: j.outcome.status.value for j in r.requirements if j.bound.req.id.startswith("REQ-NS")}
    assert status == {"REQ-NS-1": "not provided", "REQ-NS-2": "not provided"}
    found = {f.requirement: f.message for f in r.findings if f.id == "REQ002"}
    assert found["REQ-NS-1"] == f"REQ-NS-1: cluster/c/fabric/oob's north_south_oversubscription is not provided: {why}"
    assert found["REQ-NS-2"] == ("REQ-NS-2: cluster/c/fabric/compute's north_south_oversubscription is not provided: "
                                 "fabric compute marks no `reserved` ports `north_south`, so its links out of the "
                                 "cluster are not stated")
