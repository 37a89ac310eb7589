"""CDUs' management connections on a management fabric (`endpoints.cooling`, `CoolingUnit.management_ports`).

A CDU's controller reports over Ethernet (Modbus TCP, BACnet/IP, SNMP) or over serial RS-485 Modbus RTU to the
building-management system: APC's InRow RC/RD/RP user's guide (Serial Modbus: "3-wire RS-485") and Liebert's
IntelliSlot Modbus/BACnet IP register maps show both. Which network takes it is the design's choice, so the OOB
fabric takes the CDUs' ports only where its spec says so, and the control-plane section says which it is.

The GB200 SU buys 2 in-row CDUs for its 8 NVL72 racks (`racks_per_cdu: 8`, `cdu_count: 2`, N+1; tests/analyse/
test_bom.py). Its OOB fabric has 481 endpoint ports (8 x 55 + 41 in the network racks, test_management_leaves.py).
"""

from __future__ import annotations

import shutil
from dataclasses import replace

from archgen.analyse.portmap import port_map
from archgen.analyse.rack_ports import cdu_ports, row_cdu_ports, unstated_cdus
from archgen.render.reference import control_plane

SU = "cluster/gb200-nvl72-su"
CLUSTER = "clusters/gb200-nvl72-su.yaml"
ENDS = "endpoints: {nodes: false, switches: true, power: true, node_management: 1}"
WITH_CDUS = "endpoints: {nodes: false, switches: true, power: true, cooling: true, node_management: 1}"


def _oob(run):
    return next(fa for fa in run.clusters[SU].fabrics if fa.fabric.spec.id == "oob")


def _facts(run) -> str:
    a = run.clusters[SU]
    return " ".join(str(b) for b in control_plane(a).blocks)


def test_shipped_su_leaves_the_cdus_to_the_bms_and_says_so(shipped):
    fa = _oob(shipped)
    assert fa.cdu_mgmt_ports == 0 and fa.endpoint_ports == 481
    text = _facts(shipped)
    assert "management connections of the 2 CDUs (2 in the rows) are left to the building-management system" in text
    assert "Serial consoles are not modelled" in text


def test_cdus_taken_but_unstated_are_named_not_counted(edited_shipped):
    run = edited_shipped(CLUSTER, ENDS, WITH_CDUS)
    fa = _oob(run)
    assert fa.endpoint_ports == 481 and fa.cdu_mgmt_ports == 0 and fa.cdu_mgmt_unstated == 2
    [f] = [f for f in run.findings if f.id == "NET032" and f.object.startswith(SU) and "CDU" in f.message]
    assert f.key.endswith("endpoints.cooling"), f.key
    assert "in-row-cdu-1.3mw x2 (2 in the rows)" in f.message


def test_stated_cdu_ports_count_once_per_cdu_bought(edited_shipped):
    run = edited_shipped(CLUSTER, ENDS, WITH_CDUS)
    c = run.clusters[SU].cluster
    ends = _oob(run).fabric.spec.endpoints
    one = {rid: replace(r, cdu=r.cdu.model_copy(update={"management_ports": 1})) if r.cdu is not None else r
           for rid, r in c.rack_types.items()}
    stated = replace(c, rack_types=one)
    assert row_cdu_ports(stated, ends) == cdu_ports(stated, ends) == 2 * 1     # 2 in-row CDUs x 1 port
    assert unstated_cdus(stated, ends) == {}
    assert row_cdu_ports(stated, ends.model_copy(update={"cooling": False})) == 0


def test_stated_in_row_cdu_ports_are_cabled_at_no_rack(tmp_path):
    """With the class CDU stating one port and the fabric taking them: 481 + 2 = 483 ports, still 16 leaves."""
    from tests.conftest import SPECS, run_specs

    shutil.copytree(SPECS, tmp_path / "specs", ignore=shutil.ignore_patterns("sweeps"))
    cdu = tmp_path / "specs" / "catalog" / "cooling" / "in-row-cdu-1.3mw.yaml"
    cdu.write_text(cdu.read_text(encoding="utf-8") + "management_ports: 1\n", encoding="utf-8")
    cluster = tmp_path / "specs" / CLUSTER
    cluster.write_text(cluster.read_text(encoding="utf-8").replace(ENDS, WITH_CDUS, 1), encoding="utf-8")
    run = run_specs(tmp_path, {})
    fa = _oob(run)
    assert fa.endpoint_ports == 481 + 2 and fa.cdu_mgmt_ports == 2 and fa.tier_at("leaf").switches == 16
    assert not [f for f in run.findings if f.id == "NET032" and "CDU" in f.message]
    rows = [r for r in port_map(run.clusters[SU]).rows if r.a.device == "in-row-cdu-1.3mw management port"]
    assert len(rows) == 2 and all(r.a.u is None and "floor's longest run" in r.note for r in rows)
    assert "takes the management ports of the 2 CDUs (2 in the rows): 2 counted" in _facts(run)


def test_bluefield_oob_ports_stated_and_said_not_counted(shipped):
    """A BlueField-3 card's one 1GbE RJ45 OOB port (NVIDIA BlueField BMC software, OOB Network 3-Port Switch Control):
    the GB200 SU's 8 racks x 18 compute trays x 2 BlueField-3 (gb200-compute-tray.yaml) = 288, not on the OOB."""
    from archgen.render.reference import control_plane

    a = shipped.clusters[SU]
    text = " ".join(str(b) for b in control_plane(a, shipped.design.specs).blocks)
    assert "the out-of-band management ports of the nodes' own NICs, 288 as their parts state them (288 on " \
           "bluefield-3)" in text
    assert _oob(shipped).endpoint_ports == 481                     # not counted


CDU_ETH = """kind: CoolingUnit
id: cdu-eth
name: In-rack CDU with one Ethernet management port (case part)
source: [case file]
type: in-rack-cdu
capacity: 100 kW
flow: 150 L/min
mechanical: {height: 4 U, weight: 90 kg}
management_ports: 1
"""

OOB_CLUSTER = """kind: Cluster
id: c
units:
- id: su
  racks:
  - {rack: r, count: 2}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
scale_up: {domain: node, size: 8, bandwidth: 900 GB/s}
fabrics:
- id: oob
  topology: fat-tree
  role: management
  speed: 1 Gb/s
  switch: sn2201
  tiers: 1
  endpoints: {nodes: false, cooling: true}
  links:
    access: [cat6a-1g]
"""


def test_in_rack_cdu_ports_stand_where_the_cdus_do(tmp_path):
    """COOL012's rack with its 2 placed in-rack CDUs stating 1 port each: 2 racks x 2 = 4 ports, placed at U30/U34."""
    from tests.conftest import case_files, run_specs

    files = case_files("COOL012", "pass_in_rack_cdus_placed")
    files["racks/r.yaml"] = files["racks/r.yaml"].replace("in-rack-cdu-100kw", "cdu-eth")
    run = run_specs(tmp_path, {**files, "catalog/cdu.yaml": CDU_ETH, "clusters/c.yaml": OOB_CLUSTER})
    fa = next(f for f in run.clusters["cluster/c"].fabrics if f.fabric.spec.id == "oob")
    assert fa.endpoint_ports == fa.cdu_mgmt_ports == 2 * 2
    rows = [r for r in port_map(run.clusters["cluster/c"]).rows if r.fabric == "oob"]
    assert sorted((r.a.u, r.a.port) for r in rows) == [(30, "mgmt"), (30, "mgmt"), (34, "mgmt"), (34, "mgmt")]
    assert all("CDU's management port: measured from where it stands" in r.note for r in rows)
