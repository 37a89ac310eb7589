"""A quote's rack price beside its contents' own prices is flagged (COST004): a populated rack is not counted twice.

A buyer puts vendor A's quote line "GB200 NVL72 rack, 72 GPUs, fully populated: $3.4M" in a `Prices` document.
A rack's price is the empty rack's (enclosure and busbar: `Rack.price`), so archgen adds the catalog's own
prices of the 18 compute trays, 9 NVLink switch trays, 8 power shelves and 2 SN2201 placed in it. On the buyer's
four-SU proposal (32 racks) that read as capex $225.9M and $3.06 per GPU-hour, with no finding, where the quote's
$3.4M a rack against the catalog's $3.09M (its $3.04M of parts and $50K enclosure) meant about $1.85 per GPU-hour.
The figure stays as the prices give it; COST004 says where it counts twice.
"""

from __future__ import annotations

from pathlib import Path

from archgen.pipeline import run
from tests.conftest import SPECS

CLUSTER = "cluster/gb200-nvl72-su"
QUOTE = """\
kind: Prices
id: vendor-a-quote
prices:
  gb200-nvl72: {capex: 3400000 USD, date: "2025-06", basis: sourced,
                source: "Vendor A quote line 1: GB200 NVL72 rack, 72 GPUs, fully populated"}
"""
#: The same quote split as the vendor itemises it: the trays at their quoted price, the rack as its enclosure.
SPLIT = QUOTE.replace("3400000 USD", "60000 USD") + (
    '  gb200-compute-tray: {capex: 165000 USD, date: "2025-06", basis: sourced, source: "Vendor A quote line 2"}\n')


#: The shipped GB200 SU's capex: 27,715,330 USD before its OOB leaves were sized per rack (481 Cat6a at 10 USD, not
#: 273; 64 100G SR4 modules at 200 USD, not 24: + 10,080 USD).
#: 132 leaf-spine links past the twin-port DAC's longest length sold (2 m, MCP4Y10) took 132 SR8 modules at 1,000
#: USD in place of 66 DACs at 500 USD (+ 99,000 USD); they take 66 LACC at 3 m, the shortest sold, at the DAC's
#: 500 USD placeholder (tests/analyse/test_copper_shortest_sold.py): back to + 0.
SU_CAPEX = 27_715_330 + (481 - 273) * 10 + (64 - 24) * 200


def _design(root: Path, prices: str) -> Path:
    """The shipped GB200 NVL72 SU cluster in `root` with `prices` (a Prices document) beside it; test_price_dates too."""
    root.mkdir(parents=True)
    (root / "cluster.yaml").write_text((SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    (root / "prices.yaml").write_text(prices, encoding="utf-8")
    return root


def test_a_rack_quote_beside_its_contents_own_prices_is_flagged(tmp_path):
    r = run([_design(tmp_path / "a", QUOTE)])
    found = [f for f in r.findings if f.id == "COST004"]
    assert [(f.severity, f.object, f.location.line if f.location else None) for f in found] == [
        ("warning", "prices/vendor-a-quote", 4)]
    message = found[0].message
    assert message.startswith("gb200-nvl72 is priced 3,400,000 USD here as the empty rack")
    assert "gb200-compute-tray x18 at 150,000 USD" in message and "nvlink5-switch-tray x9 at 30,000 USD" in message
    assert "3,044,000 USD a rack" in message                  # 18 x 150k + 9 x 30k + 8 x 8k + 2 x 5k
    assert r.metrics[CLUSTER]["capex"].m == SU_CAPEX - 8 * 50_000 + 8 * 3_400_000   # counted as the prices say


def test_a_quote_that_prices_the_contents_too_is_not_flagged(tmp_path):
    r = run([_design(tmp_path / "a", SPLIT)])
    assert not [f for f in r.findings if f.id == "COST004"]


#: A genuine enclosure quote: the rack maker's price of the empty ORv3 rack, the trays keeping the catalog's prices.
ENCLOSURE = QUOTE.replace("3400000 USD", "45000 USD").replace(
    "Vendor A quote line 1: GB200 NVL72 rack, 72 GPUs, fully populated", "Rack maker quote: ORv3 enclosure")


def test_an_enclosure_quote_that_says_so_is_not_flagged(tmp_path):
    """`rack: empty` states what the price covers: no warning (before, the same quote read as a populated rack)."""
    r = run([_design(tmp_path / "a", ENCLOSURE.replace("basis: sourced,", "basis: sourced, rack: empty,"))])
    assert not [f for f in r.findings if f.id == "COST004"]
    assert r.metrics[CLUSTER]["capex"].m == SU_CAPEX - 8 * 50_000 + 8 * 45_000


def test_an_enclosure_quote_that_does_not_say_so_is_still_flagged(tmp_path):
    r = run([_design(tmp_path / "a", ENCLOSURE)])
    found = [f for f in r.findings if f.id == "COST004"]
    assert [f.severity for f in found] == ["warning"]
    assert found[0].message.endswith("(state `rack: empty` on a price of the empty rack)")


def test_a_quote_stated_as_the_populated_rack_is_an_error(tmp_path):
    r = run([_design(tmp_path / "a", QUOTE.replace("basis: sourced,", "basis: sourced, rack: populated,"))])
    assert [(f.severity, f.message) for f in r.findings if f.id == "COST004"] == [
        ("error", "gb200-nvl72 is priced 3,400,000 USD here as the populated rack, and archgen prices the parts "
                  "placed in a rack by their own ids: they would be counted twice")]


def test_rack_is_stated_on_racks_only(tmp_path):
    tray = ('  gb200-compute-tray: {capex: 165000 USD, date: "2025-06", basis: sourced, rack: empty, '
            'source: "Vendor A quote line 2"}\n')
    r = run([_design(tmp_path / "a", SPLIT.replace(SPLIT.splitlines()[-1] + "\n", tray))])
    assert [(f.severity, f.message) for f in r.findings if f.id == "COST004"] == [
        ("error", "'rack: empty' states what a rack's price covers; gb200-compute-tray is no rack")]
