"""The `Cluster` kind: racks placed on a floor and wired into scale-up domains and fabrics.

A cluster is written as counts and patterns, never as a list of nodes: `units` are building blocks (a scalable
unit, a management row) made of racks, `layout` places units and single racks on the floor in order, and each
fabric names its topology (`fat-tree`, `rail-only`, `dragonfly` or `torus`, the models of `archgen.model.fabrics`),
its switches, link types, rails and planes. Everything else (switch counts, ports, cables, optics, watts and
bandwidths) is derived by `archgen.analyse.network` and `archgen.analyse.cabling`.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

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
from archgen.model.services import ControlPlane, Software
from archgen.model.site import Hall
from archgen.model.spec import Count, Document, FieldError, Id, Ref, Spec, raise_each
from archgen.model.storage import Storage
from archgen.model.technology import MESH_IN_ONE_NODE, MESH_IN_ONE_NODE_OTHERS, ScaleUpTechnology
from archgen.model.tiers import MAX_RATIO, MAX_TIER_COUNT, TIER_NAMES, PortUse, Tier
from archgen.units import Q_, Bandwidth, Dim, Length, LengthOrZero, Q

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
    def _one_of(self) -> Placement:
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


class ScaleUp(Spec):
    """The scale-up domain: accelerators joined by switches (NVLink, Ethernet, UALink) or a mesh (Infinity Fabric).

    A switched domain puts every accelerator one switch hop from the others: `bandwidth / (2 x link rate)` links
    per accelerator to `switches` switch parts (NVLink trays inside an NVL72 rack, or Ethernet/UALink switches
    across a rack), each accelerator linked to every switch at no more than its ports' rate (NET010: with more
    switches than links per accelerator, switches narrower than the domain, a second tier is needed). A mesh
    joins every pair of accelerators of a node directly (AMD Infinity Fabric: 7 links per MI300X to its 7 peers),
    so it has no switches and `size - 1` peer links per accelerator. A torus joins each
    accelerator to its neighbours along `dims` with wraparound links and no switch (AWS Trn2: 16 Trainium2 in a 4x4
    2D torus over NeuronLink-v3), two links per dimension of three or more chips (`analyse.topologies`). A switched
    rack domain may span `racks` racks (GB200 NVL36x2: two racks of 36), its racks' switches joined by `trunk_link`
    cables (`analyse.scale_up_racks`).
    """

    domain: Literal["node", "rack"] = Field(description="What one domain is: one node (DGX) or one rack (NVL72).")
    technology: ScaleUpTechnology = Field(
        "nvlink", description="Scale-up technology (`model.technology.TECHNOLOGIES`, the list a `Switch` reads too): "
        "nvlink, infinity-fabric (AMD xGMI), ethernet (e.g. ESUN, Gaudi RoCE), ualink or neuronlink (AWS Trainium).")
    topology: Literal["switched", "mesh", "torus"] = Field(
        "switched", description="switched (every accelerator one switch hop away), mesh (direct links between "
        "every pair, inside a node) or torus (direct links to the neighbours along `dims`, wraparound, no switch).")
    dims: list[Annotated[int, Field(ge=1, le=64)]] | None = Field(None, min_length=2, max_length=3, description=(
        "Torus only: accelerators along each dimension, e.g. [4, 4] for a Trn2 instance (AWS Trn2 architecture: "
        "16 Trainium2 in a 4x4 2D torus); the product is `size`. Links inside a system's `torus_block` are board "
        "traces, the rest cables between systems."))
    dim_bandwidth: list[Bandwidth] | None = Field(None, min_length=2, max_length=3, description=(
        "Torus only: the bandwidth per accelerator along each dimension of `dims`, both directions over its links "
        "in that dimension, summing to `bandwidth`, e.g. [512 GB/s, 512 GB/s, 256 GB/s] for a Trn2 UltraServer "
        "(AWS Trn2 architecture: 1,024 GB/sec per chip inside an instance's 4x4, 256 between its four instances). "
        "Left out, every link of the torus carries the same share of `bandwidth`."))
    links_per_peer: int = Field(1, gt=0, le=16, description="Mesh only: direct links between each pair (refused on "
                                "a switched domain, whose links per accelerator are `bandwidth / (2 x link rate)`).")
    size: Count = Field(description="Accelerators per domain, e.g. 8 or 72.")
    bandwidth: Bandwidth = Field(description="Scale-up bandwidth per accelerator, both directions, e.g. '1.8 TB/s'.")
    switch: Ref | None = Field(None, description="Switch tray part, when the switches are separate parts in the rack.")
    switches: int = Field(0, ge=0, description="Switch trays per domain (0 when the chips are inside the node).")
    link: Ref | None = Field(None, description="Link part of one accelerator-to-switch link (rate per direction).")
    racks: int = Field(1, ge=1, le=64, description=(
        "Racks one `domain: rack` domain spans: 1 for an NVL72; 2 for a GB200 NVL36x2, two racks of 36 GPUs whose "
        "NVLink switch trays join each other through their front-panel ports (NVIDIA Multi-Node Tuning Guide, "
        "'The 36x2 Configuration'). `size` and `switches` count the whole domain and divide evenly over its racks; "
        "each accelerator links to the switches of its own rack, and those switches to every other rack's "
        "(`trunk_link`, `archgen.analyse.scale_up_racks`). Consecutive racks with accelerators in floor order form "
        "one domain (racks without accelerators are skipped); no key pairs racks by name, so order `layout` to "
        "choose them (docs/clusters.md)."))
    trunk_link: Ref | None = Field(None, description=(
        "Multi-rack domains only: Link part of one switch-to-switch link between two racks of the domain (the "
        "cable between front-panel ports of their switch trays); required with `racks` above 1, its reach (or "
        "longest length sold, `max_length`) checked against each run between two racks' switch trays (CAB001)."))
    crosses_racks: bool = Field(False, description=(
        "Whether one domain spans several racks: `true` exactly when `racks` is above 1 (may be left out; "
        "`true` with one rack, or `false` with several, is refused as a contradiction)."))

    @model_validator(mode="after")
    def _mesh_has_no_switches(self) -> ScaleUp:
        if self.topology == "torus":
            self._torus_fits()
        elif self.dims is not None:
            raise FieldError(("dims",), f"dims shape a torus; a {self.topology} domain has none: leave dims out, or "
                             "set topology: torus")
        elif self.dim_bandwidth is not None:
            raise FieldError(("dim_bandwidth",), f"dim_bandwidth splits a torus' bandwidth over its dims; a "
                             f"{self.topology} domain has none: leave dim_bandwidth out, or set topology: torus")
        if self.topology == "mesh":
            if self.switch is not None or self.switches:
                raise FieldError(("switches",) if self.switches else ("switch",), "a mesh scale-up domain joins "
                                 "accelerators directly: leave switch and switches out, or set topology: switched")
            if self.domain != "node":
                why = MESH_IN_ONE_NODE.get(self.technology, MESH_IN_ONE_NODE_OTHERS)
                raise FieldError(("domain",), f"a mesh scale-up domain is one node ({why}): set domain: node, or "
                                 "topology: switched for a rack")
        elif "links_per_peer" in self.model_fields_set:
            raise FieldError(("links_per_peer",), "links_per_peer counts the direct links between two accelerators "
                             "of a mesh; " + ("a torus domain has one link to each neighbour along dims" if
                                              self.topology == "torus" else "a switched domain has bandwidth / (2 x "
                                              "link rate) links per accelerator, one to each switch chip") +
                             ": leave links_per_peer out, or set topology: mesh")
        self._racks_fit()
        return self

    def _racks_fit(self) -> None:
        """A multi-rack domain is a switched rack domain whose size and switches divide over its racks."""
        if self.crosses_racks and self.racks == 1:
            raise FieldError(("crosses_racks",), "crosses_racks: true needs the racks one domain spans: give "
                             "racks: N (2 for a GB200 NVL36x2), or leave crosses_racks out")
        if "crosses_racks" in self.model_fields_set and not self.crosses_racks and self.racks > 1:
            raise FieldError(("crosses_racks",), f"crosses_racks: false, but racks: {self.racks} spans "
                             f"{self.racks} racks: leave crosses_racks out")
        if self.racks == 1:
            if self.trunk_link is not None:
                raise FieldError(("trunk_link",), "trunk_link joins the racks of a multi-rack domain; this domain "
                                 "is one rack: leave trunk_link out, or give racks: N")
            return
        if self.domain != "rack" or self.topology != "switched":
            raise FieldError(("racks",), f"a domain spanning {self.racks} racks is a switched rack domain (its "
                             "racks' switch trays joined to each other): set domain: rack and topology: switched, "
                             "or leave racks out")
        if self.switch is None or not self.switches:
            raise FieldError(("switch",) if self.switch is None else ("switches",), "a multi-rack domain joins its "
                             "racks through their switch trays: give switch and switches (per domain, over all "
                             "its racks)")
        for name, n in (("size", self.size), ("switches", self.switches)):
            if n % self.racks:
                raise FieldError((name,), f"{name} {n} does not divide over racks: {self.racks}: expected a "
                                 f"multiple of {self.racks} (each rack holds its share)")
        if self.trunk_link is None:
            raise FieldError(("trunk_link",), f"a domain over {self.racks} racks is modelled as switches in each of "
                             "its racks joined rack to rack (a GB200 NVL36x2): give trunk_link, the Link part of one "
                             "switch-to-switch link between racks; accelerators cabled to switches in racks of their "
                             "own (a UALink pod's one switch stage) are not modelled")

    def _torus_fits(self) -> None:
        """A torus domain has its `dims`, whose product is `size`, and no switch."""
        if self.switch is not None or self.switches:
            raise FieldError(("switches",) if self.switches else ("switch",), "a torus scale-up domain joins "
                             "accelerators directly to their neighbours: leave switch and switches out, or set "
                             "topology: switched")
        if self.dims is None:
            raise FieldError(("dims",), "a torus scale-up domain needs its shape: give dims, the accelerators "
                             f"along each dimension, whose product is size ({self.size}), e.g. [4, 4] for 16")
        if math.prod(self.dims) != self.size:
            raise FieldError(("dims",), f"a {'x'.join(map(str, self.dims))} torus joins {math.prod(self.dims)} "
                             f"accelerators, the domain {self.size} (`size`): expected dims whose product is "
                             f"{self.size}")
        self._dim_bandwidth_fits(self.dims)

    def _dim_bandwidth_fits(self, dims: list[int]) -> None:
        """`dim_bandwidth` gives one figure per dimension of `dims`, and they add up to `bandwidth`."""
        given = self.dim_bandwidth
        if given is None:
            return
        if len(given) != len(dims):
            raise FieldError(("dim_bandwidth",), f"dim_bandwidth gives {len(given)} figures for a "
                             f"{'x'.join(map(str, dims))} torus: expected one per dimension of dims ({len(dims)})")
        total = sum(given[1:], given[0])
        if abs((total - self.bandwidth).m_as("GB/s")) > 1e-6 * self.bandwidth.m_as("GB/s"):
            raise FieldError(("dim_bandwidth",), f"dim_bandwidth adds up to {total.to('GB/s'):~.6gP}, the domain's "
                             f"bandwidth is {self.bandwidth.to('GB/s'):~.6gP}: expected figures that sum to "
                             "`bandwidth` (each dimension's share of it, both directions)")


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
    document: DocumentInfo = Field(DocumentInfo.model_validate({}), description=(  # frozen: one default serves all
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

    @model_validator(mode="after")
    def _names_and_storage_read(self) -> Cluster:
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

    def placement_path(self, rack_id: str) -> tuple:
        """Field path of the first units or layout entry placing racks of type `rack_id` (for a finding's line)."""
        for i, unit in enumerate(self.units):
            for j, entry in enumerate(unit.racks):
                if entry.rack == rack_id:
                    return ("units", i, "racks", j, "rack")
        return next((("layout", i, "rack") for i, p in enumerate(self.layout) if p.rack == rack_id), ("layout",))
