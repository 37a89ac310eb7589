"""NET031: a 3-tier fat tree whose last pod holds fewer leaves than a pod takes, yet is cabled as a full one.

Also NET036's findings (`idle_core_ports`): whole pods whose cores outnumber the count by ports alone.

`checks/network.py` registers the check; this module holds what it finds. The sizing (`analyse.upper_tiers`) gives every
pod the same spines and every spine the same core uplinks; a plane of L leaves in pods of P fills ⌊L/P⌋ and leaves
r = L mod P in the last, whose spines then carry r of P leaves' links down and a full pod's up. A designer sizes
that pod as the sizing sizes a pod standing alone (`upper_tiers.pod_spines`: the fewest spines S_r, a divisor of
the leaf uplinks u, with S_r ≥ ⌈r·u / d_spine⌉, one link per leaf-spine pair at most d_spine per spine), and gives
its spines the uplinks their downlinks need at the tier's own down:up ratio, spread over the core groups of the
spines it lacks; the cores are counted in the sizing's groups with those links (`_grouped_cores`), and the floor by
ports, ⌈links / k_core⌉, is said beside them. A 3-level fat tree's uplinks match the traffic its subtrees send
(C. Leiserson, "Fat-trees", IEEE Trans. Computers C-34(10), 1985: channel capacities grow with the leaves below;
M. Al-Fares et al., SIGCOMM 2008: a pod's k/2 aggregation switches for its k/2 edge switches), so a partial pod
cabled as full adds switches, links and power that no traffic uses, and its spines run under the full pods'
down:up ratio (newuser72: 57 GB300 SUs on one XDR plane of Q3400, 456 leaves in pods of 72, the seventh holding 24:
504 spines where 456 take its links, and 3,456 spine-core links that carry nothing; its 72 core groups each still
need 4 cores for 6 x 72 + 24 links, so the cores stay 288, 228 by ports alone). The fabric's spine oversubscription
is the fullest pod's (spine31); before, it was the average over the pods, which the partial pod lowered (0.90 for
newuser72's 1:1 spines), the only sign of it.

The wiring model (`topology.tier_pairs`) still draws the pod as sized; a `spine.count` or `core.count` the user
fixed is their choice, and not judged here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from archgen.analyse.core_ports import core_surplus
from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.network import count, withheld_tiers
from archgen.analyse.upper_tiers import core_groups, pod_spines
from archgen.checks.registry import Context, Violation
from archgen.display import kw
from archgen.model.fabrics import FatTree
from archgen.money import money_text
from archgen.units import Q_, Q


@dataclass(frozen=True)
class PodSurplus:
    """One plane's partial last pod: the counts as sized and as a designer would build them (per plane)."""

    pod_leaves: int
    full_pods: int
    last_leaves: int
    spines_per_pod: int
    last_spines: int
    spines: int
    spines_needed: int
    cores: int
    cores_needed: int
    core_links: int
    core_links_needed: int
    pod_core_links: int
    last_core_links: int
    last_uplinks: int
    cores_by_ports: int


def pod_surplus(fa: FabricAnalysis) -> PodSurplus | None:
    """The partial last pod of a 3-tier fat tree cabled as full, or None (2 tiers, whole pods, fixed counts, none)."""
    spec = fa.fabric.spec
    leaf, spine, core = fa.tier("leaf"), fa.tier("spine"), fa.tier("core")
    if not isinstance(spec, FatTree) or fa.tiers_used != 3 or fa.pods < 2 or leaf is None or spine is None \
            or core is None or not (spine.down and core.down and fa.spines_per_pod) \
            or spec.spine.count is not None or spec.core.count is not None:
        return None
    pod_leaves = fa.shape.pod_leaves
    full, rest = divmod(leaf.switches, pod_leaves)
    if not rest:
        return None
    last_spines = pod_spines(rest, leaf.up, spine.down)
    per_spine_down = math.ceil(rest * leaf.up / last_spines)
    last_up = math.ceil(per_spine_down * spine.up / spine.down)
    links_needed = full * fa.spines_per_pod * spine.up + last_spines * last_up
    spines_needed = full * fa.spines_per_pod + last_spines
    cores_needed = min(_grouped_cores(full, fa.spines_per_pod, spine.up, last_spines * last_up, core.down),
                       core.switches)
    ports_floor = math.ceil(links_needed / core.down)
    if spines_needed >= spine.switches and links_needed >= spine.up_used:
        return None
    return PodSurplus(pod_leaves, full, rest, fa.spines_per_pod, last_spines, spine.switches, spines_needed,
                      core.switches, cores_needed, spine.up_used, links_needed, fa.spines_per_pod * spine.up,
                      last_spines * last_up, rest * leaf.up, ports_floor)


def _grouped_cores(full: int, groups: int, s_up: int, last_links: int, k_core: int) -> int:
    """Cores in the sizing's core groups (`upper_tiers.core_groups`) once the last pod's links spread over them.

    A group of G spines of every pod takes G·s_up links from the `full` pods and its share of the last pod's; a core
    takes l links from each of its spines in each full pod and its part of that share, so a group holds s_up / l
    cores, the fewest over G and l whose ports fit (`groups`: the spines of a full pod; all of them, s_up each, where
    none fits).
    """
    fewest = core_groups(full, groups, s_up, k_core, last_links)
    return fewest[0] if fewest else groups * s_up


