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


QUOTE = ('kind: Prices\nid: quote\nprices:\n  dgx-h100-4: {capex: 3000 USD, date: "2025-01", basis: assumed, '
         'source: "test quote"}\n')


def test_a_price_list_one_side_alone_holds_lists_its_entries(tmp_path, cli, monkeypatch):
    """newuser103: a quote added in a pull request (a document with no metric of its own) listed no price, and the
    same prices moved from the parts into a quote read as removed, each head cell "—", the parts priced as before."""
    bare = "\n".join(line for line in RACK.splitlines() if not line.startswith("price:")) + "\n"
    write_tree(tmp_path / "base", {"rack.yaml": RACK})
    write_tree(tmp_path / "head", {"rack.yaml": bare, "quote.yaml": QUOTE})
    monkeypatch.chdir(tmp_path)
    r = cli("diff", "base", "head")
    assert "2 stated price(s) changed (1 added, 1 removed)" in r.out
    assert "| added | `prices/quote` | `dgx-h100-4` | — | 3,000 USD (assumed, 2025-01) | `head/quote.yaml:4:3` |" in r.out
    back = json.loads(cli("diff", "head", "base", "--format", "json").out)["prices"]
    assert [(p["change"], p["object"]) for p in back] == [("removed", "prices/quote"), ("added", "rack/dgx-h100-4")]
