"""PWR005's groups: a rack's N+N (2N) groups with an odd number of units, and what the smaller side leaves usable.

With an odd count the two sides of an N+N group cannot be equal; the smaller side is what carries the load alone
(`spare_units` holds back the larger half), the same as one unit fewer gives, so the odd unit adds no usable
capacity. PWR017 says so for a hall's UPS modules and generator sets; this is the rack's side: its feeds, power
shelves and PDUs, its in-rack or in-row CDU group (`cooling.liquid.cdu_redundancy`, `cdu_count`) and the PSUs of
each part it places (`psus`, as the catalog gives them: a system's or switch's `power.psus`, a shelf's `psus`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.checks.hall_figures import nth
from archgen.checks.registry import Violation
from archgen.display import kw
from archgen.model.base import spare_units
from archgen.units import Q_, Q


def odd_pairs(path: str, a: Any) -> Iterator[Violation]:
    """Each N+N group of rack analysis `a` (at `path`) with an odd unit count, its usable capacity in the message."""
    rid, spec = a.rack.spec.id, a.rack.spec
    feeds = spec.power.feeds
    if feeds.redundancy == "N+N" and feeds.count % 2:
        yield _odd(path, rid, ("power", "feeds", "count"), "feeds", feeds.count, a.power.feeds.unit_capacity)
    for st in a.power.stages:
        if st.redundancy == "N+N" and st.count % 2:
            yield _odd(path, rid, ("power", st.key), st.kind, st.count, st.unit_capacity)
    lp = spec.cooling.liquid
    if lp is not None and lp.cdu_redundancy == "N+N" and lp.cdu_count % 2:
        each = a.cooling.cdu.unit_capacity if a.cooling.cdu is not None else None
        yield _odd(path, rid, ("cooling", "liquid", "cdu_count"), "CDUs in its group", lp.cdu_count, each,
                   " at the hall's conditions")
    seen: set[str] = set()
    for item in a.rack.items:
        psus = part_psus(item.part)
        if psus is None or psus.redundancy != "N+N" or not psus.count % 2 or item.part.id in seen:
            continue
        seen.add(item.part.id)
        yield _odd(path, rid, ("slots", item.slot, "part"), f"PSUs in each {item.part.id}", psus.count,
                   psus.capacity)


def part_psus(part: Any) -> Any:
    """A placed part's PSUs as the catalog gives them: a shelf's `psus`, a system's or switch's `power.psus`."""
    return getattr(part, "psus", None) or getattr(getattr(part, "power", None), "psus", None)


def _odd(path: str, rid: str, key: tuple, label: str, n: int, each: Q | None, at: str = "") -> Violation:
    """The finding for `n` units of `label` at N+N, each of capacity `each` (None: not stated) `at` conditions."""
    usable = n - spare_units("N+N", n)
    if each is None:
        sizes, side, n_plus_1 = f"{n}, capacity not provided", f"{usable} of them", f"{n - 1} of them"
    else:
        e = each.to("kW")
        sizes, side, n_plus_1 = f"{n} x {kw(e)}{at}", f"{usable} x {kw(e)} = {kw(e * usable)}", kw(e * (n - 1))
    return Violation(path, rid, key, f"N+N with an odd number of {label} ({sizes}): the smaller side, {side}, "
                     f"carries the load alone, as {n - 1} would give; the {nth(n)} adds no usable capacity (N+1 "
                     f"of {n}: {n_plus_1})", Q_(usable, ""), Q_(n, ""))
