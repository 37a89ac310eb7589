"""The parts a fabric of a `Cluster` is made of: endpoints, reserved ports, link options, placement and OCSes.

Link options per link class of each topology, and the router placement and optical circuit switches of the
topologies beside the fat tree. `archgen.model.fabrics` builds the fabric models from these (and re-exports them).
"""

from typing import Annotated

from pydantic import ConfigDict, Field, model_validator

from archgen.model.spec import Count, FieldError, Ref, Spec


class Reserved(Spec):
    """Leaf ports taken by something other than nodes (fabric manager / UFM, storage or service nodes)."""

    name: str = Field(min_length=1, description="What uses the ports, e.g. 'UFM appliances'.")
    ports: Count = Field(description="Leaf ports taken across the whole fabric.")
    north_south: bool = Field(False, description=(
        "The ports are the fabric's links out of the cluster, to the site core or the customer's edge (the border "
        "leaves of NVIDIA's Mission Control GB200 north-south guide): at the fabric's `speed` they give its "
        "`north_south_bandwidth` and `north_south_oversubscription` (the node ports' bandwidth over theirs; not "
        "provided on a fabric with no node ports), on which a requirement can be written; a front-end fabric "
        "without them is NET024 (info)."))


class Endpoints(Spec):
    """What attaches to the bottom tier of a fabric."""

    nodes: bool = Field(True, description="Nodes attach with their NICs of `nic_role`.")
    systems: list[Ref] | None = Field(
        None, min_length=1, description="System types whose NICs attach (default: every placed system with NIC "
        "ports of `nic_role`), e.g. `[dgx-b200]` on a front end that borrows the storage NICs beside storage servers.")
    switches: bool = Field(False, description=(
        "The management ports of the switches placed in the cluster's racks (OOB): each switch's "
        "`management_ports`, one unless its part states more (a GB200 NVLink switch tray's BMC, ComE1 and ComE2)."))
    power: bool = Field(False, description=(
        "The management ports of the power shelves and PDUs placed in the cluster's racks (OOB): each part's "
        "`management_ports`, none where its part states none."))
    cooling: bool = Field(False, description=(
        "The network management ports of the CDUs serving the cluster's racks (OOB): each CDU's `management_ports`, "
        "an in-rack CDU's in its rack, an in-row CDU's (one per CDU the cluster buys) at a position not stated. "
        "False (default): the CDUs' monitoring is left to the building-management system, and the control-plane "
        "section says so."))
    node_management: int = Field(
        0, ge=0, le=64, description="Management ports per compute node (a system with accelerators) that are not its "
        "NICs, such as a GB200 compute tray's BMC port: each is cabled from where its node stands, so the port map "
        "and the cable lengths place it, and their number grows with the nodes.")
    extra: int = Field(0, ge=0, le=10_000_000, description="Other ports (storage appliances, servers, PDUs).")
    storage: int | None = Field(
        None, ge=0, le=10_000_000, description="Of the endpoints that are not compute nodes (`extra`, `reserved`, "
        "placed systems without accelerators), the ports of the checkpoint storage, which bound its bandwidth "
        "(REL010). Default: all of them on a fabric of role `storage` (assumed, and said so), none elsewhere (a "
        "`converged` fabric's storage is then not bounded).")


class LinkChoice(Spec):
    """A link option with different parts at the lower (`a`) and upper (`b`) end."""

    a: Ref = Field(description="Link part at the lower end (NIC or lower-tier switch).")
    b: Ref = Field(description="Link part at the upper end (switch).")


LinkOption = Ref | LinkChoice


class Links(Spec):
    """Link options per tier, in order of preference; a run takes the first whose reach covers its length.

    Copper assemblies are one choice within that order: a run the first of them reaches takes the copper option sold
    nearest its length, so `[acc, dac]` and `[dac, acc]` give a 1 m run the same DAC (docs/clusters.md, Media choice).
    """

    access: list[LinkOption] = Field(default_factory=list, description="Node (or endpoint) to leaf.")
    leaf_spine: list[LinkOption] = Field(default_factory=list, description="Leaf to spine.")
    spine_core: list[LinkOption] = Field(default_factory=list, description="Spine to core.")


class RailLinks(Spec):
    """Link options of a rail-only fabric, in order of preference: it has no core, so no `spine_core`."""

    access: list[LinkOption] = Field(default_factory=list, description="NIC to rail switch (leaf).")
    leaf_spine: list[LinkOption] = Field(default_factory=list, description="Rail leaf to the rail's spine, when a "
                                         "rail is wider than one switch.")

    @model_validator(mode="before")
    @classmethod
    def _no_core(cls, data: object) -> object:
        """`spine_core` would be read by nothing: a rail has at most a leaf and a spine tier."""
        if isinstance(data, dict) and "spine_core" in data:
            raise FieldError(("spine_core",), "links.spine_core given, but a rail-only fabric has no core tier (each "
                             "rail is one switch, or leaves and spines): leave links.spine_core out, or use "
                             "topology: fat-tree to build a core")
        return data


class DragonflyLinks(Spec):
    """Link options of a dragonfly, in order of preference."""

    model_config = ConfigDict(populate_by_name=True)

    access: list[LinkOption] = Field(default_factory=list, description="Node to router.")
    local: list[LinkOption] = Field(default_factory=list, description="Router to router inside a group.")
    global_: list[LinkOption] = Field(default_factory=list, alias="global",
                                      description="Router to router between groups (optical, long).")


class SwitchRack(Spec):
    """Where a topology's switches stand."""

    rack: Ref | None = Field(None, description="Rack type holding these switches (their slots; lengths are not "
                             "derived for this topology).")


class TorusLinks(Spec):
    """Link options of a torus, in order of preference."""

    neighbour: list[LinkOption] = Field(default_factory=list, description="Chip to neighbouring chip (inside a cube).")
    ocs: list[LinkOption] = Field(default_factory=list, description="Chip to optical circuit switch (between cubes).")


class Ocs(Spec):
    """Optical circuit switches joining cubes of a torus (TPU v4/v5p)."""

    switch: Ref = Field(description="OCS part (a Switch whose ports are fibre ports).")
    cube: list[Annotated[int, Field(ge=1, le=64)]] = Field(min_length=2, max_length=3, description=(
        "Chips along each dimension of one cube, e.g. [4, 4, 4]; every link leaving a cube goes through an OCS."))
    rack: Ref | None = Field(None, description="Rack type holding the OCSes.")
    cubes: int | None = Field(None, gt=0, le=100_000, description=(
        "Cubes the OCSes join: the pod (TPU v5p: 140, 8,960 chips); default: the torus' own. A torus of fewer "
        "cubes is a slice of the pod (the largest TPU v5p slice, 16x16x24, takes 96): the cluster holds the pod's "
        "chips, the torus figures are the slice's, and every face of every pod cube is fibred to an OCS."))
    count: int | None = Field(None, gt=0, le=1_000_000, description=(
        "OCSes; default: one per dimension and cube-face position (48 for 4x4x4 cubes), times the fewest that keep "
        "each within its ports, ⌈2 x pod cubes / OCS ports⌉."))
