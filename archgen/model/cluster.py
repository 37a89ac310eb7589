"""The `Cluster` kind: racks placed on a floor and wired into scale-up domains and fabrics.

A cluster is written as counts and patterns, never as a list of nodes: `units` are building blocks (a scalable
unit, a management row) made of racks, `layout` places units and single racks on the floor in order, and each
fabric names its topology (`fat-tree`, `rail-only`, `dragonfly` or `torus`, the models of `archgen.model.fabrics`),
its switches, link types, rails and planes. Everything else (switch counts, ports, cables, optics, watts and
bandwidths) is derived by `archgen.analyse.network` and `archgen.analyse.cabling`.
"""

from typing import Annotated, Literal, Self

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from archgen.model.cost import ClusterCost
from archgen.model.deliverable import DocumentInfo
from archgen.model.fabrics import (  # re-exported: the fabric models were defined here before
    LINK_TIERS,
    Dragonfly,
    Endpoints,
    Fabric,
    FabricBase,
    FatTree,
    LinkChoice,
    LinkOption,
    Links,
    RailLinks,
    RailOnly,
    Reserved,
    Torus,
    checkpoint_role,
)
from archgen.model.reliability import DEFAULT_RATES
from archgen.model.requirements import ClusterRequirements
from archgen.model.scale_up import ScaleUp  # re-exported: defined here before ualink30
from archgen.model.services import ControlPlane, Software
from archgen.model.site import Hall
from archgen.model.spec import Count, Document, FieldError, Id, Ref, Spec, raise_each
from archgen.model.storage import Storage
from archgen.model.tiers import MAX_RATIO, MAX_TIER_COUNT, TIER_NAMES, PortUse, Tier
from archgen.units import Q_, Dim, Length, LengthOrZero, Q

__all__ = ["LINK_TIERS", "MAX_RATIO", "MAX_TIER_COUNT", "TIER_NAMES", "Cluster", "Dragonfly", "Endpoints", "Expect",
           "Fabric", "FabricBase", "FatTree", "Floor", "LinkChoice", "LinkOption", "Links", "Placement", "PortUse",
           "RackCount", "RailLinks", "RailOnly", "Reserved", "ScaleUp", "Tier", "Torus", "Unit"]


class RackCount(Spec):
    """Racks of one type, by count."""

    rack: Ref = Field(description="Id of a Rack document.")
    count: Count = Field(1, description="How many racks of this type.")


class Unit(Spec):
    """A building block of racks repeated across the floor: a scalable unit, a pod, a management row."""

    id: Id = Field(description="Unit id, used in `layout` and in object paths (e.g. 'su').")
    racks: list[RackCount] = Field(min_length=1, description="The racks of one unit, in floor order.")
    new_row: bool = Field(True, description="Start each instance of this unit on a new row.")


class Placement(Spec):
    """An entry of the floor layout: `count` instances of a unit, or `count` racks of one type."""

    unit: Id | None = Field(None, description="Id of a unit in `units`.")
    rack: Ref | None = Field(None, description="Id of a Rack placed outside any unit (e.g. a spine rack).")
    count: Count = Field(1, description="How many instances, placed in order.")
    new_row: bool = Field(False, description="Start this entry on a new row.")
    hall: Id | None = Field(None, description=(
        "Id of the `floor.halls` entry this entry stands in (a campus of several halls); left out, the hall of the "
        "entry before it (the first entry states its hall where the floor lists halls). A new hall starts a new row "
        "at its own origin."))

    @model_validator(mode="after")
    def _one_of(self) -> Self:
        if (self.unit is None) == (self.rack is None):
            raise PydanticCustomError("placement", "give exactly one of 'unit' or 'rack'")
        return self


RackPitch = Annotated[Q, Dim("m", ge=0.45, le=1e3, label="a rack pitch", example="600 mm")]
RowPitch = Annotated[Q, Dim("m", ge=1, le=1e3, label="a row pitch", example="3.6 m")]


