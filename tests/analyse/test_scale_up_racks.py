"""A scale-up domain over several racks (`scale_up.racks`, `analyse.scale_up_racks`): GB200 NVL36x2 and refusals.

The fixture follows NVIDIA's "36x2 configuration" (Multi-Node NVLink Tuning Guide, "Understanding Your
Grace-Blackwell Systems": per rack 9 compute trays of 4 GPUs and 9 NVL36 NVLink switch trays). Its parts are test
inputs, not catalog figures: the guide's compute trays are 2RU, the switch tray's front-panel ports and the trunk
cable's reach and power are not published, so the cable is a test part with a stated reach and power.
"""

from __future__ import annotations

import numpy as np
import pytest

from archgen.errors import ValidateError
from tests.conftest import run_specs

#: A 144-port NVLink switch tray (two 72-port chips, as the catalog's NVL72 tray), a trunk cable, a rack of 36 GPUs.
PARTS = """kind: Switch
id: test-nvl36-switch
name: test NVL36 switch tray
vendor: test
source: ["test input"]
technology: nvlink
ports: {count: 144, speed: 400 Gbit/s, cage: NVLink cartridge backplane, per_cage: 1}
mechanical: {height: 1 U, weight: 30 kg}
power: {max: 3.8 kW}
cooling: {type: hybrid, liquid_fraction: 0.85}
---
kind: Link
id: test-trunk
name: test rack-to-rack NVLink cable
vendor: test
source: ["test input"]
media: TRUNK_MEDIA
rate: 400 Gbit/s
reach: TRUNK_REACH
power_per_end: TRUNK_W
lanes: 2
form_factor: test
cages: [backplane]
---
kind: Rack
id: nvl36
facility: hall-liquid
form_factor: {standard: orv3, height: 48 U, width: 600 mm, depth: 1068 mm, max_payload: 1400 kg, weight: 150 kg}
slots:
  - {at: 1, part: orv3-power-shelf-33kw, count: 6}
  - {at: 7, part: gb200-compute-tray, count: TRAYS}
  - {at: 25, part: test-nvl36-switch, count: 9}
power:
  feeds: {count: 6, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  shelves: {redundancy: N+N}
cooling:
  liquid: {cdu: in-row-cdu-1.3mw, cdu_count: 2, cdu_redundancy: N+1, racks_per_cdu: 8, supply: 40 degC,
           delta_t: 10 K, coolant: pg25, class: W32}
  air: {class: A2, delta_t: 20 K}
"""

CLUSTER = """---
kind: Cluster
id: pod
layout: [{rack: nvl36, count: RACKS}]
floor: {racks_per_row: PER_ROW, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 0.5 m, slack: 0.5 m}
scale_up: {domain: rack, racks: SPAN, size: SIZE, bandwidth: 1.8 TB/s, switch: test-nvl36-switch,
           switches: SWITCHES, link: nvlink-copper-cartridge, trunk_link: test-trunk}
"""


def _text(*, racks=2, span=2, size=72, trays=9, per_row=10, reach="3 m", media="dac", watts="0 W") -> str:
    text = (PARTS + CLUSTER).replace("TRUNK_MEDIA", media).replace("TRUNK_REACH", reach).replace("TRUNK_W", watts)
    for key, value in (("TRAYS", trays), ("RACKS", racks), ("SPAN", span), ("SIZE", size),
                       ("SWITCHES", 9 * span), ("PER_ROW", per_row)):
        text = text.replace(key, str(value))
    return text


def _run(tmp_path, **options):
    return run_specs(tmp_path, {"c.yaml": _text(**options)})


def _net010(r) -> list[str]:
    return [f.message for f in r.findings if f.id == "NET010"]


def test_nvl36x2_is_one_72_gpu_domain_with_its_trunk_links_cabled(tmp_path) -> None:
    """Two racks of 36 GPUs, 18 trays: one domain of 72; each rack's 36 GPUs x 900 GB/s per direction over 400 Gb/s
    (50 GB/s) links = 648 trunk links between the two racks; 36 x 18 = 648 links down + 648 trunk = 1,296 ports =
    9 trays x 144, so the trays fill exactly and nothing is refused."""
    r = _run(tmp_path, racks=4)
    m = r.metrics["cluster/pod"]
    assert [f.message for f in r.findings if f.severity == "error"] == []
    assert (m["scale_up.domains"].m, m["accelerators"].m) == (2, 144)
    assert m["scale_up.trunk_links"].m == 2 * 36 * 900 / 50
    cabling = r.clusters["cluster/pod"].cabling
    (trunk,) = [t for t in cabling.tiers if (t.fabric, t.tier) == ("scale_up", "trunk")]
    assert (trunk.links, trunk.physical) == (1296, 1296)   # a copper cable per link (test part, one link a cable)
    assert trunk.max_length.m_as("m") == pytest.approx(2 * 0.5 + 0.6 + 0.5)   # drops, one rack pitch, slack
    assert trunk.by_option_bin == {("test-trunk", 2.5): 1296}   # the next length bin up
    assert [(b.part, b.quantity) for b in cabling.bom if b.part == "test-trunk"] == [("test-trunk", 1296)]


