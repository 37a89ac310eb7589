"""The scale-up domain of a `Cluster` (`ScaleUp`): switched, mesh or torus, over one rack, several, or a pod.

Moved from `model/cluster.py` (at 414 lines with ualink30's `switch_rack`), which re-exports it.
"""

import math
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from archgen.model.spec import Count, FieldError, Ref, Spec
from archgen.model.technology import MESH_IN_ONE_NODE, MESH_IN_ONE_NODE_OTHERS, ScaleUpTechnology
from archgen.units import Bandwidth

__all__ = ["ScaleUp"]


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
    cables (`analyse.scale_up_racks`); or, as a UALink pod, every accelerator of its `racks` cabled to one stage of
    switches standing in racks of their own (`switch_rack`, `analyse.scale_up_pod`).
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
    switch_rack: Ref | None = Field(None, description=(
        "A UALink pod's one switch stage (ualink30): the rack type, holding no accelerators, whose `switch` parts "
        "join the domain's `racks` compute racks, every accelerator's `link`s cabled from its rack to them, one "
        "switch hop between any two accelerators (UALink 200G 1.0: up to 1,024 accelerators through switches "
        "that give each accelerator a port). `switches` per domain stand in the `layout`'s racks of this type, "
        "taken in floor order domain by domain; no `trunk_link` (analyse.scale_up_pod, docs/clusters.md)."))
    crosses_racks: bool = Field(False, description=(
        "Whether one domain spans several racks: `true` exactly when `racks` is above 1 (may be left out; "
        "`true` with one rack, or `false` with several, is refused as a contradiction)."))

    @model_validator(mode="after")
    def _mesh_has_no_switches(self) -> Self:
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
        if self.switch_rack is not None:
            self._pod_fits()
            return
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
                             "switch-to-switch link between racks; or, for accelerators cabled to switches in racks "
                             "of their own (a UALink pod's one switch stage), give switch_rack")

    def _pod_fits(self) -> None:
        """A pod (`switch_rack`) is a switched rack domain with its switches and link, and no trunks."""
        if self.domain != "rack" or self.topology != "switched":
            raise FieldError(("switch_rack",), "switch_rack holds the switches of a switched rack domain (a UALink "
                             "pod): set domain: rack and topology: switched, or leave switch_rack out")
        if self.switch is None or not self.switches or self.link is None:
            key = "switch" if self.switch is None else "switches" if not self.switches else "link"
            raise FieldError((key,), "a pod's switches stand in switch_rack and every accelerator's links run to "
                             "them: give switch, switches (per domain) and link (one accelerator-to-switch link)")
        if self.trunk_link is not None:
            raise FieldError(("trunk_link",), "a pod's accelerators link to its switches in switch_rack directly, "
                             "one switch hop apart, with no switch-to-switch link: leave trunk_link out")
        if self.size % self.racks:
            raise FieldError(("size",), f"size {self.size} does not divide over racks: {self.racks}: expected a "
                             f"multiple of {self.racks} (each compute rack holds its share)")

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
