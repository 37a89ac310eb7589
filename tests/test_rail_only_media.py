"""Rail-only fabrics are laid out like fat trees: their runs have lengths, each takes the option that reaches it.

Input (a network architect's trials): 20 SUs of GB300 NVL72 (11,520 GPUs) on a rail-only XDR fabric of Q3400s, 3
leaves and 2 spines per rail. Rail-only runs were counted, not laid out: with leaf-spine options listed as for a fat
tree, copper first (`[lacc-1.6t-xdr, smf-1.6t-2xdr4]`), all 15,552 leaf-spine links were counted as 3 m LACC
assemblies (0 modules, 7,776 cables), and a single `[lacc-1.6t-xdr]` passed with no reach check at all, though the
spines stand rows away from the rail leaves (CAB007 only warned of the unread options). The leaves now stand beside
the domains they serve and the spines in their racks (`archgen.analyse.rail_layout`), and CAB001 checks the reach.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from archgen.pipeline import run
from archgen.render.blocks import Para
from archgen.render.cabling import cabling
from tests.conftest import REPO, write_tree


def _case(check: str, name: str) -> dict[str, str]:
    doc = yaml.safe_load((REPO / "tests" / "checks" / "cases" / f"{check}.yml").read_text(encoding="utf-8"))
    return next(c for c in doc["cases"] if c["name"] == name)["files"]


def _tier(r, tier: str):
    return next(t for t in r.clusters["cluster/gb300-rails"].cabling.tiers if (t.fabric, t.tier) == ("compute", tier))


def test_options_listed_by_reach_are_each_read(tmp_path: Path) -> None:
    """No switch rack named: the switches stand in no rack, their runs take the floor's longest length (77.6 m, CAB004),
    past the LACC's 3 m, so every leaf-spine link is the twin-port DR4 (was: 15,552 links as 3 m LACC, 0 modules)."""
    r = run([write_tree(tmp_path, _case("CAB007", "pass_rail_only_laid_out"))])
    assert not [f for f in r.findings if f.id == "CAB007"]
    tier = _tier(r, "leaf_spine")
    assert tier.lengths_known and round(tier.max_length.m_as("m"), 1) == 77.6
    assert tier.transceivers == 15552 and set(tier.modules) == {"smf-1.6t-2xdr4"}
    loose = [f for f in r.findings if f.id == "CAB004" and f.message.startswith("leaf_spine")]
    assert loose and "leaf 216 x q3400 (no `leaf.rack` given), spine 144 x q3400" in loose[0].message
    text = " ".join(b.text for b in cabling(r.clusters["cluster/gb300-rails"]).blocks if isinstance(b, Para))
    assert "counted, not laid out" not in text


def test_rail_only_reach_is_checked(tmp_path: Path) -> None:
    """Rail leaves in each SU's network rack, spines in a row of their own, leaf-spine links all LACC: CAB001 (was
    silent). The access runs from a GB300 rack to its rail leaf, which serves 72 racks (9 SUs), stay within 47 m."""
    r = run([write_tree(tmp_path, _case("CAB001", "fail_rail_only_leaf_spine_past_copper_reach"))])
    bad = [f for f in r.findings if f.id == "CAB001"]
    assert len(bad) == 1 and bad[0].message.startswith("leaf_spine: 15552 link(s) up to 79.4 m exceed the 3 m reach")
    access = _tier(r, "access")
    assert access.links == 11520 and round(access.max_length.m_as("m"), 1) == 47.0 and not access.over_reach
    assert not r.clusters["cluster/gb300-rails"].cabling.unplaced_switches


def test_rail_layout_keeps_rails_apart(tmp_path: Path) -> None:
    """Each rail leaf takes at most its d = 72 down ports, and each leaf's 72 uplinks go to 2 spines, 36 to each."""
    import numpy as np

    from archgen.analyse.rail_layout import rail_access_ports, rail_ends
    r = run([write_tree(tmp_path, _case("CAB001", "fail_rail_only_leaf_spine_past_copper_reach"))])
    a = r.clusters["cluster/gb300-rails"]
    fa = next(f for f in a.fabrics if f.fabric.spec.id == "compute")
    _, _, _, leaf = rail_access_ports(a.cluster, fa)
    assert len(leaf) == 11520 and np.bincount(leaf).max() == fa.tier("leaf").down == 72
    dummy = {"leaf": np.zeros((216, 2), dtype=np.int64), "spine": np.zeros((144, 2), dtype=np.int64)}
    *_, group, weight = rail_ends(a.cluster, fa, "leaf_spine", dummy)
    assert len(group) == 72 * 3 * 2 and set(weight.tolist()) == {36}
    assert int(weight.sum()) == 216 * 72                   # every leaf's uplinks, once
