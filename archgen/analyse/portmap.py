"""The port-level cabling map of a cluster: one row per physical cable, with both ends' rack, U, device and port.

Built from what `archgen.analyse.cabling` already wired (its `TierRuns`: each link's ends, link option, run length
and length bin, in the order `archgen.analyse.placement` produced them), so the map and the BOM count the same
cables: the links of a tier are grouped by their two devices and link option, in order, and each group is cut into
cables of `link_ends.links_per_cable` links (a twin-port 800G DAC between a leaf and a spine carries two 400G links;
an 800G cable broken out 4 x 200G carries four). A NIC cage whose module's one connector carries its links to
several planes (`link_ends.connector_links`) is one cable from that cage to the planes' leaves, its links grouped by
the cage (port p of a node with P planes is in cage p mod (ports / P), as `placement.access_ports` orders them); a
switch cage's split cable takes its links dealt over the upper switches (`split_legs`), its legs on several of them.
A cable split at the leaf (`link_ends.leaf_split`: a copper splitter, a leaf connector's 1:2 splitter fibre) has its
node legs cut from the leaf's ports across nodes in floor order, so they may stand in two racks (a leaf taking an
odd number of one rack's ports), a node's name being unique only in its rack. Every such split cable, its legs at
several devices at either end, lists them at both ends leg by leg in the same order (`End.legs`: each leg's rack,
device, port and U, `end_names.Leg`; the rail wiring diagram draws each), and its ends' rack and device words are its
legs', each once (`End.split`); an end with its legs at several devices has no one U (the map shows each leg's).

Naming and numbering:

* a node is ``<system part>-<k>``, the k-th system of that part in its rack counted from the bottom U; its port is
  the fabric's port p of the node (``<role>-<p>``, 1-based, in the order of its NICs of that role);
* a switch is ``<fabric>-<tier>-<n>``, n over all planes (plane-major, 1-based); its ports are numbered 1 .. radix
  at the tier's line rate, down ports first (1 .. down, in the order the links arrive) and up ports after them
  (down + 1 .. down + up), as `archgen.analyse.tiers.TierCount` splits the radix; with a breakout (an 800G cage
  split 4 x 200G) a port is written ``cage/lane``, as is a port of a cage holding several
  (`port_numbers.ports_per_cage`), and up ports faster than the down ports (native 800G uplinks of a leaf whose
  down ports are split 2 x 400G) are numbered as cages after the down cages (`port_numbers`);
* access ports that end at no modelled device (switch management ports of the OOB fabric, `endpoints.extra`, and
  `reserved` ports such as UFM appliances) keep their leaf end, and their other end names what they are for. A
  switch's management port stands where the switch does (``<switch part>-<k>`` in its rack, port ``mgmt``) and its
  run is measured like any other; a port the spec states only as a count is not placed (no rack, no U) and its
  length is the floor's longest run, as the BOM orders it (`analyse.placement.other_ends`); so is an in-row CDU's
  management port (`endpoints.cooling`), the CDU's place in its row not being stated.

Only fat trees are mapped; a rail-only fabric's runs are measured (`archgen.analyse.rail_layout`) but not numbered
port by port, a torus or dragonfly is counted in the BOM with no runs, and the map says which fabrics it leaves out
(`PortMap.unwired`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from archgen.analyse.end_names import End, EndNames, Leg, extra_names
from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.fibre_cords import cord_fibres, fibre_cord
from archgen.analyse.link_ends import (
    cords_per_link,
    fans_out,
    leaf_split,
    link_speed,
    links_per_cable,
    nic_cages,
    node_cage_ports,
)
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.placement import access_ports, other_ends
from archgen.analyse.port_numbers import (
    TIER_ENDS,
    PortNumbering,
    port_legs,
    port_names,
    switch_name,
    tier_switches,
)
from archgen.analyse.split_legs import dealt
from archgen.analyse.tier_cabling import TierRuns
from archgen.build import LinkOption
from archgen.model.network import COPPER_MEDIA

NO_RACK = "(no rack)"


@dataclass(frozen=True)
class CableRow:
    """One physical cable of the port map."""

    id: str
    fabric: str
    tier: str
    a: End
    b: End
    media: str
    links: int
    length: float
    ordered: float
    note: str = ""
    cable: str = "—"     # the BOM line of what is pulled: a fibre cord (`fibre_cords.fibre_cord`) or copper assembly
    fibres: int | None = None   # strands of an optical cable (`fibre_cords.cord_fibres`), 0 not stated; None: copper


@dataclass(frozen=True)
class PortMap:
    """Every cable of the cluster's wired fabrics, and the fabrics it cannot list (not wired)."""

    rows: tuple[CableRow, ...]
    unwired: tuple[str, ...]

    def by_tier(self) -> dict[tuple[str, str], int]:
        """Cables per (fabric, tier), to compare with the cabling's `TierCabling.physical`."""
        out: dict[tuple[str, str], int] = {}
        for r in self.rows:
            out[(r.fabric, r.tier)] = out.get((r.fabric, r.tier), 0) + 1
        return out

    def rack_fibres(self) -> list[tuple[str, int, int, int]]:
        """Optical cables and fibre strands leaving each rack, and its cables whose fibre count is not stated.

        A cable leaves a rack when the rack is at one end and the other end is not that rack alone; an end at
        several racks (a splitter's legs) shares the cable's strands evenly among them (a 1:2 MPO splitter: 4 of
        its 8 fibres a leg), and only the strands to another rack leave (review42: a splitter from rack A to legs in
        A and B counted its 8 fibres leaving A, where the 4 of the leg in A stay). Ends not placed in a rack are left
        out of the list (their cables count at the other end). Racks in the order the port map first names them:
        (rack, cables, fibres, cables not stated).
        """
        # alike cables counted once per kind (their ends' racks and strands), in the order the map first names one; a
        # split end's racks read from its legs only where it has them (`End.racks` on every end took 3x the time)
        kinds: dict[tuple[str, tuple[str, ...], str, tuple[str, ...], int], int] = {}
        for r in self.rows:
            if r.fibres is not None:
                key = (r.a.rack, r.a.racks if r.a.legs else (), r.b.rack, r.b.racks if r.b.legs else (), r.fibres)
                kinds[key] = kinds.get(key, 0) + 1
        out: dict[str, list[int]] = {}
        for (a, a_racks, b, b_racks, fibres), cables in kinds.items():
            sides = (a_racks or (a,), b_racks or (b,))
            for side, other in ((sides[0], sides[1]), (sides[1], sides[0])):
                for rack in side:
                    away = len(other) - other.count(rack)   # the other end's racks this rack's strands go to
                    if not away or rack in (NO_RACK, "not placed"):
                        continue
                    row = out.setdefault(rack, [0, 0, 0])
                    row[0] += cables
                    row[1] += cables * (fibres * away // (len(side) * len(other)))
                    row[2] += cables * (not fibres)
        return [(rack, v[0], v[1], v[2]) for rack, v in out.items()]


def port_map(a: ClusterAnalysis) -> PortMap:
    """The cluster's port map from its cabling (empty when it has none)."""
    cab = a.cabling
    if cab is None:
        return PortMap((), ())
    fabrics = {fa.fabric.spec.id: fa for fa in a.fabrics}
    options = {(t.fabric, t.tier): t.options for t in cab.tiers}
    names = EndNames(a)
    rows: list[CableRow] = []
    counters: dict[tuple[str, int], int] = {}      # (switch device, tier below/above) -> next port
    wired = {r.fabric for r in cab.runs if fabrics[r.fabric].topology == "fat-tree"}
    for tr in cab.runs:
        fa = fabrics[tr.fabric]
        if tr.fabric not in wired:   # a rail-only fabric's runs are measured, not numbered port by port
            continue
        rows += _tier_rows(a, fa, tr, options.get((tr.fabric, tr.tier), ()), names, cab.rack_names, counters)
    for tr in cab.trunk_runs:   # a multi-rack scale-up domain's trunks: in no fabric
        rows += _trunk_rows(a, tr, options.get((tr.fabric, tr.tier), ()), names, cab.rack_names)
    unwired = tuple(sorted(fid for fid in fabrics if fid not in wired))
    return PortMap(tuple(rows), unwired)


TRUNK_NOTE = ("trunk between two racks of one scale-up domain: the k-th cable joins the k-th switch tray of each rack "
              "(the model spreads a rack's trunk links evenly over its switch trays; no tray-to-tray plan is "
              "published); front-panel port not provided; length from the two trays named, as the BOM orders it")


POD_NOTE = ("a pod's accelerator-to-switch link, from the system to a switch in its switch rack (each system's links "
            "spread evenly over its domain's switches); ports not provided; length from the two ends named")


def _trunk_rows(a: ClusterAnalysis, tr: TierRuns, opts: tuple, names: EndNames,
                racks: tuple[str, ...]) -> list[CableRow]:
    """A multi-rack domain's trunk cables (`analyse.scale_up_racks.trunk_ends`), ports not provided.

    A pod's accelerator-to-switch cables alike (`analyse.scale_up_pod.pod_ends`: tier `access`, the A end a system).
    Each trunk run joins two switch trays (its rack and U at either end, from which its length was measured); its links
    are cut into cables as any tier's.
    """
    su = a.cluster.spec.scale_up
    assert su is not None, "trunk runs come from a multi-rack scale-up domain"
    rows: list[CableRow] = []
    for i in range(len(tr.a_rack)):
        k = int(tr.option[i])
        opt = opts[k] if 0 <= k < len(opts) else None
        media = "—" if opt is None else (opt.a.id if opt.a.id == opt.b.id else f"{opt.a.id} / {opt.b.id}")
        per = links_per_cable(opt, opt.a.rate) if opt is not None else 1
        links = int(tr.weight[i])
        ends = [_tray_end(racks, int(r), int(u), names, su.switch) for r, u in ((tr.a_rack[i], tr.a_u[i]),
                                                                                (tr.b_rack[i], tr.b_u[i]))]
        for c in range(math.ceil(links / per)):
            rows.append(CableRow(f"scale_up-{tr.tier[0].upper()}-{len(rows) + 1:04d}", "scale_up", tr.tier, ends[0],
                                 ends[1], media, min(per, links - c * per), float(tr.length[i]), float(tr.bin[i]),
                                 POD_NOTE if tr.tier == "access" else TRUNK_NOTE,
                                 cable_part(opt, float(tr.bin[i]), per), _fibres(opt)))
    return rows


def cable_part(opt: LinkOption | None, ordered: float, per: int = 1) -> str:
    """The BOM line of the cable a row pulls ("—" where no link option was chosen).

    A copper assembly's Link part (ordered at the row's length), or the fibre patch cord of an optical link at its
    length bin, the id the BOM's Fibre line counts: a 1:k splitter cable where a cable carries `per` > 1 links.
    """
    if opt is None:
        return "—"
    return opt.a.id if opt.a.media in COPPER_MEDIA else fibre_cord(opt, ordered, per)


def _fibres(opt: LinkOption | None) -> int | None:
    """Strands of an option's optical cable (0: not stated), None for copper or no option."""
    if opt is None or opt.a.media in COPPER_MEDIA:
        return None
    return cord_fibres(opt) or 0


def _tray_end(racks: tuple[str, ...], rack: int, u: int, names: EndNames, switch: str | None) -> End:
    """A trunk cable's end at the switch tray in `rack` at `u` (0: none placed there), the port not provided."""
    if not u:
        return End(_rack(racks, rack), None, "switch tray not provided", "not provided")
    return End(_rack(racks, rack), u, names.get((rack, u), switch or "switch tray"), "not provided")


def _rack(names: tuple[str, ...], i: int) -> str:
    return names[i] if i >= 0 else NO_RACK


def _tier_rows(a: ClusterAnalysis, fa: FabricAnalysis, tr: TierRuns, opts: tuple, names: EndNames,
               racks: tuple[str, ...], counters: dict) -> list[CableRow]:
    """One tier's cables: links grouped by their two devices and option, in order, cut into cables."""
    fid, tier = tr.fabric, tr.tier
    low, up = TIER_ENDS[tr.tier]
    n = len(tr.a_rack)
    speed = link_speed(fa, tier)
    # per link row: A device, A port role, B switch index
    a_switch, b_index, weights = tier_switches(a, fa, tr)
    if tier == "access":
        node_rack, node_u, _, _ = access_ports(a.cluster, fa)
        k = len(node_rack)
        extra = n - k
        node_key = node_rack * 10_000 + node_u
        port_no = _rank(node_key)
        kinds = extra_names(a.cluster, fa, extra)
        at = other_ends(a.cluster, fa, extra)
        a_dev = [names.get((int(r), int(u)), f"node@U{u}") for r, u in zip(node_rack, node_u, strict=True)]
        a_port = [f"{fa.fabric.spec.nic_role or fa.fabric.spec.role}-{p + 1}" for p in port_no]
        a_dev += [names.get((int(r), int(u)), kind) if r >= 0 else kind for (kind, _, _), (r, u) in zip(kinds, at,
                                                                                                      strict=True)]
        a_port += [port if r >= 0 else "—" for (_, _, port), (r, _) in zip(kinds, at, strict=True)]
        notes = [""] * k + [f"{why}: measured from where it stands" if r >= 0 else
                            f"{why}: where it stands is not stated, so its end is not placed; length assumed the "
                            "floor's longest run (corner to corner), as the BOM orders it"
                            for (_, why, _), (r, _) in zip(kinds, at, strict=True)]
        placed_ends, k_nodes = k + int((at[:, 0] >= 0).sum()), k
        cage: Sequence[int | None] = [node_cage_ports(a.nodes, fa)] * k + [1] * extra
        nic = nic_cages(node_key, fa.planes)   # a node's fabric ports run plane-major (`access_ports`)
    else:
        assert low is not None and a_switch is not None, "only the access tier has no switch below it"
        a_dev = [switch_name(fid, low, int(i)) for i in a_switch]
        placed_ends, k_nodes = n, 0
        a_port, notes, cage = [""] * n, [""] * n, [None] * n
        nic = np.zeros(n, dtype=np.int64)
    b_dev = [switch_name(fid, up, int(i)) for i in b_index]
    low_ports, up_ports = PortNumbering.of(fa, low), PortNumbering.of(fa, up)   # once per tier, not once per cable
    rows: list[CableRow] = []
    # plain lists: one numpy scalar per cable and end was most of the time at 10^5 cables (`bench/bench_render.py`)
    a_rack, a_u, b_rack, b_u = tr.a_rack.tolist(), tr.a_u.tolist(), tr.b_rack.tolist(), tr.b_u.tolist()
    option, length, length_bin, weight = tr.option.tolist(), tr.length.tolist(), tr.bin.tolist(), weights.tolist()
    code = _TIER_CODE[tier]
    groups: dict[tuple[str, int, str, int], list[int]] = {}
    # a cable split at the leaf (a copper splitter, a leaf module's connector on a 1:2 splitter fibre): its legs reach
    # the leaf's ports in order, several nodes' (`link_ends.leaf_split`)
    shared = [low is None and leaf_split(o, speed, cage[0] if n else None) for o in opts]
    # a NIC cage's module whose one connector carries its planes' links, or a cable part split to several far ports
    # (`links_per_cable`): one cable from that cage to several leaves
    fans = [low is None and fans_out(o, speed, cage[0] if n else None) for o in opts]
    # a lower switch's fibre connector carrying links to several upper switches (a twin-port 2 x DR4 at 400G, one
    # link per pair), or a split cable part: one cable from that port, split at its far end to as many upper
    # switches as it has legs where the switch has them (`split_legs.dealt`), as the BOM counts it
    spread = [low is not None and fans_out(o, speed, None) for o in opts]
    for i in range(n):   # a node's name is unique in its rack: the rack index is part of its key
        split = 0 <= option[i] < len(opts) and shared[option[i]] and i < k_nodes
        fan = 0 <= option[i] < len(opts) and fans[option[i]] and i < k_nodes
        if 0 <= option[i] < len(opts) and spread[option[i]]:
            groups.setdefault((a_dev[i], a_rack[i], "connectors", option[i]), []).append(i)
            continue
        groups.setdefault(("", -1, b_dev[i], option[i]) if split else
                          (a_dev[i], a_rack[i], f"cage {int(nic[i])}", option[i]) if fan else
                          (a_dev[i], a_rack[i], b_dev[i], option[i]), []).append(i)
    # what a cable's option, cage and length bin decide, worked out once per distinct one, not once per cable: the
    # 131,072-GPU bench cluster's 393,216 cables take 14 parts (`bench/bench_render.py` scale; it was half the time)
    @functools.cache
    def option_facts(o: int, at: int | None) -> tuple[LinkOption | None, str, int, int, int | None]:
        """Option, media, links per cable, cords per link (a twin-port's two MPO cords on one 800G link), fibres."""
        opt = opts[o] if 0 <= o < len(opts) else None
        if opt is None:
            return None, "—", 1, 1, None
        return (opt, opt.a.id if opt.a.id == opt.b.id else f"{opt.a.id} / {opt.b.id}",
                links_per_cable(opt, speed, at), cords_per_link(opt, speed), _fibres(opt))
    parts: dict[tuple[int, float, int], str] = {}   # (option, length bin, links per cable) -> `cable_part`

    for key, idx in sorted(groups.items(), key=lambda kv: kv[1][0]):
        i0 = idx[0]
        across = key[:2] == ("", -1)   # split at the leaf: its legs at several nodes, perhaps in several racks
        opt, media, per, cords, fibres = option_facts(option[i0], cage[i0])
        if 0 <= option[i0] < len(opts) and spread[option[i0]]:   # dealt over its upper switches (`split_legs`)
            links = [idx[x] for x in dealt(np.zeros(len(idx), dtype=np.int64), b_index[idx], weights[idx]).tolist()]
        else:
            links = [j for j in idx for _ in range(int(weight[j]))]
        for c in range(math.ceil(len(links) / per)):
            chunk = links[c * per:(c + 1) * per]
            j = chunk[0]
            placed = j < placed_ends
            b_devs = dict.fromkeys(b_dev[x] for x in chunk)
            # split at the leaf, its legs at several nodes (a node's name is unique only in its rack: two racks'
            # tray-01 are two nodes), or split to several upper switches: both ends list its legs
            if (across and len(dict.fromkeys((a_rack[x], a_dev[x]) for x in chunk)) > 1) or len(b_devs) > 1:
                a_end, b_end = _split_ends(chunk, b_devs, racks, (a_rack, a_u, a_dev, a_port), (b_rack, b_u, b_dev),
                                           (low_ports if low is not None else None, up_ports), counters)
            else:   # one device's links at each end (a group's key holds its device and rack)
                a_ports = (port_names(low_ports, a_dev[j], True, len(chunk), counters) if low is not None else
                           ", ".join(dict.fromkeys(a_port[x] for x in chunk)))   # a node's (or unplaced end's) own
                a_end = End(_rack(racks, a_rack[j]) if placed else "not placed",
                            a_u[j] if placed and a_u[j] >= 0 else None, a_dev[j], a_ports)
                b_end = End(_rack(racks, b_rack[j]), b_u[j] if b_u[j] >= 0 else None, b_dev[j],
                            port_names(up_ports, b_dev[j], False, len(chunk), counters))
            ordered = float(max(length_bin[x] for x in chunk))
            part = (option[i0], ordered, per)
            row = CableRow(f"{fid}-{code}-{len(rows) + 1:04d}", fid, tier, a_end, b_end, media, len(chunk),
                           float(max(length[x] for x in chunk)), ordered, notes[j],
                           parts.get(part) or parts.setdefault(part, cable_part(opt, ordered, per)), fibres)
            rows.append(row)
            for k in range(2, cords + 1):   # the link's other cords: the same ends, its links on the first row
                rows.append(replace(row, id=f"{fid}-{code}-{len(rows) + 1:04d}", links=0,
                                    note=f"cord {k} of {cords} of the link on {row.id} (one per module connector)"))
    return rows


def _split_ends(chunk: list[int], b_devs: dict[str, None], racks: tuple[str, ...], a: tuple, b: tuple,
                numbering: tuple, counters: dict) -> tuple[End, End]:
    """A split cable's two ends, each listing its legs (one a link of `chunk`) in the same order.

    `a`: per link row the A end's rack index, U, device and node port; `b` the B end's rack, U and switch;
    `numbering`: the lower switch's port numbering (None at the access tier: the A end is a node) and the upper's.
    The port columns keep their words: a switch end its ports as `port_names` writes them (a range at one switch, each
    leg's switch and port at several); a node end its legs' ports, each with its node (and rack) where they stand at
    several nodes (racks). An end has one U only where it stands at one device (`End.split`).
    """
    (a_rack, a_u, a_dev, a_port), (b_rack, b_u, b_dev), (low_ports, up_ports) = a, b, numbering
    j = chunk[0]
    if low_ports is not None:   # a lower switch's connector split to several upper switches: its up ports
        a_ports, a_each = port_legs(low_ports, a_dev[j], True, len(chunk), counters)
    else:
        a_each = tuple(a_port[x] for x in chunk)
    a_legs = tuple(Leg(_rack(racks, a_rack[x]), a_dev[x], p, a_u[x] if a_u[x] >= 0 else None)
                   for x, p in zip(chunk, a_each, strict=True))
    a_racks = dict.fromkeys(leg.rack for leg in a_legs)
    if low_ports is None:   # a node's ports, named with their node (and rack) where the legs stand at several
        several = len(a_racks) > 1, len(dict.fromkeys(leg.device for leg in a_legs)) > 1
        a_ports = ", ".join(dict.fromkeys(f"{leg.rack} {leg.device} {leg.port}" if several[0] else
                                          f"{leg.device} {leg.port}" if several[1] else leg.port for leg in a_legs))
    if len(b_devs) > 1:   # one port's links to several upper switches (a NIC cage's to several planes' leaves)
        b_each = tuple(port_names(up_ports, b_dev[x], False, 1, counters) for x in chunk)
        b_ports = ", ".join(f"{b_dev[x]} {p}" for x, p in zip(chunk, b_each, strict=True))
    else:   # one leaf's ports, its legs at several nodes
        b_ports, b_each = port_legs(up_ports, b_dev[j], False, len(chunk), counters)
    b_legs = tuple(Leg(_rack(racks, b_rack[x]), b_dev[x], p, b_u[x] if b_u[x] >= 0 else None)
                   for x, p in zip(chunk, b_each, strict=True))
    return End.split(a_legs, a_ports), End.split(b_legs, b_ports)


_TIER_CODE = {"access": "A", "leaf_spine": "LS", "spine_core": "SC"}


def _rank(keys: np.ndarray) -> np.ndarray:
    """Per position, how many earlier positions hold the same key (a node's port index within the fabric)."""
    out = np.zeros(len(keys), dtype=np.int64)
    seen: dict[int, int] = {}
    for i, k in enumerate(keys.tolist()):
        out[i] = seen.get(k, 0)
        seen[k] = out[i] + 1
    return out
