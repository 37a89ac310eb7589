"""A cluster's other opex (support, licences, other running costs) and its breakeven utilisation against the cloud.

newuser85 (items 5 and 8): a buyer's finance analyst found no input for a support contract, software licences or
other running costs (the TCO left them out, saying so), and no cloud price to compare owning with. The cluster's
`cost:` states them (`archgen/analyse/opex.py`). Each expected number below is derived by hand from the formulas in
that module's docstring: support = capex x share; licences = accelerators x per accelerator + nodes x per node;
breakeven u* = (F + E0) / (p N H − (E1 − E0)), where the TCO per used accelerator-hour equals the cloud price p.
"""

from __future__ import annotations

import io

import pytest

from archgen.analyse.opex import breakeven, energy_cost, facility_energy
from archgen.model.cost import ClusterCost, FacilityCost
from archgen.model.requirements import Status
from archgen.model.unsettled import lower_key
from archgen.pipeline import run
from archgen.units import Q_
from tests.conftest import SPECS, write_tree

GB200 = "cluster/gb200-nvl72-su"
#: CoreWeave's on-demand price of its GB200 NVL72 instance, 42.00 USD an hour for 4 GPUs (https://www.coreweave.com/
#: pricing, "NVIDIA GB200 NVL72", North America, as read 2026-09-20): 10.50 USD per GPU-hour.
CLOUD = """  cloud:
    per_accelerator_hour: 10.5 USD/h
    date: "2026-09"
    basis: sourced
    source: "CoreWeave pricing, NVIDIA GB200 NVL72 on demand, 42.00 USD/h for 4 GPUs"
"""
#: NVIDIA AI Enterprise, 4,500 USD per GPU a year (NVIDIA Q3 FY2024 earnings call, 2023-11-21); the rest assumed.
OPEX = """  support: 0.08
  licence_per_accelerator: 4500 USD/year
  licence_per_node: 1200 USD/year
  other_opex: 350000 USD/year
"""


def test_the_breakeven_utilisation_by_hand():
    """F = 1,000,000 USD/y; 100 kW used, 40 kW idle; PUE 1.25 at 0.10 USD/kWh; 64 accelerators at 3 USD/h.

    A kW for a year costs 8,766 h x 1.25 x 0.10 = 1,095.75 USD: E0 = 40 x that = 43,830, E1 − E0 = 60 x that =
    65,745; p N H = 3 x 64 x 8,766 = 1,683,072; u* = 1,043,830 / 1,617,327 = 0.64540, and with no energy cost
    1,000,000 / 1,683,072 = 0.59415. At u*, (F + E0 + (E1 − E0) u*) / (N H u*) is the cloud's 3 USD.
    """
    fc = FacilityCost.model_validate({"energy": {"price": "0.10 USD/kWh", "pue": 1.25, "basis": "assumed",
                                                 "source": "test"}, "space_per_rack": "0 USD/month",
                                      "depreciation_years": 5, "basis": "assumed", "source": "test"})
    cc = ClusterCost.model_validate({"cloud": {"per_accelerator_hour": "3 USD/h", "date": "2026-09",
                                               "basis": "assumed", "source": "test"}, "basis": "assumed",
                                     "source": "test"})
    got = breakeven(Q_(1_000_000, "USD"), Q_(100, "kW"), Q_(40, "kW"), fc, cc, 64, 8766.0, "USD")
    assert got is not None
    u, bare = got
    assert u == pytest.approx(1_043_830 / 1_617_327) == pytest.approx(0.64540, abs=1e-5)
    assert bare == pytest.approx(0.59415, abs=1e-5)
    assert (1_000_000 + 43_830 + 65_745 * u) / (64 * 8766 * u) == pytest.approx(3.0)
    expensive = ClusterCost.model_validate({"cloud": {"per_accelerator_hour": "0.1 USD/h", "date": "2026-09",
                                                      "basis": "assumed", "source": "test"},
                                            "basis": "assumed", "source": "test"})
    assert breakeven(Q_(1_000_000, "USD"), Q_(100, "kW"), Q_(40, "kW"), fc, expensive, 64, 8766.0, "USD")[0] \
        == float("inf")   # 0.1 x 64 x 8,766 = 56,102 USD does not cover 65,745 USD of extra energy
    assert breakeven(Q_(1, "USD"), Q_(1, "kW"), Q_(1, "kW"), fc, None, 64, 8766.0, "USD") is None
    # E0 and E1 are the TCO's own energy line (one function, `energy_cost`): 40 kW for a year is 40 x 1,095.75 USD
    assert facility_energy(Q_(40, "kW"), fc).m_as("MWh") == pytest.approx(40 * 8766 * 1.25 / 1000)
    assert energy_cost(Q_(40, "kW"), fc, "USD").m == pytest.approx(43_830)
    assert energy_cost(Q_(60, "kW"), fc, "USD").m == pytest.approx(65_745)


