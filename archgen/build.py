"""Resolve references and expand counts into a frozen `Design` with stable object paths."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from archgen.binding import BoundRequirement, bind, workload_requirements
from archgen.model import NIC, Accelerator, Cluster, CoolingUnit, Facility, Link, PowerShelf, Rack, Switch, System
from archgen.model.base import Part
from archgen.model.cluster import Placement
from archgen.model.fabrics import LINK_TIERS, Fabric, FatTree, LinkChoice, RailOnly, Torus
from archgen.model.power import PDU
from archgen.model.requirements import Requirements
from archgen.model.spec import Document
from archgen.model.sweep import Sweep
from archgen.model.workload import Model, Workload
from archgen.validate import Specs

_D = TypeVar("_D", bound=Document)  # the kind of document `_ref` looks up
#: Part kinds that may be placed in a rack slot.
PLACEABLE = (System, Switch, PowerShelf, PDU, CoolingUnit)


@dataclass(frozen=True)
class Placed:
    """One physical item in a rack: the part, its lowest U, and the slot entry it came from."""

    part: Part
    u: int
    slot: int

    @property
    def height(self) -> int:
        """Height in whole rack units (0 for zero-U items)."""
        mech = getattr(self.part, "mechanical", None)
        return round(mech.height.m_as("U")) if mech else 0

    @property
    def top(self) -> int:
        """Highest U occupied."""
        return self.u + self.height - 1


@dataclass(frozen=True)
class Unresolved:
    """A reference that names no document, or one of the wrong kind."""

    subject: str
    owner: str
    ref: str
    path: tuple
    expected: str
    found: str = ""


@dataclass(frozen=True)
class RackDesign:
    """A rack with its items expanded and its references bound."""

    spec: Rack
    items: tuple[Placed, ...]
    cdu: CoolingUnit | None
    facility: Facility | None

    @property
    def path(self) -> str:
        """Stable object path used in findings and metrics."""
        return f"rack/{self.spec.id}"


@dataclass(frozen=True)
class Design:
    """The derived design: racks, clusters, requirements and anything that could not be resolved."""

    specs: Specs
    racks: tuple[RackDesign, ...]
    requirements: tuple[BoundRequirement, ...]
    unresolved: tuple[Unresolved, ...]
    clusters: tuple[ClusterDesign, ...] = ()
    #: Each workload's own requirements, bound to it; the pipeline judges them on its estimate (not the REQ checks).
    workload_requirements: tuple[BoundRequirement, ...] = ()


def build(specs: Specs) -> Design:
    """Bind references and expand slot counts; unresolved references are kept for the REF checks."""
    unresolved: list[Unresolved] = []
    for system in specs.of(System):
        _ref(specs, system.id, system.accelerator, (Accelerator,), ("accelerator",), unresolved)
        for j, nic in enumerate(system.nics):
            _ref(specs, system.id, nic.part, (NIC,), ("nics", j, "part"), unresolved)
    for w in specs.of(Workload):  # the performance stage estimates the workloads whose references resolve
        _ref(specs, w.id, w.model, (Model,), ("model",), unresolved, f"workload/{w.id}")
        _ref(specs, w.id, w.cluster, (Cluster,), ("cluster",), unresolved, f"workload/{w.id}")
    for s in specs.of(Sweep):  # `archgen sweep` runs them; here only their references are checked
        _ref(specs, s.id, s.workload, (Workload,), ("workload",), unresolved, f"sweep/{s.id}")
        for i, c in enumerate(s.axes.cluster or ()):
            _ref(specs, s.id, c, (Cluster,), ("axes", "cluster", i), unresolved, f"sweep/{s.id}")
        for i, a in enumerate(s.axes.accelerator or ()):
            _ref(specs, s.id, a, (Accelerator,), ("axes", "accelerator", i), unresolved, f"sweep/{s.id}")
    racks = tuple(_rack(specs, r, unresolved) for r in specs.of(Rack))
    clusters = tuple(bind_cluster(specs, c, racks, unresolved) for c in specs.of(Cluster))
    objects = object_paths(racks, clusters, specs.of(Workload))
    reqs = [BoundRequirement(q, f"rack/{r.spec.id}", r.spec.id, ("requirements", i))
            for r in racks for i, q in enumerate(r.spec.requirements)]
    for doc in specs.of(Requirements):
        reqs += [b for i, q in enumerate(doc.requirements)
                 for b in bind(q, q.subject, doc.id, ("requirements", i), objects)]
    reqs += [b for c in clusters for i, q in enumerate(c.spec.requirements)
             for b in bind(q, q.subject or c.path, c.spec.id, ("requirements", i), objects)]
    return Design(specs, racks, tuple(reqs), tuple(unresolved), clusters, workload_requirements(specs.of(Workload)))


def object_paths(racks: Iterable[RackDesign], clusters: Iterable[ClusterDesign],
                 workloads: Iterable[Workload]) -> tuple[str, ...]:
    """The objects a requirement can name, sorted: racks, clusters, their fabrics and workloads."""
    paths = [r.path for r in racks] + [f"workload/{w.id}" for w in workloads]
    for c in clusters:
        paths += [c.path] + [f.path for f in c.fabrics]
    return tuple(sorted(paths))


def _ref(specs: Specs, owner: str, ref: str | None, kinds: tuple[type[_D], ...], path: tuple,
         unresolved: list[Unresolved], subject: str = "") -> _D | None:
    if ref is None:
        return None
    found = specs.get(ref)
    if isinstance(found, kinds):
        return found
    names = [k.__name__ for k in kinds]
    expected = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    unresolved.append(Unresolved(subject or f"part/{owner}", owner, ref, path, expected,
                                 type(found).__name__ if found else ""))
    return None


def _rack(specs: Specs, rack: Rack, unresolved: list[Unresolved]) -> RackDesign:
    items: list[Placed] = []
    for i, slot in enumerate(rack.slots):
        part = _ref(specs, rack.id, slot.part, PLACEABLE, ("slots", i, "part"), unresolved, f"rack/{rack.id}")
        if part is None:
            continue
        height = Placed(part, slot.at, i).height or 0
        items += [Placed(part, slot.at + n * height, i) for n in range(slot.count)]
    liquid = rack.cooling.liquid
    cdu = _ref(specs, rack.id, liquid.cdu if liquid else None, (CoolingUnit,), ("cooling", "liquid", "cdu"),
               unresolved, f"rack/{rack.id}")
    facility = _ref(specs, rack.id, rack.facility, (Facility,), ("facility",), unresolved, f"rack/{rack.id}")
    return RackDesign(rack, tuple(items), cdu, facility)


#: Largest number of rack instances a cluster is expanded into; larger clusters are analysed from counts only.
MAX_RACKS = 100_000


@dataclass(frozen=True)
class RackInstance:
    """One rack on the floor: its type, the unit instance it belongs to, and its row and position in the row."""

    name: str
    rack: RackDesign
    unit: str
    unit_index: int
    row: int
    col: int


@dataclass(frozen=True)
class LinkOption:
    """A bound link option: the parts at the lower (`a`) and upper (`b`) end, and where it is written."""

    a: Link
    b: Link
    path: tuple

    @property
    def reach(self):
        """Reach of the run: the shorter of the two ends."""
        return min(self.a.reach, self.b.reach)

    @property
    def label(self) -> str:
        """Ids of the parts, 'a' or 'a/b'."""
        return self.a.id if self.a.id == self.b.id else f"{self.a.id}/{self.b.id}"


@dataclass(frozen=True)
class BoundTier:
    """One tier of a fabric with its switch part and the link options of the links below it."""

    name: str
    switch: Switch | None
    links: tuple[LinkOption, ...]
    links_path: tuple


@dataclass(frozen=True)
class BoundFabric:
    """A fabric with its parts bound."""

    cluster: str
    index: int
    spec: Fabric
    tiers: dict[str, BoundTier]

    @property
    def path(self) -> str:
        """Object path, e.g. 'cluster/b200-superpod/fabric/compute'."""
        return f"cluster/{self.cluster}/fabric/{self.spec.id}"

    @property
    def owner_path(self) -> tuple:
        """Field path of the fabric inside the Cluster document."""
        return ("fabrics", self.index)


@dataclass(frozen=True)
class ClusterDesign:
    """A cluster with its rack types bound, its layout expanded to racks, and its fabrics bound."""

    spec: Cluster
    rack_types: dict[str, RackDesign]
    rack_counts: dict[str, int]
    unit_counts: dict[str, int]
    unit_racks: dict[str, tuple[tuple[str, int], ...]]
    instances: tuple[RackInstance, ...]
    too_large: bool
    fabrics: tuple[BoundFabric, ...]
    scale_up_switch: Switch | None
    scale_up_link: Link | None
    facility: Facility | None
    problems: tuple[tuple[tuple, str], ...]

    @property
    def path(self) -> str:
        """Object path, e.g. 'cluster/gb200-su'."""
        return f"cluster/{self.spec.id}"

    @property
    def rack_total(self) -> int:
        """Racks of every type."""
        return sum(self.rack_counts.values())


def bind_cluster(specs: Specs, cluster: Cluster, racks: tuple[RackDesign, ...],
                 unresolved: list[Unresolved]) -> ClusterDesign:
    """Bind a cluster's rack types, switches and links, and expand its layout into rack instances."""
    cid, subject = cluster.id, f"cluster/{cluster.id}"
    by_id = {r.spec.id: r for r in racks}
    problems: list[tuple[tuple, str]] = []
    rack_types: dict[str, RackDesign] = {}

    def rack_ref(ref: str | None, path: tuple) -> str | None:
        if ref in by_id:
            rack_types[ref] = by_id[ref]
            return ref
        _ref(specs, cid, ref, (Rack,), path, unresolved, subject)
        return None

    unit_racks: dict[str, tuple[tuple[str, int], ...]] = {}
    for i, unit in enumerate(cluster.units):
        if unit.id in unit_racks:
            problems.append((("units", i, "id"), f"unit '{unit.id}' is defined twice"))
        unit_racks[unit.id] = tuple((r.rack, r.count) for j, r in enumerate(unit.racks)
                                    if rack_ref(r.rack, ("units", i, "racks", j, "rack")))
    rack_counts: dict[str, int] = {}
    unit_counts: dict[str, int] = {}
    entries: list[tuple[int, Placement]] = []
    for i, place in enumerate(cluster.layout):
        if place.unit is not None:
            if place.unit not in unit_racks:
                problems.append((("layout", i, "unit"), f"unit '{place.unit}' is not defined in `units` "
                                 f"(defined: {', '.join(sorted(unit_racks)) or 'none'})"))
                continue
            unit_counts[place.unit] = unit_counts.get(place.unit, 0) + place.count
            for rid, n in unit_racks[place.unit]:
                rack_counts[rid] = rack_counts.get(rid, 0) + n * place.count
        elif (ref := rack_ref(place.rack, ("layout", i, "rack"))) is not None:
            rack_counts[ref] = rack_counts.get(ref, 0) + place.count
        else:
            continue                                  # unresolved rack: reported by REF001
        entries.append((i, place))
    too_large = sum(rack_counts.values()) > MAX_RACKS
    instances = () if too_large else _expand(cluster, entries, unit_racks, rack_types)
    fabrics = tuple(_fabric(specs, cluster, i, f, unresolved) for i, f in enumerate(cluster.fabrics))
    for i, f in enumerate(cluster.fabrics):
        for tier in ("leaf", "spine", "core", "ocs"):
            ref = getattr(getattr(f, tier, None), "rack", None)
            if ref is not None:
                rack_ref(ref, ("fabrics", i, tier, "rack"))
    su = cluster.scale_up
    su_switch = _ref(specs, cid, su.switch if su else None, (Switch,), ("scale_up", "switch"), unresolved, subject)
    su_link = _ref(specs, cid, su.link if su else None, (Link,), ("scale_up", "link"), unresolved, subject)
    facility = _ref(specs, cid, cluster.facility, (Facility,), ("facility",), unresolved, subject)
    return ClusterDesign(cluster, rack_types, rack_counts, unit_counts, unit_racks, instances, too_large, fabrics,
                         su_switch, su_link, facility, tuple(problems))


