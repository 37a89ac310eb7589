"""Networks out of proportion: helpers of NET021 (`checks.network_warnings.out_of_proportion`) and NET017 (`surplus`).

Not a check module. Two signs that a fabric was sized by defaults nobody looked at, each a finding with the figures:

* network power (every fabric's switches at maximum, those placed beyond them, every transceiver; scale-up switches
  are compute, see `analyse.bom.surplus_switch_power`) above 15 % of the cluster's IT power: a 3-tier
  fabric over one GB300 NVL72 SU (576 GPUs) drew 1.22 MW this way before the sizing minimised switches (issue 21);
  the shipped designs stay under 7 % (DGX B200 SuperPOD 6.1 %, GB200 NVL72 SU 6.4 %, MI355X cluster 4.2 %).
  Both sides count each transceiver once: `network_power` holds every module of every tier, the NIC ends and a
  scale-up domain's cables too, and `it_power` holds each once, inside a system's `power.max` where
  `System.power_includes_optics` says so and added otherwise (`analyse.bom.optics_outside_systems`), so the share
  is of like with like;
  Where the IT power is not provided (links without media, CAB003) the share is not judged, and an info finding
  says so: the unknown transceivers add to both its sides, so the racks' own draw bounds it neither way;
* a tier whose switches use under a quarter of their ports, where more than two of them stand (two are the fewest
  without a single point of failure, so a pair of lightly used management spines is not reported).
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import count, withheld_tiers
from archgen.checks.hall_load import it_floor
from archgen.checks.registry import Context, Severity, Violation
from archgen.display import kw
from archgen.model import Switch
from archgen.units import Q

#: Network power above this share of IT power is out of proportion (the issue's figure; see the module docstring).
NETWORK_SHARE = 0.15
#: A tier of more than two switches using under this share of their ports is out of proportion.
PORT_SHARE = 0.25
#: Unused switches (NET017) drawing more than this share of the cluster's IT power are a warning, not info: a stated
#: review threshold, not a published figure. A spare pair per rack of management switches stays under it (the
#: shipped DGX B200 SuperPOD's one SN2201, the GB300 trial's 912 SN2201 at 0.1 %); 612 unused Q3400 (2.1 MW of a
#: 32k-GPU GB300 cluster's IT power, newuser72) are far above it.
SURPLUS_SHARE = 0.01


def violations(ctx: Context) -> Iterator[Violation]:
    """NET021's findings: per cluster its network power share, per fabric tier its ports in use."""
    for c in ctx.clusters.values():
        net, it = c.metrics.get("network_power"), c.metrics.get("it_power")
        floor, unknown = it_floor(c)
        if it is None and floor is not None:
            # no floor under the share: the transceivers' unknown draw adds to both network and IT power
            yield Violation(c.cluster.path, c.cluster.spec.id, ("fabrics",), f"network power share not judged: "
                            f"{unknown}, and it adds to both sides of the share (the racks alone draw "
                            f"{kw(floor)})", severity="info")
        if net is not None and it is not None and it.magnitude > 0:
            share = float((net / it).to("").magnitude)
            if share > NETWORK_SHARE:
                yield Violation(c.cluster.path, c.cluster.spec.id, ("fabrics",),
                                f"network power {kw(net)} (every fabric's switches at maximum, switches "
                                f"placed beyond them, every transceiver with the NIC ends; not the scale-up "
                                f"switches) is {share:.1%} of the IT power {kw(it)} (which holds "
                                f"each once), above {NETWORK_SHARE:.0%}", count(share),
                                count(NETWORK_SHARE))
        for fa in c.fabrics:
            held = withheld_tiers(fa)   # its ports used count links on ports a tier lacks (NET001/NET003/NET018)
            for t in fa.tiers:
                n, total = t.switches * fa.planes, t.ports_total
                if n > 2 and total and t.ports_used < PORT_SHARE * total and t.name not in held:
                    share = t.ports_used / total
                    yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + (t.name,),
                                    f"{n} {t.name} switches use {t.ports_used * fa.planes:,} of their "
                                    f"{total * fa.planes:,} ports ({share:.1%}), under a quarter",
                                    count(share), count(PORT_SHARE))


