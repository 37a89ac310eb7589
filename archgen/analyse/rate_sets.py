"""Which failure-rate set a cluster reads, where it was measured, and one rate standing for several parts.

Split from `archgen.analyse.reliability` (the failure model; docs/reliability.md): the set is the cluster's
`failure_rates` or the shipped default, and, through `base`, the sets its missing classes come from.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from archgen.analyse.network import ClusterAnalysis, compute_node
from archgen.model.accelerator import Accelerator, vendor_name
from archgen.model.reliability import DEFAULT_RATES, BorrowedSet, FailureRate, FailureRates
from archgen.units import Q_
from archgen.validate import Specs

__all__ = ["borrowed", "borrowed_inputs", "borrowed_range", "combined", "counted", "measured_outside", "other_family",
           "rates_of", "scope_chain", "unstated", "unstated_of", "vendor_scope"]


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


#: What each `FailureRates.counts` says a set's source counts, as the document states it beside the figures, in
#: the vocabulary's order (`range_counts` groups the range's sets by it).
COUNTED = {"all": "every interruption of a job, its own code's included",
           "infrastructure": "the infrastructure's failures only, not the job's own code's",
           "part": "one class's or component's failures only",
           "unknown": "failures the source does not define"}


def counted(chain: list[FailureRates]) -> str:
    """Which interruptions the set and its `base`s count (`FailureRates.counts`), in words; '' without a set.

    A figure built from a set counts what the set's source counted (Meta's job MTTFs, Kokolis et al. Figure 7, are
    compared with archgen's MTTI: docs/reliability.md), so the document says it beside the figures, the set's
    `counts_note` after its word; a set that does not state it is said not to.
    """
    if not chain:
        return ""
    return "; ".join([_counted(chain[0])] + [f"its classes from '{r.id}': {_counted(r)}" for r in chain[1:]])


def _counted(rates: FailureRates) -> str:
    """What one set counts: 'every interruption of a job, its own code's included (unplanned interruptions of ...)'."""
    said = COUNTED[rates.counts] if rates.counts else "not stated"
    return f"{said} ({rates.counts_note})" if rates.counts_note else said


def range_counts(spread: Iterable[tuple[str, str]]) -> str:
    """The range's sets, (id, `counts`) each, grouped by what they count where they count different things; else ''.

    A range over sets that count different interruptions (every one of a job's, the infrastructure's, one class's)
    is not one figure's spread: the document says which set counts what (rsc40 left it to the docs).
    """
    groups: dict[str, list[str]] = {}
    for rid, counts in spread:
        groups.setdefault(counts, []).append(f"'{rid}'")
    if len(groups) < 2:
        return ""
    order = [*COUNTED, ""]
    return "; ".join(f"{COUNTED.get(c, 'not stated')} ({', '.join(ids)})"
                     for c, ids in sorted(groups.items(), key=lambda g: order.index(g[0])))


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


def vendor_scope(rates: FailureRates) -> str:
    """A set's scope in words where its source names only the vendor (`accelerator_vendor`); else ''."""
    if not rates.accelerator_vendor or rates.accelerators:
        return ""
    cc = rates.compute_capability_max
    return (f"{vendor_name(rates.accelerator_vendor)} accelerators of an unstated model"
            + (f", compute capability {cc:.1f} or older" if cc is not None else ""))


def measured_outside(specs: Specs, rates: FailureRates, acc: str) -> str:
    """Where `rates` were measured, in words, where accelerator `acc` lies outside that scope; else ''.

    A set that names its accelerators scopes them by id; one whose source names only their vendor
    (`accelerator_vendor`) scopes them by vendor, so that another vendor's accelerator is told it borrows them
    (StepFun's trace of NVIDIA GPUs of an unstated model, on an AMD MI355X design), and, where its dates rule out a
    generation (`compute_capability_max`), by the accelerator's compute capability (a trace begun in March 2024, on a
    GB300 design); a set that states neither is tied to none.
    """
    if rates.accelerators:
        return ", ".join(rates.accelerators) if acc not in rates.accelerators else ""
    if rates.accelerator_vendor:
        part = specs.get(acc)
        vendor = vendor_name(part.vendor) if isinstance(part, Accelerator) else ""
        cc = part.compute_capability if isinstance(part, Accelerator) else None
        newer = rates.compute_capability_max is not None and cc is not None and cc > rates.compute_capability_max
        other = vendor.casefold() != vendor_name(rates.accelerator_vendor).casefold()
        return vendor_scope(rates) if other or newer else ""
    return ""


