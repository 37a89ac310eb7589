"""Findings of two runs matched: new in HEAD, resolved in HEAD, and those whose message changed.

A finding is matched by (check id, object, requirement) and severity: line numbers move between revisions. One of
each side left unpaired by message is the same finding with another text (newuser86: COST002 lost "sn5610 x5" and
was listed as neither new nor resolved); errors and warnings of that kind are listed as changed, old → new. Info
findings whose text moved are paired silently: they carry the figures the metrics list, and would repeat them.
"""

from __future__ import annotations

from collections import defaultdict

from archgen.checks import Finding

#: The severities whose changed message `diff` lists (`match_findings`).
LISTED = ("error", "warning")


def finding_key(f: Finding) -> tuple[str, str, str]:
    """Findings are matched by (check id, object, requirement): line numbers move between revisions."""
    return (f.id, f.object, f.requirement)


def match_findings(base: list[Finding], head: list[Finding]) -> tuple[
        tuple[Finding, ...], tuple[Finding, ...], tuple[tuple[Finding, Finding], ...]]:
    """(new in HEAD, resolved in HEAD, changed: (BASE's, HEAD's)) among unwaived findings.

    Findings with the same key and severity pair up, those with the same message first; the unpaired ones are new or
    resolved. The severity keeps a check's info finding (PWR002's assumed power factor, on every such rack) from
    pairing with, and hiding, the same check's error on the same object. Those paired without the same message are
    changed where they are errors or warnings (`LISTED`), in report order.
    """
    groups: dict[tuple, tuple[list[Finding], list[Finding]]] = defaultdict(lambda: ([], []))
    for f in base:
        if not f.waived:
            groups[(*finding_key(f), f.severity)][0].append(f)
    for f in head:
        if not f.waived:
            groups[(*finding_key(f), f.severity)][1].append(f)
    new: list[Finding] = []
    resolved: list[Finding] = []
    changed: list[tuple[Finding, Finding]] = []
    for old, cur in groups.values():
        left = list(old)
        unpaired = []
        for f in cur:
            same = next((i for i, g in enumerate(left) if g.message == f.message), None)
            if same is None:
                unpaired.append(f)
            else:
                left.pop(same)
        paired = min(len(left), len(unpaired))
        changed.extend((a, b) for a, b in zip(left[:paired], unpaired[:paired], strict=True) if a.severity in LISTED)
        new.extend(unpaired[paired:])
        resolved.extend(left[paired:])
    return (tuple(sorted(new, key=finding_order)), tuple(sorted(resolved, key=finding_order)),
            tuple(sorted(changed, key=lambda p: finding_order(p[1]))))


_SEVERITY = {"error": 0, "warning": 1, "info": 2}


def finding_order(f: Finding) -> tuple:
    """Report order: severity, check, object, requirement, message."""
    return (_SEVERITY.get(f.severity, 3), f.id, f.object, f.requirement, f.message)