class Floor(Spec):
    """Where racks stand and how cables run between them (overhead trays in a grid above the racks)."""

    racks_per_row: int = Field(gt=0, le=1000, description="Racks in one row before the next row starts.")
    rack_pitch: RackPitch = Field(description="Centre-to-centre distance of neighbouring racks in a row, e.g. '600 mm' "
                                  "(at least 0.45 m: a 19-inch rack is 0.48 m wide).")
    row_pitch: RowPitch = Field(description="Centre-to-centre distance of neighbouring rows (rack depth plus an aisle; "
                                "at least 1 m).")
    tray_drop: LengthOrZero = Field(description="Vertical run from a port up to the overhead tray, at each end.")
    slack: LengthOrZero = Field(default_factory=lambda: Q_(2, "m"),
                                description="Service loop added to every run between racks (default 2 m).")
    in_rack: LengthOrZero = Field(default_factory=lambda: Q_(1, "m"),
                                  description="Length of a run between two items in the same rack (default 1 m).")
    side_by_side: bool = Field(False, description=(
        "Whether cables between neighbouring racks of one row may pass straight across (through the racks' sides or "
        "under a raised floor) instead of up to the overhead tray and down: a multi-rack scale-up domain's trunk "
        "cables (`scale_up.trunk_link`) then take |Δheight| + rack_pitch + in_rack where that is shorter, as "
        "Oracle's multirack cabling tables step 3 feet within a rack to 5 feet for adjacent racks. Default false: "
        "every run between racks goes over the trays. Fabric cables keep the tray run either way."))
    length_bins: list[Length] = Field(
        default_factory=lambda: [], description="Lengths cables are ordered in; a run takes the next bin up, and "
        "one past the largest its own length rounded up to the metre (CAB006). "
        "Default: 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000 m.")
    halls: list[Hall] = Field(default_factory=lambda: [], description=(
        "The halls of a site whose racks one cluster places (several halls or buildings of one training cluster), "
        "each with its position on the site plan; `layout` entries name theirs (`hall:`). Left out, the floor is "
        "one hall (docs/clusters.md, 'Several halls')."))


class TierSwitches(Spec):
    """Switches per tier of one fabric, over all planes (as a reference design's component table counts them)."""

    leaf: int | None = Field(None, ge=0, description="Leaf switches.")
    spine: int | None = Field(None, ge=0, description="Spine switches.")
    core: int | None = Field(None, ge=0, description="Core switches.")


class TierCables(Spec):
    """A count per tier of one fabric (links, cables or transceivers), over all planes."""

    access: int | None = Field(None, ge=0, description="Node-to-leaf level, reserved (UFM) ports included.")
    leaf_spine: int | None = Field(None, ge=0, description="Leaf-to-spine level.")
    spine_core: int | None = Field(None, ge=0, description="Spine-to-core level.")


class FabricExpect(Spec):
    """A fabric's published component counts, checked against the derived ones."""

    switches: TierSwitches = Field(default_factory=TierSwitches, description="Switches per tier.")
    links: TierCables = Field(default_factory=TierCables, description="Logical links per tier (`links.<tier>`).")
    cables: TierCables = Field(default_factory=TierCables, description=(
        "Physical cables per tier (`cables.<tier>`): one per link, except a cable split across two planes or "
        "spines (a Link part's `links_per_cable`, or a module end with fewer `connectors` than the links it serves: "
        "a SuperNIC port split over planes) or a copper assembly carrying several links, counted once."))
    transceivers: TierCables = Field(default_factory=TierCables, description=(
        "Optical modules per tier, both ends (`transceivers.<tier>`)."))


class Expect(Spec):
    """Totals the author expects; each is checked against the derived value."""

    accelerators: int | None = Field(None, ge=0, description="Accelerators in the cluster.")
    nodes: int | None = Field(None, ge=0, description="Nodes (systems with accelerators).")
    racks: int | None = Field(None, ge=0, description="Racks of every type.")
    fabrics: dict[Id, FabricExpect] = Field(default_factory=dict, description=(
        "Per fabric id, the switches and cables per tier of a published table, e.g. "
        "`{compute: {switches: {leaf: 32, spine: 16}, cables: {access: 1020, leaf_spine: 1024}}}`; `links` and "
        "`transceivers` may be pinned the same way."))


