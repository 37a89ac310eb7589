"""A switched scale-up domain with no switch part (`analyse.scale_up_switches`).

The trial's Trn2 pod stated its NeuronLink domain as `switched` with no switch part; inside one node that shape is
also a DGX's (NVSwitch chips on the baseboard), but a rack domain of several systems has no system to hold the
switches: four trn2.48xlarge in a rack written as one switched domain of 64 names nothing that joins them.
"""

from __future__ import annotations

from tests.conftest import run_specs
from tests.test_scale_up_torus import CLUSTER, NODE, PARTS


def _net010(tmp_path, scale_up: str) -> list[str]:
    r = run_specs(tmp_path, PARTS | {"clusters/t.yaml": CLUSTER.replace("SCALE_UP", scale_up)})
    return [f.message for f in r.findings if f.id == "NET010"]


def test_a_switched_rack_domain_without_switches_is_refused(tmp_path) -> None:
    """Four systems per rack domain, no `switch`: NET010 at scale_up.switch, once per rack type."""
    found = _net010(tmp_path, "domain: rack, size: 64, technology: ethernet, topology: switched, "
                              "bandwidth: 1.28 TB/s")
    assert [m for m in found if "names no switch part" in m] == [
        "a switched rack domain of 4 systems in trn2-rack names no switch part, so nothing joins its systems: "
        "expected `switch` and `switches` (the trays in the rack), or topology torus or mesh for direct links"]


def test_a_switched_node_domain_is_taken_at_its_word(tmp_path) -> None:
    """One system holds a node domain; it may hold the switch chips (a DGX), so no finding; its torus neither."""
    assert not [m for m in _net010(tmp_path, "domain: node, size: 16, technology: ethernet, topology: switched, "
                                             "bandwidth: 1.28 TB/s") if "switch part" in m]
    assert _net010(tmp_path, NODE) == []


#: An NVL72-style rack whose switch trays are one 64-port chip each: 18 GB200 trays (72 GPUs) and SWITCHES trays.
NARROW = """kind: Switch
id: chip64
name: 64-port NVLink switch tray (one chip)
vendor: test
source: ["test input"]
technology: nvlink
ports: {count: 64, speed: 400 Gbit/s, cage: NVLink cartridge backplane, per_cage: 1}
mechanical: {height: 1 U, weight: 20 kg}
power: {max: 1 kW}
cooling: {type: hybrid, liquid_fraction: 0.8}
---
kind: Rack
id: nvl72-chip64
facility: hall-liquid
form_factor: {standard: orv3, height: 48 U, width: 600 mm, depth: 1068 mm, max_payload: 1400 kg, weight: 150 kg}
slots:
  - {at: 1, part: orv3-power-shelf-33kw, count: 4}
  - {at: 5, part: gb200-compute-tray, count: 18}
  - {at: 23, part: SWITCH, count: SWITCHES}
  - {at: 44, part: orv3-power-shelf-33kw, count: 4}
power:
  feeds: {count: 8, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  shelves: {redundancy: N+N}
cooling:
  liquid: {cdu: in-row-cdu-1.3mw, cdu_count: 2, cdu_redundancy: N+1, racks_per_cdu: 8, supply: 40 degC,
           delta_t: 10 K, coolant: pg25, class: W32}
  air: {class: A2, delta_t: 20 K}
---
kind: Cluster
id: nvl
layout: [{rack: nvl72-chip64, count: 1}]
floor: {racks_per_row: 10, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m}
scale_up: {domain: rack, size: 72, bandwidth: BW, technology: TECH, switch: SWITCH, switches: SWITCHES, link: LINK}
"""


def _narrow(tmp_path, switch: str, switches: int, link: str = "nvlink-copper-cartridge", bw: str = "1.8 TB/s",
            tech: str = "nvlink") -> list[str]:
    spec = NARROW.replace("SWITCHES", str(switches)).replace("SWITCH", switch).replace("LINK", link)
    r = run_specs(tmp_path, {"c.yaml": spec.replace("BW", bw).replace("TECH", tech)})
    return [f.message for f in r.findings if f.id == "NET010"]


