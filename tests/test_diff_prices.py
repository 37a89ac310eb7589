"""`diff` lists the stated prices a pull request adds, removes or changes (newuser65's trial).

`specs/racks/dgx-h100-4.yaml` losing its enclosure price read "✅ ... No differences": the rack is in no cluster, so no
capex moved, and a rack's BOM carries no cost.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
PRICE = 'price: {capex: 3000 USD, date: "2025-01", basis: assumed,'


def _sides(tmp_path, monkeypatch, head: str) -> None:
    assert PRICE in RACK
    write_tree(tmp_path / "base", {"rack.yaml": RACK})
    write_tree(tmp_path / "head", {"rack.yaml": head})
    monkeypatch.chdir(tmp_path)


def test_a_price_removed_from_a_rack_in_no_cluster_is_listed(tmp_path, cli, monkeypatch):
    _sides(tmp_path, monkeypatch, "\n".join(line for line in RACK.splitlines() if not line.startswith("price:")) + "\n")
    r = cli("diff", "base", "head")
    assert r.code == 0 and "No differences" not in r.out
    assert "1 stated price(s) changed (1 removed)" in r.out
    line = next(i for i, text in enumerate(RACK.splitlines(), 1) if text.startswith("price:"))
    assert (f"| removed | `rack/dgx-h100-4` | `dgx-h100-4` | 3,000 USD (assumed, 2025-01) | — | "
            f"`base/rack.yaml:{line}:1` |") in r.out


def test_a_price_changed_is_listed_with_both_sides(tmp_path, cli, monkeypatch):
    _sides(tmp_path, monkeypatch, RACK.replace("capex: 3000 USD", "capex: 4500 USD"))
    doc = json.loads(cli("diff", "base", "head", "--format", "json").out)
    [p] = doc["prices"]
    assert (p["change"], p["base"]["capex"]["value"], p["head"]["capex"]["value"]) == ("changed", 3000, 4500)
    assert doc["summary"]["prices_changed"] == 1
