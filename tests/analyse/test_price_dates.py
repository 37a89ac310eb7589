"""The dates behind a capex are stated, and prices more than 12 months older than the newest are flagged (COST006).

A buyer prices the GB200 NVL72 SU from a vendor's 2026 quote for the compute trays and keeps the catalog's other
prices, and one 2022 price book line for the QM9700 switches. Every price carries its date, yet nothing read them:
the capex added the 2022 switch price to the 2026 tray price with no finding, and neither `check` nor the document
said how old the prices behind the total were. Now COST006 states the dates (oldest to newest) as information, and
names each price more than 12 months older than the newest as a warning (one per price, naming every date it is more
than 12 months older than: weight67); the document's capex table gives each line's date.
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.pipeline import run
from archgen.render import operations
from tests.analyse.test_cost_rack_quote import _design

CLUSTER = "cluster/gb200-nvl72-su"
QUOTE = """\
kind: Prices
id: vendor-a-2026
prices:
  gb200-compute-tray: {capex: 140000 USD, date: "2026-01-15", basis: sourced, source: "Vendor A quote line 2"}
  qm9700: {capex: 28000 USD, date: "2022-03", basis: sourced, source: "2022 price book, QM9700 line"}
"""


#: The shipped hall-liquid's tariff (EIA Table 5.6.B, July 2024; nu64fix gave it its date) against the quote's 2026 tray.
TARIFF_OLD = ("warning", CLUSTER, "hall-liquid's electricity price (2024-07, `cost.energy.date`) is more than 12 months "
              "older than the newest price on the bill of materials (gb200-compute-tray, 2026-01-15); the TCO adds its "
              "energy cost to the capital as it is, adjusted to no common date")


def test_a_price_years_older_than_the_newest_is_a_warning(tmp_path):
    r = run([_design(tmp_path / "a", QUOTE)])
    found = [(f.severity, f.object, f.message) for f in r.findings if f.id == "COST006"]
    # weight67: the 2022 switch is more than 12 months older than the newest price and than the 2024 tariff: one
    # warning that names both dates (it was two, and the tariff's a third)
    assert found == [("warning", CLUSTER, "qm9700 (2022-03, Prices vendor-a-2026) is more than 12 months older than "
                                          "the newest price on the bill of materials (gb200-compute-tray, 2026-01-15) "
                                          "and hall-liquid's electricity price (2024-07, `cost.energy.date`); the "
                                          "capex adds it as it is, adjusted to no common date"),
                     TARIFF_OLD]
    assert "capex" in r.metrics[CLUSTER]                  # the figure stands as the prices give it
    a = r.clusters[CLUSTER]
    section = operations.cost_section(r, a)
    assert ("The prices are dated 2022-03 to 2026-01-15 (oldest to newest); 1 of them more than 12 months older "
            "than the newest, and none adjusted to another date (COST006).") in section.blocks[0].text
    capex = next(b for b in section.blocks if getattr(b, "id", "") == "capex")
    assert capex.columns[-1].title == "Price date"
    assert {row[0]: row[-1] for row in capex.rows}["qm9700"] == "2022-03"
    assert any(item.startswith("Capex adds prices more than 12 months older than the newest (2026-01-15)")
               and "qm9700 (2022-03)" in item for item in operations.open_items(r, a))


def test_prices_within_a_year_state_their_dates(tmp_path):
    r = run([_design(tmp_path / "a", QUOTE.replace("2022-03", "2025-02"))])
    # the parts lie within a year (the catalog's 2025-01 to the quote's 2026-01-15); the 2024 tariff does not
    assert [(f.severity, f.object, f.message) for f in r.findings if f.id == "COST006"] == [TARIFF_OLD]


def test_the_shipped_catalog_states_its_dates(shipped):
    found = {f.object: (f.severity, f.message) for f in shipped.findings if f.id == "COST006"}
    assert found[CLUSTER] == ("info", "prices on the bill of materials are all dated 2025-01; hall-liquid's "
                                      "electricity price is dated 2024-07")   # within 12 months: no warning
    assert found["cluster/dgx-b200-superpod"] == (   # the DGX B200's press figure of March 2025
        "info", "prices on the bill of materials are dated 2025-01 to 2025-03 (oldest to newest); hall-air's electricity "
                "price is dated 2024-07")


def test_prices_in_two_currencies_are_an_error(tmp_path):
    """One line in EUR beside the catalog's USD: COST001, an error, and no capex or TCO."""
    r = run([_design(tmp_path / "a", QUOTE.replace("28000 USD", "26000 EUR"))])
    found = [(f.severity, f.message) for f in r.findings if f.id == "COST001"]
    assert [s for s, _ in found] == ["error"] and "(EUR: qm9700 (Prices vendor-a-2026); USD: " in found[0][1]
    assert "capex" not in r.metrics[CLUSTER] and "tco_per_year" not in r.metrics[CLUSTER]


@pytest.mark.parametrize("date", ["2025-13", "March 2025", "2025-02-30"])
def test_a_date_that_is_no_date_is_refused(tmp_path, date):
    with pytest.raises(SpecError, match="expected a date such as '2025-03' or '2025-03-16'"):
        run([_design(tmp_path / "a", QUOTE.replace("2022-03", date))])
