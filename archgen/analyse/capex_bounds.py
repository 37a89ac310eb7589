"""A capex that leaves out parts the bill of materials counts is a lower bound, as is every figure resting on it.

The bill of materials counts some parts by rule, with no catalog part to price them (`analyse.rack_accessories`:
rail kits, blanking panels, power cords; `analyse.fibre_cords`: the fibre patch cords), and lists as "not provided"
the liquid fittings and shelf cords a rack's spec does not state (`analyse.fittings`). A `Prices` list prices a
rule-counted line under its BOM id (the id the port map names a cord by); one it leaves unpriced, and every "not
provided" line, is left out of the capex, which is then at least its value, not a point value (newuser85: FIN-002
`capex <= 45000000 USD` read plainly "met" on a GB300 SU capex that left out 1,328 fibre cords).

`left_out` says what a cluster's capex leaves out; `lower_bounds` gives the figures that grow with the capex
(the capex, capital cost, TCO and its costs per accelerator-hour, a job's cost per hour, per token and per run)
infinity as their other end, under `model.unsettled.lower_key` in `Operations.unsettled`: a requirement
`capex <= X` that the value meets is at risk (REQ004), with the headroom what it leaves out must stay under; one it
misses is not met; `capex >= X` it meets is met (`model.unsettled.at_lower_bound`, as a cost per token whose high
end is unbounded). The capex shares of the network are ratios of two such totals: not bounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from archgen.analyse.bom_line import BomLine, CapexLine
from archgen.metric import CAPEX_BOUNDED
from archgen.model.unsettled import lower_key
from archgen.units import Q_, Q

#: How the names of the figures that grow with the capex begin (each one's `_low` and `_high` ends too).
BOUNDED = CAPEX_BOUNDED
#: A line the bill of materials counts by rule that no price list prices, as the capex table and cost sheet say it.
NOT_PRICED = "counted by rule, not priced: capex a lower bound"
#: How `left_out`'s words begin, so that a document can say the figure is a lower bound and why in one sentence.
LEAVES_OUT = "it leaves out"


def left_out(lines: Iterable[CapexLine], bom: Iterable[BomLine]) -> str:
    """What a capex leaves out, in words ("" for nothing): its unpriced rule-counted lines and "not provided" lines.

    Fibre cords are summed over their lines ("fibre cords x752"); a "not provided" line is named once by id
    whatever its racks.
    """
    counted: dict[str, int] = {}
    for line in lines:
        if not line.priceable and line.unit_price is None and line.quantity:
            name = "fibre cords" if line.kind == "Fibre" else line.part
            counted[name] = counted.get(name, 0) + line.quantity
    missing = sorted({line.part for line in bom if not line.provided})
    named = ", ".join(f"{k} x{n:,}" for k, n in counted.items())
    words = ([f"parts the bill of materials counts with no price ({named}; a `Prices` line under the BOM line's id "
              "prices one)"] if counted else []) + \
        ([f"parts the racks need and their specs do not state ({', '.join(missing)}: \"not provided\" lines)"]
         if missing else [])
    return f"{LEAVES_OUT} {' and '.join(words)}" if words else ""


def lower_bounds(metrics: Mapping[str, Q], why: str) -> dict[str, tuple[Q, str]]:
    """The figures of `metrics` that grow with a capex that leaves parts out (`why`), each with infinity as other end.

    Keyed by `lower_key`, so that an entry of the metric's own (an energy at maximum draw) is kept beside it.
    """
    if not why:
        return {}
    return {lower_key(k): (Q_(float("inf"), v.units), why) for k, v in metrics.items()
            if k.startswith(BOUNDED) and 0 < v.m < float("inf")}
