"""Fabric models of a `Cluster`: the fat tree and the torus, dragonfly and rail-only topologies beside it.

Each fabric names its topology (`topology:` is the discriminator of the `Fabric` union), its switches, link options
per link class, and its topology's own figures; `LINK_TIERS` maps each topology's link classes to the switch tier
whose ports their upper ends use. The analysers are `archgen.analyse.fabric` (fat tree) and
`archgen.analyse.topologies` (the others).
"""

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from archgen.model.fabric_base import CHECKPOINT_ROLES, FabricBase, checkpoint_role
from archgen.model.fabric_parts import (
    DragonflyLinks,
    Endpoints,
    LinkChoice,
    LinkOption,
    Links,
    Ocs,
    RailLinks,
    Reserved,
    SwitchRack,
    TorusLinks,
)
from archgen.model.spec import FieldError, Id, Ref, raise_each
from archgen.model.tiers import TIER_NAMES, Ratio, Tier

#: The fabric parts (`archgen.model.fabric_parts`) and what every fabric states (`archgen.model.fabric_base`) are
#: re-exported: they were defined here before.
__all__ = ["CHECKPOINT_ROLES", "LINK_TIERS", "TIER_KEYS", "UPLINK_KEYS", "Dragonfly", "DragonflyLinks", "Endpoints",
           "Fabric", "FabricBase", "FatTree", "LinkChoice", "LinkOption", "Links", "Ocs", "RailLinks", "RailOnly",
           "Reserved", "SwitchRack", "Torus", "TorusLinks", "checkpoint_role"]


