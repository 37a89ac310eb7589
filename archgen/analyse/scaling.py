"""How a cluster's network grows: switches per tier, transceivers and network power as the design is scaled.

The cluster is re-analysed at 1, 2, 4, 8, ... times its layout: every `layout` entry's count (unit instances and
stand-alone racks such as spine rows) is multiplied by the factor, and the scaled spec goes through the same
`bind_cluster` → `analyse_cluster` → `analyse_cabling` as the design itself, so every count follows the fabric
rules and the floor geometry (run lengths decide copper or optics). This is how tests/test_clusters.py grows the
DGX SuperPOD B200 from 2 to 64 scalable units (its spine racks: one per two SUs), done in memory.

The series stops at the *sizing fabric's* largest size: the first fabric of role `compute` (else the fabric with
the most node ports), at the tiers its spec allows (`tiers: auto` goes up to 3). A point whose sizing fabric
reports that it outgrows its tiers, or a fixed tier count (counts are kept as written at every size, so a
`leaf.count` runs short as the endpoints grow), is left out and ends the series. Other fabrics are analysed at
every point; their problems at that size (an OOB spine pair that runs out of ports, say) are listed with the
point, not hidden.

Transceivers are the module ends of optical links (media other than copper), counted as `analyse_cabling` counts
modules (a twin-port 800G module serving two 400G links is one module). Network power is switches at their
maximum power plus optics, over all fabrics (`Cabling.network_power`), plus the switches placed in racks beyond
what the fabrics derive (`bom.surplus_switch_power`), as the cluster's `network_power` metric counts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archgen.analyse.bom import surplus_switch_power
from archgen.analyse.cabling import analyse_cabling
from archgen.analyse.network import ClusterAnalysis, FabricAnalysis, Problem, analyse_cluster
from archgen.build import ClusterDesign, Design, bind_cluster
from archgen.model.tiers import TIER_NAMES
from archgen.units import Q_, Q

#: Largest scaled design analysed (racks): bounds the time a cluster document spends on its scaling chart.
MAX_RACKS = 10_000
#: At most this many doublings of the design.
MAX_POINTS = 12


@dataclass(frozen=True)
class ScalePoint:
    """One size of the scaled design.

    Attributes:
        factor: Multiple of the design's layout counts.
        units: Unit instances (scalable units, pods) at this size.
        accelerators: Accelerators.
        nodes: Nodes with accelerators.
        racks: Racks of every type.
        tiers: Tiers used by each fabric, by fabric id.
        switches: Switches per tier (all planes), by fabric id then tier name.
        transceivers: Optical module ends over all fabrics.
        network_power: Switches at maximum power plus optics, all fabrics, and switches placed beyond them.
        problems: Fabric problems at this size, as (fabric id, problem).
        bom: The cluster BOM's lines at this size, as (part, kind, note, quantity or "not provided").
        over_reach: Runs longer than their media reach at this size (what CAB001 reports of the design itself),
            as (fabric id, link class, link option, links, longest run in metres, reach).
        unlaid: Links of the fat trees not laid out at this size, because they do not fit their switches or tiers
            (NET001/NET003: counted, not wired, `analyse.cabling`), as (fabric id, link class, the first link option
            they are counted as, links): without lengths, neither their length bins nor their reach are known.
        no_media: Tiers whose links name no link media at this size (CAB003), as (fabric id, link class, links):
            their transceivers and optics draw are unknown, so `transceivers` and `network_power` leave them out
            and are not provided, not a total.
    """

    factor: int
    units: int
    accelerators: int
    nodes: int
    racks: int
    tiers: dict[str, int]
    switches: dict[str, dict[str, int]]
    transceivers: int
    network_power: Q
    problems: tuple[tuple[str, Problem], ...] = ()
    bom: tuple[tuple[str, str, str, int | str], ...] = ()
    over_reach: tuple[tuple[str, str, str, int, float, Q], ...] = ()
    unlaid: tuple[tuple[str, str, str, int], ...] = ()
    no_media: tuple[tuple[str, str, int], ...] = ()

    def switches_by_tier(self) -> dict[str, int]:
        """Switches per tier name summed over the fabrics (leaf, spine, core)."""
        out: dict[str, int] = {}
        for tiers in self.switches.values():
            for name, n in tiers.items():
                out[name] = out.get(name, 0) + n
        return out

    @property
    def switch_total(self) -> int:
        """Switches of every tier and fabric."""
        return sum(self.switches_by_tier().values())

    @property
    def network_power_per_accelerator(self) -> Q:
        """Network power divided by the accelerators (zero when there are none)."""
        return (self.network_power / self.accelerators).to("W") if self.accelerators else Q_(0, "W")


@dataclass(frozen=True)
class Scaling:
    """The scaling series of one cluster.

    Attributes:
        cluster: Cluster id.
        fabric: Id of the sizing fabric ('' when the cluster has no fabric).
        max_accelerators: The sizing fabric's largest size at the most tiers its spec allows (0 when unknown).
        points: The sizes analysed, smallest first (the design itself is factor 1).
        stop: Why the series ends.
        kept: The counts written in the fabrics that every size keeps as written (`kept_counts`).
    """

    cluster: str
    fabric: str
    max_accelerators: int
    points: tuple[ScalePoint, ...] = field(default_factory=tuple)
    stop: str = ""
    kept: tuple[str, ...] = ()


def kept_counts(cluster: ClusterDesign) -> tuple[str, ...]:
    """The counts a cluster's fabrics state outright, which the series keeps at every size, in spec order.

    Only `layout` counts are multiplied: a fabric's `endpoints.extra` ports, its `reserved` leaf ports and its fixed
    tier counts stay as written, whether they belong to each unit (a tray's BMC port written as an extra port) or to
    the whole site (a storage appliance, a fabric manager). Which it is the spec does not say, so the documents list
    them beside the series rather than guess.
    """
    kept: list[str] = []
    for f in cluster.spec.fabrics:
        if f.endpoints.extra:
            kept.append(f"fabric {f.id}: {f.endpoints.extra:,} extra endpoint ports (`endpoints.extra`)")
        kept += [f"fabric {f.id}: {r.ports:,} reserved leaf ports ({r.name})" for r in f.reserved]
        for tier in TIER_NAMES:
            n = getattr(getattr(f, tier, None), "count", None)
            if n:
                kept.append(f"fabric {f.id}: {n:,} {tier} switches (`{tier}.count`)")
    return tuple(kept)


def scaled_spec(cluster: ClusterDesign, factor: int):
    """The cluster's spec with every layout entry's count multiplied by `factor` (a validated copy)."""
    layout = [p.model_copy(update={"count": p.count * factor}) for p in cluster.spec.layout]
    return cluster.spec.model_copy(update={"layout": layout})


def sizing_fabric(a: ClusterAnalysis) -> FabricAnalysis | None:
    """The fabric whose largest size bounds the series: the first compute fabric, else the most node ports."""
    compute = [fa for fa in a.fabrics if fa.fabric.spec.role == "compute"]
    if compute:
        return compute[0]
    return max(a.fabrics, key=lambda fa: fa.node_ports) if a.fabrics else None


def _point(factor: int, a: ClusterAnalysis) -> ScalePoint:
    cab = analyse_cabling(a)
    optical = 0
    for t in cab.tiers:
        module = {end.id: end.is_module for opt in t.options for end in (opt.a, opt.b)}
        optical += sum(n for mid, n in t.modules.items() if module.get(mid, False))
    # a NIC port faster than its fabric (NET026) is the design's at every size: its check says it, the series does not
    problems = tuple((fa.fabric.spec.id, p) for fa in a.fabrics for p in fa.problems if p.check != "NET026")
    unwired = {fa.fabric.spec.id for fa in a.fabrics if fa.topology == "fat-tree" and not fa.buildable}
    return ScalePoint(
        factor=factor, units=sum(a.cluster.unit_counts.values()), accelerators=a.accelerators, nodes=a.node_count,
        racks=a.cluster.rack_total, tiers={fa.fabric.spec.id: fa.tiers_used for fa in a.fabrics},
        switches={fa.fabric.spec.id: {t.name: t.switches * fa.planes for t in fa.tiers} for fa in a.fabrics},
        transceivers=optical,
        network_power=(sum(cab.network_power.values(), Q_(0, "kW")) + surplus_switch_power(a)).to("kW"),
        problems=problems, bom=tuple((line.part, line.kind, line.note,
                                      line.quantity if line.provided else "not provided") for line in cab.bom),
        over_reach=tuple((t.fabric, t.tier, opt.label, n, longest, opt.reach) for t in cab.tiers
                         for opt, n, longest in t.over_reach),
        unlaid=tuple((t.fabric, t.tier, t.options[0].label if t.options else "", t.links) for t in cab.tiers
                     if t.fabric in unwired and t.links and not t.lengths_known),
        no_media=tuple((t.fabric, t.tier, t.links) for t in cab.tiers if t.no_media))


def _too_big(fa: FabricAnalysis) -> bool:
    """Whether the sizing fabric has outgrown its tiers, its largest size or a fixed tier count at this size."""
    return any(p.check in ("NET003", "NET018") for p in fa.problems) or (
        fa.max_accelerators > 0 and fa.accelerators > fa.max_accelerators)


def scaling(design: Design, racks: dict, cluster: ClusterDesign, *, max_racks: int = MAX_RACKS,
            max_points: int = MAX_POINTS) -> Scaling:
    """Analyse `cluster` at 1, 2, 4, ... times its layout, up to its sizing fabric's largest size.

    Args:
        design: The built design the cluster belongs to (its specs and rack designs are reused).
        racks: Rack analyses by object path (for the racks' IT power).
        cluster: The cluster as built.
        max_racks: Stop before a size with more racks than this.
        max_points: Stop after this many sizes.

    Returns:
        The series; empty when the cluster has no racks.
    """
    if not cluster.rack_total:
        return Scaling(cluster.spec.id, "", 0, (), "the cluster has no racks")
    sizing_id, largest, stop = "", 0, ""
    points: list[ScalePoint] = []
    factor = 1
    while len(points) < max_points:
        if factor > 1 and cluster.rack_total * factor > max_racks:
            stop = f"the next size ({cluster.rack_total * factor:,} racks) exceeds the {max_racks:,} racks analysed"
            break
        bound = bind_cluster(design.specs, scaled_spec(cluster, factor), design.racks, [])
        a = analyse_cluster(design, bound, racks)
        fa = sizing_fabric(a)
        if fa is None:
            stop = "the cluster has no fabric"
            points.append(_point(factor, a))
            break
        sizing_id = fa.fabric.spec.id
        if _too_big(fa):
            if factor == 1:                       # the design itself is shown whatever its problems
                points.append(_point(factor, a))
                stop = f"fabric {sizing_id} does not hold the design itself"
            elif short := next((p for p in fa.problems if p.check == "NET018"), None):
                stop = (f"fabric {sizing_id}'s fixed {'.'.join(short.path[-2:])} does not hold {factor} × the design "
                        f"({fa.accelerators:,} accelerators): {short.message}")
            else:
                stop = (f"fabric {sizing_id} reaches at most {largest:,} accelerators at its tiers; "
                        f"{factor} × the design needs {fa.accelerators:,}")
            break
        largest = max(largest, fa.max_accelerators)
        points.append(_point(factor, a))
        factor *= 2
    else:
        stop = f"{max_points} sizes analysed"
    return Scaling(cluster.spec.id, sizing_id, largest, tuple(points), stop, kept_counts(cluster))
