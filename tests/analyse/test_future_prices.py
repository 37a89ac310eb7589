"""A price dated after this archgen's own date, where the cost states none, is named as a likely mistyped date (COST006).

newuser98 priced the GB200 NVL72 SU's compute trays at a quote dated 2031-06 (a mistyped 2026) beside the catalog's
2025 prices: with no `cost.as_of`, the 2031 price was taken as the newest, and COST006 called every other price
"more than 12 months older" without naming the one mistyped year. archgen reads no clock (one version's output is
the same any day), so the date judged against is the code's own, `archgen.CODE_DATE`; the tests below also hold that
date honest: no earlier than any date the shipped catalog states but a stated plan (`PLANS`). Neither they nor any
other test reads the clock (review59: a test whose verdict moves with the day the suite runs fails a commit that
passed, with nothing changed); that CODE_DATE is no later than the day, and each plan still ahead of it, is the
release check's (tests/release_check.py, `make release-check`).
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
from tests.release_check import PLANS, problems

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


def later_than(code_date: str, texts: dict[str, str],
               plans: frozenset[tuple[str, str]] = PLANS) -> list[tuple[str, str]]:
    """The (date, file) of every ISO month or day in `texts` (file: text) after `code_date`, but `plans`."""
    return sorted({(d, name) for name, text in texts.items() for d in _dates(text)
                   if dated_after(d, code_date) and (d, name) not in plans})


def test_the_code_date_is_no_earlier_than_the_catalog():
    """CODE_DATE moves with the catalog: a catalog dated after it (an audit note, a price) fails until it is moved, or
    the date is listed as a plan (`release_check.PLANS`). The same on any day the suite runs: no clock is read."""
    datetime.date.fromisoformat(CODE_DATE)   # a day
    texts = {p.name: p.read_text(encoding="utf-8") for p in CATALOG.rglob("*.yaml")}
    assert later_than(CODE_DATE, texts) == [], \
        f"archgen.CODE_DATE {CODE_DATE} is before dates the catalog states: move it (and regenerate), or list a plan"


def test_a_later_date_fails_unless_it_is_a_stated_plan():
    """The rule on fixed dates: a day or month after the code's is found, its own month is not (a month says no
    day), and a listed plan (`release_check.PLANS`) is left out (review59: the clock had told a plan by the day the
    test ran)."""
    texts = {"a.yaml": "corrected 2026-12 (audit 2026-12-07); searched 2026-12-08", "b.yaml": "ships 2027-03"}
    assert later_than("2026-12-07", texts, frozenset()) == [("2026-12-08", "a.yaml"), ("2027-03", "b.yaml")]
    assert later_than("2026-12-07", texts, frozenset({("2027-03", "b.yaml")})) == [("2026-12-08", "a.yaml")]
    assert later_than("2027-03-01", texts, frozenset()) == []


def test_no_catalog_price_or_tariff_is_dated_after_the_code():
    """A shipped price or tariff dated after CODE_DATE would be named a likely typo on every design that uses it.

    The test above leaves out a catalog date after today (a plan); a `date:` is a price's or a tariff's, which COST006
    judges against CODE_DATE whatever the clock says, so none may be after it, plan or not (review58).
    """
    dated = {(m[1], p.name) for p in CATALOG.rglob("*.yaml")
             for m in re.finditer(r"\bdate:\s*['\"]?(20\d\d-\d\d(?:-\d\d)?)", p.read_text(encoding="utf-8"))}
    assert dated, "the catalog states price dates"
    assert sorted(d for d in dated if dated_after(d[0], CODE_DATE)) == []


def test_the_release_check_judges_the_day_it_is_given():
    """The clock's checks, moved to `make release-check` (tests/release_check.py), on fixed days: CODE_DATE after the
    day, and a plan whose day has come (a month's, on its first day), are named."""
    assert problems("2026-12-07", "2026-12-07", frozenset()) == []
    assert problems("2026-12-06", "2026-12-07", frozenset()) == [
        "archgen.CODE_DATE 2026-12-07 is after today's date, 2026-12-06"]
    plan = frozenset({("2027-03", "b.yaml")})
    assert problems("2027-03-01", "2026-12-07", plan)[0].startswith("b.yaml states 2027-03 as a plan (PLANS), but")
    assert problems("2027-02-28", "2026-12-07", plan) == []
