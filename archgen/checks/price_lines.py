"""COST004's information on a price list's lines that price nothing in a cluster of the run.

Moved out of `checks/cost.py`; `checks/price_lists.py` keeps the check's `@check` and docstring: a list's parts on
the bill of materials of another proposal's cluster, which it does not price (`analyse.price_scope`), and its
catalog parts and racks that no cluster of the run has on its bill of materials (newuser90: a buyer's quote line for
`dgx-b200` beside an MI355X design was read and priced nothing, with no word).
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.price_scope import prices_cluster
from archgen.checks.registry import Context, Violation
from archgen.model import Part, Rack
from archgen.model.prices import Prices


def _named(parts: list[str]) -> str:
    return ", ".join(parts[:5]) + (f" and {len(parts) - 5} more" if len(parts) > 5 else "")


def other_proposals(ctx: Context, doc: Prices) -> Iterator[Violation]:
    """Parts a list prices on the bill of materials of another proposal's cluster.

    The list does not price them there (`analyse.price_scope`): the cluster keeps its own proposal's prices.
    """
    specs = ctx.design.specs
    for path, cost in sorted(ctx.operations.cost.items()):
        spec = ctx.clusters[path].cluster.spec
        parts = sorted({line.part for line in cost.lines} & set(doc.prices))
        if parts and not prices_cluster(specs, doc.id, spec.id):
            yield Violation(f"prices/{doc.id}", doc.id, ("prices",),
                            f"prices {_named(parts)}, on the bill of materials of cluster '{spec.id}', which it does "
                            "not price: that cluster is loaded from another folder named on the command line (another "
                            "proposal), whose own lists and the parts' own prices price it", severity="info")


def priced_nothing(ctx: Context, doc: Prices, used: set[str]) -> Iterator[Violation]:
    """The list's catalog parts and racks that no costed cluster of the run uses: one finding, at the first.

    `used` holds what a line of a cluster's cost, or another COST004 finding, accounts for (the bill of materials'
    parts and rule-counted lines, checkpoint storage ids, parts fitted in a system). A price book may price what a
    design does not use, so this is information; in a quote for the design it may mean that the design differs from
    what was quoted (a DR8 optic quoted where the design names SR8 leaves the SR8 at its catalog price or unpriced).
    Nothing is said where no cluster is costed (a list checked on its own).
    """
    if not ctx.operations.cost:
        return
    specs = ctx.design.specs
    unused = [part for part in doc.prices if part not in used
              and (isinstance(specs.get(part), Part | Rack) or part in specs.shelf)]
    if unused:
        yield Violation(f"prices/{doc.id}", doc.id, ("prices", unused[0]),
                        f"prices {_named(unused)}, on no cluster's bill of materials in this run: "
                        f"{'this line prices' if len(unused) == 1 else 'these lines price'} nothing here (a price "
                        "book may list what a design does not use; in a quote for this design, the design may "
                        "differ from what was quoted)", severity="info")
