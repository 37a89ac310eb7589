"""The reference-architecture sections of the cluster document.

Storage architecture, management and control plane, software stack, data-centre requirements, the growth of the
design and the bill of materials by scalable-unit count.

What the author states (`Cluster.storage`, `Cluster.control_plane`, `Cluster.software`, the Facility's `tier`,
`concurrently_maintainable`, `feeds`, capacities) is printed as stated, and "not provided" where it is absent; what
archgen derives (storage fabric bandwidth per node, the out-of-band fabric, ports reserved on a fabric, IT power and
heat against the hall's capacity) comes from the cluster's analysis and its metrics. A row that does not apply to the
design (an out-of-band fabric it does not have, facility water in an air-cooled hall) is left out, not shown empty.
"""

from __future__ import annotations

import math
from typing import Any

from archgen.analyse.checkpoint_storage import node_fabric_rate, uplink_bound
from archgen.analyse.goodput import storage_fabrics, storage_side, unbounded_why
from archgen.analyse.rack_ports import rack_ports, row_cdus
from archgen.analyse.scaling import Scaling
from archgen.build.clusters import placed_count
from archgen.model import CoolingUnit, Switch
from archgen.model.field_words import said
from archgen.open_item import Worded, customer_text
from archgen.render import alt_text, fmt
from archgen.render.blocks import Bullets, Column, Figure, Para, Section, Table
from archgen.render.datacentre import ITEM_VALUE, _stated, datacentre
from archgen.render.load_swing import NOT_PROVIDED
from archgen.render.performance import stack_origin, workloads_for
from archgen.render.tables import Mark, plain
from archgen.units import Q_

#: Sizes of the design the document's BOM-by-size table shows (bom-by-size.csv holds every size of the series).
MAX_SIZES = 5


def kept_sentence(series: Scaling) -> str:
    """The counts written in the fabrics that every size keeps (`Scaling.kept`), as a sentence; '' when none."""
    if not series.kept:
        return ""
    return (" Kept as written at every size, not multiplied with the layout (the spec does not say whether they "
            f"grow with it): {'; '.join(series.kept)}.")


def growth(series: Scaling, mark: Mark = plain) -> tuple:
    """The design at 1, 2, 4, ... times its layout: what the network takes at each size, and the chart.

    `mark`: the cluster's network power's (`tables.cluster_marks`): each size holds the same parts, in proportion.
    """
    tiers = [t for t in ("leaf", "spine", "core") if any(t in p.switches_by_tier() for p in series.points)]
    fabric = series.fabric
    rows = [(f"{p.factor} ×", p.units, p.accelerators, p.racks, p.tiers.get(fabric),
             *(p.switches_by_tier().get(t, 0) for t in tiers),
             *((p.transceivers, mark(p.network_power), mark(p.network_power_per_accelerator)) if not p.no_media
               else (NOT_PROVIDED,) * 3)) for p in series.points]   # links on no media (CAB003): no total
    cols = (Column("Size"), Column("Units", digits=0, align="right"), Column("Accelerators", digits=0, align="right"),
            Column("Racks", digits=0, align="right"), Column(f"Tiers ({fabric})", digits=0, align="right"),
            *(Column(f"{t.capitalize()} switches", digits=0, align="right") for t in tiers),
            Column("Transceivers", digits=0, align="right"), Column("Network power", "kW", 1, "right"),
            Column("Per accelerator", "W", 1, "right"))
    last = series.points[-1].accelerators if series.points else 0
    blocks: list = [
        Para(f"The same analysis at 1, 2, 4, ... times the layout (every unit and stand-alone rack count doubled), up "
             f"to {last:,} accelerators, the last size in the table: the series stops because {series.stop}. Switches "
             "are summed over all fabrics by tier; transceivers are the optical module ends; network power is "
             "switches at maximum power plus optics." + kept_sentence(series)),
        Table("growth", "Growth of the design: switches, transceivers and network power", cols, tuple(rows)),
        Figure("fig-scaling", "scaling", "Switches per tier, transceivers and network power against accelerators "
                                         "as the design doubles", alt_text.scaling(series))]
    first: dict[str, tuple[int, list[str]]] = {}
    for p in series.points:
        for fid, problem in p.problems:
            if fid not in first or first[fid][0] == p.factor:
                first.setdefault(fid, (p.factor, []))[1].append(problem.message)
    if first:
        blocks.append(Bullets(tuple(f"From {k} × the design, fabric {fid}: {'; '.join(msgs)}"
                                    for fid, (k, msgs) in sorted(first.items()))))
    if dark := [p for p in series.points if p.no_media]:
        blocks.append(Para("Transceivers and network power are not provided where a tier's links name no link media "
                           "(CAB003), whose transceivers and their draw are unknown: " + "; ".join(
                               f"{p.factor} ×, " + ", ".join(f"fabric {f} {said(t)} x{n:,}" for f, t, n in p.no_media)
                               for p in dark) + "."))
    return tuple(blocks)