class FatTree(FabricBase):
    """A folded-Clos fat tree of 2 or 3 tiers, plain or rail-optimized, single- or multi-plane."""

    topology: Literal["fat-tree"] = Field(description="fat-tree (folded Clos).")
    switch: Ref = Field(description="Switch part used at every tier unless a tier overrides it.")
    tiers: Literal[1, 2, 3, "auto"] = Field(2, description="1 (a single switch layer), 2, 3, or 'auto' "
                                            "(the fewest that fit).")
    links: Links = Field(default_factory=Links, description="Link options per tier.")   # after `tiers`: it reads it
    rail_optimized: bool = Field(False, description="NIC n of every scale-up domain lands on the leaf of rail n.")
    rails: int | None = Field(None, gt=0, le=4096,
                              description="Rails of a rail-optimized fabric (refused on a plain one); default = "
                              "fabric ports per scale-up domain / planes.")
    planes: int = Field(1, gt=0, le=16, description="Independent parallel fabrics; each NIC port joins one plane.")
    group: Id | None = Field(None, description="Unit whose instances size the leaves (full-SU provisioning); "
                             "default: the unit holding the most nodes.")
    oversubscription: Ratio = Field(1.0, description="Default down:up ratio at every tier, e.g. '1:1'.")
    leaf: Tier = Field(default_factory=Tier, description="Leaf-tier overrides and placement.")
    spine: Tier = Field(default_factory=Tier, description="Spine-tier overrides and placement.")
    core: Tier = Field(default_factory=Tier, description="Core-tier overrides and placement.")

    def stated_ratio(self, name: str) -> tuple[float, tuple[str, ...]] | None:
        """The down:up ratio the spec states for tier `name`, and the key that states it; None where none is stated.

        The tier's own `oversubscription`, else the fabric's where written. None too where the tier's ports fix the
        split (`up` or `uplinks`; NET019): the ratio is then not read. What NET033 compares with the ratio as built
        and `archgen gap` gives beside the ratio as used (`checks.stated_ratios`).
        """
        tier = getattr(self, name)
        if tier.up is not None or tier.uplinks is not None:
            return None
        if tier.oversubscription is not None:
            return tier.oversubscription, (name, "oversubscription")
        if "oversubscription" in self.model_fields_set:
            return self.oversubscription, ("oversubscription",)
        return None

    @field_validator("rails")
    @classmethod
    def _rails_of_a_plain_fabric(cls, rails: int | None, info: ValidationInfo) -> int | None:
        """`rails` of a fabric that is not rail-optimized would be read by nothing: reject it.

        A field validator (`rail_optimized` comes first), so that its error comes in one run with the fabric's others.
        """
        if rails is not None and info.data.get("rail_optimized") is False:
            raise ValueError(f"{rails} rails given, but the fabric is not rail-optimized, so no NIC is wired by "
                             "rail: leave rails out, or set rail_optimized: true")
        return rails

    @field_validator("links")
    @classmethod
    def _links_to_built_tiers(cls, links: Links, info: ValidationInfo) -> Links:
        """Links to a tier that the fixed `tiers` does not build would be ignored: reject them.

        A field validator (`tiers` comes first), so that its errors come in one run with the fabric's others.
        """
        tiers = info.data.get("tiers")
        if tiers in (None, "auto"):   # auto: NET025 notes them at analysis with the size that uses them
            return links
        errors = []
        for name in TIER_NAMES[tiers:]:
            link = {"spine": "leaf_spine", "core": "spine_core"}[name]   # the links up to the tier, as LINK_TIERS
            if getattr(links, link):
                errors.append(FieldError((link,), f"links.{link} given, but a {tiers}-tier fabric has no {name} tier "
                                         f"to link: leave links.{link} out, or set tiers: "
                                         f"{TIER_NAMES.index(name) + 1}"))
        raise_each(errors, cls.__name__)
        return links

    @field_validator("leaf", "spine", "core")
    @classmethod
    def _tier_keys_read(cls, tier: Tier, info: ValidationInfo) -> Tier:
        """Keys of a tier that no size of the fabric reads would be ignored: reject them, all in one message.

        With a fixed `tiers`, every key of a tier it does not build, and the uplink keys of its top tier (nothing
        above takes them). The cores are the top tier of any fat tree, so their uplink keys are refused with
        `tiers: auto` too; auto's other keys of a tier not built at the design's size are noted at analysis
        (NET025, NET018, NET019). A field validator (`tiers` comes first), so that its errors come in one run.
        """
        name, tiers = str(info.field_name), info.data.get("tiers")
        if tiers is None:
            return tier
        errors = []
        if tiers == 1 and name == "leaf" and tier.count not in (None, 1):
            errors.append(FieldError(("count",), f"{tier.count} leaves given, but a 1-tier fabric is one switch per "
                                     "plane: leave leaf.count out (or 1), or set tiers: 2 to join several leaves"))
        if tier.serves_racks is not None and (name != "leaf" or tier.rack is None):
            errors.append(FieldError(("serves_racks",), f"{name}.serves_racks given, but only the leaves are sized "
                                     "per rack, and they need the rack type they stand in: give leaf.rack beside "
                                     "leaf.serves_racks" if name == "leaf" else f"{name}.serves_racks given, but "
                                     "only the leaves are sized per rack: move it to the leaf tier"))
        level = TIER_NAMES.index(name) + 1
        if tiers != "auto" and level > tiers:
            given = _given(tier, ("count", *TIER_KEYS))
            if given:
                what = f"{tier.count} {name}s" if given == ["count"] else ", ".join(f"{name}.{k}" for k in given)
                errors.append(FieldError((given[0],), f"{what} given, but a {tiers}-tier fabric has no {name} tier: "
                                         f"leave {_them(name, given)} out, or set tiers: {level} (or auto) to build "
                                         "it"))
        elif level == (3 if tiers == "auto" else tiers):
            given = _given(tier, UPLINK_KEYS)
            if given:
                top = f"the top tier of a {tiers}-tier fabric" if tiers != "auto" else "the top tier at every size"
                fix = f", or set tiers: {tiers + 1} to build a tier above them" if tiers != "auto" else ""
                errors.append(FieldError((given[0],), f"{', '.join(f'{name}.{k}' for k in given)} given, but the "
                                         f"{name}s are {top} and have no uplinks: leave {_them(name, given)} out{fix}"))
        raise_each(errors, cls.__name__)
        return tier


#: A tier's keys other than `count`, in the order a message names them.
TIER_KEYS = ("switch", "oversubscription", "uplinks", "uplink_speed", "rack", "serves_racks", "down", "up")
#: The keys of a tier's uplinks: read only where a tier above takes them.
UPLINK_KEYS = ("up", "uplinks", "uplink_speed", "oversubscription")


def _given(tier: Tier, keys: tuple[str, ...]) -> list[str]:
    """The `keys` of `tier` that the spec gives (not None), in that order."""
    return [k for k in keys if getattr(tier, k) is not None]


def _them(name: str, given: list[str]) -> str:
    """What a message asks to leave out: the one key, or those given."""
    return f"{name}.{given[0]}" if len(given) == 1 else "them"