def _expand(cluster: Cluster, entries: list[tuple[int, Placement]], unit_racks: dict[str, tuple[tuple[str, int], ...]],
            rack_types: dict[str, RackDesign]) -> tuple[RackInstance, ...]:
    """Place racks row by row in layout order; a unit marked `new_row` starts each instance on a fresh row."""
    per_row = cluster.floor.racks_per_row
    new_row = {u.id: u.new_row for u in cluster.units}
    out: list[RackInstance] = []
    row = col = 0
    seen: dict[str, int] = {}
    for _, place in entries:
        for k in range(place.count):
            fresh = place.new_row and k == 0
            if place.unit is not None:
                fresh = fresh or new_row.get(place.unit, False)
                index = seen.get(place.unit, 0)
                seen[place.unit] = index + 1
                members = [(rid, n) for rid, n in unit_racks[place.unit]]
                prefix, unit = f"{place.unit}{index + 1:02d}/", place.unit
            elif place.rack is not None:  # a placement names a unit or a rack (`Placement`)
                seen["rack:" + place.rack] = seen.get("rack:" + place.rack, 0) + 1
                members, prefix, unit, index = [(place.rack, 1)], "", "", -1
            if fresh and col:
                row, col = row + 1, 0
            counter: dict[str, int] = {}
            for rid, n in members:
                for _ in range(n):
                    counter[rid] = counter.get(rid, 0) + 1
                    number = counter[rid] if unit else seen["rack:" + rid]
                    out.append(RackInstance(f"{prefix}{rid}-{number:02d}", rack_types[rid], unit, index, row, col))
                    col += 1
                    if col == per_row:
                        row, col = row + 1, 0
    return tuple(out)


