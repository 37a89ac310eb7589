"""Switch-end optics per rack: the transceivers and active cable ends in the ports of the switches a rack holds.

They draw power inside that rack, so the rack's budgets carry them (`analyse.rack.analyse` takes this module's
`switch_optics`); the cluster's own totals count every module once, from the cabling (`analyse.cabling`).
"""

from __future__ import annotations

import numpy as np

from archgen.analyse.cabling import TierRuns, _ports_per_module, link_speed
from archgen.analyse.network import ClusterAnalysis, FabricAnalysis
from archgen.build import LinkOption
from archgen.model.network import COPPER_MEDIA
from archgen.units import Q_, Q


def switch_optics(clusters: dict[str, ClusterAnalysis]) -> dict[str, Q]:
    """Switch-end transceiver power per rack path: its most loaded instance in any cluster (for its budgets)."""
    out: dict[str, Q] = {}
    for a in clusters.values():
        for rid, q in rack_optics(a).items():
            path = f"rack/{rid}"
            out[path] = max(out.get(path, q), q)
    return out


def rack_optics(a: ClusterAnalysis) -> dict[str, Q]:
    """Switch-end transceiver power of the most loaded rack instance of each rack type of one cluster."""
    cab = a.cabling
    if cab is None or not cab.runs:
        return {}
    watts = np.zeros(len(a.cluster.instances), dtype=float)
    options = {(t.fabric, t.tier): t.options for t in cab.tiers}
    fabrics = {fa.fabric.spec.id: fa for fa in a.fabrics}
    for tr in cab.runs:
        _switch_end_power(fabrics[tr.fabric], tr.tier, tr, options[(tr.fabric, tr.tier)], watts)
    worst: dict[str, float] = {}
    for inst, w in zip(a.cluster.instances, watts.tolist(), strict=True):
        worst[inst.rack.spec.id] = max(worst.get(inst.rack.spec.id, 0.0), w)
    return {rid: Q_(w, "W").to("kW") for rid, w in sorted(worst.items())}


def _switch_end_power(fa: FabricAnalysis, tier: str, tr: TierRuns, options: tuple[LinkOption, ...],
                      out: np.ndarray) -> None:
    """Add the transceivers and active-cable ends plugged into switch ports by one tier's runs to `out` (W/rack).

    A switch end is the B end of every tier, and the A end of the switch tiers (an access run's A end is a node,
    whose NIC cage power is left to the system's figure, except the switch ports the access tier places at the
    leaves). Modules per rack are ⌈links / ports per module⌉, as in the cluster totals; unplaced ends hold none.
    """
    if not options or not len(tr.length):
        return
    speed = link_speed(fa, tier)
    a_switch = tr.group < 0 if tier == "access" else np.ones(len(tr.a_rack), dtype=bool)
    for rack, side, mask in ((tr.b_rack, "b", np.ones(len(tr.b_rack), dtype=bool)), (tr.a_rack, "a", a_switch)):
        for i, opt in enumerate(options):
            end = getattr(opt, side)
            sel = mask & (tr.option == i) & (rack >= 0)
            if not sel.any() or end.power_per_end.magnitude == 0:
                continue
            links = np.bincount(rack[sel], weights=tr.weight[sel], minlength=len(out))
            per = min(_ports_per_module(opt.a, speed), _ports_per_module(opt.b, speed)) \
                if opt.a.media in COPPER_MEDIA else _ports_per_module(end, speed)
            out += np.ceil(links / per) * end.power_per_end.m_as("W")