class RailOnly(FabricBase):
    """Rail-only: one switch (or a two-tier tree) per rail and plane, no spine between rails.

    NIC n of every scale-up domain joins rail n; traffic between rails crosses the scale-up domain instead of a
    spine (W. Wang et al., "How to Build Low-cost Networks for Large Language Models (without Sacrificing
    Performance)", arXiv 2307.12169, 2023).
    """

    topology: Literal["rail-only"] = Field(description="rail-only (rails joined only through the scale-up domain).")
    switch: Ref = Field(description="Rail switch part (and the per-rail spine's, unless `spine.switch` is set).")
    links: RailLinks = Field(default_factory=RailLinks, description="Link options: `access` (NIC to rail switch) "
                             "and `leaf_spine` (inside a rail that needs two tiers).")
    rails: int | None = Field(None, gt=0, le=4096,
                              description="Rails; default = fabric ports per scale-up domain / planes.")
    planes: int = Field(1, gt=0, le=16, description="Independent parallel fabrics; each NIC port joins one plane.")
    oversubscription: Ratio = Field(1.0, description="Down:up ratio of a rail leaf when a rail needs two tiers.")
    leaf: Tier = Field(default_factory=Tier, description="Rail switch: `switch`, `down` ports, `oversubscription` "
                       "and `rack`; the other tier keys are not read and are refused.")
    spine: Tier = Field(default_factory=Tier, description="Per-rail spine (a rail wider than one switch): `switch`, "
                        "`down` ports and `rack`; the other tier keys are not read and are refused.")

    @field_validator("leaf", "spine")
    @classmethod
    def _tier_keys_read(cls, tier: Tier, info: ValidationInfo) -> Tier:
        """Tier keys the rail-only sizing does not read would be ignored: reject them, all in one message.

        A rail's leaves split their `down` ports by `oversubscription` (the fabric's, or `leaf.oversubscription`),
        and its spines take the leaves' uplinks on their `down` ports; both counts are derived. A field validator,
        so that these errors come in one run with those of the fabric's other keys (`links.spine_core`).
        """
        name = str(info.field_name)
        ignored = _RAIL_IGNORED[name]
        given = _given(tier, tuple(ignored))
        if given:
            what = ", ".join(f"{name}.{k}" for k in given)
            why = "; ".join(dict.fromkeys(ignored[k] for k in given))
            raise FieldError((given[0],), f"{what} given, but a rail-only fabric does not read "
                             f"{'it' if len(given) == 1 else 'them'} ({why}): leave {_them(name, given)} out, or "
                             "use topology: fat-tree with rail_optimized: true")
        return tier


#: Tier keys of a fat tree that the rail-only sizing (`archgen.analyse.topologies`) does not read, and why.
_RAIL_IGNORED = {
    "leaf": dict.fromkeys(("up", "uplinks", "uplink_speed"), "a rail leaf's uplinks are its down ports split by "
                          "`oversubscription`") | {"count": "a rail's leaves are derived from its scale-up domains",
                                                   "serves_racks": "a rail's leaves are sized by its rails, not "
                                                   "the ports of a rack"},
    "spine": dict.fromkeys(("up", "uplinks", "uplink_speed", "oversubscription"), "a rail's spines are its top tier, "
                           "with nothing above them") | {"count": "a rail's spines are derived from its leaves' "
                                                                  "uplinks", "serves_racks": "only a fat tree's "
                                                                  "leaves are sized per rack"},
}


class Dragonfly(FabricBase):
    """A dragonfly: groups of `group_size` routers, all-to-all inside a group, `global_links` per router between groups.

    J. Kim, W. J. Dally, S. Scott, D. Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008
    (a routers per group, p terminals and h global links per router; at most a·h + 1 groups; balanced at
    a = 2p = 2h); HPE Slingshot builds it from 64-port Rosetta switches. Give `global_links` (h), `pair_links`
    (the global links between each pair of groups, m, "links per arc"), or both; the other is derived.
    """

    topology: Literal["dragonfly"] = Field(description="dragonfly (groups joined by global links).")
    switch: Ref = Field(description="Router (switch) part.")
    links: DragonflyLinks = Field(default_factory=DragonflyLinks, description="Link options per link class.")
    group_size: int = Field(gt=0, le=1024, description="Routers per group (a); every pair in a group is linked.")
    terminals: int = Field(gt=0, le=1024, description="Endpoint ports per router (p).")
    global_links: int | None = Field(None, gt=0, le=1024, description=(
        "Global links per router (h); default: the fewest that carry `pair_links` to every other group, "
        "⌈m·(g − 1) / a⌉."))
    pair_links: int | None = Field(None, gt=0, le=100_000, description=(
        "Global links between each pair of groups (m, 'links per arc'; HPE Cray EX: up to 16); default: "
        "⌊a·h / (g − 1)⌋, what the routers' global links give."))
    groups: int | None = Field(None, gt=0, le=100_000, description=(
        "Groups; default: the fewest that hold the endpoint ports. At most group_size x global_links + 1."))
    router: SwitchRack = Field(default_factory=SwitchRack, description="Placement of the routers.")

    @field_validator("pair_links")
    @classmethod
    def _global_links_or_pairs(cls, pair_links: int | None, info: ValidationInfo) -> int | None:
        """One of `global_links` and `pair_links` is needed: the other is derived from it.

        A field validator (`global_links` comes first; a left-out `pair_links` is validated too), so that its error
        comes in one run with the fabric's others; it stays at `global_links`, the key the message asks for first.
        """
        if pair_links is None and "global_links" in info.data and info.data["global_links"] is None:
            raise FieldError(("global_links",), "give global_links (per router), pair_links (per pair of groups), "
                             "or both", beside=True)
        return pair_links


