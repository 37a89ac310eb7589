"""A cluster with its rack types, switches and links bound, and its layout expanded into rack instances."""

from __future__ import annotations

from dataclasses import dataclass

from archgen.build.fabrics import BoundFabric, bind_fabric
from archgen.build.racks import RackDesign
from archgen.build.refs import Unresolved, resolve
from archgen.model import Cluster, Facility, FailureRates, Link, Rack, Switch, System
from archgen.model.cluster import Placement
from archgen.model.storage import FIGURES
from archgen.open_item import Worded
from archgen.units import Q_
from archgen.validate import Specs

#: Largest number of rack instances a cluster is expanded into; larger clusters are analysed from counts only.
MAX_RACKS = 100_000


@dataclass(frozen=True)
class RackInstance:
    """One rack on the floor: its type, the unit instance it belongs to, and its row and position in the row.

    `row` counts the rows of the whole floor (every hall's rows in turn, for the floor plan); on a floor of several
    halls, `hall` is the index of the rack's hall in `floor.halls` and `hall_row` its row within that hall, from
    which `analyse.other_ports.rack_xy` places it on the site plan.
    """

    name: str
    rack: RackDesign
    unit: str
    unit_index: int
    row: int
    col: int
    hall: int = 0
    hall_row: int | None = None


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
    scale_up_trunk: Link | None = None   # a multi-rack domain's switch-to-switch link between racks
    hall_facilities: tuple[Facility | None, ...] = ()   # each `floor.halls` entry's own facility, in floor order
    #: The `storage:` figures left out and derived from its `appliance` (`appliance_storage`), in `FIGURES` order.
    storage_derived: tuple[str, ...] = ()

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
        resolve(specs, cid, ref, (Rack,), path, unresolved, subject)
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
                defined = f"(defined: {', '.join(sorted(unit_racks)) or 'none'})"
                problems.append((("layout", i, "unit"), Worded(f"unit '{place.unit}' is not defined in `units` "
                                                               f"{defined}", f"unit '{place.unit}' is not defined "
                                                               f"{defined}")))
                continue
            unit_counts[place.unit] = unit_counts.get(place.unit, 0) + place.count
            for rid, n in unit_racks[place.unit]:
                rack_counts[rid] = rack_counts.get(rid, 0) + n * place.count
        elif (ref := rack_ref(place.rack, ("layout", i, "rack"))) is not None:
            rack_counts[ref] = rack_counts.get(ref, 0) + place.count
        else:
            continue                                  # unresolved rack: reported by REF001
        entries.append((i, place))
    for i, f in enumerate(cluster.fabrics):   # the unit that sizes a fabric's leaves, as `layout` names units
        group = getattr(f, "group", None)
        if group is not None and group not in unit_racks:
            rest = f"(defined: {', '.join(sorted(unit_racks)) or 'none'}), so no leaf is sized by it"
            problems.append((("fabrics", i, "group"), Worded(f"group '{group}' is not defined in `units` {rest}",
                                                             f"group '{group}' is not defined as a unit {rest}")))
    too_large = sum(rack_counts.values()) > MAX_RACKS
    instances = () if too_large else _expand(cluster, entries, unit_racks, rack_types)
    fabrics = tuple(bind_fabric(specs, cluster, i, f, unresolved) for i, f in enumerate(cluster.fabrics))
    for i, f in enumerate(cluster.fabrics):
        for tier in ("leaf", "spine", "core", "ocs"):
            ref = getattr(getattr(f, tier, None), "rack", None)
            if ref is not None:
                rack_ref(ref, ("fabrics", i, tier, "rack"))
    su = cluster.scale_up
    if su is not None and su.switch_rack is not None:   # a UALink pod's switch rack (model.scale_up)
        rack_ref(su.switch_rack, ("scale_up", "switch_rack"))
    su_switch = resolve(specs, cid, su.switch if su else None, (Switch,), ("scale_up", "switch"), unresolved, subject)
    su_link = resolve(specs, cid, su.link if su else None, (Link,), ("scale_up", "link"), unresolved, subject)
    su_trunk = resolve(specs, cid, su.trunk_link if su else None, (Link,), ("scale_up", "trunk_link"), unresolved,
                       subject)
    facility = resolve(specs, cid, cluster.facility, (Facility,), ("facility",), unresolved, subject)
    # a misspelt set was a warning and the cluster read as never failing: its MTTI and goodput "met" (newuser92)
    resolve(specs, cid, cluster.failure_rates, (FailureRates,), ("failure_rates",), unresolved, subject)
    # a storage built from appliance parts names one, resolved as any reference (review42); REL014 judges it
    appliance = resolve(specs, cid, cluster.storage.appliance if cluster.storage else None, (System,),
                        ("storage", "appliance"), unresolved, subject)
    hall_facilities = tuple(resolve(specs, cid, h.facility, (Facility,), ("floor", "halls", k, "facility"), unresolved,
                                    subject) for k, h in enumerate(cluster.floor.halls))
    cluster, derived = appliance_storage(cluster, appliance, rack_counts, rack_types)
    return ClusterDesign(cluster, rack_types, rack_counts, unit_counts, unit_racks, instances, too_large, fabrics,
                         su_switch, su_link, facility, tuple(problems), su_trunk, hall_facilities, derived)