class Cluster(Document):
    """Racks placed on a floor and wired into scale-up domains and fabrics."""

    kind: Literal["Cluster"] = "Cluster"
    facility: Ref | None = Field(None, description="Id of the Facility (hall) the cluster stands in.")
    units: list[Unit] = Field(default_factory=list, description="Building blocks of racks (scalable units, pods).")
    layout: list[Placement] = Field(min_length=1, description="Units and racks on the floor, placed row by row.")
    floor: Floor = Field(description="Rows, pitches and cable trays.")
    scale_up: ScaleUp | None = Field(None, description="The scale-up (NVLink) domain.")
    fabrics: list[Fabric] = Field(default_factory=list, description="Scale-out, storage, in-band and OOB fabrics.")
    expect: Expect = Field(default_factory=Expect, description="Totals the author expects (checked).")
    document: DocumentInfo = Field(DocumentInfo.model_construct(), description=(  # frozen: one default serves all
        "Document control of its rendered document: customer, number, revision, authors, audience, "
        "confidentiality."))
    requirements: ClusterRequirements = Field(default_factory=list, description="Requirements on cluster metrics.")
    failure_rates: Ref | None = Field(None, description=(
        "Id of the `FailureRates` set its parts take their class rates from; default: the shipped "
        f"'{DEFAULT_RATES}' (docs/reliability.md)."))
    storage: Storage | None = Field(None, description="The storage system checkpoints are written to.")
    control_plane: ControlPlane | None = Field(None, description=(
        "The management rack and control plane: head nodes, fabric managers, storage and login servers (stated, "
        "not derived; the document says 'not provided' without it)."))
    software: Software | None = Field(None, description=(
        "The software stack: OS, drivers, collective library, scheduler, cluster manager (each 'not provided' "
        "when absent)."))
    cost: ClusterCost | None = Field(None, description=(
        "Its running costs beyond the hall's energy and space (support as a share of the capex, licences per "
        "accelerator and per node, other opex), each in the TCO where stated and named as left out where not, and "
        "the cloud price per accelerator-hour it is compared with (docs/reliability.md, Cost)."))

    @model_validator(mode="after")
    def _names_and_storage_read(self) -> Self:
        """The cluster's own checks across its parts, every error of both in one run."""
        raise_each(self._control_plane_names_its_own() + self._storage_ports_read() + self._halls_named(),
                   type(self).__name__)
        return self

    def _halls_named(self) -> list[FieldError]:
        """Hall ids are unique, each layout entry's hall is one of `floor.halls` (none where the floor lists none).

        The first entry states its hall, not taken as the first hall listed: racks put in a hall by default would be
        judged against that hall's facility without the spec saying so (hall29).
        """
        ids = [h.id for h in self.floor.halls]
        errors = [FieldError(("floor", "halls", i, "id"), f"hall '{h}' is listed twice") for i, h in enumerate(ids)
                  if h in ids[:i]]
        if ids and self.layout and self.layout[0].hall is None:
            errors.append(FieldError(("layout", 0), f"the first entry names no `hall` on a floor of halls (one of: "
                                     f"{', '.join(ids)}): state the hall it stands in (an entry with no `hall` stays "
                                     "in the hall of the entry before it, and the first has none before it)"))
        for i, p in enumerate(self.layout):
            if p.hall is not None and p.hall not in ids:
                have = f"one of: {', '.join(ids)}" if ids else "the floor lists no `halls`: add it there"
                errors.append(FieldError(("layout", i, "hall"), f"hall '{p.hall}' is not a hall of this floor "
                                         f"({have})"))
        return errors

    def _control_plane_names_its_own(self) -> list[FieldError]:
        """A control-plane group's fabrics and rack must be the cluster's own (a name the document would only echo)."""
        if self.control_plane is None:
            return []
        fabrics = {f.id for f in self.fabrics}
        racks = {e.rack for u in self.units for e in u.racks} | {p.rack for p in self.layout if p.rack}
        errors = []
        for i, g in enumerate(self.control_plane.groups):
            errors += [FieldError(("control_plane", "groups", i, "fabrics", j),
                                  f"'{fid}' is not a fabric of this cluster (one of: {', '.join(sorted(fabrics))})")
                       for j, fid in enumerate(g.fabrics) if fid not in fabrics]
            if g.rack is not None and g.rack not in racks:
                errors.append(FieldError(("control_plane", "groups", i, "rack"), f"'{g.rack}' is not a rack type "
                                         "placed by this cluster's units or layout (one of: "
                                         f"{', '.join(sorted(racks))})"))
        return errors

    def _storage_ports_read(self) -> list[FieldError]:
        """A converged fabric's `endpoints.storage` beside a storage fabric is refused: it would not be read.

        Checkpoints go over the fabrics of one role (`checkpoint_role`): storage where there are any.
        """
        if checkpoint_role(f.role for f in self.fabrics) != "storage":
            return []
        storage = [f.id for f in self.fabrics if f.role == "storage"]
        return [FieldError(("fabrics", i, "endpoints", "storage"), (
            f"endpoints.storage {f.endpoints.storage} given on converged fabric '{f.id}', but checkpoints are "
            f"written over the storage fabric {', '.join(repr(s) for s in storage)}, so it would not be read: "
            "state the storage's ports on that fabric, or leave this out"))
            for i, f in enumerate(self.fabrics) if f.role == "converged" and f.endpoints.storage is not None]

    def compute_fabric_index(self) -> int | None:
        """The index of the fabric the cluster's jobs run on: its compute fabric, else a converged one; None: none."""
        carriers = [i for i, f in enumerate(self.fabrics) if f.role in ("compute", "converged")]
        return min(carriers, key=lambda i: self.fabrics[i].role != "compute", default=None)

    def placement_path(self, rack_id: str) -> tuple:
        """Field path of the first units or layout entry placing racks of type `rack_id` (for a finding's line)."""
        for i, unit in enumerate(self.units):
            for j, entry in enumerate(unit.racks):
                if entry.rack == rack_id:
                    return ("units", i, "racks", j, "rack")
        return next((("layout", i, "rack") for i, p in enumerate(self.layout) if p.rack == rack_id), ("layout",))