def _last_ratio(fa: FabricAnalysis, found: PodSurplus) -> float:
    """Down:up bandwidth of the last pod's spines as cabled: its leaves' uplinks over a full pod's core links."""
    leaf, spine = fa.tier_at("leaf"), fa.tier_at("spine")
    return float((found.last_uplinks * leaf.up_speed / (found.pod_core_links * spine.up_speed)).to("").magnitude)


def _optics(c, fa: FabricAnalysis, links: int) -> tuple[int, Q | None]:
    """Transceivers and their power on `links` spine-core links of `fa` (all planes), at the tier's mean per link."""
    tc = next((t for t in c.cabling.tiers if t.fabric == fa.fabric.spec.id and t.tier == "spine_core"),
              None) if c.cabling is not None else None
    if tc is None or not tc.links:
        return 0, None
    return round(tc.transceivers * links / tc.links), (tc.optics_power * links / tc.links).to("kW")


def partial_pods(ctx: Context) -> Iterator[Violation]:
    """NET031 (`checks.network_warnings.partial_pod`): each fat tree's partial last pod cabled as full, its surplus."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            found = pod_surplus(fa)
            if found is None or withheld_tiers(fa):   # its spines' wiring counts ports they lack (NET001/NET003/NET018)
                continue
            spine, core, n = fa.tier_at("spine"), fa.tier_at("core"), fa.planes
            extra_spines, extra_cores = found.spines - found.spines_needed, found.cores - found.cores_needed
            extra_links = (found.core_links - found.core_links_needed) * n
            power = Q_(0, "kW")
            if spine.switch is not None:
                power = power + spine.switch.power.max * extra_spines * n
            if core.switch is not None:
                power = power + core.switch.power.max * extra_cores * n
            transceivers, optics = _optics(c, fa, extra_links)
            parts = [f"{k * n:,} {what if k * n > 1 else what[:-1]}" for k, what in ((extra_spines, "spines"),
                                                                                     (extra_cores, "cores")) if k]
            parts.append(f"{extra_links:,} spine-core links" + (f" with {transceivers:,} transceivers "
                         f"({optics:.1f~P})" if optics is not None else ""))
            total = power.to("kW") + (optics if optics is not None else 0 * power.to("kW"))
            per_plane = " per plane" if n > 1 else ""
            yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("tiers",),
                            f"the last of {fa.pods} pods holds {found.last_leaves} of {found.pod_leaves} leaves"
                            f"{per_plane} but is cabled as a full pod: {found.spines_per_pod} spines with "
                            f"{found.pod_core_links:,} core links, where its leaves' {found.last_uplinks:,} "
                            f"uplinks take {found.last_spines} spines (as a pod of {found.last_leaves} "
                            f"{'leaf' if found.last_leaves == 1 else 'leaves'} standing alone) and "
                            f"{found.last_core_links:,} core links; the plane's {found.spines:,} spines and "
                            f"{found.cores:,} cores could be {found.spines_needed:,} and {found.cores_needed:,} "
                            f"in core groups as sized ({found.cores_by_ports:,} by ports alone: "
                            f"{found.core_links_needed:,} links / {core.down}): {', '.join(parts)} more, "
                            f"{kw(total)} of IT power "
                            f"(switches at maximum); its spines run at {_last_ratio(fa, found):.2f}:1 down:up, "
                            f"a full pod's at {fa.oversubscription.get('spine', 1.0):.2f}:1",
                            count(found.spines + found.cores), count(found.spines_needed + found.cores_needed))


def idle_core_ports(ctx: Context) -> Iterator[Violation]:
    """NET036 (`checks.network_warnings.idle_core_ports`): cores above the count by ports alone, and what they cost.

    `analyse.core_ports.core_surplus` finds them: the even spread over pods that do not divide the core's ports.
    The finding gives the cores' ports used and free, the links each takes from a pod, the count by ports and how
    its cores would spread a pod's links (not built), and the cores more than it: their maximum power and, where
    the core switch is priced, their price.
    """
    for c in ctx.clusters.values():
        cost = ctx.operations.cost.get(f"cluster/{c.cluster.spec.id}")
        for fa in c.fabrics:
            found = core_surplus(fa)
            if found is None or withheld_tiers(fa):   # its wiring counts ports the switches lack (NET001/NET003)
                continue
            core, n = fa.tier_at("core"), fa.planes
            extra = (found.cores - found.by_ports) * n
            sw = core.switch
            power = f", {kw(sw.power.max * extra)} at maximum" if sw is not None else ""
            line = next((x for x in cost.lines if sw is not None and x.part == sw.id),
                        None) if cost is not None else None
            unit = line.unit_price if line is not None else None
            assumed = " (assumed)" if line is not None and line.basis == "assumed" else ""
            price = f", {money_text(unit * extra)} at {money_text(unit)} each{assumed}" if unit is not None else ""
            per_plane = " per plane" if n > 1 else ""
            said = (f"the {found.cores:,} cores{per_plane} use {found.used} of their {found.ports} ports each, "
                    f"{found.free:,} free{per_plane}: each meets every pod alike, {found.per_pod} links from each of "
                    f"the {found.pods} pods (the most a core group's spines and links give within {found.ports} "
                    "ports), "
                    f"where {found.by_ports:,} cores would take the {found.links:,} spine uplinks by ports alone, "
                    f"whose cores would take {found.spread} (not built: a core with more links in from one pod "
                    f"than out to another carries more than its links' worth between them); {extra:,} "
                    f"{'core' if extra == 1 else 'cores'} more than by ports{power}{price}")
            yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("tiers",), said,
                            count(found.cores), count(found.by_ports))
