"""Which `Prices` lists price which clusters, and which of a part's prices a cluster's cost takes (`chosen`).

A list prices the clusters of its own proposal (docs/reliability.md).
A proposal is a folder the specs were loaded from (`Specs.roots`: a folder named on the command line, or the folder
of a file named there). A list prices the clusters loaded from its own folder and the folders under it: with
`archgen gap b200/ gb200/`, vendor B's quote in `b200/` prices the B200 cluster only, and a part it leaves out stays
unpriced (or at its catalog price, assumed) even where vendor A's quote in `gb200/` prices that part. One folder
(`archgen check specs/`) is one proposal: every list prices every cluster, as before. A list or cluster loaded from
no such folder (the shipped catalog, or specs built without their paths) belongs to every proposal.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from archgen.model.cost import Price, dated_after
from archgen.model.prices import Prices
from archgen.validate import Specs


def root(specs: Specs, ref: str) -> Path | None:
    """The folder (of `specs.roots`) that document `ref` was loaded from: the deepest holding it; None for none."""
    src = specs.sources.get(ref)
    if src is None or not specs.roots:
        return None
    real = Path(src.file).resolve()
    holding = [Path(r) for r in specs.roots if real.is_relative_to(r)]
    return max(holding, key=lambda p: len(p.parts)) if holding else None


def prices_cluster(specs: Specs, prices: str, cluster: str) -> bool:
    """Whether the `Prices` list `prices` prices the parts of cluster `cluster`: one is of the other's proposal."""
    own, theirs = root(specs, prices), root(specs, cluster)
    return own is None or theirs is None or theirs.is_relative_to(own)


def one_proposal(specs: Specs, first: str, second: str) -> bool:
    """Whether two `Prices` lists may price one cluster (so that two prices of one part in them disagree, COST004)."""
    a, b = root(specs, first), root(specs, second)
    return a is None or b is None or a.is_relative_to(b) or b.is_relative_to(a)


def lists_for(specs: Specs, cluster: str) -> list[Prices]:
    """The `Prices` lists that price cluster `cluster`'s parts, by id."""
    return [d for d in specs.of(Prices) if prices_cluster(specs, d.id, cluster)]


#: A price and the `Prices` list it is in ("" for the part's own `price`).
Offer = tuple[Price, str]


def price_list(specs: Specs, cluster: str) -> dict[str, list[Offer]]:
    """The prices of the `Prices` lists of cluster `cluster`'s proposal by part or rack id, with the list of each.

    Only lists of its own proposal (`lists_for`), each part's by document id: without a cost date the first gives
    its price (COST004 reports a disagreement), with one the newest held then (`chosen`).
    """
    out: dict[str, list[Offer]] = {}
    for doc in lists_for(specs, cluster):
        for part, price in doc.prices.items():
            out.setdefault(part, []).append((price, doc.id))
    return out


def chosen(offers: Sequence[Offer], as_of: datetime.date | str | None) -> tuple[Offer | None, tuple[Offer, ...]]:
    """The price a part takes of its `offers` (its lists' by document id, then its own), and those set aside.

    Without a cost date (`cost.as_of`) the first: a list's price overlays the part's own. With one, a price dated
    after it (`model.cost.dated_after`) did not exist at that date and is set aside (money40: it was taken, and as
    the newest price every other was judged against it). Of the rest a list's price still overlays the part's own,
    and of several lists' the newest is taken: one no other is dated after (`dated_after`: by day where both give
    one, else by month), of several such the first by document id. Two lists whose dates tell them apart are then a
    price history, not a conflict (COST004, `apart`). A part whose every price is later is unpriced at that date
    (COST002 says so).
    """
    if as_of is None:
        return (offers[0] if offers else None), ()
    later = tuple(o for o in offers if dated_after(o[0].date, as_of))
    held = [o for o in offers if not dated_after(o[0].date, as_of)]
    held = [o for o in held if o[1]] or held   # a list's price before the part's own
    return next((o for o in held if not any(dated_after(x[0].date, o[0].date) for x in held)), None), later


def apart(one: Price, other: Price) -> bool:
    """Whether the dates of two prices tell which is newer (`dated_after`, either way).

    '2025-03-02' and '2025-03-16' do; '2025-03' and '2025-03-16' do not (a month says no day), nor do two equal dates.
    """
    return dated_after(one.date, other.date) or dated_after(other.date, one.date)
