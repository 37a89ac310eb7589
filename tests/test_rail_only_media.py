"""A rail-only fabric's link options after the first are read by nothing, and now say so (CAB007).

Input (a network architect's trial): 20 SUs of GB300 NVL72 (11,520 GPUs) on a rail-only XDR fabric of Q3400s, 3
leaves and 2 spines per rail, whose leaf-spine options were listed as for a fat tree, copper first:
`[lacc-1.6t-xdr, smf-1.6t-2xdr4]`. Rail-only runs are not laid out, so all 15,552 leaf-spine links were counted
as 3 m LACC assemblies (0 modules, 7,776 cables) with no warning, and the cluster document's cabling section said
every run took "the first link option whose reach covers its length".
"""

from __future__ import annotations

from pathlib import Path

import yaml

from archgen.pipeline import run
from archgen.render.blocks import Para
from archgen.render.cabling import cabling
from tests.conftest import REPO, write_tree


def _case(name: str) -> dict[str, str]:
    doc = yaml.safe_load((REPO / "tests" / "checks" / "cases" / "CAB007.yml").read_text(encoding="utf-8"))
    return next(c for c in doc["cases"] if c["name"] == name)["files"]


def test_options_after_the_first_are_reported(tmp_path: Path) -> None:
    r = run([write_tree(tmp_path, _case("fail_leaf_spine_listed_by_reach"))])
    found, = (f for f in r.findings if f.id == "CAB007")
    assert found.severity == "warning" and found.object == "cluster/gb300-rails/fabric/compute"
    assert found.message.startswith("leaf_spine: 15552 link(s) counted as lacc-1.6t-xdr (reach 3 m)")
    a = r.clusters["cluster/gb300-rails"]
    tier = next(t for t in a.cabling.tiers if (t.fabric, t.tier) == ("compute", "leaf_spine"))
    assert (tier.transceivers, tier.max_length) == (0, None)     # the count CAB007 warns about
    text = " ".join(b.text for b in cabling(a).blocks if isinstance(b, Para))
    assert "counted, not laid out" in text and "first link option, whatever the distance" in text


def test_one_option_per_tier_is_quiet(tmp_path: Path) -> None:
    r = run([write_tree(tmp_path, _case("pass_one_option_per_tier"))])
    assert not [f for f in r.findings if f.id == "CAB007"]
    tier = next(t for t in r.clusters["cluster/gb300-rails"].cabling.tiers if t.tier == "leaf_spine")
    assert tier.transceivers == 15552          # twin-port 1.6T DR4 modules, 2 x 800G each, both ends
