"""Why an object has no value of a metric a requirement names, in words (REQ002's "not provided" reason).

A metric the registry declares for the object's kind is spelt right, so no "did you mean" is offered for it (newuser34:
a two-tier fabric's `core.switches` read "has no metric 'core.switches'; did you mean 'leaf.switches'?", a hall with
no `peak_pue` "did you mean 'facility_power'?"); an undeclared name keeps the suggestion.
"""

from __future__ import annotations

from collections.abc import Iterable

from archgen.errors import did_you_mean
from archgen.metrics import JOBS, TIERS, lookup


def absent(subject: str, metric: str, known: Iterable[str], words: bool = False) -> str:
    """Why `subject`, whose metrics are `known`, has no `metric`, in words.

    `words`: as a customer reads it, a declared metric by its registry title and no pointer to docs/metrics.md.

    A metric the registry declares for the subject's kind is spelt right, so no "did you mean" (a two-tier fabric's
    `core.switches` read "did you mean 'leaf.switches'?"): a tier the fabric does not have says so, as does the top
    tier's oversubscription (it has no uplinks), a workload metric of other jobs names them, and any other says when
    docs/metrics.md leaves it out. An undeclared name keeps the suggestion.
    """
    m = lookup(subject, metric)
    if m is None:
        return f"{subject} has no metric '{metric}'{suggest(metric, known)}"
    tier, dot, _ = metric.partition(".")
    tiers = sorted({k.partition(".")[0] for k in known if k.endswith(".switches")}, key=TIERS.index)
    if m.subject == "fabric" and dot and tier in TIERS and tier not in tiers:
        return f"{subject} has no {tier} tier (its tiers: {', '.join(tiers) or 'none'}), so no '{metric}'"
    if m.subject == "fabric" and tiers and tier == tiers[-1] and metric.endswith(".oversubscription"):
        return f"{subject}'s {tier} is its top tier, with no uplinks, so no '{metric}'"
    jobs = {j for j in JOBS if all(j in w.jobs for k in known if (w := lookup(subject, k)) is not None and w.jobs)}
    if m.jobs and len(jobs) == 1 and not jobs & set(m.jobs):
        return f"{subject} is a {next(iter(jobs))} job: '{metric}' is a metric of {' and '.join(m.jobs)} jobs"
    _, said, when = m.description.partition("not provided ")
    if words:
        return f"{subject}'s {m.said} is not provided" + (f": none {when.rstrip('.')}" if said
                                                            else f" for this {m.subject}")
    return (f"{subject}'s {metric} is not provided" + (f": docs/metrics.md gives none {when.rstrip('.')}" if said
                                                       else f" for this {m.subject} (docs/metrics.md)"))


def suggest(name: str, known: Iterable[str]) -> str:
    """A "; did you mean ..." where `name` is close to one of `known`, else an empty string."""
    return did_you_mean(name, known, cutoff=0.7, lead="; ")