REQUIREMENTS = """\
kind: Requirements
id: buyer
requirements:
  - {id: FIN-1, statement: Owning pays off below half use, subject: "cluster/*", metric: breakeven_utilisation,
     target: "<= 0.5"}
  - {id: FIN-2, statement: Owning pays off below 14 % use, subject: "cluster/*", metric: breakeven_utilisation,
     target: "<= 0.14"}
  - {id: FIN-3, statement: Owning pays off below 10 % use, subject: "cluster/*", metric: breakeven_utilisation,
     target: "<= 0.1"}
"""


def _run(root, cost: str, utilisation: str = "", *more: str):
    cluster = (SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8")
    if cost:
        cluster = cluster.replace("facility: hall-liquid\n", "facility: hall-liquid\ncost:\n" + cost +
                                  "  basis: assumed\n  source: \"test: a buyer's figures\"\n", 1)
    hall = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
    hall = hall.replace("  discount_rate: 0.08\n", f"  discount_rate: 0.08\n{utilisation}")
    write_tree(root, {"gb200-nvl72-su.yaml": cluster, "hall-liquid.yaml": hall,
                      **{f"doc{i}.yaml": doc for i, doc in enumerate(more)}})
    return run([root / "gb200-nvl72-su.yaml", root / "hall-liquid.yaml",
                *(root / f"doc{i}.yaml" for i in range(len(more)))])


def test_stated_opex_enters_the_tco_and_unstated_opex_is_said_left_out(tmp_path):
    from archgen.render.operations import cost_section
    bare, stated = _run(tmp_path / "a", ""), _run(tmp_path / "b", OPEX)
    m0, m1 = bare.metrics[GB200], stated.metrics[GB200]
    capex = m0["capex"].m
    assert m0["accelerators"].m == 576 and m0["nodes"].m == 144
    assert m1["support_cost_per_year"].m == pytest.approx(0.08 * capex)
    assert m1["licence_cost_per_year"].m == pytest.approx(576 * 4500 + 144 * 1200)   # 2,764,800 USD
    assert m1["other_opex_per_year"].m == pytest.approx(350_000)
    assert m1["tco_per_year"].m - m0["tco_per_year"].m == pytest.approx(0.08 * capex + 2_764_800 + 350_000)
    assert not {"support_cost_per_year", "licence_cost_per_year", "other_opex_per_year"} & set(m0)   # never 0
    words = " ".join(b.text for b in cost_section(bare, bare.clusters[GB200]).blocks
                     if isinstance(getattr(b, "text", None), str))
    assert "The TCO leaves out support and maintenance contracts (`cost.support` not stated)" in words
    said = " ".join(b.text for b in cost_section(stated, stated.clusters[GB200]).blocks
                    if isinstance(getattr(b, "text", None), str))
    assert "The TCO holds the support, software licences, other opex the cluster's `cost:` states" in said
    # support grows with the capex, which leaves counted parts out: a lower bound, as the TCO (cost31)
    assert lower_key("support_cost_per_year") in stated.operations.unsettled[GB200]


def test_at_the_breakeven_utilisation_the_used_hour_costs_the_cloud_price(tmp_path):
    """The breakeven check's own end-to-end proof: the hall run at u* gives a used hour of 10.50 USD."""
    first = _run(tmp_path / "a", OPEX + CLOUD)
    u = first.metrics[GB200]["breakeven_utilisation"].m
    assert 0 < u < 1
    again = _run(tmp_path / "b", OPEX + CLOUD, f"  utilisation: {u!r}\n")
    assert again.metrics[GB200]["tco_per_used_accelerator_hour"].m == pytest.approx(10.5, rel=1e-9)
    assert again.metrics[GB200]["breakeven_utilisation"].m == pytest.approx(u, rel=1e-9)   # u itself is no input


def test_the_cost_sheet_carries_the_opex_and_the_breakeven_as_formulas(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    from archgen.render.cost_sheet import cost_sheet
    from archgen.render.tables import xlsx_bytes
    from tests.render.test_cost_sheet import _evaluate
    r = _run(tmp_path, OPEX + CLOUD)
    m = r.metrics[GB200]
    ws = openpyxl.load_workbook(io.BytesIO(xlsx_bytes([cost_sheet(r.operations.cost[GB200], r.clusters[GB200])])))
    got = _evaluate(ws["cost"])
    assert got["Support per year"] == pytest.approx(m["support_cost_per_year"].m)
    assert got["Licences per year"] == pytest.approx(m["licence_cost_per_year"].m)
    assert got["TCO per year"] == pytest.approx(m["tco_per_year"].m)
    assert got["Breakeven utilisation against the cloud"] == pytest.approx(m["breakeven_utilisation"].m)
    assert got["Cloud price per accelerator-hour"] == 10.5


def test_a_breakeven_target_is_judged_at_both_of_its_bounds(tmp_path):
    """The GB200 SU against CoreWeave's 10.50 USD: u* = 15.5 %, a lower bound (the capex leaves counted parts out)
    whose energy at maximum draw puts it as low as 13.6 % (no energy cost: F / (p N H)).

    `<= 0.5` is met at every end the figure has but the capex's unbounded one: at risk (REQ004), as a capex target
    is; `<= 0.14` is met at the no-energy end only: not provided (REQ002); `<= 0.1` is missed at both: not met.
    """
    r = _run(tmp_path, CLOUD, "", REQUIREMENTS)
    cost = r.operations.cost[GB200]
    assert cost.breakeven is not None
    u, bare = cost.breakeven
    assert 0.135 < bare < 0.14 < u < 0.16
    status = {j.bound.req.id: j.outcome.status for j in r.requirements if j.bound.req.id.startswith("FIN")}
    assert status == {"FIN-1": Status.AT_RISK, "FIN-2": Status.NOT_PROVIDED, "FIN-3": Status.NOT_MET}


def test_a_licence_in_another_currency_is_cost001_and_withholds_the_tco(tmp_path):
    """archgen converts no currency: a licence in EUR beside USD prices is named in COST001, and no TCO is given."""
    r = _run(tmp_path, "  licence_per_accelerator: 4000 EUR/year\n")
    assert "tco_per_year" not in r.metrics[GB200] and "licence_cost_per_year" not in r.metrics[GB200]
    found = [f for f in r.findings if f.id == "COST001"]
    assert found and "EUR: gb200-nvl72-su cost.licence_per_accelerator" in found[0].message


def test_a_stated_support_share_and_cloud_price_on_an_unpriced_capex_are_said_so(tmp_path):
    """review48: with a capex not provided (unpriced parts, COST002), a stated `cost.support` read "not stated" in the
    cost summary and the TCO's left-out words, and a stated cloud price vanished from the document without a word.

    Both are stated inputs on a figure that is not provided: the support share x a capex that is not provided, and the
    breakeven against the TCO that is not provided. The summary and the cost paragraph say so.
    """
    from archgen.render.operations import cost_section
    cluster = (SPECS / "clusters" / "mi355x-th5.yaml").read_text(encoding="utf-8")
    assert "facility: hall-liquid\n" in cluster
    cluster = cluster.replace("facility: hall-liquid\n", "facility: hall-liquid\ncost:\n" + OPEX + CLOUD +
                              "  basis: assumed\n  source: \"test: a buyer's figures\"\n", 1)
    hall = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
    write_tree(tmp_path, {"mi355x-th5.yaml": cluster, "hall-liquid.yaml": hall})
    r = run([tmp_path / "mi355x-th5.yaml", tmp_path / "hall-liquid.yaml"])
    path = "cluster/mi355x-th5"
    cost = r.operations.cost[path]
    assert cost.capex is None and cost.breakeven is None   # unpriced parts: no capex, no TCO
    assert "support_cost_per_year" not in r.metrics[path] and "breakeven_utilisation" not in r.metrics[path]
    section = cost_section(r, r.clusters[path])
    words = " ".join(b.text for b in section.blocks if isinstance(getattr(b, "text", None), str))
    rows = [row[0] for b in section.blocks if getattr(b, "id", "") == "cost-summary" for row in b.rows]
    support = next(row for row in rows if row.startswith("Support per year"))
    assert "not stated" not in support and "8 % of the capex" in support
    assert "`cost.support` not stated" not in words
    assert "The cloud list price of 10.50 USD per accelerator-hour" in words
    assert "is not compared: the TCO is not provided" in words


def test_a_cloud_price_in_another_currency_withholds_the_comparison_not_the_tco(tmp_path):
    """review48: a cloud price in EUR beside USD prices was COST001, which withheld the capex and the whole TCO, though
    the cloud price is in neither (it is only compared with them). The comparison is withheld alone, and said so."""
    from archgen.render.operations import cost_section
    bare = _run(tmp_path / "a", "")
    r = _run(tmp_path / "b", CLOUD.replace("10.5 USD/h", "10.5 EUR/h"))
    m = r.metrics[GB200]
    assert m["tco_per_year"].m == pytest.approx(bare.metrics[GB200]["tco_per_year"].m)
    assert "breakeven_utilisation" not in m and not [f for f in r.findings if f.id == "COST001"]
    words = " ".join(b.text for b in cost_section(r, r.clusters[GB200]).blocks
                     if isinstance(getattr(b, "text", None), str))
    assert ("The cloud list price of 10.50 EUR per accelerator-hour" in words and
            "is not compared: it is in EUR and the prices in USD, and archgen converts no currency" in words)
