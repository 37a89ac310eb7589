"""The cores of 16 and 32 GB200 SUs on 3 tiers beside the count by ports alone (NET036, newuser105).

The shipped GB200 SU grown to 16 and 32 SUs with `tiers: 3` on the compute fabric: 18 leaves an SU as the shipped
spec sizes them, so 288 and 576 leaves of 32 down and 32 up ports (newuser105's hand count), pods of 32 leaves (one link per leaf-spine pair on 32-down spines), so 9 and 18 pods of 32 spines with 32
core links each. The cores (docs/clusters.md, Formulas: cores) take G·l links from each pod, G dividing the 32
spines of a pod and l their 32 uplinks, within ⌊64 / pods⌋: 7 for 9 pods, so G·l = 4 and S·s_up / (G·l) =
32·32 / 4 = 256 cores of 9 × 4 = 36 ports; 3 for 18 pods, so G·l = 2 and 512 cores, again of 36 ports. The hand
count by ports (newuser105's note, P2): 9 pods × 32 spines × 32 uplinks = 9,216 links / 64 = 144 cores; 18,432 / 64
= 288. At the catalog's QM9700 (power.max 1,176 W, assumed price 30,000 USD): 112 cores more, 131.7 kW and
3,360,000 USD; 224 more, 263.4 kW and 6,720,000 USD.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.analyse.core_ports import core_surplus
from archgen.pipeline import run
from archgen.render.cluster_fabrics import core_note
from tests.conftest import SPECS


def _grown(root: Path, sus: int, core: str = "") -> Path:
    """The shipped GB200 SU as `sus` SUs with 3 tiers on its compute fabric (`core`: its core keys)."""
    root.mkdir(parents=True)
    text = (SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8")
    for old, new in (("  - {unit: su, count: 1}", f"  - {{unit: su, count: {sus}}}"),
                     ("expect: {accelerators: 576, nodes: 144, racks: 10}\n", ""),
                     ('target: "== 8"', f'target: "== {8 * sus}"'),
                     ("    tiers: 2\n    rail_optimized: true", "    tiers: 3\n    rail_optimized: true"),
                     ("    spine: {rack: gb200-su-ib}\n", "    spine: {rack: gb200-su-ib}\n" + core),
                     ("      leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]\n",
                      "      leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]\n"
                      "      spine_core: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]\n")):
        assert old in text, old
        text = text.replace(old, new, 1)
    (root / "cluster.yaml").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[int, object]:
    """The 16- and 32-SU runs (read only)."""
    root = tmp_path_factory.mktemp("grown")
    return {n: run([_grown(root / str(n), n)]) for n in (16, 32)}


def _compute(r):
    [c] = r.clusters.values()
    return next(fa for fa in c.fabrics if fa.fabric.spec.id == "compute")


@pytest.mark.parametrize(("sus", "pods", "pair", "cores", "by_ports", "kw", "usd"), [
    (16, 9, 4, 256, 144, "131.7 kW", "3,360,000 USD"),
    (32, 18, 2, 512, 288, "263.4 kW", "6,720,000 USD")])
def test_cores_beside_the_count_by_ports(runs, sus, pods, pair, cores, by_ports, kw, usd):
    r = runs[sus]
    fa = _compute(r)
    links = pods * 32 * 32
    assert (fa.pods, fa.spines_per_pod, fa.core_group * fa.core_links_per_spine_pair) == (pods, 32, pair)
    # the rule's count: S·s_up / (G·l), the largest G·l (a power of two here) with pods·G·l <= 64
    assert pods * pair <= 64 < pods * pair * 2 and cores == 32 * 32 // pair
    found = core_surplus(fa)
    assert found is not None
    assert (found.cores, found.used, found.links, found.free) == (cores, pods * pair, links, cores * 64 - links)
    assert found.by_ports == by_ports == -(-links // 64)                     # the hand count
    low = links // pods // by_ports
    assert found.spread == f"{low} or {low + 1} links from a pod" and (links // pods) % by_ports   # never even
    [f] = [f for f in r.findings if f.id == "NET036"]
    assert f.severity == "warning" and (f.value.m, f.limit.m) == (cores, by_ports)
    assert f"{cores - by_ports} cores more than by ports, {kw} at maximum, {usd} at 30,000 USD each (assumed)" \
        in f.message
    note = core_note(fa)
    assert note is not None and f"By ports alone {by_ports} cores would take the {links:,} spine uplinks" in note
    assert "capex" in r.metrics["cluster/gb200-nvl72-su"]   # its DR8 runs past 50 m are priced (newuser105 P5)


def test_a_stated_count_below_the_rule_names_the_count_by_ports(tmp_path):
    """`core.count: 128` at 16 SUs: NET018 with the rule's 256, and the 144 by ports that no even spread reaches."""
    r = run([_grown(tmp_path / "a", 16, "    core: {count: 128}\n")])
    [f] = [f for f in r.findings if f.id == "NET018"]
    assert f.message == ("128 cores are fewer than the 256 the spines need: each core takes 8 links from its spine in "
                         "each of the 9 pods, 72 ports, and qm9700 has 64; 144 would take the 9,216 spine uplinks "
                         "by ports alone, but only with more links from some pods than from others, which is not "
                         "built (NET036)")
    assert not [f for f in r.findings if f.id == "NET036"]   # a stated count is the user's
