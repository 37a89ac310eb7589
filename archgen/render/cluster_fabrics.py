"""The cluster document's network section: the fabrics, the scale-up domain and the per-node port map.

Split from `archgen.render.cluster` (the whole document) by what it renders; figures come from
`archgen.analyse.network.ClusterAnalysis` and its `cabling` (`archgen.analyse.cabling_result.Cabling`).
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.core_ports import core_surplus
from archgen.analyse.network import wired_rails, withheld_tiers
from archgen.metrics import REGISTRY, find
from archgen.render import alt_text, fmt, scale_up
from archgen.render.blocks import Column, Figure, Para, Section, Table
from archgen.render.common import Scope
from archgen.topology import INFEASIBLE

ROLE_TITLES = {"compute": "compute (east-west)", "storage": "storage", "frontend": "in-band (front end)",
               "management": "out-of-band management", "converged": "converged"}


def full_bisection(fa: Any) -> float | None:
    """Bisection as a share of full bisection, half the injection (1.0 for a non-blocking fabric); a ratio.

    None where there is no injection, or where the fabric's errors withhold its bisection (`network.infeasible`).
    """
    if not fa.injection.magnitude or "bisection_bandwidth" not in fa.metrics:
        return None
    return float((fa.bisection / (fa.injection / 2)).to("").magnitude)


def bisection_text(fa: Any) -> str:
    """Bisection per accelerator with its convention and the injection beside it, so 1:1 is not read as 2:1."""
    bis, inj = fa.metrics.get("bisection_per_accelerator"), fa.metrics.get("injection_per_accelerator")
    share = full_bisection(fa)
    if "bisection_bandwidth" not in fa.metrics:   # its errors withheld it (`network.infeasible`)
        return f"bisection {withheld(fa)}"
    if bis is None or inj is None or share is None:
        return "no accelerator's node injects into it (bisection per accelerator does not apply)"
    bis, inj = bis.to("Gbit/s"), inj.to("Gbit/s")
    over = (f"over the slice's {fa.served:,} accelerators" if fa.served < fa.accelerators  # a torus slice of a pod
            else "over all accelerators")
    return (f"bisection {fmt.q(bis, digits=fmt.digits_for(bis))} per accelerator (one direction, {over}; "
            f"{fmt.pct(share, 0)} of full bisection, which is half the injection of "
            f"{fmt.q(inj, digits=fmt.digits_for(inj))} per accelerator)")


def withheld(fa: Any) -> str:
    """Why a figure its errors withheld (`network.infeasible`) is not provided, in a document's words."""
    checks = ", ".join(sorted({p.check for p in fa.problems if p.check in INFEASIBLE}))
    return f"not provided: the topology is infeasible ({checks})"


def oversubscription(fa: Any, tier: str | None = None) -> float | str | None:
    """Tier `tier`'s oversubscription as used, or the fabric's largest (1.0 with none); "not provided" where withheld.

    The ratio counts the down ports in use, so a tier whose wiring is withheld (`withheld_tiers`) has none, and the
    largest is not provided where any tier's ratio is withheld: it could be the withheld one.
    """
    gone = withheld_tiers(fa)
    if tier is not None:
        return "not provided" if tier in gone and tier in fa.oversubscription else fa.oversubscription.get(tier)
    if gone and any(t in gone for t in fa.oversubscription):
        return "not provided"
    return max(fa.oversubscription.values(), default=1.0)


def _fabrics_of(a: Any, node: str, role: str) -> list[Any]:
    """The fabrics that take a node's ports of a NIC role (its `nic_role`, else its role): they set the speed."""
    return [fa for fa in a.fabrics if (getattr(fa.fabric.spec, "nic_role", None) or fa.fabric.spec.role) == role
            and getattr(fa, "ports_per_node", {}).get(node, 0)]


