"""Whether a requirement a glob bound applies to the object it matched (`not_applicable`).

Moved out of `checks.judgement` (tail42) so that `archgen estimate`, which imports no check (tests/test_startup.py),
leaves out what `check` leaves out as not applicable when it judges a workload's requirements
(`pipeline.job_on_cluster`); `check` and sweeps ask the same function.
"""

from __future__ import annotations

from archgen.binding import BoundRequirement
from archgen.build import Design
from archgen.metrics import lookup
from archgen.model.rack import Rack
from archgen.model.workload import Workload, job_kind


def not_applicable(b: BoundRequirement, design: Design | None) -> str | None:
    """Why a requirement bound by a glob does not apply to the object it matched, or None where it does.

    The registry's jobs of a workload metric decide it (`metric.Metric.jobs`): `workload/*` with a cost per million
    tokens matches a collective (nccl-tests-like) job too, which has no tokens, so the requirement is not applicable
    there, never a REQ002 error per such job (nu64fix). A subject named exactly is still judged (REQ002 reports a
    metric its job cannot have: the requirement is then a mistake). Likewise `rack/*` with `coolant_supply` matches
    the air-cooled network racks of a liquid-cooled design, which have no loop (newuser84).
    """
    if design is None or not b.pattern:
        return None
    if b.subject.startswith("rack/") and b.req.metric == "coolant_supply":
        rack = design.specs.get(b.subject.partition("/")[2])
        if isinstance(rack, Rack) and rack.cooling.liquid is None:
            return f"{b.subject} has no liquid loop (cooling.liquid): 'coolant_supply' is a liquid-cooled rack's"
        return None
    if not b.subject.startswith("workload/"):
        return None
    w, m = design.specs.get(b.subject.partition("/")[2]), lookup(b.subject, b.req.metric)
    if not isinstance(w, Workload) or m is None or not m.jobs:
        return None
    kind = job_kind(w, "workload")
    if kind in m.jobs:
        return None
    return f"{b.subject} is a {kind} job: '{b.req.metric}' is a metric of {' and '.join(m.jobs)} jobs"
