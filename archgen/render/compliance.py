"""The requirements section every document has and its compliance matrix: each requirement as the pipeline judged it.

Rows are `Run.requirements` (`checks.judgement.judge_all`), never judged again here; values are shown as the metric
shows elsewhere (`judged_value`). Split from `render.common` for its size; the JSON matrix (`output.matrix`) carries the
same rows.
"""

from __future__ import annotations

import re
from typing import Any

from archgen import metrics
from archgen.checks.judgement import Judgement
from archgen.model import tolerance
from archgen.model.requirements import Outcome, Status, status_counts
from archgen.open_item import Worded, customer_text
from archgen.render import fmt
from archgen.render.blocks import Cite, Column, Para, Section, Table
from archgen.render.common import Scope, where

#: The compliance matrix's status column (`requirements_table`).
STATUS_COLUMN = 8


def judged(scope: Scope) -> list[tuple[Judgement, str]]:
    """Each requirement of the document's scope as the pipeline judged it, and its finding's waiver ('' if none).

    The waiver as the finding says it (`Finding.waived`: its reason, owner and expiry): true where one covers it.
    """
    found = {(f.id, f.requirement, f.object): f for f in scope.run.findings if f.requirement}
    return [(j, f.waived if (f := found.get((j.check, j.bound.req.id, j.bound.subject))) else "")
            for j in scope.requirements()]


#: Where a sentence ends: a full stop after a word, a figure or a bracket, before a capital or "(".
SENTENCE_END = re.compile(r"(?<=[A-Za-z0-9)\]%])\.\s+(?=[A-Z(])")
#: Where a clause of a sentence ends, outside brackets: a colon or a semicolon (`clause`).
CLAUSE_END = re.compile(r"[:;]\s")
#: What a Reason cell says where it leaves the rest of a note or a waiver to the validation report.
IN_FULL = " (in full in the validation report)"


def clause(text: str) -> str:
    """`text`'s first clause: up to its first sentence's end, or a colon or semicolon outside brackets before it.

    A compliance matrix's Reason gives the reason in one clause; the note at length stays in the finding.
    """
    first, depth = SENTENCE_END.split(text.strip(), maxsplit=1)[0].rstrip("."), 0
    for i, c in enumerate(first):
        depth += (c in "([") - (c in ")]")
        if depth == 0 and CLAUSE_END.match(first, i):
            return first[:i]
    return first


def reason_cell(o: Outcome, subject: str, waived: str) -> Worded:
    """The matrix's Reason: the row's own (`_reason`) and its waiver's (`waiver_reason`), each in one clause.

    A row not provided says why without the words its Metric and Status columns say ("rack/r's weight is not provided:
    "), and where a clause leaves the rest out, the cell says the validation report gives it in full (`IN_FULL`: its
    finding, with the waiver's reason, owner and expiry). weightmet43 found REQ-MECH-001's Reason a lower bound's
    note, the share of it unconfirmed and the waiver's first sentence: ~900 characters in one cell. The customer
    edition shows that a finding is waived, never the team's reason (`render.edition`): its words are the row's own
    reason alone, the Status cell saying "(waived)".
    """
    reason = _reason(o, subject)   # a withheld figure's reason has the customer's words too (`open_item.worded`)
    full, public = (t.removeprefix(f"{subject}'s {o.requirement.metric} is not provided: ")
                    for t in (reason, customer_text(reason)))
    own, theirs = clause(full), clause(public)
    short = own != full.rstrip(".")
    said = theirs + (IN_FULL if theirs != public.rstrip(".") else "")
    if not waived:
        return Worded(own + (IN_FULL if short else ""), said)
    why = waiver_reason(waived)
    cut = short or why != f"waived: {waived.strip().rstrip('.')}"
    return Worded((why if own == "—" else f"{own}; {why}") + (IN_FULL if cut else ""), said)


def waiver_reason(waived: str) -> str:
    """A waiver's reason, short, as the compliance matrix's Reason names it: "waived: <its first clause>" (`clause`).

    newuser106: "not met (waived)" had "—" for its reason while the waiver's text (an open finding, and what closes
    it) stood only in the validation report; the whole of it, owner and expiry too, stays there.
    """
    return f"waived: {clause(waived)}"


def requirements_table(scope: Scope) -> Table:
    """The requirements compliance matrix: each requirement of the document's scope as the pipeline judged it.

    Rows are `Run.requirements` (`checks.judgement.judge_all`), not judged again here: the status is the one
    `archgen check` reports, with the check that reports it (its finding's waiver shown), the reason where there is
    no value, the value in the target's unit with its band where it has one, and where the requirement is written.
    The method that verifies each (`Requirement.verification`: analysis, test, inspection, demonstration) has its
    own column, so a partner reads how a requirement is closed without its status having to say it (newuser84).
    """
    rows, anchors = [], []
    for j, waived in judged(scope):
        b, o, req = j.bound, j.outcome, j.bound.req
        status = status_cell(o, bool(waived))
        target = fmt.grouped_numbers(fmt.target_text(req.target, metrics.lookup(b.subject, req.metric))
                                     + tolerance.text(req.tolerance))
        rows.append((req.id, req.level.upper(), req.traced, req.basis, req.verification,
                     f"{req.metric} of {b.subject}", target, judged_value(o, b.subject), status, j.check,
                     reason_cell(o, b.subject, waived),
                     where(scope.run.design.specs.locate(b.owner, b.path)), Cite.of(req.source)))
        anchors.append(fmt.slug(req.id if b.subject == scope.subject else f"{req.id} {b.subject}"))
    cols = (Column("REQ id"), Column("Level"), Column("Statement"), Column("Basis"), Column("Verified by"),
            Column("Metric"), Column("Target"), Column("Computed (band)"), Column("Status"), Column("Check"),
            Column("Reason"), Column("Location"), Column("Refs"))
    return Table("requirements", "Requirements compliance matrix", cols, tuple(rows), tuple(anchors),
                 status_column=STATUS_COLUMN)