def fabrics(scope: Scope, a: Any) -> Section:
    """Scale-up domain, each fabric's tiers, bandwidths and failure cases, and the per-node port map."""
    section = Section("network", "Network fabrics")
    summary = []
    for fa in a.fabrics:
        s = fa.fabric.spec
        summary.append((s.id, ROLE_TITLES.get(s.role, s.role), s.topology, fa.tiers_used, fa.planes, wired_rails(fa),
                        s.speed, fa.metrics.get("injection_per_accelerator"),
                        fa.metrics.get("bisection_per_accelerator"), fmt.pct(full_bisection(fa), 0),
                        oversubscription(fa), fa.hops))
    cols = (Column("Fabric"), Column("Role"), Column("Topology"), Column("Tiers", digits=0, align="right"),
            Column("Planes", digits=0, align="right"), Column("Rails", digits=0, align="right"),
            Column("Port speed", "Gbit/s", 0, "right"), Column("Injection / accelerator", "Gbit/s", 0, "right"),
            Column("Bisection / accelerator", "Gbit/s", 0, "right"), Column("Full bisection", align="right"),
            Column("Max oversubscription as used", digits=2, align="right"),
            Column("Max hops", digits=0, align="right"))
    section.add(Para("Bandwidths are one direction. Injection is what each accelerator sends into the fabric. "
                     "Bisection is the bandwidth across the narrowest cut that splits the fabric's endpoints into "
                     "two halves, divided by all the accelerators: each half can send to the other at most this "
                     "much per accelerator of the cluster, so a non-blocking fabric's bisection per accelerator "
                     "is half its injection (full bisection, 100 %), not a 2:1 taper. Oversubscription is "
                     "down:up bandwidth at a tier (1.00 is non-blocking), as used: the down ports in use over the "
                     "up ports, not all the down ports a switch's split sets aside (as built) nor the ratio the "
                     "design states."
                     + (" A torus that is a slice of a larger pod divides by the slice's accelerators, whose "
                        "links it is." if any(fa.served < fa.accelerators for fa in a.fabrics) else "")),
                Table("fabrics", "Fabrics", cols, tuple(summary)))
    if a.fabrics:
        section.add(Figure("fig-topology", "topology", "Fabric topology by tier, with switch and link counts",
                           alt_text.topology(a)))
    if a.scale_up is not None:
        section.sub("scale-up", "Scale-up domain", Table("scale-up", "Scale-up domain",
                                                         (Column("Item"), Column("Value")), scale_up.rows(a)))
    ports = []
    specs = scope.run.design.specs
    for nt in a.nodes:
        for nic in nt.part.nics:
            part = specs.get(nic.part)
            p = getattr(part, "ports", None)
            on = _fabrics_of(a, nt.part.id, nic.role)
            ports.append((nt.part.id, nt.count, nic.role, nic.part, nic.count, p.count * nic.count if p else None,
                          sum(fa.ports_per_node.get(nt.part.id, 0) for fa in on),
                          ", ".join(fa.fabric.spec.id for fa in on) or "—",
                          min((fa.fabric.spec.speed for fa in on), default=None), p.speed if p else None))
    if ports:
        port_cols = (Column("Node"), Column("Nodes", digits=0, align="right"), Column("Role"), Column("NIC"),
                     Column("NICs per node", digits=0, align="right"),
                     Column("NIC ports per node", digits=0, align="right"),
                     Column("Ports cabled per node", digits=0, align="right"), Column("Fabric"),
                     Column("Speed the fabric runs", "Gbit/s", 0, "right"),
                     Column("NIC port rating", "Gbit/s", 0, "right"))
        section.sub("port-map", "Per-node port map", Table("port-map", "Per-node port map", port_cols, tuple(ports)))
    for fa in a.fabrics:
        s = fa.fabric.spec
        gone = withheld_tiers(fa)   # `network.infeasible`
        tiers = [(t.name, t.switch.id if t.switch else "—", t.switches * fa.planes, t.ports, t.cabled, t.down,
                  t.up, t.up_speed, *(("not provided",) * 2 if t.name in gone else
                                      (t.down_used * fa.planes, t.up_used * fa.planes)),
                  oversubscription(fa, t.name)) for t in fa.tiers]
        tier_cols = (Column("Tier"), Column("Switch"), Column("Switches", digits=0, align="right"),
                Column("Radix (ports)", digits=0, align="right"), Column("As cabled"),
                Column("Down ports", digits=0, align="right"), Column("Up ports", digits=0, align="right"),
                Column("Up speed", "Gbit/s", 0, "right"), Column("Down used", digits=0, align="right"),
                Column("Up used", digits=0, align="right"),
                Column("Oversubscription as used (down ports in use : up, fullest switch)", digits=2, align="right"))
        failures = [_failure_row(k, fa.metrics.get(k), fa) for k, _ in sorted(fa.failure.items(), key=_registry_order)]
        total = f"Total bisection {fmt.q(fa.bisection, 'Tbit/s', 1)}; " if "bisection_bandwidth" in fa.metrics else ""
        sub = section.sub(f"fabric-{s.id}", f"Fabric {s.id}: {ROLE_TITLES.get(s.role, s.role)}",
                          Para(f"{s.name or s.id}: {_shape(fa)}; {_reach(fa)} at this design. "
                               f"{total + bisection_text(fa) if total else fmt.sentence(bisection_text(fa))}."),
                          Table(f"tiers-{s.id}", f"Tiers of fabric {s.id}", tier_cols, tuple(tiers)))
        if gone:   # 576 spine ports used read beside 8 x 64-port spines (infeas41)
            sub.add(Para(f"Down used, Up used and Oversubscription as used of tier(s) {', '.join(gone)}: "
                         f"{withheld(fa)}."))
        for note in (uplink_note(fa), core_note(fa)):
            if note is not None:
                sub.add(Para(note))
        if failures:
            sub.add(Table(f"failure-{s.id}", f"Failure cases of fabric {s.id}", (Column("Case"), Column("Effect")),
                          tuple(failures)))
    return section


