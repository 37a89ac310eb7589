"""What every fabric of a `Cluster` states (`FabricBase`), whichever its topology, and which fabrics carry checkpoints.

Its id and role, the node NICs that attach and their breakout, the line rate, the endpoints and reserved ports, and
the requirements on bandwidth and oversubscription; the topologies (`archgen.model.fabrics`) add their own figures.
"""

from collections.abc import Iterable
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from archgen.model.fabric_parts import Endpoints, Reserved
from archgen.model.network import parse_breakout
from archgen.model.spec import FieldError, Id, Spec, raise_each
from archgen.model.system import NicRole
from archgen.model.tiers import Ratio
from archgen.units import Bandwidth

#: The roles of the fabrics a cluster's checkpoints go over, in order of preference (`checkpoint_role`).
CHECKPOINT_ROLES = ("storage", "converged")


def checkpoint_role(roles: Iterable[str]) -> str | None:
    """The role whose fabrics carry a cluster's checkpoints: `storage` where it has any, else `converged`.

    A front end is never one, even where it takes ports of the storage NICs (the DGX B200's BlueField-3 pair
    serves storage and in-band).
    """
    have = set(roles)
    return next((role for role in CHECKPOINT_ROLES if role in have), None)


class FabricBase(Spec):
    """What every fabric topology shares."""

    id: Id = Field(description="Fabric id, e.g. 'compute'; object path 'cluster/<cluster>/fabric/<id>'.")
    name: str = Field("", description="Human-readable name.")
    role: Literal["compute", "storage", "frontend", "management", "converged"] = Field(
        description="compute (scale-out), storage, frontend (in-band), management (out-of-band) or converged.")
    nic_role: NicRole | None = Field(None, description="Role of the node NICs that attach (default: `role`).")
    ports_per_node: int | None = Field(None, gt=0, le=64,
                                       description="NIC ports per node used by this fabric (default: all of the role); "
                                       "refused with `endpoints.nodes: false`.")
    speed: Bandwidth = Field(description="Line rate of one fabric port, e.g. '400 Gb/s'.")
    nic_breakout: str | None = Field(None, description=(
        "How each NIC port of `nic_role` splits into fabric ports, e.g. '2x400G': a ConnectX-8's 800G port as two "
        "400G ports, spread over two planes (NVIDIA Spectrum-X multiplane). The NIC part must list the split in its "
        "`ports.breakouts` (NET016 otherwise); unset, each NIC port is one fabric port."))
    endpoints: Endpoints = Field(default_factory=Endpoints, description="What attaches to the bottom tier.")
    reserved: list[Reserved] = Field(default_factory=list, description="Leaf ports reserved for other devices.")
    min_bandwidth_per_accelerator: Bandwidth | None = Field(
        None, description="Required NIC bandwidth into this fabric per accelerator, e.g. '400 Gb/s'.")
    min_bisection_per_accelerator: Bandwidth | None = Field(
        None, description="Required bisection bandwidth per accelerator (one direction), e.g. '400 Gb/s'.")
    max_oversubscription: Ratio | None = Field(
        None, description="Largest oversubscription allowed at any tier, e.g. '1:1'.")

    @field_validator("nic_breakout")
    @classmethod
    def _breakout_at_speed(cls, v: str | None, info: ValidationInfo) -> str | None:
        """A NIC breakout reads 'n x rate' and its rate is the fabric's `speed` (a field validator: `speed` first)."""
        if v is None:
            return v
        try:
            n, rate = parse_breakout(v)
        except ValueError as e:
            raise FieldError((), str(e)) from None
        speed = info.data.get("speed")
        if speed is not None and abs(rate - float(speed.m_as("Gbit/s"))) > 1e-6:
            raise FieldError((), f"nic_breakout {v} gives {rate:g}G ports, the fabric's speed is {speed:~P}: give "
                             f"a split whose rate is the speed (e.g. {n}x{float(speed.m_as('Gbit/s')):g}G)")
        return v

    @field_validator("endpoints")
    @classmethod
    def _ports_of_nodes(cls, endpoints: Endpoints, info: ValidationInfo) -> Endpoints:
        """Refuse keys that nothing would read, every one in one run.

        `ports_per_node` and `endpoints.systems` where no node attaches (`endpoints.nodes: false`), and
        `endpoints.storage` on a fabric that carries no storage. A field validator (`role` and `ports_per_node`
        come first), so that its errors come in one run with the fabric's others; a key that failed its own
        validation is left out of `info.data` and not judged here.
        """
        errors = []
        ports_per_node = info.data.get("ports_per_node")
        if ports_per_node is not None and not endpoints.nodes:
            errors.append(FieldError(("ports_per_node",), f"ports_per_node {ports_per_node} given, but "
                                     "endpoints.nodes is false, so no node attaches: leave ports_per_node out, or "
                                     "attach the nodes", beside=True))
        role = info.data.get("role")
        if endpoints.storage is not None and role is not None and role not in ("storage", "converged"):
            over = (" (storage reached over the compute fabric, e.g. Lustre on InfiniBand, is written as that "
                    "fabric with `role: converged` and `nic_role: compute`: it carries the scale-out traffic where the "
                    "cluster has no compute fabric, and the checkpoints where it has no storage fabric; "
                    "docs/clusters.md)" if role == "compute" else "")
            errors.append(FieldError(("storage",), f"endpoints.storage {endpoints.storage} given on a fabric of role "
                                     f"'{role}', which carries no checkpoint storage: leave it out, or give it on the "
                                     f"storage (or converged) fabric{over}"))
        if endpoints.systems is not None and not endpoints.nodes:
            errors.append(FieldError(("systems",), f"endpoints.systems {endpoints.systems} given, but endpoints.nodes "
                                     "is false, so no node attaches: leave systems out, or attach the nodes"))
        raise_each(errors, cls.__name__)
        return endpoints

    def rack_of(self, tier: str) -> str | None:
        """Rack type that holds the switches of `tier` (its `rack`), if the fabric places them."""
        return getattr(getattr(self, tier, None), "rack", None)