class Torus(FabricBase):
    """A 2D or 3D torus of accelerators joined chip to chip (wraparound links), optionally through OCSes.

    N. P. Jouppi et al., "TPU v4: An Optically Reconfigurable Supercomputer for Machine Learning with Hardware
    Support for Embeddings", ISCA 2023 (4x4x4 cubes, 48 OCSes joining 64 cubes into a 16x16x16 torus).
    """

    topology: Literal["torus"] = Field(description="torus (direct chip-to-chip links, wraparound).")
    dims: list[Annotated[int, Field(ge=1, le=4096)]] = Field(min_length=2, max_length=3, description=(
        "Chips along each dimension, e.g. [16, 16, 16]; the product is the accelerators joined."))
    wraparound: bool = Field(True, description="Links close each ring (a torus); false makes it a mesh.")
    links_per_neighbour: int = Field(1, gt=0, le=16, description="Parallel links to each neighbour.")
    ocs: Ocs | None = Field(None, description="Optical circuit switches joining cubes.")
    links: TorusLinks = Field(default_factory=TorusLinks, description="Link options per link class.")

    @model_validator(mode="before")
    @classmethod
    def _not_twisted(cls, data: object) -> object:
        """A twisted torus is refused with why, not as an unknown key: its rings are not modelled.

        Google's twisted tori (TPU v4 slices AxBxC with 2A=B=C or 2A=2B=C, https://cloud.google.com/tpu/docs/v4)
        offset the wraparound links of one dimension; the torus figures and collectives here wrap each ring on its
        own dimension (docs/perf-model.md, Limitations).
        """
        if isinstance(data, dict) and "twisted" in data:
            raise FieldError(("twisted",), "twisted tori (Google's TPU v4 2A=B=C and 2A=2B=C slices) are not "
                             "modelled: the torus figures and collectives wrap each dimension's ring on itself; "
                             "remove twisted to size the plain torus")
        return data

    @field_validator("ocs")
    @classmethod
    def _cubes_tile(cls, ocs: Ocs | None, info: ValidationInfo) -> Ocs | None:
        """The OCS cube has the torus' dimensions, and each of its sides divides the torus' side.

        Every side that does not is reported, in one run with the fabric's other errors (a field validator: `dims`
        comes first).
        """
        dims = info.data.get("dims")
        if ocs is None or dims is None:
            return ocs
        if len(ocs.cube) != len(dims):
            raise FieldError(("cube",), f"a cube of {len(ocs.cube)} dimension(s) for a {len(dims)}-dimensional "
                             f"torus: give {len(dims)} sizes")
        raise_each([FieldError(("cube", i), f"cube side {c} does not divide dimension {i} of the torus ({d}): give a "
                               f"divisor of {d}") for i, (d, c) in enumerate(zip(dims, ocs.cube, strict=True))
                    if d % c], cls.__name__)
        return ocs


#: Fabric topologies by their `topology:` tag, each with its own model and analyser.
Fabric = Annotated[FatTree | RailOnly | Dragonfly | Torus, Field(discriminator="topology")]

#: Link classes of each topology and the switch tier whose ports their upper ends use.
LINK_TIERS = {
    "fat-tree": {"access": "leaf", "leaf_spine": "spine", "spine_core": "core"},
    "rail-only": {"access": "leaf", "leaf_spine": "spine"},
    "dragonfly": {"access": "leaf", "local": "local", "global": "global"},
    "torus": {"neighbour": "chip", "ocs": "ocs"},
}