#: Switch technologies only a scale-up domain takes (NVLink and UALink trays): NET017 counts them against no
#: scale-out fabric, so a racks-only cluster stating no `scale_up` does not read its NVL72 trays as "unused".
SCALE_UP_ONLY = ("nvlink", "ualink")


def surplus(ctx: Context) -> Iterator[Violation]:
    """NET017 (`checks.network.surplus_switches`): switches placed in racks beyond what the fabrics derive."""
    for c in ctx.clusters.values():
        design = c.cluster
        derived: dict[tuple[str, str], list[tuple[str, int, tuple]]] = {}
        floating: dict[str, int] = {}
        unbuilt: set[tuple[str | None, str]] = set()   # (rack, switch) an infeasible fabric's tier counts against
        for fa in c.fabrics:
            held = withheld_tiers(fa)   # its count is no build (NET001/NET003/NET018): nothing to weigh racks against
            for t in fa.tiers:
                if t.switch is None:
                    continue
                rack = fa.fabric.spec.rack_of(t.name)
                if t.name in held:
                    unbuilt.add((rack, t.switch.id))   # a tier naming no rack: any rack that holds the part
                n = t.switches * fa.planes
                if rack is None:
                    floating[t.switch.id] = floating.get(t.switch.id, 0) + n
                else:
                    derived.setdefault((rack, t.switch.id), []).append(
                        (f"{fa.fabric.spec.id} {t.name}: {n}", n, fa.fabric.owner_path + (t.name, "rack")))
        scale_up = design.scale_up_switch.id if design.scale_up_switch else None
        parts: dict[str, Switch] = {}
        for rack_id, racks in sorted(design.rack_counts.items()):
            if rack_id not in design.rack_types:
                continue
            per_rack: dict[str, int] = {}
            for item in design.rack_types[rack_id].items:
                if isinstance(item.part, Switch) and item.part.id != scale_up and \
                        item.part.technology not in SCALE_UP_ONLY:   # a tray no scale-out fabric takes
                    per_rack[item.part.id] = per_rack.get(item.part.id, 0) + 1
                    parts[item.part.id] = item.part
            for sw, each in sorted(per_rack.items()):
                if {(rack_id, sw), (None, sw)} & unbuilt:
                    continue
                tiers = derived.get((rack_id, sw), [])
                need = sum(n for _, n, _ in tiers)
                spill = min(floating.get(sw, 0), max(racks * each - need, 0))
                if spill:
                    floating[sw] -= spill
                    tiers = [*tiers, (f"tiers naming no rack: {spill}", spill, ())]
                    need += spill
                if racks * (each - 1) < need:
                    continue
                by = f" ({', '.join(what for what, _, _ in tiers)})" if tiers else " there"
                path = next((where for _, _, where in tiers if where), design.spec.placement_path(rack_id))
                cost, severity = _surplus_cost(parts[sw], racks * each - need, c.metrics.get("it_power"))
                yield Violation(design.path, design.spec.id, path,
                                f"{sw} in the '{rack_id}' racks: {racks * each} placed ({racks} x {each} per rack), "
                                f"the fabrics derive {need or 'none'}{by}{cost}", count(racks * each), count(need),
                                severity=severity)


def _surplus_cost(switch: Switch, surplus: int, it_power: Q | None) -> tuple[str, Severity]:
    """What `surplus` unused `switch`es draw at maximum, said, and the finding's severity by its share of IT power.

    A warning where they draw more than `SURPLUS_SHARE` of the cluster's IT power (which counts them: the racks
    hold them), else info; without an IT power, info.
    """
    power = (switch.power.max * surplus).to("kW")
    if it_power is None or not it_power.magnitude:
        return f": {surplus:,} unused, {kw(power)} at maximum", "info"
    share = float((power / it_power).to("").magnitude)
    over = share > SURPLUS_SHARE
    return (f": {surplus:,} unused draw {kw(power)} at maximum, {share:.1%} of the IT power "
            f"({'above' if over else 'within'} {SURPLUS_SHARE:.0%})"), "warning" if over else "info"
