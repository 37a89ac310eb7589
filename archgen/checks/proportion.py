"""Network out of proportion to its endpoints: the helper of NET021 (`checks.network.out_of_proportion`).

Not a check module. Two signs that a fabric was sized by defaults nobody looked at, each a finding with the figures:

* network power (switches at maximum plus optics, every fabric) above 15 % of the cluster's IT power: a 3-tier
  fabric over one GB300 NVL72 SU (576 GPUs) drew 1.22 MW this way before the sizing minimised switches (issue 21);
  the shipped designs stay under 7 % (DGX B200 SuperPOD 5.9 %, GB200 NVL72 SU 6.3 %, MI355X cluster 4.2 %);
* a tier whose switches use under a quarter of their ports, where more than two of them stand (two are the fewest
  without a single point of failure, so a pair of lightly used management spines is not reported).
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import count
from archgen.checks.registry import Context, Violation
from archgen.model.cluster import Cluster

#: Network power above this share of IT power is out of proportion (the issue's figure; see the module docstring).
NETWORK_SHARE = 0.15
#: A tier of more than two switches using under this share of their ports is out of proportion.
PORT_SHARE = 0.25


def violations(ctx: Context) -> Iterator[Violation]:
    """NET021's findings: per cluster its network power share, per fabric tier its ports in use."""
    for c in ctx.clusters.values():
        net, it = c.metrics.get("network_power"), c.metrics.get("it_power")
        if net is not None and it is not None and it.magnitude > 0:
            share = float((net / it).to("").magnitude)
            if share > NETWORK_SHARE:
                yield Violation(c.cluster.path, c.cluster.spec.id, ("fabrics",),
                                f"network power {net.to('kW'):.1f~P} is {share:.1%} of the IT power "
                                f"{it.to('kW'):.1f~P}, above {NETWORK_SHARE:.0%}", count(share),
                                count(NETWORK_SHARE))
        for fa in c.fabrics:
            for t in fa.tiers:
                n, total = t.switches * fa.planes, t.ports_total
                if n > 2 and total and t.ports_used < PORT_SHARE * total:
                    share = t.ports_used / total
                    yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + (t.name,),
                                    f"{n} {t.name} switches use {t.ports_used * fa.planes:,} of their "
                                    f"{total * fa.planes:,} ports ({share:.1%}), under a quarter",
                                    count(share), count(PORT_SHARE))


def placement_path(spec: Cluster, rack_id: str) -> tuple:
    """Field path of the first units or layout entry that places racks of type `rack_id` (for NET017's line)."""
    for i, unit in enumerate(spec.units):
        for j, entry in enumerate(unit.racks):
            if entry.rack == rack_id:
                return ("units", i, "racks", j, "rack")
    return next((("layout", i, "rack") for i, p in enumerate(spec.layout) if p.rack == rack_id), ("layout",))
