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


def _two_lists(root: Path, a: tuple[str, int], b: tuple[str, int], as_of: str | None = "2025-12"):
    """The trays priced by vendor-a and vendor-b at (date, USD) each: the run and the trays' cost line."""
    root = _dated(_design(root, QUOTE.replace("2027-03", a[0]).replace("160000", str(a[1]))), as_of)
    (root / "other.yaml").write_text(QUOTE.replace("vendor-a", "vendor-b").replace("2027-03", b[0])
                                     .replace("160000", str(b[1])), encoding="utf-8")
    r = run([root])
    cost = r.operations.cost[r.clusters[CLUSTER].cluster.path]
    (tray,) = [line for line in cost.lines if line.part == "gb200-compute-tray"]
    return r, tray


def _severities(r, check: str) -> list[tuple[str, str]]:
    return [(f.severity, f.message) for f in r.findings if f.id == check]


def test_two_lists_straddling_the_cost_date_take_the_one_held_then(tmp_path):
    """Two quotes of one proposal for the trays at dates the cost date picks between: a price history (info)."""
    r, tray = _two_lists(tmp_path / "a", ("2027-03", 160_000), ("2025-06", 145_000))
    assert (tray.unit_price.m, tray.listed, tray.later) == (145_000, "vendor-b", (("2027-03", "vendor-a"),))
    assert _severities(r, "COST004") == [("info", "gb200-compute-tray is priced 145000 USD here (2025-06) and 160000 "
                                                  "USD in Prices 'vendor-a' (2027-03): a price history, not a "
                                                  "conflict, since the cost date takes the newest price held then; "
                                                  "this one is used")]   # costtidy40: was an error


def test_two_lists_held_at_two_dates_take_the_newer_not_the_first(tmp_path):
    r, tray = _two_lists(tmp_path / "a", ("2024-06", 140_000), ("2025-06", 145_000))
    assert (tray.unit_price.m, tray.date, tray.listed, tray.later) == (145_000, "2025-06", "vendor-b", ())
    assert r.metrics[CLUSTER]["capex"].m == SU_CAPEX - 144 * 5_000
    assert [s for s, _ in _severities(r, "COST004")] == ["info"]
    assert _found(r, "COST004")[0].endswith("; this one is used")


def test_two_lists_of_one_date_still_disagree(tmp_path):
    """The date cannot pick between two prices of one date: an error, the first list by id used, as without it."""
    r, tray = _two_lists(tmp_path / "a", ("2025-06", 140_000), ("2025-06", 145_000))
    assert (tray.unit_price.m, tray.listed) == (140_000, "vendor-a")
    assert _severities(r, "COST004") == [("error", "gb200-compute-tray is priced 145000 USD here and 140000 USD in "
                                                   "Prices 'vendor-a', which is used")]
    r, tray = _two_lists(tmp_path / "b", ("2025-06", 140_000), ("2025-06-20", 145_000))   # a month says no day
    assert tray.listed == "vendor-a" and [s for s, _ in _severities(r, "COST004")] == ["error"]


def test_two_days_of_one_month_are_told_apart(tmp_path):
    """By day where both give one, as a price after the cost date is (`dated_after`): the later day is used."""
    r, tray = _two_lists(tmp_path / "a", ("2025-06-02", 140_000), ("2025-06-20", 145_000))
    assert (tray.unit_price.m, tray.listed) == (145_000, "vendor-b")   # by month: the first by id, vendor-a's
    assert [s for s, _ in _severities(r, "COST004")] == ["info"]


def test_without_a_cost_date_two_dated_lists_still_disagree(tmp_path):
    r, tray = _two_lists(tmp_path / "a", ("2024-06", 140_000), ("2025-06", 145_000), as_of=None)
    assert (tray.unit_price.m, tray.listed) == (140_000, "vendor-a")   # the first by id, whatever its date
    assert _severities(r, "COST004") == [("error", "gb200-compute-tray is priced 145000 USD here and 140000 USD in "
                                                   "Prices 'vendor-a', which is used")]


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


def test_a_third_list_agreeing_with_the_used_price_is_no_price_history(tmp_path):
    """Three lists of one date, the third agreeing with the first (used): one error, on the second; the third is no
    "price history" with the second, since their dates do not tell them apart (review60: it read as one, information)."""
    root = _dated(_design(tmp_path / "a", QUOTE.replace("2027-03", "2025-06").replace("160000", "140000")))
    for vendor, usd in (("vendor-b", 145_000), ("vendor-c", 140_000)):
        (root / f"{vendor}.yaml").write_text(QUOTE.replace("vendor-a", vendor).replace("2027-03", "2025-06")
                                             .replace("160000", str(usd)), encoding="utf-8")
    r = run([root])
    cost = r.operations.cost[r.clusters[CLUSTER].cluster.path]
    (tray,) = [line for line in cost.lines if line.part == "gb200-compute-tray"]
    assert (tray.unit_price.m, tray.listed) == (140_000, "vendor-a")
    assert [(f.severity, f.object) for f in r.findings if f.id == "COST004"] == [("error", "prices/vendor-b")]