def test_switches_narrower_than_the_domain_are_not_one_hop(tmp_path) -> None:
    """72 GPUs x 18 NVLink links on 21 switches of 64 ports: 1,296 links fit 1,344 ports, but no switch reaches every
    GPU and a GPU reaches 18 of the 21 switches. Before, it passed as a one-hop domain at 1.8 TB/s; nine 144-port
    trays (the NVL72's) pass."""
    assert _narrow(tmp_path, "chip64", 21) == [
        "21 chip64 per domain, and each accelerator has 18 links: it reaches at most 18 of them, so two accelerators "
        "do not share every switch and the domain is not one switch hop at its bandwidth (chip64 has 64 ports for 72 "
        "accelerators): expected at most 18 switches, each with a link to every accelerator (a domain wider than a "
        "switch's ports needs a second switch tier, not modelled)"]
    assert _narrow(tmp_path / "nvl72", "nvlink5-switch-tray", 9) == []


def test_a_link_faster_than_the_switch_ports(tmp_path) -> None:
    """1.6T links on 800G SN5600 ports: 72 x 4 = 288 links 'fit' 6 x 64 ports, though no port terminates one."""
    found = _narrow(tmp_path, "sn5600", 6, link="smf-1.6t-2xdr4", bw="1.6 TB/s", tech="ethernet")
    assert "smf-1.6t-2xdr4 runs 1600 Gb/s a link, faster than any port of sn5600 (800 Gb/s): no port terminates " \
        "it; expected a link part of at most 800 Gb/s, or a switch whose ports run at its rate" in found, found


def test_switched_domain_links_are_cabled_unless_a_backplane(tmp_path) -> None:
    """Two racks of 32 MI355X on four 800G Ethernet switches, 8 smf-800g-dr8 links per GPU (17 W an end): 512 links,
    1,024 modules, 17,408 W of optics, half of it at the switch ends, which IT power adds (the platforms' figure holds
    the GPU ends). Before, the link part was read for its rate only: no link, module, watt or BOM line. An NVL72's
    NVLink cartridges (copper-backplane, the rack's own) are not counted."""
    from archgen.analyse.reliability import analyse_reliability
    from tests.test_fabric_examples import SCALE_UP

    r = run_specs(tmp_path, {"c.yaml": SCALE_UP.replace("SWITCHES", "4")})
    a, m = r.clusters["cluster/e"], r.metrics["cluster/e"]
    assert a.cabling is not None
    (tier,) = [t for t in a.cabling.tiers if t.fabric == "scale_up"]
    assert (tier.tier, tier.links, tier.transceivers) == ("access", 512, 1024)
    assert (m["links"].m, m["optics_power"].m_as("W"), m["it_power"].m_as("W")) == (512, 17408, 145600 + 8704)
    assert [(b.kind, b.quantity) for b in a.cabling.bom if b.part == "smf-800g-dr8"] == [("Link", 1024)]
    assert [c.units for c in analyse_reliability(r.specs, a).classes if c.name == "transceiver"] == [1024]
    assert a.cabling.network_power == {"scale_up": m["optics_power"]}   # before: {} and 0 kW of network power
    assert m["network_power"].m_as("W") == 17408
    nvl = run_specs(tmp_path / "nvl", {"c.yaml": NARROW.replace("SWITCHES", "9").replace("SWITCH", "nvlink5-switch-tray")
                                       .replace("LINK", "nvlink-copper-cartridge").replace("BW", "1.8 TB/s")
                                       .replace("TECH", "nvlink")})
    cabling = nvl.clusters["cluster/nvl"].cabling
    assert cabling is not None and not [t for t in cabling.tiers if t.fabric == "scale_up"]
    assert nvl.metrics["cluster/nvl"]["links"].m == 0
