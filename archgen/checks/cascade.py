"""Error cascades: the findings that follow from an unresolved reference or an infeasible fabric, marked as such.

A part-id typo (`part: q340`) leaves the part out of everything computed from it: the rack's power and weight, the
fabric's switch count, the cluster's accelerators, the workload's estimate. Those findings are still reported (a
cascade is a guess, and an independent problem of the same object must not vanish), but each carries
`caused_by`, the REF finding it most likely follows from, so that reports show the typo first and fold the rest
under it (docs/checks.md, "Error cascades").

A finding follows from an unresolved reference when its message quotes the reference (`'q340'`), or when it is an
error or warning of a domain computed from the parts (`COMPUTED`) about an object that rests on the reference: a
rack on its own references; a cluster and its fabrics on theirs, on their rack types' and on the parts placed in
those; a workload on its own (its model) and on its cluster's. An unused waiver (SPC002) of a computed check on such
an object follows from it too: the finding it waived is not made (its requirement is not provided instead).

A fabric whose topology is infeasible (NET001, NET003, NET018: `topology.INFEASIBLE`) withholds its wiring
figures and refuses every job across scale-up domains that runs on it. A requirement on a figure it withheld
(`Operations.infeasible`) follows from its first such error, and so does a switch of it cabled past its ports
(CAB013), a finding its check marks as following from it (`Violation.follows`: CAB007's options read by nothing
because the fabric cannot be built, not because its topology is only counted; CAB003's links without media between
switch tiers it withheld the wiring of), and, by the rule above, an error
or warning of a computed domain about a job it refused (`WorkloadResult.refused_by`), or an unused waiver of a
computed check on one. Each is marked by what the analysis
recorded, not by the words of the reason.
"""

from __future__ import annotations

import re
from dataclasses import replace

from archgen.checks.registry import Context, Finding
from archgen.checks.registry import run_checks as _run_checks
from archgen.topology import INFEASIBLE

#: The checks whose findings are the causes: an unknown id (REF001) and an id of the wrong kind (REF002), and a
#: fabric's infeasible topology (`INFEASIBLE`).
REFERENCES = ("REF001", "REF002")
CAUSES = REFERENCES + INFEASIBLE
#: Checks that count the links an infeasible fabric's wiring puts on its switches: a switch cabled past its ports
#: (CAB013, whose Fix says so). On a fabric with an `INFEASIBLE` error they follow from it.
WIRING = ("CAB013",)
#: Domains computed from the parts placed (space, power, cooling, fabrics, cabling, requirements on those figures,
#: performance): their errors and warnings about an object that rests on an unresolved reference follow from it.
#: Checkpoint storage, failure data, prices and catalog data do not, unless the message quotes the reference.
COMPUTED = ("MECH", "PWR", "COOL", "NET", "CAB", "REQ", "PERF")
#: Checks of a requirement as it is written (one id stated twice, a money target's time base), which no part's figure
#: moves: a typo elsewhere never causes them (newuser102: REQ007 was folded under a rack-id typo).
AS_WRITTEN = ("REQ003", "REQ007")
#: SPC002's message (`registry.run_checks`): the check a waiver names and its subject. A waiver of a computed check
#: on an object that rests on an unresolved reference goes unused because of it (a requirement is then not provided).
_UNUSED = re.compile(r"^waiver of ([A-Z]+[0-9]+) for (\S+) matches no finding")


def run_checks(ctx: Context, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> list[Finding]:
    """`registry.run_checks`, with the findings that follow from a REF finding or an infeasible fabric marked."""
    return fold(_run_checks(ctx, select, ignore), ctx)


def cause_of(f: Finding) -> str:
    """How the findings a cause brings name it: ``REF001 rack/r: 'q340'``, or ``NET018 cluster/c/fabric/f``.

    A REF finding by its ID, object and reference; an infeasible fabric's error by its ID and the fabric.
    """
    if f.id not in REFERENCES:
        return f"{f.id} {f.object}"
    ref = f.message.split("'")[1] if f.message.count("'") >= 2 else ""
    return f"{f.id} {f.object}: '{ref}'"


def fold(findings: list[Finding], ctx: Context) -> list[Finding]:
    """`findings` with `caused_by` set on each that follows from an unresolved reference or an infeasible fabric.

    The reference's REF001/REF002 finding (which may mark an infeasible fabric's error too), else the fabric's first
    `INFEASIBLE` error (`_infeasible`), or what that error follows from, so that a cascade folds under its root once.
    The order is kept; a REF finding is never marked, nor an `INFEASIBLE` error by another fabric's.
    """
    causes = {(f.object, cause_of(f).rsplit(": ", 1)[1]): f for f in findings if f.id in REFERENCES}
    marked = [f if f.id in REFERENCES else _referenced(f, ctx, causes) for f in findings] if causes else findings
    fabrics: dict[str, Finding] = {}
    for f in marked:
        if f.id in INFEASIBLE and not f.follows:   # one that follows another of its fabric (NET001 under NET003) is
            fabrics.setdefault(f.object, f)   # no lead; else the first error of each fabric, in registry order
    if not fabrics:
        return marked
    metric = {(j.bound.subject, j.bound.req.id): j.bound.req.metric for j in ctx.requirements}
    out = []
    for f in marked:
        if (f.id not in CAUSES or f.id in INFEASIBLE and f.follows) and not f.caused_by \
                and (lead := fabrics.get(_infeasible(f, ctx, metric.get((f.object, f.requirement), "")))):
            f = replace(f, caused_by=lead.caused_by or cause_of(lead))
        out.append(f)
    return out


def _referenced(f: Finding, ctx: Context, causes: dict[tuple[str, str], Finding]) -> Finding:
    """`f`, marked as caused by the REF finding in `causes` (by subject and reference) it follows from, if any."""
    design = ctx.design
    quoted = [u for u in design.unresolved if f"'{u.ref}'" in f.message]
    subject = _computed(f)
    rests = design.resting_on(subject) if subject else []
    cause = next((causes[k] for u in quoted + rests if (k := (u.subject, f"'{u.ref}'")) in causes), None)
    return f if cause is None else replace(f, caused_by=cause_of(cause))


def _computed(f: Finding) -> str:
    """The object whose computed figures finding `f` is about, or "".

    An error or warning of a `COMPUTED` domain (not `AS_WRITTEN`): its own object; an unused waiver of a computed
    check (SPC002): its subject, where the finding it waived is gone with the figures (not provided instead).
    """
    if f.id == "SPC002" and (m := _UNUSED.match(f.message)) and m[1].rstrip("0123456789") in COMPUTED:
        return m[2]
    computed = f.severity in ("error", "warning") and f.id.rstrip("0123456789") in COMPUTED and f.id not in AS_WRITTEN
    return f.object if computed else ""


def _infeasible(f: Finding, ctx: Context, metric: str) -> str:
    """The fabric whose infeasible topology finding `f` follows from, or "".

    A requirement's finding on a figure the fabric withheld (`Operations.infeasible`, by the requirement's `metric`),
    a `WIRING` finding about the fabric, one its check marked (`Finding.follows`), or a computed finding
    (`_computed`) about a job the fabric refused (`WorkloadResult.refused_by`). The caller keeps the fabric only
    where it has an `INFEASIBLE` error.
    """
    if f.requirement and metric and (fabric := ctx.operations.infeasible.get(f.object, {}).get(metric)):
        return fabric
    if f.follows:
        return f.follows
    if f.id in WIRING:
        return f.object
    job = ctx.workloads.get(_computed(f))
    return getattr(job, "refused_by", "")
