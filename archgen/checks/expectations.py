"""What a cluster's author expects (`expect:`) against what archgen derives: the helpers of NET008.

Not a check module (NET008 is `checks.network.totals`): the expectation's own consistency and the switches and
cables per tier of each fabric it names.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import ClusterAnalysis, count
from archgen.checks.registry import Violation
from archgen.model.cluster import TierCables, TierSwitches


def inconsistent_expectation(c: ClusterAnalysis) -> str:
    """Why an expectation contradicts itself: nodes × accelerators per node != accelerators, or ''.

    Only when every node of the layout carries the same number of accelerators, so that the product is defined.
    """
    want = c.cluster.spec.expect
    per_node = {nt.part.accelerators for nt in c.nodes}
    if want.nodes is None or want.accelerators is None or len(per_node) != 1:
        return ""
    (per,) = per_node
    if want.nodes * per == want.accelerators:
        return ""
    return (f"; the expectation contradicts itself: {want.nodes} expected nodes x {per} accelerators per node "
            f"({', '.join(sorted(nt.part.id for nt in c.nodes))}) = {want.nodes * per}, not {want.accelerators}")


def expected_fabrics(c: ClusterAnalysis) -> Iterator[Violation]:
    """Switches and cables per tier of `expect.fabrics` against the derived ones (all planes)."""
    spec = c.cluster.spec
    by_id = {fa.fabric.spec.id: fa for fa in c.fabrics}
    for fid, want in spec.expect.fabrics.items():
        where = ("expect", "fabrics", fid)
        fa = by_id.get(fid)
        if fa is None:
            yield Violation(c.cluster.path, spec.id, where, f"expect names fabric '{fid}', which the cluster does "
                            f"not have (fabrics: {', '.join(sorted(by_id)) or 'none'})")
            continue
        switches = {t.name: t.switches * fa.planes for t in fa.tiers}
        for tier, n in stated(want.switches).items():
            have = switches.get(tier, 0)
            if have != n:
                yield Violation(fa.fabric.path, spec.id, (*where, "switches", tier),
                                f"expected {n} {tier} switches in fabric {fid}, the fabric derives {have}"
                                f"{'' if tier in switches else f' (it has {fa.tiers_used} tier(s))'}",
                                count(have), count(n))
        cab = {t.tier: t for t in getattr(c.cabling, "tiers", ()) if t.fabric == fid}
        levels = ("access", "leaf_spine", "spine_core")
        derived = {"links": {lv: fa.links.get(lv, 0) * fa.planes for lv in levels},
                   "cables": {lv: cab[lv].physical if lv in cab else 0 for lv in levels},
                   "transceivers": {lv: cab[lv].transceivers if lv in cab else 0 for lv in levels}}
        for what, haves in derived.items():
            for tier, n in stated(getattr(want, what)).items():
                have = haves[tier]
                if have != n:
                    yield Violation(fa.fabric.path, spec.id, (*where, what, tier),
                                    f"expected {n} {tier} {what} in fabric {fid}, the fabric derives {have} "
                                    f"({derived['links'][tier]} links)", count(have), count(n))


def stated(counts: TierSwitches | TierCables) -> dict[str, int]:
    """The counts an expectation states, by tier in field order: `model_dump(exclude_none=True)`'s dict.

    Read from the fields, not dumped: a warm `archgen check` reads its specs back from the snapshot, so the first
    `model_dump` of these models built their serializers (a pydantic schema each) and set off pydantic's plugin
    discovery, which imports `importlib.metadata` and reads every installed distribution's entry points (issue 25).
    """
    return {name: n for name in type(counts).model_fields if (n := getattr(counts, name)) is not None}


def cluster_totals(c: ClusterAnalysis) -> Iterator[Violation]:
    """NET008 for one cluster: accelerators = nodes × accelerators per node, and `expect` against the derived totals."""
    spec = c.cluster.spec
    derived = {"accelerators": c.accelerators, "nodes": c.node_count, "racks": c.cluster.rack_total}
    by_nodes = sum(nt.part.accelerators * nt.count for nt in c.nodes)
    if by_nodes != c.accelerators:
        yield Violation(c.cluster.path, spec.id, ("layout",), f"accelerators {c.accelerators} != nodes x "
                        f"accelerators per node {by_nodes}", count(c.accelerators), count(by_nodes))
    if c.accelerators == 0 and not c.cluster.too_large:
        yield Violation(c.cluster.path, spec.id, ("layout",), "the cluster holds no accelerators")
    inconsistent = inconsistent_expectation(c)
    for key, value in derived.items():
        want = getattr(spec.expect, key)
        if want is not None and want != value:
            yield Violation(c.cluster.path, spec.id, ("expect", key), f"expected {want} {key}, the layout gives "
                            f"{value}{inconsistent if key == 'accelerators' else ''}", count(value), count(want))
    yield from expected_fabrics(c)
