"""Error cascades: the findings that follow from an unresolved reference are marked as caused by its REF finding.

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
"""

from __future__ import annotations

import re
from dataclasses import replace

from archgen.build import Design
from archgen.checks.registry import Context, Finding
from archgen.checks.registry import run_checks as _run_checks

#: The checks whose findings are the causes: an unknown id (REF001) and an id of the wrong kind (REF002).
CAUSES = ("REF001", "REF002")
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
    """`registry.run_checks`, with the findings that follow from a REF finding marked (`fold`)."""
    return fold(_run_checks(ctx, select, ignore), ctx.design)


def cause_of(f: Finding) -> str:
    """How the findings a REF finding causes name it: ``REF001 rack/r: 'q340'`` (its ID, object and reference)."""
    ref = f.message.split("'")[1] if f.message.count("'") >= 2 else ""
    return f"{f.id} {f.object}: '{ref}'"


def fold(findings: list[Finding], design: Design) -> list[Finding]:
    """`findings` with `caused_by` set on each that follows from an unresolved reference reported by REF001/REF002.

    The order is kept; a REF finding itself is never marked.
    """
    causes = {(f.object, cause_of(f).rsplit(": ", 1)[1]): f for f in findings if f.id in CAUSES}
    if not causes:
        return findings
    out = []
    for f in findings:
        if f.id not in CAUSES:
            quoted = [u for u in design.unresolved if f"'{u.ref}'" in f.message]
            computed = f.severity in ("error", "warning") and f.id.rstrip("0123456789") in COMPUTED \
                and f.id not in AS_WRITTEN
            subject = f.object
            if f.id == "SPC002" and (m := _UNUSED.match(f.message)) and m[1].rstrip("0123456789") in COMPUTED:
                computed, subject = True, m[2]   # the finding it waived is gone with the part: not provided instead
            rests = design.resting_on(subject) if computed else []
            cause = next((causes[k] for u in quoted + rests if (k := (u.subject, f"'{u.ref}'")) in causes), None)
            if cause is not None:
                f = replace(f, caused_by=cause_of(cause))
        out.append(f)
    return out