def unstated(specs: Specs, sets: list[FailureRates], acc: str) -> str:
    """The sets whose source leaves the accelerator model unstated and that `acc` may be: a sentence, else ''.

    Such a set is in scope of the cluster's accelerator (same vendor, a generation its dates allow) but not shown to
    be measured on it, which the document and REL007 say rather than read the rates as the accelerator's own.
    """
    out = [f"'{r.id}' ({scope})" for r in sets
           if (scope := vendor_scope(r)) and not measured_outside(specs, r, acc)]
    return (f"accelerator not stated by the source of {', '.join(out)}; {acc} may or may not be the one measured"
            if out else "")


def _outside_chain(specs: Specs, a: ClusterAnalysis,
                   rates: FailureRates | None) -> tuple[str, list[tuple[FailureRates, str]]]:
    """The cluster's accelerator and every set of the chain whose measured scope it lies outside, with where."""
    node = compute_node(a.nodes)
    acc = node.part.accelerator if node is not None else None
    if acc is None:
        return "", []
    return acc, [(r, where) for r in scope_chain(specs, rates) if (where := measured_outside(specs, r, acc))]


def other_family(specs: Specs, sets: list[FailureRates], acc: str) -> str:
    """Where sets were measured on another part family than `acc`'s (both `family` stated): a clause, else ''.

    Every shipped set is a GPU fleet's (A100, H100, H800, B200, or NVIDIA GPUs of an unstated model): on a TPU they
    stand in for rates no set gives, which the output says in so many words rather than only naming the GPU ids.
    """
    part = specs.get(acc)
    own = part.family if isinstance(part, Accelerator) else ""
    other = [r for r in sets if own and r.family and r.family.casefold() != own.casefold()]
    if not other:
        return ""
    fams = " and ".join(sorted({r.family for r in other}))
    return (f"; {'every one' if len(other) == len(sets) else f'{len(other)} of them'} measured on {fams} fleets, "
            f"and {acc} is a {own}: another part family's failure rates stand in for its own, which no rate set "
            "gives (not provided)")


def borrowed(specs: Specs, a: ClusterAnalysis, rates: FailureRates | None) -> str:
    """Where the cluster's accelerator lies outside the measured scope of the set or its `base`s: a sentence, else ''.

    Every set of the chain whose scope the accelerator lies outside is named: a set's own classes and its base's both
    reach the figures (StepFun's GPU, NIC, host and software rates and its H100 base's switch and link rates).
    """
    acc, outside = _outside_chain(specs, a, rates)
    if not outside:
        return ""
    return ("; ".join(f"the '{r.id}' rates were measured on {where}{f' ({r.operator})' if r.operator else ''}"
                      for r, where in outside) + f"; {acc} borrows them"
            + other_family(specs, [r for r, _ in outside], acc))


def borrowed_inputs(specs: Specs, a: ClusterAnalysis, rates: FailureRates | None) -> tuple[str, ...]:
    """`borrowed`'s sets, each in a few words, as inputs a figure rests on (REQ005, `gap`: `analyse.assumed`)."""
    acc, outside = _outside_chain(specs, a, rates)
    return tuple(BorrowedSet(f"'{r.id}' failure rates (measured on {where}; {acc} borrows them)")
                 for r, where in outside)


def borrowed_range(specs: Specs, a: ClusterAnalysis, sets: list[FailureRates]) -> str:
    """The sets of a range measured on other accelerators than the cluster's: a sentence naming them, else ''."""
    node = compute_node(a.nodes)
    acc = node.part.accelerator if node is not None else None
    if acc is None:
        return ""
    outside = [(r, where) for r in sets if (where := measured_outside(specs, r, acc))]
    if not outside:
        return ""
    named = ", ".join(f"'{r.id}' ({where})" for r, where in outside)
    return (f"the range spans rate sets measured on other accelerators: {named}; {acc} borrows them"
            + other_family(specs, [r for r, _ in outside], acc))


def unstated_of(specs: Specs, a: ClusterAnalysis, sets: list[FailureRates]) -> str:
    """`unstated` for the cluster's accelerator (its compute node's), else ''."""
    node = compute_node(a.nodes)
    acc = node.part.accelerator if node is not None else None
    return unstated(specs, sets, acc) if acc is not None else ""
