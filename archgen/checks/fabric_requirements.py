"""A fabric's stated requirements against what it derives: the helpers of NET006, NET007 and NET034.

Not a check module (NET006 is `checks.network.oversubscription_bisection`, NET007
`checks.network.nic_bandwidth_per_accelerator`, NET034 `checks.network_warnings.even_share_bisection`): each tier's
oversubscription and the bisection per accelerator against `max_oversubscription` and
`min_bisection_per_accelerator`, the NIC bandwidth per accelerator against `min_bandwidth_per_accelerator`, and a
bisection that is the even share's, not the wired leaves' least cut, and so does not prove the minimum it meets.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import count
from archgen.analyse.nodes import fabric_ports_rate
from archgen.checks.registry import Context, Violation
from archgen.display import figure, metric_value
from archgen.metrics import find


def bisection_shortfalls(ctx: Context) -> Iterator[Violation]:
    """NET006: a tier above `max_oversubscription`, or bisection per accelerator below the stated minimum.

    A figure an infeasible topology's errors withheld (`network.infeasible`: gone from the metrics) is not judged:
    it counts links on ports the switches do not have, and NET001/NET003/NET018 say so.
    """
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            spec = fa.fabric.spec
            if spec.max_oversubscription is not None:
                for tier, ratio in fa.oversubscription.items():
                    if f"{tier}.oversubscription" in fa.metrics and ratio > spec.max_oversubscription + 1e-9:
                        yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path +
                                        ("max_oversubscription",),
                                        f"{tier} oversubscription as used {ratio:.3g}:1 (the down ports in use "
                                        f"over the up ports) exceeds {spec.max_oversubscription:g}:1", count(ratio),
                                        count(spec.max_oversubscription))
            need = spec.min_bisection_per_accelerator
            if need is not None and fa.served and "bisection_bandwidth" in fa.metrics:
                have = (fa.bisection / fa.served).to(need.units)
                if have < need:
                    yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path +
                                    ("min_bisection_per_accelerator",),
                                    f"bisection {figure(have)} per accelerator (one direction, over all "
                                    f"accelerators; full bisection is half the injection of "
                                    f"{figure((fa.injection / fa.served).to(need.units))}) is below "
                                    f"{need:~P}", have, need)


def bandwidth_shortfalls(ctx: Context) -> Iterator[Violation]:
    """NET007: NIC bandwidth into the fabric per accelerator (each card at most its host interface) below the need."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            need = fa.fabric.spec.min_bandwidth_per_accelerator
            if need is None:
                continue
            for nt in c.nodes:
                ports = fa.ports_per_node.get(nt.part.id, 0)
                if not nt.part.accelerators:
                    continue
                line, carried = fabric_ports_rate(ctx.design, nt.part, fa.fabric.spec, ports)
                per_acc = (carried / nt.part.accelerators).to(need.units)
                if per_acc < need:
                    cap = (f", each NIC card at most its host interface: {figure(carried)} in all"
                           if carried < line * ports * (1 - 1e-9) else "")
                    yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path +
                                    ("min_bandwidth_per_accelerator",),
                                    f"{nt.part.id}: {ports} x {line:~P}{cap} for {nt.part.accelerators} "
                                    f"accelerators = {figure(per_acc)} each, below {need:~P}", per_acc, need)


def even_share_bisections(ctx: Context) -> Iterator[Violation]:
    """NET034: a rail plane's bisection cut over the even share of its ports where its leaves are wired unevenly.

    The bisection reads as `bisection_bandwidth` does in the documents (`display.metric_value`): '13,107.2 Tbit/s',
    not '1.311×10⁴ Tb/s' (topo36). One an infeasible topology's errors withheld (`network.infeasible`: gone from the
    metrics) is not said, as NET006 judges none: it counts links on ports the switches do not have.
    """
    shown = find("fabric", "bisection_bandwidth")
    assert shown is not None   # a row of `metrics_fabric.FABRIC`
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            if not fa.even_share or "bisection_bandwidth" not in fa.metrics:
                continue
            need = fa.fabric.spec.min_bisection_per_accelerator
            have = (fa.bisection / fa.served).to(need.units) if need is not None and fa.served else None
            met = have is not None and need is not None and have >= need
            at = figure(have) if have is not None else ""
            said = (f"bisection {metric_value(shown, fa.bisection)} is cut over the access ports shared evenly over "
                    f"the used leaves, not over the leaves as wired: {fa.even_share}. The least cut of the wired "
                    f"leaves can be lower, so this figure and its one-switch-lost figures are possibly above it")
            yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("rail_optimized",),
                            said + (f"; min_bisection_per_accelerator {need:~P}, met at {at} per accelerator, is "
                                    "not proven" if met else ""), fa.bisection,
                            public=f"{said}; the stated minimum bisection of {need:~P} per accelerator, met at "
                                   f"{at}, is not proven" if met else "")