def test_the_performance_model_and_spares_see_the_whole_domain(tmp_path) -> None:
    """The estimate's hardware takes the domain's 72 (not a rack's 36); a hot spare comes in the whole domain's 18
    trays (72 / 4), and a rack's non-redundant power takes the 72 GPUs of its domain with it."""
    from archgen.analyse.network import spare_domain_nodes
    from archgen.analyse.reliability import analyse_reliability
    from archgen.perf.workload.cluster import cluster_hardware

    r = _run(tmp_path)
    a = r.clusters["cluster/pod"]
    assert spare_domain_nodes(a, 4) == 18
    hw, total, per_rack, per_node = cluster_hardware(a.cluster.spec, r.specs.items, a.scale_out)
    assert (hw.scale_up_size, total, per_rack, per_node) == (72, 72, 36, 4)
    domains = {d.name: d for d in analyse_reliability(r.specs, a).domains}
    assert domains["scale-up domain"].accelerators == 72
    lone = run_specs(tmp_path / "n", {"c.yaml": _text().replace("shelves: {redundancy: N+N}", "shelves: {redundancy: N}")})
    shelf = {d.name: d for d in analyse_reliability(lone.specs, lone.clusters["cluster/pod"]).domains}["power shelf"]
    assert (shelf.accelerators, shelf.note) == (72, "the rack stops, and with it its 2-rack scale-up domain's job")


def test_optical_trunk_links_draw_power(tmp_path) -> None:
    """1,296 trunk links (two domains) of an optical part at 10 W an end: 2,592 modules, 25,920 W in IT power, and
    2,592 transceiver units in the failure model (1,296 cable units where the part is copper)."""
    from archgen.analyse.reliability import analyse_reliability

    base = _run(tmp_path / "cu", racks=4)
    r = _run(tmp_path / "opt", racks=4, media="singlemode", watts="10 W", reach="100 m")
    (trunk,) = [t for t in r.clusters["cluster/pod"].cabling.tiers if t.tier == "trunk"]
    assert (trunk.transceivers, trunk.optics_power.m_as("W")) == (2592, 25920)
    grew = r.metrics["cluster/pod"]["it_power"] - base.metrics["cluster/pod"]["it_power"]
    assert grew.m_as("W") == pytest.approx(25920)
    units = {c.name: c.units for c in analyse_reliability(r.specs, r.clusters["cluster/pod"]).classes}
    copper = {c.name: c.units for c in analyse_reliability(base.specs, base.clusters["cluster/pod"]).classes}
    assert (units.get("transceiver"), copper.get("cable")) == (2592, 1296)   # each fails as its class does


def test_two_nvl72_racks_exceed_the_trays_ports(tmp_path) -> None:
    """144 GPUs over two racks of 72 on 9 trays a rack: 72 x 18 = 1,296 links down and 72 x 900 / 50 = 1,296 trunk
    need 2,592 ports of 1,296; the most a rack holds is 1,296 / (18 + 18) = 36 GPUs (72 a domain)."""
    found = _net010(_run(tmp_path, trays=18, size=144))
    assert [m for m in found if "trunk links" in m] == [
        "72 accelerators a rack x 18 links = 1296 links to the rack's 9 test-nvl36-switch, and 1296 trunk links to "
        "each of the other 1 rack(s) (900 GB/s per direction of each accelerator, over test-trunk), need 2592 "
        "switch ports a rack; 9 x 144 ports have 1296: expected at most 36 accelerators a rack (72 a domain of 2 "
        "racks), fewer racks, or a second switch tier (NVL576's, not modelled)"]


def test_a_third_rack_exceeds_the_trays_ports(tmp_path) -> None:
    """108 GPUs over three racks of 36: 648 down + 2 x 648 trunk = 1,944 ports of 1,296; 1,296 / (18 + 2 x 18) =
    24 GPUs a rack at most."""
    found = _net010(_run(tmp_path, racks=3, span=3, size=108))
    assert any("need 1944 switch ports a rack; 9 x 144 ports have 1296: expected at most 24 accelerators a rack "
               "(72 a domain of 3 racks)" in m for m in found), found


def test_racks_of_a_domain_in_two_rows_past_the_trunk_reach(tmp_path) -> None:
    """One rack per row: the run between the two is 2 x 0.5 m drop + 3.6 m row pitch + 0.5 m slack = 5.1 m, past a
    3 m reach (CAB001, as any run between racks); side by side (0.6 m apart) it is 2.1 m and fits."""
    r = _run(tmp_path, per_row=1)
    assert [f.message for f in r.findings if f.id == "CAB001"] == [
        "trunk: 648 link(s) up to 5.1 m exceed the 3 m reach of test-trunk; 1 rack(s) at one end, 1 at the other; "
        "the longest from nvl36-01 U25 (test-nvl36-switch) to nvl36-02 U25 (test-nvl36-switch); a scale-up "
        "domain's racks are consecutive racks with accelerators in floor order: stand them side by side in one row "
        "(`floor.racks_per_row`, a unit's `new_row`), and where neighbouring racks are cabled straight across "
        "rather than over the trays say so (`floor.side_by_side: true`), or give a trunk_link of longer reach"]
    assert [f.location.line for f in r.findings if f.id == "CAB001"] == [46]   # at scale_up's trunk_link
    assert not [f for f in _run(tmp_path / "row", per_row=2).findings if f.id == "CAB001"]


