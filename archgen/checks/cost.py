"""COST: prices, currencies and the basis of a cluster's capex and TCO (docs/reliability.md, Cost)."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.cost import Cost
from archgen.checks.registry import Context, Violation, check
from archgen.model import Cluster


def _costs(ctx: Context) -> Iterator[tuple[str, Cluster, Cost]]:
    """(cluster path, cluster spec, cost) of every cluster the COST stage analysed."""
    for path, cost in sorted(ctx.operations.cost.items()):
        yield path, ctx.clusters[path].cluster.spec, cost


@check("COST001", "cost.currency")
def one_currency(ctx: Context) -> Iterator[Violation]:
    """A cluster's prices and facility costs are in one currency.

    archgen does not convert currencies, so capex and TCO are not computed across two.

    Fix: give every price of the cluster's parts, racks and facility in one currency.
    """
    for path, spec, cost in _costs(ctx):
        for problem in cost.problems:
            yield Violation(path, spec.id, (), problem)


@check("COST002", "cost.unpriced", severity="info")
def parts_priced(ctx: Context) -> Iterator[Violation]:
    """Every line of a cluster's bill of materials has a price, so that its capex is complete.

    Fix: add `price:` to the parts and racks listed (basis `sourced` with a quote, or `assumed` with a note).
    """
    for path, spec, cost in _costs(ctx):
        if cost.unpriced and cost.capex is not None:
            names = ", ".join(f"{line.part} x{line.quantity}" for line in cost.unpriced)
            yield Violation(path, spec.id, (), f"capex leaves out unpriced parts: {names}")


@check("COST003", "cost.assumed", severity="info")
def prices_sourced(ctx: Context) -> Iterator[Violation]:
    """A cluster's capex and TCO rest on sourced prices (assumed ones are listed in its documents' open items).

    Fix: replace the assumed prices with quotes (`basis: sourced`, `source:` the quote).
    """
    for path, spec, cost in _costs(ctx):
        if cost.assumed:
            yield Violation(path, spec.id, (), f"cost rests on assumed figures: {', '.join(cost.assumed)}")