def sections(scope: Any, a: Any, series: Scaling | None) -> list[Section]:
    """The reference-architecture sections, in the order a reference architecture gives them."""
    stacks = tuple(r for r in workloads_for(scope.run, a.cluster.spec.id) if r.switches)
    out = [storage(a, scope.run.design.specs), control_plane(a, scope.run.design.specs), software(a, stacks),
           datacentre(scope, a)]
    bom = bom_by_size(series)
    if bom is not None:
        out.append(Section("bom-by-size", "Bill of materials by scalable-unit count").add(
            Para("The bill of materials of the design at 1, 2, 4, ... times its layout, as the growth table "
                 "scales it (every unit and stand-alone rack count multiplied), each size analysed in full: switch "
                 "counts follow the fabric rules and cables and optics the floor geometry, so a line can appear "
                 "only at a larger size (a longer length bin, a new tier)."
                 + (kept_sentence(series) if series is not None else "")
                 + (f" The first {MAX_SIZES} sizes are shown; bom-by-size.csv holds all."
                    if series is not None and len(series.points) > MAX_SIZES else "")),
            _shown(bom), *over_reach(series), *unlaid(series)))
    return out


def over_reach(series: Scaling | None) -> tuple:
    """The sizes whose runs exceed their media's reach (CAB001 of the design itself), under the BOM by size.

    The BOM buys such a run as its length bin orders it (a 300 m multimode fibre for an SR8 link), so a line that
    will not link must not stand in the table without a word.
    """
    rows = [f"{p.factor} × the design ({p.units:,} units), fabric {fid}: {link}: {n:,} link(s) up to {longest:.1f} m "
            f"exceed the {reach:~P} reach of {label}" for p in (series.points if series else ())
            for fid, link, label, n, longest, reach in p.over_reach]
    if not rows:
        return ()
    return (Para("Runs beyond the reach of their media (CAB001 reports these for the design itself): the lines "
                 "above count their cables and optics as the length bins order them, but they would not link; "
                 "the design needs a longer-reach option (e.g. single-mode) for these links at that size."),
            Bullets(tuple(rows)))


def unlaid(series: Scaling | None) -> tuple:
    """The sizes at which a fabric is counted but not laid out (it does not fit its tiers there), under the BOM.

    Its links are counted as their first option without lengths, so no length bin or reach is known for them: a
    fabric whose runs were beyond reach at 1 × would otherwise drop out of the list above at the larger sizes.
    """
    rows = [f"{p.factor} × the design ({p.units:,} units), fabric {fid}: " + ", ".join(
        f"{link}: {n:,} link(s) as {label}" for f, link, label, n in p.unlaid if f == fid)
        for p in (series.points if series else ()) for fid in dict.fromkeys(f for f, *_ in p.unlaid)]
    if not rows:
        return ()
    return (Para("Fabrics not laid out at a size, because they do not fit their switches or tiers there (the growth "
                 "section names the problem): the lines above count their links as their first link option, without "
                 "lengths, so their length bins, their reach and any run beyond it are not known at that size, and "
                 "those lines are not a design."),
            Bullets(tuple(rows)))


