"""Builders of the small spec documents tests write by hand: a rack of switches or nodes, a fabric, a GB300 cluster,
and the multi-plane trial's HGX B300 SUs (`b300_planes`, which also runs them).

Each returns YAML text laid out one key a line in the order the tests wrote it before (a finding's line number in
a built file is the one the hand-written file had). The GB300 NVL72 clusters are a network architect's trial: SUs
of eight `gb300-nvl72` racks (the catalog's) beside one network rack, in rows, on the liquid hall.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from archgen.pipeline import Run, run

#: The PDU every built rack holds: 415 V 60 A three-phase, one rack feed each.
PDU = "pdu-415v-60a-3ph"

#: The XDR compute fabric's links (Q3400, 800G to the ConnectX-8 trays) of the GB300 trial clusters, by tier.
XDR_LINKS = {"access": "[{a: smf-800g-dr4-rhs, b: smf-1.6t-2xdr4}]",
             "leaf_spine": "[lacc-1.6t-xdr, smf-1.6t-2xdr4]",
             "spine_core": "[smf-1.6t-2xdr4]"}

#: The access links of a 200G Ethernet fabric on SN5600 (BlueField-3 ports, 4 x 200G out of an 800G cage).
ETH_200G_ACCESS = "[{a: dac-400g, b: dac-800g-osfp}, {a: mmf-400g-sr4, b: mmf-800g-sr8}]"

#: The out-of-band fabric's links (SN2201 leaves, SN4600C above them) of the GB300 trial clusters, by tier.
OOB_LINKS = {"access": "[cat6a-1g]", "leaf_spine": "[dac-100g-qsfp28, mmf-100g-sr4]",
             "spine_core": "[mmf-100g-sr4]"}


def rack(id: str, slots: Iterable[tuple[int, str, int]], pdus: Iterable[tuple[int, int]], *, name: str = "",
         facility: str = "", height: int = 48, max_payload: int = 1500, weight: int = 180,
         redundancy: str = "N+N") -> str:
    """A 600 x 1200 mm EIA-19 air-cooled rack (A2, 20 K): `slots` (at, part, count), then `pdus` (at, count) of
    `PDU`, on one feed per PDU with `redundancy` for both."""
    pdus = list(pdus)
    lines = ["kind: Rack", f"id: {id}"] + ([f"name: {name}"] if name else []) + \
        ([f"facility: {facility}"] if facility else []) + [
        f"form_factor: {{standard: eia-19, height: {height} U, width: 600 mm, depth: 1200 mm, "
        f"max_payload: {max_payload} kg, weight: {weight} kg}}", "slots:"]
    lines += [f"  - {{at: {at}, part: {part}, count: {count}}}" for at, part, count in slots]
    lines += [f"  - {{at: {at}, part: {PDU}, count: {count}}}" for at, count in pdus]
    lines += ["power:", f"  feeds: {{count: {sum(n for _, n in pdus)}, voltage: 415 V, basis: line-to-line, "
              f"phases: 3, current: 60 A, redundancy: {redundancy}}}", f"  pdus: {{redundancy: {redundancy}}}",
              "cooling:", "  air: {class: A2, delta_t: 20 K}"]
    return "\n".join(lines) + "\n"


def fabric(id: str, links: dict[str, str], **keys: object) -> str:
    """One entry of a cluster's `fabrics:` list: `keys` in their order (YAML flow text; a bool as YAML's), `links`."""
    lines = [f"  - id: {id}"] + [f"    {k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in keys.items()]
    return "\n".join(lines + ["    links:"] + [f"      {tier}: {text}" for tier, text in links.items()]) + "\n"


def xdr_compute(tiers: int, **keys: object) -> str:
    """The trial's rail-optimized XDR compute fabric on Q3400 (800 Gb/s, one rail group per SU), `tiers` deep;
    `keys` follow `group` (the tiers' racks)."""
    return fabric("compute", {t: XDR_LINKS[t] for t in ("access", "leaf_spine", "spine_core")[:tiers]},
                  topology="fat-tree", role="compute", speed="800 Gb/s", switch="q3400", tiers=tiers,
                  rail_optimized=True, group="su", **keys)


def oob(endpoints: str) -> str:
    """The trial's out-of-band fabric: 1 Gb/s SN2201 leaves in the compute racks, SN4600C above, `endpoints`."""
    return fabric("oob", OOB_LINKS, topology="fat-tree", role="management", speed="1 Gb/s", switch="sn2201",
                  tiers="auto", endpoints=endpoints, leaf="{uplinks: 2, uplink_speed: 100 Gb/s, rack: gb300-nvl72}",
                  spine="{switch: sn4600c}", core="{switch: sn4600c}")


def gb300_cluster(id: str, net: str, fabrics: Iterable[str], *, sus: int = 2, name: str = "",
                  racks_per_row: int = 9, after: Iterable[str] = ()) -> str:
    """A cluster of `sus` SUs (four `gb300-nvl72`, the `net` rack, four more), then the layout entries `after`
    (flow text such as '{rack: spine-ib, count: 90, new_row: true}'), NVLink 5 racks of 72, `fabrics`."""
    lines = ["kind: Cluster", f"id: {id}"] + ([f"name: {name}"] if name else []) + [
        "facility: hall-liquid", "units:", "  - id: su", "    racks:", "      - {rack: gb300-nvl72, count: 4}",
        f"      - {{rack: {net}, count: 1}}", "      - {rack: gb300-nvl72, count: 4}", "layout:",
        f"  - {{unit: su, count: {sus}}}"] + [f"  - {entry}" for entry in after] + [
        f"floor: {{racks_per_row: {racks_per_row}, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, "
        "slack: 2 m}", "scale_up: {domain: rack, size: 72, bandwidth: 1.8 TB/s, switch: nvlink5-switch-tray, "
        "switches: 9,", "           link: nvlink-copper-cartridge}", "fabrics:"]
    return "\n".join(lines) + "\n" + "".join(fabrics)


#: The trial's SU network rack: eight Q3400 (XDR rail leaves) and four SN5600, four PDUs.
SU_IB_RACK = rack("su-ib", [(3, "q3400", 8), (35, "sn5600", 4)], [(1, 2), (40, 2)],
                  name="SU InfiniBand rack (Q3400 leaves)", facility="hall-liquid")


#: The multi-plane trial's compute rack (newuser54): four air-cooled HGX B300, four PDUs.
B300_RACK = rack("b300-4", [(3, "hgx-b300-8gpu", 4)], [(1, 4)], facility="hall-air")


def b300_planes(tmp_path: Path, id: str, sus: int, **keys: object) -> Run:
    """Run `sus` SUs of 32 HGX B300 (8 `B300_RACK`) on a rail-optimized SN5600 compute fabric of `keys` (planes,
    speed, `nic_breakout`, tiers, ...), ConnectX-8 DR4 modules to SN5600 DR8 ones."""
    compute = fabric("compute", {"access": "[{a: smf-800g-dr4-rhs, b: smf-800g-dr8}]", "leaf_spine": "[smf-800g-dr8]"},
                     topology="fat-tree", role="compute", switch="sn5600", rail_optimized=True, group="su", **keys)
    cluster = "\n".join([
        "kind: Cluster", f"id: {id}", "facility: hall-air", "units:", "  - {id: su, racks: [{rack: b300-4, count: 8}]}",
        "layout:", f"  - {{unit: su, count: {sus}}}",
        "floor: {racks_per_row: 32, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m}",
        "scale_up: {domain: node, size: 8, bandwidth: 1.8 TB/s}", "fabrics:", compute]) + "\n"
    (tmp_path / "racks.yaml").write_text(B300_RACK, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(cluster, encoding="utf-8")
    return run([tmp_path])
