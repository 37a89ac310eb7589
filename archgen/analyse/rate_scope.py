"""Which accelerators a failure-rate set was measured on, and where a cluster borrows a set measured on others.

A set states its scope (`accelerators`); a set with a `base` takes its missing classes from that one, whose scope
counts too (`scope_chain`). A cluster on another accelerator borrows the rates: REL007 and the documents say so, and
a requirement met on them names the borrowed set among the inputs it rests on (`analyse.assumed`).
"""

from __future__ import annotations

from archgen.analyse.network import ClusterAnalysis, compute_node
from archgen.model.reliability import FailureRates
from archgen.validate import Specs


def scope_chain(specs: Specs, rates: FailureRates | None) -> list[FailureRates]:
    """The set and, through `base`, the sets its missing classes come from, in order (a loop or missing id ends it)."""
    out: list[FailureRates] = []
    while rates is not None and all(r.id != rates.id for r in out):
        out.append(rates)
        found = specs.get(rates.base) if rates.base else None
        rates = found if isinstance(found, FailureRates) else None
    return out


def borrowed(specs: Specs, a: ClusterAnalysis, rates: FailureRates | None, short: bool = False) -> str:
    """Where the cluster's accelerator lies outside the set's measured scope (or its `base`'s): a sentence, else ''.

    `short`: the same in a few words, as an input a figure rests on (REQ005, `gap`: `analyse.assumed`).
    """
    node = compute_node(a.nodes)
    acc = node.part.accelerator if node is not None else None
    rates = next((r for r in scope_chain(specs, rates) if r.accelerators and acc not in r.accelerators), None)
    if rates is None or acc is None:
        return ""
    if short:
        return f"'{rates.id}' failure rates (measured on {', '.join(rates.accelerators)}; {acc} borrows them)"
    return (f"the '{rates.id}' rates were measured on {', '.join(rates.accelerators)}"
            f"{f' ({rates.operator})' if rates.operator else ''}; {acc} borrows them")


def borrowed_range(specs: Specs, a: ClusterAnalysis, sets: list[FailureRates]) -> str:
    """The sets of a range measured on other accelerators than the cluster's: a sentence naming them, else ''."""
    node = compute_node(a.nodes)
    acc = node.part.accelerator if node is not None else None
    out = [f"'{r.id}' ({', '.join(r.accelerators)})" for r in sets if r.accelerators and acc is not None
           and acc not in r.accelerators]
    if not out:
        return ""
    return (f"the range spans rate sets measured on other accelerators: {', '.join(out)}; {acc} borrows them")