# ------------------------------------------------------------------------------------------------ storage

def storage(a: Any, specs: Any) -> Section:
    """The storage network (fabrics carrying storage) and the storage system the cluster states.

    A node's bandwidth on each storage fabric is its ports at line rate and, beside it, what the model uses: each NIC
    card at most its `host_interface` (`checkpoint_storage.node_fabric_rate`; newuser23 found the table showing
    1,600 Gb/s where two PCIe Gen5 x16 cards carry 1,008 Gb/s).
    """
    c = a.cluster
    section = Section("storage", "Storage architecture")
    rows = []
    for fa in storage_fabrics(a):   # the fabrics checkpoints are written over, not a front end on the same NICs
        s = fa.fabric.spec
        ppn = max(fa.ports_per_node.values(), default=0)
        rate = node_fabric_rate(specs, a, fa)
        rows.append((s.id, s.role, s.topology, s.speed, ppn, s.speed * ppn if ppn else None,
                     Q_(rate, "B/s") if rate > 0 else None, getattr(getattr(s, "endpoints", None), "extra", 0)))
    if rows:
        section.add(Para("The storage network: each fabric that carries storage traffic, the ports each node has "
                         "on it, their line rate and the bandwidth a compute node gets over them (one direction; "
                         "each NIC card carries at most its PCIe host interface, the figure checkpoints use), and "
                         "the ports left for storage appliances and other endpoints that are not nodes."),
                    Table("storage-network", "Storage network", (
                        Column("Fabric"), Column("Role"), Column("Topology"),
                        Column("Port speed", "Gbit/s", 0, "right"),
                        Column("Ports per node", digits=0, align="right"),
                        Column("Line rate per node", "Gbit/s", 0, "right"),
                        Column("Bandwidth per node used", "Gbit/s", 0, "right"),
                        Column("Other endpoint ports", digits=0, align="right")), tuple(rows)))
    else:
        section.add(Para("No fabric of the design carries storage traffic (no fabric of role storage or converged)."))
    st = c.spec.storage
    if st is None:
        section.add(Para(f"Storage system: {NOT_PROVIDED}. The design states no storage capacity or bandwidth, so "
                         "checkpoint write and restart times are not derived."))
        return section
    used = {key: a.metrics.get(f"storage_{key}_bandwidth_per_accelerator") for key in ("write", "read")}
    srows = [("Usable capacity", fmt.q(st.capacity, "PB", 2)),
             ("Aggregate write bandwidth", _used(used["write"], a.accelerators, st.write_bandwidth, "GB/s", 0)),
             ("Aggregate read bandwidth", _used(used["read"], a.accelerators, st.read_bandwidth, "GB/s", 0)),
             ("Write bandwidth per accelerator", _used(used["write"], 1, _per(st.write_bandwidth, a), "GB/s", 3)),
             ("Read bandwidth per accelerator", _used(used["read"], 1, _per(st.read_bandwidth, a), "GB/s", 3)),
             ("Basis", f"{st.basis}: {st.source}")]
    if c.storage_derived and st.appliance is not None:   # left out and taken from the appliances the racks place
        n = placed_count(c.rack_counts, c.rack_types, st.appliance)
        srows.append(("Derived from the appliances", f"{', '.join(k.replace('_', ' ') for k in c.storage_derived)}: "
                                                     f"{n} x '{st.appliance}' placed in the racks, each as catalogued"))
    side = storage_side(a)
    if side is not None:   # the ports counted, in the customer's words too (`checkpoint_storage._storage_ports`)
        head = f"the storage's {side.ports} port(s) at line rate carry {fmt.q(Q_(side.bandwidth, 'B/s'), 'GB/s', 0)}: "
        ports, said = head + "; ".join(side.counted), head + "; ".join(map(customer_text, side.counted))
    else:
        why = unbounded_why(a)
        ports, said = (f"the storage's own ports bound nothing: {t}" for t in (why, customer_text(why)))
    up = uplink_bound(a)
    uplinks = (f" The leaf uplinks pass at most {fmt.q(Q_(up.bandwidth, 'B/s'), 'GB/s', 0)} of it (U L / (L - 1): "
               + "; ".join(f"'{fid}' {leaves} leaves, uplinks {fmt.q(Q_(u, 'B/s'), 'GB/s', 0)}"
                           for fid, leaves, u in up.fabrics)
               + "; the storage's ports assumed spread over the leaves in proportion, every transfer striped over "
               "them; storage on leaves of its own gets less)." if up is not None else "")
    lead = ("Checkpoints are written and restored at the stated bandwidth (shown beside where the figure used "
            "differs), bounded by the storage's own ports on the fabrics that carry it, by their leaf uplinks and by "
            "the compute nodes' ports to storage, every node at once; the rows per accelerator are the storage "
            "bandwidth metrics. ")
    section.add(Para(Worded(*(f"{lead}{t[0].upper()}{t[1:]}.{uplinks}" for t in (ports, said)))))
    return section.add(Table("storage-system", "Storage system", ITEM_VALUE, tuple(srows)))


