"""Every price and CDU figure the shipped specs carry says where it comes from, or that it is assumed.

A price (`price:` of a catalog part or a rack, `prices:` of a price list, a facility's `cost`) states its `basis`:
`sourced` must cite a quote or a public page; `assumed` must say so or name the estimate it was taken from, and
COST003 names it in every document. A cooling unit's figures are each under `unconfirmed:` (all of them with
`unconfirmed: true`) or cited in `source:`; PWR012 and the documents' Unconfirmed table then name them. The test
lists each one (its ids), so a new silent number fails here.
"""

from __future__ import annotations

import re

import pytest

from tests.shipped_yaml import ROOT, shipped_documents

CITED = re.compile(r"https?://|\b[\w.-]+/[\w.-]+ [\w./-]+\.(?:md|json|ya?ml|py)\b|\bquote\b", re.I)
SAID_ASSUMED = re.compile(r"\bassum|placeholder|estimate", re.I)
#: A cooling unit's figures (`archgen.model.cooling.CoolingUnit`).
CDU_FIGURES = ("capacity", "flow", "approach", "facility_delta_t", "pumps", "power", "mechanical", "rated_at", "derating")


def _documents() -> list[tuple[str, dict]]:
    """Every document of the shipped specs and examples with a kind, with where (`shipped_documents`)."""
    return [(f"{f.relative_to(ROOT)}#{i}:{doc.get('id', '')}", doc) for f, i, doc in shipped_documents()
            if isinstance(doc, dict) and "kind" in doc]


DOCS = _documents()


def _prices() -> list[tuple[str, dict]]:
    """Every price a shipped document states, with where it is."""
    out = []
    for where, doc in DOCS:
        if isinstance(doc.get("price"), dict):
            out.append((where, doc["price"]))
        for pid, price in (doc.get("prices") or {}).items():
            out.append((f"{where}/prices/{pid}", price))
        cost = doc.get("cost") if doc.get("kind") == "Facility" else None
        if isinstance(cost, dict):
            out.append((f"{where}/cost", cost))
            if isinstance(cost.get("energy"), dict):
                out.append((f"{where}/cost/energy", cost["energy"]))
        for j, rack in enumerate(doc.get("racks") or []):          # racks defined inside a cluster document
            if isinstance(rack, dict) and isinstance(rack.get("price"), dict):
                out.append((f"{where}/racks/{j}", rack["price"]))
    return out


PRICES = _prices()


def test_there_are_prices_and_cooling_units_to_check() -> None:
    assert len(PRICES) >= 20 and any(d.get("kind") == "CoolingUnit" for _, d in DOCS)


@pytest.mark.parametrize(("where", "price"), PRICES, ids=[w for w, _ in PRICES])
def test_a_price_cites_its_source_or_says_it_is_assumed(where: str, price: dict) -> None:
    basis, source = price.get("basis"), " ".join(str(price.get("source", "")).split())
    assert basis in ("sourced", "assumed"), f"{where}: basis {basis!r}"
    if basis == "sourced":
        assert CITED.search(source), f"{where}: a sourced price cites no quote or page: {source!r}"
    else:
        assert SAID_ASSUMED.search(source) or CITED.search(source), f"{where}: {source!r} does not say how"


@pytest.mark.parametrize(("where", "doc"), [(w, d) for w, d in DOCS if d.get("kind") == "CoolingUnit"],
                         ids=[w for w, d in DOCS if d.get("kind") == "CoolingUnit"])
def test_a_cooling_unit_figure_is_cited_or_unconfirmed(where: str, doc: dict) -> None:
    unconfirmed = doc.get("unconfirmed", [])
    sources = " ".join(doc["source"] if isinstance(doc["source"], list) else [doc["source"]])
    for figure in (f for f in CDU_FIGURES if f in doc):
        listed = unconfirmed is True or any(u == figure or u.startswith(f"{figure}.") for u in unconfirmed or [])
        assert listed or CITED.search(sources), f"{where}: {figure} is neither cited nor unconfirmed"
