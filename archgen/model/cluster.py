"""The `Cluster` kind: racks placed on a floor and wired into scale-up domains and fabrics.

A cluster is written as counts and patterns, never as a list of nodes: `units` are building blocks (a scalable
unit, a management row) made of racks, `layout` places units and single racks on the floor in order, and each
fabric names its topology (`fat-tree` today; the union on `topology:` leaves room for `dragonfly` or `torus`),
its switches, link types, rails and planes. Everything else (switch counts, ports, cables, optics, watts and
bandwidths) is derived by `archgen.analyse.network` and `archgen.analyse.cabling`.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from archgen.model.base import Count, Document, FieldError, Id, Ref, Spec
from archgen.model.requirements import RequirementList
from archgen.model.system import NicRole
from archgen.units import Q_, Bandwidth, Length, LengthOrZero

_RATIO = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$")

#: Largest oversubscription (down:up) a fabric may declare; anything above it is taken for a typo.
MAX_RATIO = 64
#: Largest fixed switch count of one tier (per plane); anything above it is taken for a typo.
MAX_TIER_COUNT = 100_000


def _ratio(value: object) -> float:
    """Parse an oversubscription ``"3:1"`` (down:up) into 3.0; numbers are taken as is.

    The error message is what was expected; `archgen.validate` adds the value it got.
    """
    ratio = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        ratio = float(value)
    elif isinstance(value, str) and (m := _RATIO.match(value)) and float(m[2]) > 0:
        ratio = float(m[1]) / float(m[2])
    if ratio is None or not 0 < ratio <= MAX_RATIO:
        raise PydanticCustomError("ratio", f"a down:up ratio such as '3:1' (or a number), both sides above 0 "
                                           f"and at most {MAX_RATIO}:1")
    return ratio


Ratio = Annotated[float, Field(json_schema_extra={"examples": ["1:1", "3:1"]})]


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

    @model_validator(mode="after")
    def _one_of(self) -> Placement:
        if (self.unit is None) == (self.rack is None):
            raise PydanticCustomError("placement", "give exactly one of 'unit' or 'rack'")
        return self


class Floor(Spec):
    """Where racks stand and how cables run between them (overhead trays in a grid above the racks)."""

    racks_per_row: int = Field(gt=0, le=1000, description="Racks in one row before the next row starts.")
    rack_pitch: Length = Field(description="Centre-to-centre distance of neighbouring racks in a row, e.g. '600 mm'.")
    row_pitch: Length = Field(description="Centre-to-centre distance of neighbouring rows (rack depth plus an aisle).")
    tray_drop: LengthOrZero = Field(description="Vertical run from a port up to the overhead tray, at each end.")
    slack: LengthOrZero = Field(default_factory=lambda: Q_(2, "m"),
                                description="Service loop added to every run between racks (default 2 m).")
    in_rack: LengthOrZero = Field(default_factory=lambda: Q_(1, "m"),
                                  description="Length of a run between two items in the same rack (default 1 m).")
    length_bins: list[Length] = Field(
        default_factory=lambda: [], description="Lengths cables are ordered in; a run takes the next bin up. "
        "Default: 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000 m.")


class ScaleUp(Spec):
    """The scale-up (NVLink) domain: accelerators joined by switch chips or trays, one hop apart."""

    domain: Literal["node", "rack"] = Field(description="What one domain is: one node (DGX) or one rack (NVL72).")
    size: Count = Field(description="Accelerators per domain, e.g. 8 or 72.")
    bandwidth: Bandwidth = Field(description="Scale-up bandwidth per accelerator, both directions, e.g. '1.8 TB/s'.")
    switch: Ref | None = Field(None, description="Switch tray part, when the switches are separate parts in the rack.")
    switches: int = Field(0, ge=0, description="Switch trays per domain (0 when the chips are inside the node).")
    link: Ref | None = Field(None, description="Link part of one accelerator-to-switch link (rate per direction).")
    crosses_racks: bool = Field(False, description="True when one domain spans several racks (cables between racks).")


class Reserved(Spec):
    """Leaf ports taken by something other than nodes (fabric manager / UFM, storage or service nodes)."""

    name: str = Field(min_length=1, description="What uses the ports, e.g. 'UFM appliances'.")
    ports: Count = Field(description="Leaf ports taken across the whole fabric.")


class Endpoints(Spec):
    """What attaches to the bottom tier of a fabric."""

    nodes: bool = Field(True, description="Nodes attach with their NICs of `nic_role`.")
    switches: bool = Field(False, description="One management port per switch of the cluster's other fabrics (OOB).")
    extra: int = Field(0, ge=0, le=10_000_000, description="Other ports (storage appliances, servers, PDUs).")


#: The tiers of a fat tree, bottom up; `tiers: n` builds the first n.
TIER_NAMES = ("leaf", "spine", "core")


class Tier(Spec):
    """Overrides for one tier of a fat tree."""

    switch: Ref | None = Field(None, description="Switch part of this tier (default: the fabric's `switch`).")
    oversubscription: Ratio | None = Field(None, description="Down:up bandwidth at this tier, e.g. '1:1' or '3:1'.")
    uplinks: int | None = Field(None, gt=0, description="Uplink ports per switch, when fixed by the hardware "
                                "(e.g. an SN2201's 4 x 100G) instead of split from the radix.")
    uplink_speed: Bandwidth | None = Field(None, description="Line rate of those uplinks (default: fabric speed).")
    count: int | None = Field(None, gt=0, le=MAX_TIER_COUNT, description=(
        "Fixed number of switches per plane (spines: per pod on 3 tiers) instead of the derived one; only on a "
        "tier the fabric builds. Fewer than the fabric needs is NET018; spines and cores must divide the uplinks "
        "below them (NET002); extra leaves are spares (docs/clusters.md)."))
    rack: Ref | None = Field(None, description="Rack type holding this tier's switches (for cable lengths).")

    @field_validator("oversubscription", mode="before")
    @classmethod
    def _parse(cls, v: object) -> float | None:
        return None if v is None else _ratio(v)


class LinkChoice(Spec):
    """A link option with different parts at the lower (`a`) and upper (`b`) end."""

    a: Ref = Field(description="Link part at the lower end (NIC or lower-tier switch).")
    b: Ref = Field(description="Link part at the upper end (switch).")


LinkOption = Ref | LinkChoice


class Links(Spec):
    """Link options per tier, in order of preference; a run takes the first whose reach covers its length."""

    access: list[LinkOption] = Field(default_factory=list, description="Node (or endpoint) to leaf.")
    leaf_spine: list[LinkOption] = Field(default_factory=list, description="Leaf to spine.")
    spine_core: list[LinkOption] = Field(default_factory=list, description="Spine to core.")


class FabricBase(Spec):
    """What every fabric topology shares."""

    id: Id = Field(description="Fabric id, e.g. 'compute'; object path 'cluster/<cluster>/fabric/<id>'.")
    name: str = Field("", description="Human-readable name.")
    role: Literal["compute", "storage", "frontend", "management", "converged"] = Field(
        description="compute (scale-out), storage, frontend (in-band), management (out-of-band) or converged.")
    nic_role: NicRole | None = Field(None, description="Role of the node NICs that attach (default: `role`).")
    ports_per_node: int | None = Field(None, gt=0, le=64,
                                       description="NIC ports per node used by this fabric (default: all of the role).")
    speed: Bandwidth = Field(description="Line rate of one fabric port, e.g. '400 Gb/s'.")
    switch: Ref = Field(description="Switch part used at every tier unless a tier overrides it.")
    endpoints: Endpoints = Field(default_factory=Endpoints, description="What attaches to the bottom tier.")
    reserved: list[Reserved] = Field(default_factory=list, description="Leaf ports reserved for other devices.")
    links: Links = Field(default_factory=Links, description="Link options per tier.")
    min_bandwidth_per_accelerator: Bandwidth | None = Field(
        None, description="Required NIC bandwidth into this fabric per accelerator, e.g. '400 Gb/s'.")
    min_bisection_per_accelerator: Bandwidth | None = Field(
        None, description="Required bisection bandwidth per accelerator (one direction), e.g. '400 Gb/s'.")
    max_oversubscription: Ratio | None = Field(
        None, description="Largest oversubscription allowed at any tier, e.g. '1:1'.")

    @field_validator("max_oversubscription", mode="before")
    @classmethod
    def _parse_max(cls, v: object) -> float | None:
        return None if v is None else _ratio(v)


class FatTree(FabricBase):
    """A folded-Clos fat tree of 2 or 3 tiers, plain or rail-optimized, single- or multi-plane."""

    topology: Literal["fat-tree"] = Field(description="fat-tree (folded Clos).")
    tiers: Literal[1, 2, 3, "auto"] = Field(2, description="1 (a single switch layer), 2, 3, or 'auto' "
                                            "(the fewest that fit).")
    rail_optimized: bool = Field(False, description="NIC n of every scale-up domain lands on the leaf of rail n.")
    rails: int | None = Field(None, gt=0, description="Rails; default = fabric ports per scale-up domain / planes.")
    planes: int = Field(1, gt=0, le=16, description="Independent parallel fabrics; each NIC port joins one plane.")
    group: Id | None = Field(None, description="Unit whose instances size the leaves (full-SU provisioning); "
                             "default: the unit holding the most nodes.")
    oversubscription: Ratio = Field(1.0, description="Default down:up ratio at every tier, e.g. '1:1'.")
    leaf: Tier = Field(default_factory=Tier, description="Leaf-tier overrides and placement.")
    spine: Tier = Field(default_factory=Tier, description="Spine-tier overrides and placement.")
    core: Tier = Field(default_factory=Tier, description="Core-tier overrides and placement.")

    @field_validator("oversubscription", mode="before")
    @classmethod
    def _parse_default(cls, v: object) -> float:
        return _ratio(v)

    @model_validator(mode="after")
    def _counts_on_built_tiers(self) -> FatTree:
        """A fixed count on a tier that the fixed `tiers` does not build would be ignored: reject it."""
        if self.tiers == 1 and self.leaf.count not in (None, 1):
            raise FieldError(("leaf", "count"), f"{self.leaf.count} leaves given, but a 1-tier fabric is one switch "
                             "per plane: leave leaf.count out (or 1), or set tiers: 2 to join several leaves")
        built = TIER_NAMES if self.tiers == "auto" else TIER_NAMES[:self.tiers]   # auto: NET018 at analysis
        for name in TIER_NAMES[len(built):]:
            if getattr(self, name).count is not None:
                raise FieldError((name, "count"), f"{getattr(self, name).count} {name}s given, but a {self.tiers}-tier "
                                 f"fabric has no {name} tier: leave {name}.count out, or set tiers: "
                                 f"{TIER_NAMES.index(name) + 1} (or auto) to build it")
        return self


#: Fabric topologies by their `topology:` tag. Add dragonfly or torus here with their own model and analyser.
Fabric = Annotated[FatTree, Field(discriminator="topology")]


class TierSwitches(Spec):
    """Switches per tier of one fabric, over all planes (as a reference design's component table counts them)."""

    leaf: int | None = Field(None, ge=0, description="Leaf switches.")
    spine: int | None = Field(None, ge=0, description="Spine switches.")
    core: int | None = Field(None, ge=0, description="Core switches.")


class TierCables(Spec):
    """Cables per tier of one fabric, over all planes: one per link, as reference designs count them."""

    access: int | None = Field(None, ge=0, description="Node-to-leaf cables, reserved (UFM) ports included.")
    leaf_spine: int | None = Field(None, ge=0, description="Leaf-to-spine cables.")
    spine_core: int | None = Field(None, ge=0, description="Spine-to-core cables.")


class FabricExpect(Spec):
    """A fabric's published component counts, checked against the derived ones."""

    switches: TierSwitches = Field(default_factory=TierSwitches, description="Switches per tier.")
    cables: TierCables = Field(default_factory=TierCables, description="Cables (links) per tier.")


class Expect(Spec):
    """Totals the author expects; each is checked against the derived value."""

    accelerators: int | None = Field(None, ge=0, description="Accelerators in the cluster.")
    nodes: int | None = Field(None, ge=0, description="Nodes (systems with accelerators).")
    racks: int | None = Field(None, ge=0, description="Racks of every type.")
    fabrics: dict[Id, FabricExpect] = Field(default_factory=dict, description=(
        "Per fabric id, the switches and cables per tier of a published table, e.g. "
        "`{compute: {switches: {leaf: 32, spine: 16}, cables: {access: 1020, leaf_spine: 1024}}}`."))


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
    requirements: RequirementList = Field(default_factory=list, description="Requirements on cluster metrics.")