def _per(q: Any, a: Any) -> Any:
    """A stated aggregate over the cluster's accelerators (None without any)."""
    return (q / a.accelerators).to("GB/s") if a.accelerators else None


def _used(per_acc: Any, n: int, stated: Any, unit: str, digits: int) -> str:
    """The figure the analysis uses (`per_acc` × `n`), with the stated one beside it where they differ."""
    if per_acc is None or stated is None:
        return fmt.q(stated, unit, digits)
    got = (per_acc * n).to(unit)
    if abs(got.m_as("B/s") - stated.m_as("B/s")) <= 1e-9 * stated.m_as("B/s"):
        return fmt.q(stated, unit, digits)
    return f"{fmt.q(got, unit, digits)} (stated {fmt.q(stated, unit, digits)})"


# ------------------------------------------------------------------------------------------------ control plane

def control_plane(a: Any, specs: Any = None) -> Section:
    """Management machines as stated, and the management fabrics and reserved ports the design derives.

    With the run's `specs`, the NICs' own out-of-band ports their parts state are said not to be counted (`nic_oob`).
    """
    c = a.cluster
    section = Section("control-plane", "Management rack and control plane")
    cp = c.spec.control_plane
    if cp is None or not cp.groups:
        section.add(Para(f"Management and control-plane machines (head nodes, fabric managers, login and storage "
                         f"servers): {NOT_PROVIDED} in the design; their racks, power and ports are not counted."))
    else:
        rows = [(g.role, _stated(g.model), g.count if g.count is not None else NOT_PROVIDED,
                 _stated(g.redundancy), _stated(g.rack), g.power, ", ".join(g.fabrics) or NOT_PROVIDED)
                for g in cp.groups]
        section.add(Para("Machines that run and manage the cluster outside its compute nodes, as stated"
                         + (f" ({cp.source})." if cp.source else ".")),
                    Table("control-plane", "Management and control-plane machines", (
                        Column("Role"), Column("Machine"), Column("Count", align="right"), Column("Redundancy"),
                        Column("Rack"), Column("Power each", "kW", 2, "right"), Column("Fabrics")), tuple(rows)))
    facts = []
    for fa in a.fabrics:
        s = fa.fabric.spec
        if s.role == "management":
            tiers = ", ".join(f"{t.switches * fa.planes} {t.name}" for t in fa.tiers)
            facts.append(f"Out-of-band management: fabric {s.id} ({tiers}) at {fmt.q(s.speed, digits=0)} per port, "
                         f"{fa.endpoint_ports:,} endpoint ports.")
            facts += _address_budget(a, fa) + _cdu_and_console(a, fa) + nic_oob(a, fa, specs)
        for r in getattr(s, "reserved", ()):
            facts.append(f"Fabric {s.id}: {r.ports} leaf port(s) reserved for {r.name}.")
        ends = getattr(s, "endpoints", None)
        if ends is not None and ends.switches and s.role == "management":
            more = sorted({(p.part.id, p.part.management_ports) for r in a.cluster.rack_types.values()
                           for p in r.items if isinstance(p.part, Switch) and p.part.management_ports != 1})
            facts.append(f"Fabric {s.id} takes the management ports of each switch placed in the racks: one each"
                         + (f", but {', '.join(f'{n} on each {pid}' for pid, n in more)}" if more else "") + ".")
    if facts:
        section.add(Bullets(tuple(facts)))
    elif not any(fa.fabric.spec.role == "management" for fa in a.fabrics):
        section.add(Para("The design has no out-of-band management fabric."))
    return section