def _fabric(specs: Specs, cluster: Cluster, i: int, f: Fabric, unresolved: list[Unresolved]) -> BoundFabric:
    """Bind a fabric's switches and link options, tier by tier (`LINK_TIERS`: link class -> tier of its upper end)."""
    subject = f"cluster/{cluster.id}/fabric/{f.id}"

    def switch_ref(ref: str | None, path: tuple) -> Switch | None:
        return _ref(specs, cluster.id, ref, (Switch,), ("fabrics", i, *path), unresolved, subject)

    if isinstance(f, Torus):
        switches = {"chip": None, "ocs": switch_ref(f.ocs.switch, ("ocs", "switch")) if f.ocs else None}
    else:
        default = switch_ref(f.switch, ("switch",))
        names = ("leaf", "spine", "core") if isinstance(f, FatTree) else ("leaf", "spine") \
            if isinstance(f, RailOnly) else ("leaf", "local", "global")
        switches = {}
        for tier in names:
            spec = getattr(f, tier, None)
            switches[tier] = default if spec is None or spec.switch is None else switch_ref(spec.switch,
                                                                                            (tier, "switch"))
    tiers: dict[str, BoundTier] = {}
    for key, tier in LINK_TIERS[f.topology].items():
        options = []
        for j, opt in enumerate(getattr(f.links, "global_" if key == "global" else key)):
            path = ("fabrics", i, "links", key, j)
            a_ref, b_ref = (opt.a, opt.b) if isinstance(opt, LinkChoice) else (opt, opt)
            a = _ref(specs, cluster.id, a_ref, (Link,), path + (("a",) if a_ref != b_ref else ()), unresolved,
                     subject)
            b = a if b_ref == a_ref else _ref(specs, cluster.id, b_ref, (Link,), path + ("b",), unresolved, subject)
            if a is not None and b is not None:
                options.append(LinkOption(a, b, path))
        tiers[tier] = BoundTier(tier, switches.get(tier), tuple(options), ("fabrics", i, "links", key))
    return BoundFabric(cluster.id, i, f, tiers)
