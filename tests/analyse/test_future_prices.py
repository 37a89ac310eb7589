"""A price dated after this archgen's own date, where the cost states none, is named as a likely mistyped date (COST006).

newuser98 priced the GB200 NVL72 SU's compute trays at a quote dated 2031-06 (a mistyped 2026) beside the catalog's
2025 prices: with no `cost.as_of`, the 2031 price was taken as the newest, and COST006 called every other price
"more than 12 months older" without naming the one mistyped year. archgen reads no clock (one version's output is
the same any day), so the date judged against is the code's own, `archgen.CODE_DATE`; the tests below also hold that
date honest: no earlier than any date the shipped catalog states, no later than the day the tests run.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from archgen import CODE_DATE, __version__
from archgen.model.cost import dated_after
from archgen.pipeline import run
from archgen.render import operations
from tests.analyse.test_cost_rack_quote import _design

CLUSTER = "cluster/gb200-nvl72-su"
CATALOG = Path(__file__).resolve().parents[2] / "archgen" / "catalog"
QUOTE = """\
kind: Prices
id: vendor-a
prices:
  gb200-compute-tray: {capex: 140000 USD, date: "2031-06", basis: sourced, source: "Vendor A quote line 2"}
"""


def cost006(r) -> list[tuple[str, str]]:
    return [(f.severity, f.message) for f in r.findings if f.id == "COST006"]


def test_a_price_dated_after_the_code_is_named_and_the_others_not_blamed(tmp_path):
    r = run([_design(tmp_path / "a", QUOTE)])
    assert cost006(r) == [("warning", (
        f"gb200-compute-tray (2031-06, Prices vendor-a) is dated after archgen {__version__}'s own date, {CODE_DATE}, "
        "and the cost states no date of its own: likely a date written wrongly (a mistyped year?); the other prices' "
        "dates are compared without it. If it is right, give the facility's cost the date it is for (`cost.as_of`); "
        "prices are then judged against that date"))]   # was: every 2025 price and the 2024 tariff "older" than it
    a = r.clusters[CLUSTER]
    cost = r.operations.cost[a.cluster.path]
    assert cost.known_until == CODE_DATE   # the shipped hall states no cost date (with one, `later_prices` judges)
    assert [line.part for line in cost.unknowable] == ["gb200-compute-tray"]
    assert cost.stale == ()                        # the document blames no other price either
    assert not any("older than the newest" in str(item) for item in operations.open_items(r, a))
    text = operations.cost_section(r, a).blocks[0].text
    assert "The prices are dated 2025-01 to 2031-06 (oldest to newest)." in text   # the dates as they are stated


def test_a_price_of_the_code_date_month_is_not_after_it(tmp_path):
    month = CODE_DATE[:7]   # a month says no day: not after the code's day in it (`dated_after`)
    r = run([_design(tmp_path / "a", QUOTE.replace("2031-06", month))])
    found = cost006(r)   # the span only: the catalog's 2025-01 prices and the 2024-07 tariff are older than it
    assert found and all(s == "warning" and "own date" not in m and "older than" in m for s, m in found)
    a = r.clusters[CLUSTER]
    assert r.operations.cost[a.cluster.path].unknowable == ()


def _dates(text: str) -> list[str]:
    """Every ISO month or day written in `text` ('2026-12', '2026-12-05')."""
    return [m[0] for m in re.finditer(r"(?<![\d-])20\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?(?![\d-])", text)]


def test_the_code_date_is_no_earlier_than_the_catalog_and_not_in_the_future():
    """CODE_DATE moves with the catalog: a catalog dated after it (a price, an audit note) fails until it is moved.

    A date after today in the catalog is a plan ("ships 2027-03"), not one the catalog was written on: left out.
    """
    today = datetime.datetime.now(tz=datetime.UTC).date().isoformat()
    datetime.date.fromisoformat(CODE_DATE)   # a day
    later = sorted({(d, p.name) for p in CATALOG.rglob("*.yaml") for d in _dates(p.read_text(encoding="utf-8"))
                    if dated_after(d, CODE_DATE) and not dated_after(d, today)})
    assert later == [], f"archgen.CODE_DATE {CODE_DATE} is before dates the catalog states: move it (and regenerate)"
    assert CODE_DATE <= today, f"archgen.CODE_DATE {CODE_DATE} is after today's date"


def test_no_catalog_price_or_tariff_is_dated_after_the_code():
    """A shipped price or tariff dated after CODE_DATE would be named a likely typo on every design that uses it.

    The test above leaves out a catalog date after today (a plan); a `date:` is a price's or a tariff's, which COST006
    judges against CODE_DATE whatever the clock says, so none may be after it, plan or not (review58).
    """
    dated = {(m[1], p.name) for p in CATALOG.rglob("*.yaml")
             for m in re.finditer(r"\bdate:\s*['\"]?(20\d\d-\d\d(?:-\d\d)?)", p.read_text(encoding="utf-8"))}
    assert dated, "the catalog states price dates"
    assert sorted(d for d in dated if dated_after(d[0], CODE_DATE)) == []