@pytest.mark.parametrize(("scale_up", "message"), [
    ("racks: 2, size: 72, switches: 18, switch: test-nvl36-switch",
     "give trunk_link, the Link part of one switch-to-switch link between racks"),
    ("racks: 2, size: 71, switches: 18, switch: test-nvl36-switch, trunk_link: test-trunk",
     "size 71 does not divide over racks: 2"),
    ("crosses_racks: true, size: 72, switches: 9, switch: test-nvl36-switch",
     "crosses_racks: true needs the racks one domain spans"),
    ("racks: 2, crosses_racks: false, size: 72, switches: 18, switch: test-nvl36-switch, trunk_link: test-trunk",
     "crosses_racks: false, but racks: 2"),
    ("racks: 1, size: 36, switches: 9, switch: test-nvl36-switch, trunk_link: test-trunk",
     "trunk_link joins the racks of a multi-rack domain"),
    ("racks: 2, size: 72, trunk_link: test-trunk", "give switch and switches"),
])
def test_what_a_multi_rack_domain_cannot_be_is_refused(tmp_path, scale_up: str, message: str) -> None:
    """Each contradiction or missing part is a validation error at its key, never a silently different domain."""
    text = (PARTS.replace("TRUNK_MEDIA", "dac").replace("TRUNK_REACH", "3 m").replace("TRUNK_W", "0 W")
            .replace("TRAYS", "9") + CLUSTER.replace("RACKS", "2").replace("PER_ROW", "10"))
    head, _, _ = text.partition("scale_up:")
    with pytest.raises(ValidateError) as err:
        run_specs(tmp_path, {"c.yaml": head + f"scale_up: {{domain: rack, bandwidth: 1.8 TB/s, {scale_up}}}\n"})
    assert "specs/c.yaml:" in str(err.value) and message in str(err.value), str(err.value)


def test_a_rail_optimized_fabric_takes_the_whole_domain_as_its_rails(tmp_path) -> None:
    """NIC n of every scale-up domain lands on rail n: an NVL36x2 domain's 18 trays x 4 compute ports are 72 rails
    (as the NVL72's 72), not a rack's 36; two domains (four racks) fill 144 leaf ports, one group of 72 rails."""
    fabric = """fabrics:
  - {id: compute, topology: fat-tree, role: compute, speed: 400 Gb/s, switch: qm9700, tiers: 2, rail_optimized: true,
     links: {access: [dac-400g], leaf_spine: [dac-800g-osfp]}}
"""
    r = run_specs(tmp_path, {"c.yaml": _text(racks=4) + fabric})
    m = r.metrics["cluster/pod/fabric/compute"]
    assert (m["rails"].m, m["endpoint_ports"].m) == (72, 144)
    assert not [f.message for f in r.findings if f.id in ("NET004", "NET010")]


def test_a_rail_only_fabric_numbers_ports_over_the_domains_racks(tmp_path) -> None:
    """Rail-only over NVL36x2 domains: port q of a domain runs 0-71 over both racks, so each of the 72 rails holds
    one port of each of the two domains (144 ports, two per rail); before, each rack restarted at port 0 and rails
    36-71 were left empty while rails 0-35 took four ports each."""
    from archgen.analyse.rail_layout import rail_access_ports

    fabric = """fabrics:
  - {id: compute, topology: rail-only, role: compute, speed: 400 Gb/s, switch: qm9700,
     links: {access: [dac-400g]}}
"""
    r = run_specs(tmp_path, {"c.yaml": _text(racks=4) + fabric})
    a = r.clusters["cluster/pod"]
    (fa,) = a.fabrics
    _, _, _, leaves = rail_access_ports(a.cluster, fa)
    assert fa.rails == 72 and len(leaves) == 144
    assert sorted(set(np.bincount(leaves).tolist())) == [2]


def test_a_front_panel_port_group_counts_toward_the_trunks(tmp_path) -> None:
    """A tray of 72 backplane ports and a front-panel group of 72 (test part) holds the NVL36x2's 648 + 648 ports a
    rack as 9 x 144 does; 72 backplane ports alone (648 of 1,296 wanted) do not."""
    group = "port_groups: [{name: front, count: 72, speed: 400 Gbit/s, cage: OSFP, per_cage: 1}]\n"
    front = _text().replace("ports: {count: 144,", "ports: {count: 72,").replace("cooling: {type: hybrid",
                                                                                group + "cooling: {type: hybrid", 1)
    assert _net010(run_specs(tmp_path / "front", {"c.yaml": front})) == []
    alone = _net010(run_specs(tmp_path, {"c.yaml": _text().replace("ports: {count: 144,", "ports: {count: 72,")}))
    assert any("need 1296 switch ports a rack; 9 x 72 ports have 648" in m for m in alone), alone
