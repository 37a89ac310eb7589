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
from archgen.model import field_words, tolerance
from archgen.model.requirements import Outcome, Status
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


#: Where a waiver's first sentence ends: a full stop after a word, a figure or a bracket, before a capital or "(".
SENTENCE_END = re.compile(r"(?<=[A-Za-z0-9)\]%])\.\s+(?=[A-Z(])")


def reason_cell(reason: str, waived: str) -> Worded:
    """The matrix's Reason: the row's own (`_reason`), then its waiver's (`waiver_reason`) where one covers it.

    The customer edition shows that a finding is waived, never the team's reason (`render.edition`): its words are
    the row's own reason alone, the Status cell saying "(waived)".
    """
    said = customer_text(reason)   # a withheld figure's reason in the customer's words (REL006's, `open_item.worded`)
    if not waived:
        return Worded(reason, said)
    return Worded(waiver_reason(waived) if reason == "—" else f"{reason}; {waiver_reason(waived)}", said)


def waiver_reason(waived: str) -> str:
    """A waiver's reason, short, as the compliance matrix's Reason names it: "waived: <its first sentence>".

    newuser106: "not met (waived)" had "—" for its reason while the waiver's text (an open finding, and what closes
    it) stood only in the validation report; the whole of it, owner and expiry too, stays there.
    """
    return f"waived: {SENTENCE_END.split(waived.strip(), maxsplit=1)[0].rstrip('.')}"


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
                     reason_cell(_reason(o, b.subject), waived),
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
    said = tuple(map(field_words.assumed_said, o.assumed))
    return Worded(_first(o, _grouped(o.shown, o.assumed), words) + mark,
                  _first(o, _grouped(o.public_shown, said), words) + mark)


def _grouped(shown: str, assumed: tuple[str, ...]) -> str:
    """`shown` with its assumed inputs grouped by field (`grouped_inputs`), where two parts share one."""
    listed = ", ".join(assumed)
    return shown.replace(listed, grouped_inputs(assumed), 1) if listed else shown


#: An assumed input that is a part's unconfirmed figure: "sn2201 power.max (unconfirmed)" (`Outcome.assumed`).
PART_FIGURE = re.compile(r"(\S+) (.+) \(unconfirmed\)")


def grouped_inputs(assumed: tuple[str, ...]) -> str:
    """Assumed inputs as a status cell lists them: a field two or more parts share named once, with those parts.

    newuser106: nine inputs of one cluster's IT power ("gb200-compute-tray power.max (unconfirmed), nvlink5-switch-tray
    power.max (unconfirmed), ...") were hard to scan; grouped they read "power.max (unconfirmed) of gb200-compute-tray,
    nvlink5-switch-tray, qm9700, sn2201, sn4600c, sn5600; power_per_end (unconfirmed) of mmf-100g-sr4,
    mmf-800g-sr8; orv3-power-shelf-33kw efficiency (unconfirmed)", in the order each field first appears. Inputs
    of another form (a failure rate, a PUE) and a field one part alone rests on keep their words; with nothing to
    group, the list is as `Outcome.shown` gives it.
    """
    groups: dict[str, list[str]] = {}   # by field, the parts; an input of another form alone, under its words
    for item in assumed:
        m = PART_FIGURE.fullmatch(item)
        groups.setdefault(f"{m.group(2)} (unconfirmed)" if m else f"\0{item}", []).append(m.group(1) if m else item)
    if all(len(parts) == 1 for parts in groups.values()):
        return ", ".join(assumed)
    return "; ".join(f"{field} of {', '.join(parts)}" if len(parts) > 1 else
                     parts[0] if field.startswith("\0") else f"{parts[0]} {field}" for field, parts in groups.items())


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


#: How the requirements' count names those met on a figure resting on assumed inputs (`status_counts`).
MET_ASSUMED = "met on assumed inputs"


def status_counts(outcomes: list[Outcome]) -> dict[str, int]:
    """How many `outcomes` have each status, in `Status` order; those met on assumed inputs counted apart.

    newuser106: "5 requirement(s): 1 met, ..." where the one met read "met (on assumed inputs: ...)" in the matrix;
    now "1 met on assumed inputs", after the plain "met" (`MET_ASSUMED`).
    """
    counts = {s.value: sum(1 for o in outcomes if o.status is s) for s in Status}
    assumed = sum(1 for o in outcomes if o.status is Status.MET and o.assumed)
    met = Status.MET.value
    return {met: counts.pop(met) - assumed, MET_ASSUMED: assumed, **counts}


def requirements_section(scope: Scope) -> Section:
    """Requirements and assumptions, each tagged sourced or assumed, with the count of each status."""
    section = Section("requirements", "Requirements and assumptions")
    rows = judged(scope)
    if not rows:
        return section.add(Para("No requirements are stated for this target. Add them under `requirements:` in "
                                "its spec or in a Requirements document."))
    summary = ", ".join(f"{n} {s}" for s, n in status_counts([j.outcome for j, _ in rows]).items() if n)
    waived = sum(1 for _, w in rows if w)
    summary += f"; {waived} waived" if waived else ""
    pending = sum(1 for j, _ in rows if j.bound.req.pending and j.outcome.value is not None)
    summary += (f"; {pending} judged by analysis only, each still to be verified by the test, inspection or "
                "demonstration its status names" if pending else "")
    return section.add(Para(f"{len(rows)} requirement(s): {summary}."), requirements_table(scope))
