"""A cluster's fabric with its parts bound: the switch of each tier and the link options of the links below it."""

from __future__ import annotations

from dataclasses import dataclass

from archgen.build.refs import Unresolved, resolve
from archgen.model import Cluster, Link, Switch
from archgen.model.fabrics import LINK_TIERS, Fabric, FatTree, LinkChoice, RailOnly, Torus
from archgen.validate import Specs


@dataclass(frozen=True)
class LinkOption:
    """A bound link option: the parts at the lower (`a`) and upper (`b`) end, and where it is written."""

    a: Link
    b: Link
    path: tuple

    @property
    def reach(self):
        """Longest run the option serves: the shorter of the two ends' `Link.longest`.

        That is the reach, or the longest length sold where the part's source lists shorter lengths.
        """
        return min(self.a.longest, self.b.longest)

    @property
    def reach_text(self) -> str:
        """'reach 3 m', with what is sold where that stops short of it ('reach 3 m, sold 0.5-2 m')."""
        reach = min(self.a.reach, self.b.reach)
        return f"reach {reach:~P}" + (f", {self.sold_text}" if self.sold_text else "")

    @property
    def sold_text(self) -> str:
        """What is sold where a part's sold lengths stop short of its reach ('sold 0.5-2 m'); empty otherwise."""
        return "; ".join(dict.fromkeys(t for t in (self.a.sold_text, self.b.sold_text) if t))

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

    def switch_path(self, tier: str) -> tuple:
        """Field path of the key that names `tier`'s switch: the tier's own `switch`, else the fabric's.

        A finding about the switch's ports points there, at the value to change, not at the tier's key above it
        (a storage fabric's `switch: sn5600` on line 80, not its `leaf:` on line 84; newuser65).
        """
        if tier == "ocs":
            return self.owner_path + ("ocs", "switch")
        spec = getattr(self.spec, tier, None)
        if getattr(spec, "switch", None) is not None:
            return self.owner_path + (tier, "switch")
        return self.owner_path + ("switch",)


def bind_fabric(specs: Specs, cluster: Cluster, i: int, f: Fabric, unresolved: list[Unresolved]) -> BoundFabric:
    """Bind a fabric's switches and link options, tier by tier (`LINK_TIERS`: link class -> tier of its upper end)."""
    subject = f"cluster/{cluster.id}/fabric/{f.id}"

    def switch_ref(ref: str | None, path: tuple) -> Switch | None:
        return resolve(specs, cluster.id, ref, (Switch,), ("fabrics", i, *path), unresolved, subject)

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
            a = resolve(specs, cluster.id, a_ref, (Link,), path + (("a",) if a_ref != b_ref else ()), unresolved,
                        subject)
            b = a if b_ref == a_ref else resolve(specs, cluster.id, b_ref, (Link,), path + ("b",), unresolved, subject)
            if a is not None and b is not None:
                options.append(LinkOption(a, b, path))
        tiers[tier] = BoundTier(tier, switches.get(tier), tuple(options), ("fabrics", i, "links", key))
    return BoundFabric(cluster.id, i, f, tiers)
