"""Which failure-rate set a cluster reads, where it was measured, and one rate standing for several parts.

Split from `archgen.analyse.reliability` (the failure model; docs/reliability.md): the set is the cluster's
`failure_rates` or the shipped default, and, through `base`, the sets its missing classes come from.
"""

from __future__ import annotations

from typing import Literal

from archgen.analyse.network import ClusterAnalysis, compute_node
from archgen.model.reliability import DEFAULT_RATES, FailureRate, FailureRates
from archgen.units import Q_
from archgen.validate import Specs

__all__ = ["borrowed", "borrowed_range", "combined", "rates_of", "scope_chain"]


def rates_of(specs: Specs, cluster: ClusterAnalysis) -> FailureRates | None:
    """The cluster's `FailureRates` set (its own, or the shipped default); None when missing (REF reports it)."""
    rid = cluster.cluster.spec.failure_rates or DEFAULT_RATES
    found = specs.get(rid)
    return found if isinstance(found, FailureRates) else None


def scope_chain(specs: Specs, rates: FailureRates | None) -> list[FailureRates]:
    """The set and, through `base`, the sets its missing classes come from, in order (a loop or missing id ends it)."""
    out: list[FailureRates] = []
    while rates is not None and all(r.id != rates.id for r in out):
        out.append(rates)
        found = specs.get(rates.base) if rates.base else None
        rates = found if isinstance(found, FailureRates) else None
    return out


def combined(rates: list[tuple[float, FailureRate]]) -> FailureRate | None:
    """One rate standing for several parts of a class: their unit-weighted rate and repair time."""
    if not rates:
        return None
    if all(r == rates[0][1] for _, r in rates):  # parts that all take the set's class rate keep it, and its count
        return rates[0][1]
    units = sum(n for n, _ in rates)
    per_year = sum(n * r.per_year for n, r in rates) / units
    repair = sum(n * r.per_year * r.repair.m_as("h") for n, r in rates) / max(per_year * units, 1e-30)
    detection = sum(n * r.per_year * r.detection.m_as("h") for n, r in rates) / max(per_year * units, 1e-30)
    basis: Literal["sourced", "assumed"] = "sourced" if all(r.basis == "sourced" for _, r in rates) else "assumed"
    return FailureRate(fit=per_year / 8766.0 * 1e9, repair=Q_(repair, "h"), detection=Q_(detection, "h"), basis=basis,
                       source="; ".join(sorted({r.source for _, r in rates})),
                       interrupts=all(r.interrupts for _, r in rates))


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