# ------------------------------------------------------------------------------------------------ software

SOFTWARE_ROWS = (("os", "Operating system"), ("drivers", "Accelerator driver and firmware"),
                 ("collectives", "Collective communication library"), ("network", "Network software"),
                 ("cluster_manager", "Cluster manager and provisioning"), ("scheduler", "Workload scheduler"),
                 ("containers", "Containers"), ("storage_client", "Storage client"), ("monitoring", "Monitoring"))


def _address_budget(a: Any, fa: Any) -> list[str]:
    """A management fabric's ports per rack type and the smallest IPv4 subnet giving each an address.

    One address a port, and a subnet loses its network and broadcast addresses (RFC 950) and one for the gateway
    (an assumption, as is one address a port: a BMC sharing a host port, or a device with several addresses, is not
    modelled): a /p holds 2^(32 - p) - 3. A GB200 NVL72 rack's 55 ports take a /26 (61).
    """
    spec = fa.fabric.spec
    ports = {rid: rack_ports(a.cluster, spec, rid, a.nodes, fa.ports_per_node) for rid in sorted(a.cluster.rack_counts)}
    budget = [f"{rid} {n} (a /{32 - math.ceil(math.log2(n + 3))})" for rid, n in ports.items() if n]
    if not budget:
        return []
    return [f"Fabric {spec.id}'s ports per rack, each with the smallest IPv4 subnet giving every port an address "
            f"beside the network, broadcast and gateway addresses: {', '.join(budget)}. One address a port is an "
            "assumption; addresses of the leaves' own uplinks and of devices outside the racks are not counted."]


def _cdu_and_console(a: Any, fa: Any) -> list[str]:
    """Where a management fabric's CDUs' management connections go, and the serial consoles it does not model.

    A CDU's controller talks Modbus TCP, BACnet/IP or SNMP over Ethernet, or Modbus RTU over RS-485, to the
    building-management system (APC InRow RC/RD/RP user's guide, Serial Modbus; Liebert IntelliSlot Modbus/BACnet
    IP): a fabric takes them only where its spec says so (`endpoints.cooling`), and the document states which.
    The switches' RJ45 serial console ports and any console servers are not modelled, and the document says so.
    """
    c, spec = a.cluster, fa.fabric.spec
    in_rack = sum(n * sum(isinstance(p.part, CoolingUnit) for p in c.rack_types[rid].items)
                  for rid, n in c.rack_counts.items())
    in_row = sum(units for _, units in row_cdus(c).values())
    out = []
    if in_rack + in_row:
        where = ", ".join(w for w in (f"{in_rack:,} in the racks" if in_rack else "",
                                      f"{in_row:,} in the rows" if in_row else "") if w)
        out.append(f"Fabric {spec.id} takes the management ports of the {in_rack + in_row:,} CDUs ({where}): "
                   f"{fa.cdu_mgmt_ports:,} counted" + (", an in-row CDU's run being the floor's longest, its place in "
                                                       "the row not stated." if in_row else ".")
                   if spec.endpoints.cooling else
                   f"The management connections of the {in_rack + in_row:,} CDUs ({where}) are left to the "
                   f"building-management system: fabric {spec.id} neither counts nor cables them.")
    switches = sum(n * sum(isinstance(p.part, Switch) for p in c.rack_types[rid].items)
                   for rid, n in c.rack_counts.items())
    if switches:
        out.append(f"Serial consoles are not modelled: the console ports of the {switches:,} switches placed in the "
                   "racks (an RJ45 serial port where a switch has one) and any console servers that would serve them "
                   "are neither counted nor cabled.")
    return out


