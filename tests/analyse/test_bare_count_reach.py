"""Ports given as a bare count take the floor's longest run as a bound: stated (CAB004), never a CAB001 error.

From the network architect's trial: 65 GB300 NVL72 SUs with an out-of-band fabric whose 32,688 tray BMC ports are
`endpoints.extra` (the trays carry no BMC NIC part). With no rack, each run took the floor's corner-to-corner
length (263.6 m with its spine racks; 240.2 m here), so every Cat6a run failed its 100 m reach (CAB001), though a BMC's run to its rack's SN2201 is a
few metres. Here the trial's floor with its OOB fabric alone.
"""

from __future__ import annotations

from pathlib import Path

from tests.data.clusters.build import SU_IB_RACK, gb300_cluster, oob

RACKS = SU_IB_RACK
CLUSTER = gb300_cluster("gb300-xdr", "su-ib", [oob("{nodes: false, switches: false, extra: 32688}")], sus=65,
                        racks_per_row=18)


def test_a_bare_count_past_reach_at_its_bound_is_an_assumption_not_an_error(tmp_path: Path):
    from archgen.pipeline import run
    (tmp_path / "racks.yaml").write_text(RACKS, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(CLUSTER, encoding="utf-8")
    r = run([tmp_path])
    reach = [f.message for f in r.findings if f.id == "CAB001" and f.message.startswith("access")]
    assert reach == []
    bound = [(f.severity, f.location.line, f.message) for f in r.findings
             if f.id == "CAB004" and "endpoints.extra" in f.message]
    assert bound == [("warning", 22, "access: 32688 link(s) from ports given as a count (endpoints.extra) have no "
                                     "rack; their length is bounded by 240.2 m, the longest run the floor holds, "
                                     "past the 100 m reach of cat6a-1g: reach not checked for them")]


def test_reserved_ports_past_reach_are_named_as_reserved(tmp_path: Path):
    """newuser91: a front end's border uplinks to the site core (`reserved`, `north_south: true`) are bare counts too,
    but CAB004 named `endpoints.extra`, which the fabric did not state, and pointed at the fabric's first line. Now
    it names the reserved entry, at its line (the switches' management ports fill the leaves, so they are several)."""
    from archgen.pipeline import run
    fabric = oob("{nodes: false, switches: true}").replace(
        "    links:", "    reserved: [{name: border uplinks to the site core, ports: 8, north_south: true}]\n    links:")
    (tmp_path / "racks.yaml").write_text(RACKS, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(gb300_cluster("gb300-xdr", "su-ib", [fabric], sus=65, racks_per_row=18),
                                           encoding="utf-8")
    r = run([tmp_path])
    bound = [(f.location.line, f.message) for f in r.findings if f.id == "CAB004" and "as a count" in f.message]
    assert bound == [(26, "access: 8 link(s) from ports given as a count (reserved 'border uplinks to the site core') "
                          "have no rack; their length is bounded by 240.2 m, the longest run the floor holds, past "
                          "the 100 m reach of cat6a-1g: reach not checked for them")]