def uplink_note(fa: Any) -> str | None:
    """That a fat tree's leaves keep a full leaf's uplinks where they hold fewer ports than a full leaf, or None.

    The up ports come from the leaf's port split (`analyse.tiers.split`), not from the ports a leaf holds, so a
    partly filled leaf is cabled as a full one (review47: the GB300 SU's third storage leaf, 32 ports on 128
    uplinks). Where leaves fill in order (no rail groups, no `serves_racks`), only the last is partly filled: its
    ports, its ratio and the uplinks beyond what its ports need at a full leaf's ratio are given.
    """
    s, leaf = fa.fabric.spec, fa.tier("leaf")
    if fa.topology != "fat-tree" or fa.tiers_used < 2 or leaf is None or not (leaf.down and leaf.up):
        return None
    used, plane = leaf.used_switches, " per plane" if fa.planes > 1 else ""
    if leaf.down_used >= used * leaf.down:
        return None
    held = f"The leaves hold {leaf.down_used:,} of their {used * leaf.down:,} down ports{plane}."
    last = leaf.down_used - (used - 1) * leaf.down
    if not (s.rail_optimized and fa.rails_per_leaf) and s.leaf.serves_racks is None and 0 < last < leaf.down:
        ratio = float((last * leaf.speed / (leaf.up * leaf.up_speed)).to("").magnitude)
        beyond = leaf.up - -(-last * leaf.up // leaf.down)
        held = (f"Filled in order, {used - 1:,} of them{plane} hold {leaf.down:,} access ports each and the last "
                f"{last:,}: it runs {last:,} ports on {leaf.up:,} uplinks ({ratio:.2f}:1), {beyond:,} more than its "
                f"ports need at a full leaf's {leaf.down:,} down : {leaf.up:,} up, with their cables, transceivers "
                f"and spine ports counted.")
    return (f"Each of the {used:,} leaves{plane} is cabled with its {leaf.up:,} up ports, as the tier's port split "
            f"sets them, whatever number of its {leaf.down:,} down ports it holds: uplinks are provisioned for a "
            f"full leaf, not trimmed to a partly filled one. {held}")


def core_note(fa: Any) -> str | None:
    """That a 3-tier plane's cores leave ports free where the count by ports alone is lower, or None (NET036).

    The cores meet every pod alike (`analyse.core_ports`); where the pods do not divide the core's ports that leaves
    ports free on every core, which the tier table's counts show only by arithmetic (newuser105: 256 cores of 64
    ports, 9,216 links). The note gives the ports used and free, the count by ports and why it is not built.
    """
    found = core_surplus(fa)
    if found is None or withheld_tiers(fa):
        return None
    plane = " per plane" if fa.planes > 1 else ""
    return (f"The {found.cores:,} cores{plane} use {found.used} of their {found.ports} ports each, "
            f"{found.free:,} free{plane}: each meets every pod alike, {found.per_pod} links from each of "
            f"the {found.pods} pods. By ports alone {found.by_ports:,} cores would take the {found.links:,} spine "
            f"uplinks, {found.cores - found.by_ports:,} fewer{plane}, but each would take {found.spread}, more "
            "links in from one pod than out to another; that spread is not built.")


def _registry_order(item: tuple[str, Any]) -> tuple[int, str]:
    """A failure case's place: its metric's in the registry (leaf, spine, core, plane), the unknown last by name."""
    metric = find("fabric", item[0])
    return (REGISTRY.index(metric) if metric is not None else len(REGISTRY), item[0])


def _failure_row(name: str, value: Any, fa: Any) -> tuple[str, str]:
    """A failure case of a fabric as its metric's title and value in its display unit ('Bisection with a core lost').

    A value the fabric's errors withheld (`network.infeasible`: None) reads not provided, with the errors.
    """
    metric = find("fabric", name)
    if value is None:
        return metric.title if metric else name, withheld(fa)
    if metric is None:
        return name.removeprefix("failure."), f"{float(value.magnitude):,.0f}"
    return metric.title, fmt.metric_value(metric, value)


def _shape(fa: Any) -> str:
    """How a fabric is built, in words, from its analysis (fat tree, torus, dragonfly or rail-only)."""
    s, f = fa.fabric.spec, {k: int(v.magnitude) for k, v in fa.figures.items()}
    if s.topology == "torus":
        ocs = f", {f['torus.cubes']} cubes of {'x'.join(map(str, s.ocs.cube))} joined by {f['torus.ocs']} OCSes" \
            if s.ocs else ""
        return (f"{'x'.join(map(str, s.dims))} {'torus' if s.wraparound else 'mesh'}, {f['torus.links_per_chip']} "
                f"links per chip, diameter {f['torus.diameter']} hops{ocs}")
    if s.topology == "dragonfly":
        return (f"dragonfly of {f['dragonfly.groups']} groups x {s.group_size} routers, {s.terminals} terminals and "
                f"{s.global_links} global links per router, {f['dragonfly.global_links_per_group_pair']} global "
                f"link(s) per pair of groups; {fa.node_ports:,} node ports")
    if s.topology == "rail-only":
        return (f"rail-only, {fa.rails} rail(s) x {fa.planes} plane(s), {fa.tiers_used} tier(s) per rail, no spine "
                f"between rails; {fa.node_ports:,} node ports")
    return (f"{s.topology}, {fa.tiers_used} tier(s), {fa.planes} plane(s)"
            f"{f', {fa.rails} rail(s), rail-optimised' if s.rail_optimized else ''}; {fa.node_ports:,} node ports, "
            f"{_other_endpoints(fa)}{fa.reserved_ports:,} reserved")


def _other_endpoints(fa: Any) -> str:
    """The fabric's endpoint ports that are no node's NICs' (switch, power and node management, `endpoints.extra`)."""
    others = fa.endpoint_ports - fa.node_ports
    unstated, cdus = getattr(fa, "power_mgmt_unstated", 0), getattr(fa, "cdu_mgmt_unstated", 0)
    note = ((f"; not counted: the management ports of {unstated:,} power shelves and PDUs whose parts state none "
             "(NET032)") if unstated else "") + (
        f"; not counted: the management ports of {cdus:,} CDUs whose parts state none (NET032)" if cdus else "")
    if others <= 0:
        return f"no other endpoint ports{note}, " if note else ""
    extra = min(getattr(getattr(fa.fabric.spec, "endpoints", None), "extra", 0) or 0, others)
    bmc = min(fa.node_mgmt_ports, others - extra)
    power = min(getattr(fa, "power_mgmt_ports", 0), others - extra - bmc)
    cdu = min(getattr(fa, "cdu_mgmt_ports", 0), others - extra - bmc - power)
    switch = others - extra - bmc - power - cdu
    what = [f"{switch:,} switch management" if switch > 0 else "",
            f"{power:,} power shelf and PDU management" if power else "",
            f"{cdu:,} CDU management" if cdu else "",
            f"{bmc:,} node management (BMC)" if bmc else "", f"{extra:,} stated as a count" if extra else ""]
    return f"{others:,} other endpoint ports ({', '.join(w for w in what if w)}{note}), "


def _reach(fa: Any) -> str:
    """How large the fabric can grow: in accelerators, or in endpoint ports where no accelerator's node is on it."""
    if fa.max_accelerators or fa.node_ports:
        return f"up to {fa.max_accelerators:,} accelerators"
    return f"no accelerator's node on it, up to {fa.max_endpoints:,} endpoint ports"