def status_cell(o: Outcome, waived: bool = False, why: bool = False) -> Worded:
    """A requirement's status as every document table shows it: `Outcome.shown` ("met (on assumed inputs: ...)").

    The compliance matrix's and the performance section's alike (nu99fix: the latter said plain "met" where the matrix
    qualified it), with the customer's words (`Outcome.public_shown`) and "(waived)" where a waiver covers it. `why`
    (a table with no Reason column, the performance section's) puts why it is at risk first, short (`risk_words`):
    "at risk (no band at this load; on assumed inputs: ...)", where it read as if the assumed inputs were the cause
    (newuser104).
    """
    mark = " (waived)" if waived else ""
    words = risk_words(o) if why else ""
    return Worded(_first(o, o.shown, words) + mark, _first(o, o.public_shown, words) + mark)


def _first(o: Outcome, shown: str, words: str) -> str:
    """`shown` with `words` first in its parentheses."""
    rest = shown.removeprefix(o.status.value)
    return shown if not words else f"{o.status.value} ({words}" + (f"; {rest[2:]}" if rest.startswith(" (") else ")")


def risk_words(o: Outcome) -> str:
    """Why a requirement is at risk, in a few words: its band's end, no band (at this load or context), a thin band.

    The compliance matrix's Reason (`_reason`) at length; '' where it is not at risk or for any other reason (a lower
    bound, a figure resting on a count of the KV cache), whose status is left as it reads. Read from the outcome's
    fields (`Outcome.end_misses`, `Outcome.risk`, which the rule that wrote its note set), never from the note.
    """
    if o.status is not Status.AT_RISK:
        return ""
    return "an end of its band misses the target" if o.end_misses else o.risk.value if o.risk else ""


def judged_value(o: Outcome, subject: str = "") -> str:
    """The value a requirement was judged on, with its band or range, as its metric shows elsewhere: '—' without one.

    In the metric's display unit (`display.metric_value`), as the document's other tables and `archgen estimate` show
    it: a TTFT p99 of 0.1374 s under a target of '<= 0.45 s' reads 137.4 ms (it read 0.14 s), the target keeping its
    stated form. A metric the registry does not declare for `subject` keeps the target's unit.
    """
    value = o.value
    if value is None:
        return "—"
    text = _judged(o, value, subject)
    if o.band is not None:
        low, high = sorted(o.band, key=lambda v: float(v.to(value.units).magnitude))
        text += f" ({_judged(o, low, subject)} to {_judged(o, high, subject)})"
    return text


def _judged(o: Outcome, value: Any, subject: str) -> str:
    """One value of a requirement's metric: `display.metric_value`, or in the target's unit where it is not declared."""
    m = metrics.lookup(subject, o.requirement.metric) if subject else None
    if m is not None and m.accepts(value):
        return fmt.metric_value(m, value)
    shown = o.requirement.target.in_units(value)
    return fmt.q(shown, digits=fmt.digits_for(shown))


def _reason(o: Outcome, subject: str = "") -> str:
    """Why a requirement has its status where the value does not say: no value, or its band's pessimistic end.

    A note echoes quantities as the judgement wrote them ("the target <= 1400 kg"): grouped as the document's numbers
    are (`fmt.grouped_numbers`; weight67's lower-bound notes).
    """
    if o.status is Status.AT_RISK and (end := o.pessimistic) is not None and o.end_misses:
        return f"the pessimistic end, {_judged(o, end, subject)}, misses the target"   # else `thin`'s note
    # not provided: why; else what sets a miss, or a latency judged where its band is unmeasured at this load
    if not o.note:
        return "—"
    shown, said = fmt.grouped_numbers(o.note), fmt.grouped_numbers(customer_text(o.note))
    return shown if said == shown else Worded(shown, said)


def requirements_section(scope: Scope) -> Section:
    """Requirements and assumptions, each tagged sourced or assumed, with the count of each status."""
    section = Section("requirements", "Requirements and assumptions")
    rows = judged(scope)
    if not rows:
        return section.add(Para("No requirements are stated for this target. Add them under `requirements:` in "
                                "its spec or in a Requirements document."))
    counts = status_counts((j.outcome.status, bool(j.outcome.assumed)) for j, _ in rows)
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    waived = sum(1 for _, w in rows if w)
    summary += f"; {waived} waived" if waived else ""
    pending = sum(1 for j, _ in rows if j.bound.req.pending and j.outcome.value is not None)
    summary += (f"; {pending} judged by analysis only, each still to be verified by the test, inspection or "
                "demonstration its status names" if pending else "")
    return section.add(Para(f"{len(rows)} requirement(s): {summary}."), requirements_table(scope))