#: The unit each storage figure is derived in.
_FIGURE_UNITS = {"capacity": "TB", "write_bandwidth": "GB/s", "read_bandwidth": "GB/s"}


def placed_count(rack_counts: dict[str, int], rack_types: dict[str, RackDesign], ref: str) -> int:
    """How many of part `ref` a cluster's racks place: every rack instance's slots of it (rack types x counts)."""
    return sum(n * slot.count for rid, n in rack_counts.items() for slot in rack_types[rid].spec.slots
               if slot.part == ref)


def appliance_storage(cluster: Cluster, appliance: System | None, rack_counts: dict[str, int],
                      rack_types: dict[str, RackDesign]) -> tuple[Cluster, tuple[str, ...]]:
    """`cluster` with each storage figure it leaves out derived from `storage.appliance`, and the names derived.

    `appliance` is the System `storage.appliance` resolves to (None where it names none: REF001/REF002). A figure left
    out is the placed count (`placed_count`) x the appliance's `storage:` figure: the hardware the racks hold. An
    appliance with no `storage:` figures, one no rack places, or none gives 0, and REL014 or REF001/REF002 says why.
    A stated figure stays as stated (REL014 holds it to the same sum).
    """
    storage = cluster.storage
    missing = tuple(n for n in FIGURES if getattr(storage, n) is None) if storage and storage.appliance else ()
    if storage is None or storage.appliance is None or not missing:
        return cluster, ()
    figures = appliance.storage if appliance is not None else None
    count = placed_count(rack_counts, rack_types, storage.appliance) if figures is not None else 0
    derived = {n: (count * getattr(figures, n) if figures is not None else Q_(0, _FIGURE_UNITS[n])).to(_FIGURE_UNITS[n])
               for n in missing}
    return cluster.model_copy(update={"storage": storage.model_copy(update=derived)}), missing


def _expand(cluster: Cluster, entries: list[tuple[int, Placement]], unit_racks: dict[str, tuple[tuple[str, int], ...]],
            rack_types: dict[str, RackDesign]) -> tuple[RackInstance, ...]:
    """Place racks row by row in layout order; a unit marked `new_row` starts each instance on a fresh row.

    On a floor of several halls each hall keeps its own rows: an entry in another hall starts a new row there (one
    back in a hall it has left takes the next row of that hall), and `row` numbers the rows over the whole floor.
    """
    per_row = cluster.floor.racks_per_row
    new_row = {u.id: u.new_row for u in cluster.units}
    halls = {h.id: k for k, h in enumerate(cluster.floor.halls)}
    out: list[RackInstance] = []
    row = col = hall = hall_row = 0
    left: dict[int, int] = {}       # per hall left: its next unstarted row
    seen: dict[str, int] = {}
    for _, place in entries:
        if place.hall is not None and halls.get(place.hall, hall) != hall:
            left[hall] = hall_row + (col > 0)
            hall, hall_row = halls[place.hall], left.get(halls[place.hall], 0)
            if col:
                row, col = row + 1, 0
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
                row, col, hall_row = row + 1, 0, hall_row + 1
            counter: dict[str, int] = {}
            for rid, n in members:
                for _ in range(n):
                    counter[rid] = counter.get(rid, 0) + 1
                    number = counter[rid] if unit else seen["rack:" + rid]
                    out.append(RackInstance(f"{prefix}{rid}-{number:02d}", rack_types[rid], unit, index, row, col,
                                            hall, hall_row if halls else None))
                    col += 1
                    if col == per_row:
                        row, col, hall_row = row + 1, 0, hall_row + 1
    return tuple(out)
