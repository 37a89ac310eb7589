"""The requirements compliance matrix of `archgen check --format json`: every requirement row, met ones included.

The findings list only what is not met, at risk, not provided or met on assumed inputs (REQ001 to REQ005, PERF001),
so a requirement met cleanly appeared in the JSON as nothing but a count (`summary.passed` counts checks, not
requirements): a verification record built from it lost the requirements it had verified (newuser61's trial). These
rows are the documents' matrix (`render.compliance.requirements_table`) in the JSON contract: the pipeline's one
judgement of each requirement (`Run.requirements`), with the check that reports it and its waiver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from archgen.checks import Finding
from archgen.errors import Location
from archgen.load import shown
from archgen.output.envelope import metric_quantity, quantity

if TYPE_CHECKING:
    from archgen.checks.judgement import Judgement

#: Where a requirement is written, from its owner's id and key path (`validate.Specs.locate`).
Locate = Callable[[str, Sequence[str | int]], Location | None]


def rows(judgements: Iterable[Judgement], findings: Iterable[Finding], locate: Locate | None = None) -> list[dict]:
    """One JSON row per requirement and object, in the pipeline's order (`Run.requirements`)."""
    found = {(f.id, f.requirement, f.object): f for f in findings if f.requirement}
    out = []
    for j in judgements:
        b, o, req = j.bound, j.outcome, j.bound.req
        f = found.get((j.check, req.id, b.subject))
        loc = shown(locate(b.owner, b.path)) if locate else None
        out.append({
            "requirement": req.id, "statement": req.statement, "parent": list(req.parent) or None,
            "level": req.level, "basis": req.basis,
            "verification": req.verification, "source": req.source or None,
            "subject": b.subject or b.pattern, "pattern": b.pattern or None, "metric": req.metric,
            "target": str(req.target), "limit": metric_quantity(req.metric, req.target.limit),
            "tolerance": quantity(req.slack) if req.slack is not None else None, "within_tolerance": o.tolerated,
            "value": metric_quantity(req.metric, o.value),
            "band": [metric_quantity(req.metric, v) for v in o.band] if o.band and o.value is not None else None,
            "status": o.status.value, "shown": o.shown, "check": j.check,
            "to_verify": bool(req.pending) and o.value is not None,
            "assumed": list(o.assumed) or None, "note": o.note or None,
            "waived": (f.waived.strip() or None) if f and f.waived else None,
            "file": loc.file if loc else None, "line": loc.line if loc and loc.line else None,
        })
    return out