def nic_oob(a: Any, fa: Any, specs: Any) -> list[str]:
    """The out-of-band ports of the placed systems' NICs whose parts state them, said not to be counted.

    A BlueField-3 card has one 1GbE RJ45 port bridged to its BMC and Arm cores (NVIDIA BlueField BMC software, OOB
    Network 3-Port Switch Control; BlueField BSP, OOB Ethernet Interface). Whether a system brings it out to a cable
    (a GB200 compute tray's rear panel) no source read states, so no fabric counts it: the sentence gives how many.
    """
    if specs is None:
        return []
    by_part: dict[str, int] = {}
    for nt in a.nodes:
        for slot in nt.part.nics:
            nic = specs.get(slot.part)
            if getattr(nic, "management_ports", None):
                by_part[slot.part] = by_part.get(slot.part, 0) + nt.count * slot.count * nic.management_ports
    if not by_part:
        return []
    parts = ", ".join(f"{n:,} on {pid}" for pid, n in sorted(by_part.items()))
    return [f"Not counted on fabric {fa.fabric.spec.id}: the out-of-band management ports of the nodes' own NICs, "
            f"{sum(by_part.values()):,} as their parts state them ({parts}); whether the systems bring them out to "
            "a cable is not stated."]


def software(a: Any, trained: tuple[Any, ...] = ()) -> Section:
    """The software stack as stated, every absent layer 'not provided'.

    `trained` are the training workloads estimated on the cluster (`WorkloadResult`s with `switches`): the training
    stack each estimate assumed is named too, stated or not, with where it came from, so that a document whose design
    states no software still says what its step times rest on (newuser38).
    """
    sw = a.cluster.spec.software
    rows = tuple((title, _stated(getattr(sw, key, "") if sw else "")) for key, title in SOFTWARE_ROWS)
    section = Section("software", "Software stack").add(
        Para("The software the design is built and validated with, as stated" + (
            f" ({sw.source})." if sw is not None and sw.source else ".")
            + ("" if sw is not None else " The design states no software stack.")),
        Table("software", "Software stack", (Column("Layer"), Column("Stated")), rows))
    if trained:
        by_stack: dict[str, list[str]] = {}
        for r in trained:
            by_stack.setdefault(str(r.switches[0].value), []).append(f"{r.workload.id} ({stack_origin(r.switches[0])})")
        section.add(Para("The training step times under Performance assume a training stack per workload, whose "
                         "profile sets each switch the workload does not state (listed with each estimate): "
                         + "; ".join(f"{stack} for {', '.join(ids)}" for stack, ids in by_stack.items()) + "."))
    return section


# ------------------------------------------------------------------------------------------------ BOM by size

def bom_by_size(series: Scaling | None) -> Table | None:
    """Every BOM line's quantity at each size of the growth series (all sizes; the document shows the first)."""
    if series is None or not series.points or not any(p.bom for p in series.points):
        return None
    keys: dict[tuple[str, str, str], None] = {}
    for p in series.points:
        for part, kind, note, _ in p.bom:
            keys.setdefault((part, kind, note), None)
    qty = [{(part, kind, note): n for part, kind, note, n in p.bom} for p in series.points]
    rows = tuple((part, kind, note or "—", *(q.get((part, kind, note), 0) for q in qty)) for part, kind, note in keys)
    cols = (Column("Part"), Column("Kind"), Column("Note"),
            *(Column(f"{p.units:,} unit{'' if p.units == 1 else 's'}, {p.accelerators:,} accelerators", digits=0,
                     align="right") for p in series.points))
    return Table("bom-by-size", "Bill of materials by size of the design", cols, rows)


def _shown(table: Table) -> Table:
    """The table with its first `MAX_SIZES` size columns (the document's width)."""
    keep = 3 + MAX_SIZES
    return Table(table.id, table.caption, table.columns[:keep], tuple(r[:keep] for r in table.rows))
