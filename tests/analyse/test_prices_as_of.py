"""With the cost's date stated (`cost.as_of`), a part takes its newest price held at that date (money40).

A price dated after the date the cost is for did not exist then, yet it was taken, and as the newest price on the
bill of materials every other price was judged against it (money39's open doubt). Now it is set aside: the part
takes its price held at that date (a `Prices` list's still before its own), or, where every price it has is later,
it is unpriced at that date, so the capex and what rests on it are not provided and COST002 says why. Without a
cost date nothing changes: a list's price overlays the part's own whatever its date.

Fixture: the shipped GB200 NVL72 SU (every catalog price dated 2025-01) with a project copy of its hall,
hall-liquid, that states `as_of: "2025-12"`, and a vendor's quote for the compute trays dated 2027-03.
"""

from __future__ import annotations

from pathlib import Path

from archgen.pipeline import run
from tests.analyse.test_cost_rack_quote import SU_CAPEX, _design
from tests.analyse.test_future_prices import CATALOG

CLUSTER = "cluster/gb200-nvl72-su"
QUOTE = """\
kind: Prices
id: vendor-a
prices:
  gb200-compute-tray: {capex: 160000 USD, date: "2027-03", basis: sourced, source: "Vendor A quote line 2"}
"""
LATER = ("gb200-compute-tray (2027-03, Prices vendor-a) is dated after hall-liquid's cost date, 2025-12 "
         "(`cost.as_of`); a price of a later price level than the one the cost is for, or a date written wrongly; a "
         "part's price dated after it is not used: the capex takes its newest price held then, and a part with none "
         "is unpriced (COST002)")


def _dated(root: Path, as_of: str | None = "2025-12") -> Path:
    """The design with a project copy of hall-liquid that states `as_of` (none: the hall as shipped)."""
    hall = (CATALOG / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
    if as_of is not None:
        assert "\n  discount_rate: 0.08\n" in hall
        hall = hall.replace("\n  discount_rate: 0.08\n", f'\n  discount_rate: 0.08\n  as_of: "{as_of}"\n', 1)
    (root / "hall-liquid.yaml").write_text(hall, encoding="utf-8")
    return root


def _found(r, check: str) -> list[str]:
    return [f.message for f in r.findings if f.id == check]


def test_two_prices_straddling_the_cost_date_take_the_one_held_then(tmp_path):
    r = run([_dated(_design(tmp_path / "a", QUOTE))])
    cost = r.operations.cost[r.clusters[CLUSTER].cluster.path]
    (tray,) = [line for line in cost.lines if line.part == "gb200-compute-tray"]
    assert (tray.unit_price.m, tray.date, tray.listed, tray.later) == (150_000, "2025-01", "", (("2027-03", "vendor-a"),))
    assert r.metrics[CLUSTER]["capex"].m == SU_CAPEX   # the catalog's 2025-01 price, not the 2027 quote's
    assert LATER in _found(r, "COST006")
    assert not any("older than the newest" in m for m in _found(r, "COST006"))   # was: every 2025 price, than 2027's
    assert not _found(r, "COST002")


def test_a_list_price_held_then_still_overlays_a_newer_own_price(tmp_path):
    r = run([_dated(_design(tmp_path / "a", QUOTE.replace("2027-03", "2024-06").replace("160000", "140000")))])
    cost = r.operations.cost[r.clusters[CLUSTER].cluster.path]
    (tray,) = [line for line in cost.lines if line.part == "gb200-compute-tray"]
    assert (tray.unit_price.m, tray.date, tray.listed, tray.later) == (140_000, "2024-06", "vendor-a", ())
    assert r.metrics[CLUSTER]["capex"].m == SU_CAPEX - 144 * 10_000


def test_two_lists_straddling_the_cost_date_take_the_one_held_then(tmp_path):
    """Two quotes of one proposal for the trays: COST004 still reports the disagreement, naming the one used."""
    root = _dated(_design(tmp_path / "a", QUOTE))
    (root / "earlier.yaml").write_text(QUOTE.replace("vendor-a", "vendor-b").replace("2027-03", "2025-06")
                                       .replace("160000", "145000"), encoding="utf-8")
    r = run([root])
    cost = r.operations.cost[r.clusters[CLUSTER].cluster.path]
    (tray,) = [line for line in cost.lines if line.part == "gb200-compute-tray"]
    assert (tray.unit_price.m, tray.listed, tray.later) == (145_000, "vendor-b", (("2027-03", "vendor-a"),))
    assert _found(r, "COST004") == ["gb200-compute-tray is priced 145000 USD here and 160000 USD in Prices "
                                    "'vendor-a'; this one, held at the cost date, is used"]   # was: "which is used"


def test_only_a_later_price_leaves_the_part_unpriced_at_that_date(tmp_path):
    root = _dated(_design(tmp_path / "a", QUOTE.replace("gb200-compute-tray", "sn4600c")
                          .replace("160000 USD", "15000 USD")))
    part = (CATALOG / "switches" / "sn4600c.yaml").read_text(encoding="utf-8")
    assert 'date: "2025-01"' in part
    (root / "sn4600c.yaml").write_text(part.replace('date: "2025-01"', 'date: "2026-09"', 1), encoding="utf-8")
    r = run([root])
    assert "capex" not in r.metrics[CLUSTER] and "tco_per_accelerator_hour" not in r.metrics[CLUSTER]
    assert _found(r, "COST002") == [
        "capex, TCO and cost per accelerator-hour and per token not provided: unpriced parts sn4600c x2 (priced only "
        "after the cost date, 2025-12: 2027-03 in Prices vendor-a and 2026-09)"]
    assert any(m.startswith("sn4600c (2026-09), sn4600c (2027-03, Prices vendor-a) are dated after hall-liquid's "
                            "cost date, 2025-12") for m in _found(r, "COST006"))


def test_without_a_cost_date_the_quote_overlays_as_before(tmp_path):
    r = run([_dated(_design(tmp_path / "a", QUOTE), as_of=None)])
    cost = r.operations.cost[r.clusters[CLUSTER].cluster.path]
    (tray,) = [line for line in cost.lines if line.part == "gb200-compute-tray"]
    assert (tray.unit_price.m, tray.date, tray.listed, tray.later) == (160_000, "2027-03", "vendor-a", ())
    assert r.metrics[CLUSTER]["capex"].m == SU_CAPEX + 144 * 10_000
    assert any("dated after archgen" in m for m in _found(r, "COST006"))   # its own date (money39), not set aside
