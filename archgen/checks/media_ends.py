"""The ports each link option end plugs into, and their lane rates: what CAB002 and CAB005 judge link media against.

Split from `checks/cabling.py` (`checks/link_media.py` registers those checks), as `checks.copper_pairs` is for
CAB008: per link class of a fabric, the switch port groups and node NIC ports at its lower (`a`) and upper (`b`) ends
(`link_ends`), and every link option end with those ports (`option_ends`).
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.analyse.ports import role_groups
from archgen.checks.registry import Context
from archgen.model import NIC, Link, Switch
from archgen.model.fabrics import LINK_TIERS
from archgen.model.network import Ports
from archgen.units import Q_, Q

#: Lane rate from which passive copper (DAC) and multimode fibre are not offered: NVIDIA LinkX 800G 200G-PAM4
#: interconnect list ("XDR: LACC and single-mode only; no multimode, no AOC, no DAC"),
#: https://docs.nvidia.com/networking/display/800g200gpam4list
NO_DAC_MMF_FROM = Q_(200, "Gbit/s")
#: The lane-rate rule as a finding cites it.
LANE_RULE = ("a port cannot run lanes faster than its SerDes, and XDR 200G-PAM4 ports do not downshift to 100G-PAM4 "
             "(NVIDIA LinkX 200G-PAM4 list)")


@dataclass(frozen=True)
class Port:
    """One end's port as far as media go: what it is, its cage, its lane rate and the lanes its cage wires.

    `wired`: the port's `lanes` times the logical ports its cage holds (`per_cage`): 4 at a ConnectX-7's one 400G
    port, 8 at a QM9700's twin-port cage. None where the port declares no lanes.
    """

    what: str
    cage: str
    lane: Q | None
    wired: int | None = None


def switch_port(switch: Switch, group: Ports) -> Port:
    """A switch's port group as a link end plugs into it (a fabric tier's or a scale-up domain's cables)."""
    return Port(f"{switch.id} port group '{group.name}'", group.cage, group.lane_rate(),
                group.lanes * group.per_cage if group.lanes else None)


def _group_port(switch: Switch | None, group: Ports | None) -> list[Port]:
    return [] if switch is None or group is None else [switch_port(switch, group)]


def _nic_ports(ctx: Context, c, fa) -> list[Port]:
    """The node NIC ports a fabric's access links plug into (each NIC part of the role once)."""
    role, out, seen = fa.fabric.spec.nic_role or fa.fabric.spec.role, [], set()
    for nt in c.nodes:
        if not fa.ports_per_node.get(nt.part.id):
            continue
        for slot in nt.part.nics:
            nic = ctx.design.specs.get(slot.part)
            if slot.role == role and isinstance(nic, NIC) and (nic.id, slot.cage) not in seen:
                seen.add((nic.id, slot.cage))
                per = slot.per_cage or nic.ports.per_cage
                out.append(Port(f"{nt.part.id} NIC {nic.id}", slot.cage or nic.ports.cage, nic.ports.lane_rate(),
                                nic.ports.lanes * per if nic.ports.lanes else None))
    return out


def link_ends(ctx: Context, c, fa) -> dict[str, tuple[list[Port], list[Port]]]:
    """Per link class of a fabric: the ports its lower (`a`) and upper (`b`) ends plug into."""
    spec, tiers = fa.fabric.spec, fa.fabric.tiers
    if spec.topology == "torus":
        ocs = tiers["ocs"].switch
        return {"ocs": ([], _group_port(ocs, ocs.ports if ocs else None))}
    if spec.topology == "dragonfly":
        router = tiers["leaf"].switch
        main = _group_port(router, router.ports if router else None)
        return {"access": (_nic_ports(ctx, c, fa), main), "local": (main, main), "global": (main, main)}
    groups = {}
    for name in ("leaf", "spine", "core"):
        sw, t = tiers[name].switch if name in tiers else None, getattr(spec, name, None)
        groups[name] = (role_groups(sw, t.down, t.up, t.uplinks, t.uplink_speed) if sw is not None and t is not None
                        else (None, None))
    port = {name: (_group_port(tiers[name].switch, g[0]), _group_port(tiers[name].switch, g[1]))
            for name, g in groups.items() if name in tiers}
    out = {"access": (_nic_ports(ctx, c, fa), port["leaf"][0])}
    if "spine" in port:
        out["leaf_spine"] = (port["leaf"][1], port["spine"][0])
    if "core" in port:
        out["spine_core"] = (port["spine"][1], port["core"][0])
    return out


def option_ends(ctx: Context):
    """(cluster, fabric, link class, option, end part, tag, ports of that end, path) for every link option end."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            ends = link_ends(ctx, c, fa)
            for key, tier in LINK_TIERS[fa.fabric.spec.topology].items():
                if key not in ends or tier not in fa.fabric.tiers:
                    continue
                lower, upper = ends[key]
                for opt in fa.fabric.tiers[tier].links:
                    same = opt.a.id == opt.b.id
                    for end, tag, ports in ((opt.a, "a", lower), (opt.b, "b", upper)):
                        yield c, fa, key, opt, end, tag, ports, opt.path + (() if same else (tag,))


def lane_g(q: Q) -> str:
    """'200G' for a lane or line rate."""
    return f"{float(q.m_as('Gbit/s')):g}G"


def lanes_mismatch(module: Q, port: Q) -> bool:
    """Whether a module's lanes cannot run on a port's.

    Lanes faster than the port's never work; slower ones only below 200G-PAM4 (SerDes that run 100G-PAM4 also run
    50G and 25G lanes, as an SN5600's 800G ports run 400G and 200G; XDR ports do not downshift).
    """
    m, p = float(module.m_as("Gbit/s")), float(port.m_as("Gbit/s"))
    return m > p + 1e-6 or (m < p - 1e-6 and port >= NO_DAC_MMF_FROM)


def too_wide(end: Link, port: Port) -> str:
    """Why a module or cable end is wider than the lanes its cage wires (CAB005); empty where it fits.

    An OSFP cage always has the MSA's 8 electrical lanes, but a host wires only its ports' lanes: a ConnectX-7's
    single 400G port drives 4 x 100G-PAM4, so an 8-lane 800G module (`lpo-800g-dr8`, `aec-800g-osfp`, whose `cages`
    say plain OSFP) would have half its lanes undriven. No source read states that these modules run at half width
    in a 4-lane port (NVIDIA's LinkX 100G-PAM4 guide gives ConnectX-7 OSFP cards single-port flat-top 400G modules),
    so it is refused, not assumed. Where the port declares no `lanes`, nothing is judged.
    """
    if port.wired is None or end.lanes <= port.wired:
        return ""
    return (f"{end.id} has {end.lanes} lanes, the {port.cage} cage of the {port.what} wires {port.wired}: expected "
            f"a module of at most {port.wired} lanes (a cage drives only its ports' lanes; no source read states "
            f"that {end.id} runs at half width)")
