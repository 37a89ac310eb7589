"""`archgen gap`: a `Gap` as Markdown for a partner or as JSON (quantities in SI units).

`--audience customer` writes the edition a partner receives (the rules of `archgen.render.edition`): no path of our
repository (the title names no folder, the findings no file and line, JSON no `file`/`line`/`column`), a waiver
without its reason, the repository paths a requirement's or finding's text names left out, no spec key quoted and no
instruction to our team (`edition.public_text`: PERF006 states the stack it assumes), and the unit prices a
finding names withheld (`edition_prices.withheld_finding`: a report has no `document.show_prices` to allow them).
"""

from __future__ import annotations

import math
from dataclasses import replace

from archgen.compare.answers import Answer
from archgen.compare.gap import Gap, GapRow, key
from archgen.display import outside
from archgen.load import shown as shown_location
from archgen.load import shown_file
from archgen.metrics import lookup, unbounded
from archgen.model import field_words, tolerance
from archgen.model.requirements import Status, judge, status_counts
from archgen.open_item import customer_text
from archgen.output.envelope import document, dumps, finding, located, metric_quantity, quantity
from archgen.render import fmt
from archgen.render.edition import public_text
from archgen.render.edition_prices import withheld_finding
from archgen.units import Q


def _digits(row: GapRow, q: Q) -> int:
    """Decimals for the value and the headroom of a row.

    The table's usual ones, or more so that a small headroom shows two significant digits (0.9961 against
    ``<= 1``, not 1.00).
    """
    digits = fmt.digits_for(q)
    mag = abs(float(_tidy(row.headroom).magnitude)) if row.headroom is not None else 0.0
    if not mag or not math.isfinite(mag) or mag.is_integer():
        return digits
    return max(digits, min(max(1 - math.floor(math.log10(mag)), 0), 6))


def _tidy(q: Q) -> Q:
    """The quantity with its magnitude at 12 significant digits, so that 18.000000000000004 U shows as 18 U."""
    return q.__class__(float(f"{float(q.magnitude):.12g}"), q.units)


def shown(row: GapRow, reference: bool = False, q: Q | None = None) -> str:
    """The proposal's value in the target's unit, as many decimals as `_digits`; '—'.

    The reference's where `reference`, `q` where given (a band's end).
    """
    q = q if q is not None else row.reference if reference else row.value
    if q is None:
        return "—"
    if float(q.magnitude) == math.inf:   # a cost's high end where goodput's low end is 0, an overrun's TTFT
        return unbounded(row.requirement.metric)
    value = _tidy(row.requirement.target.in_units(q))
    return _q(row, value, _digits(row, value))   # 8.7e-06, not 0.00 (`display.decimals`)


def based(row: GapRow, reference: bool = False) -> str:
    """`shown`, naming the figure where its metric has several (`GapRow.basis`): ``1.52 (as used; 2:1 as stated)``.

    The reference's value is the ratio as used too; the ratio stated is the proposal's alone.
    """
    value = shown(row, reference)
    if not row.basis or value == "—":
        return value
    return f"{value} ({row.basis.split(';')[0] if reference else row.basis})"


def value_cell(row: GapRow) -> str:
    """The proposal's value with its band, where it has one, as the compliance matrix shows it.

    '0.93 s (0.56 s to 44.1 s)'; a band wholly to one side of the value says so, as `archgen estimate` does
    (`display.outside`): '9.1 ms (9.26 ms to 9.796 ms, wholly above the estimate)'.
    """
    ends = f" ({shown(row, q=row.band[0])} to {shown(row, q=row.band[1])}{outside(row.value, row.band)})" \
        if row.band and row.value is not None else ""
    return based(row) + ends


def band_misses(row: GapRow) -> str:
    """Why an at-risk row is: its band's pessimistic end, where that misses the target; "" otherwise."""
    if row.band is None or row.value is None or row.status != Status.AT_RISK:
        return ""
    end = min(row.band, key=lambda v: row.requirement.target.headroom(v).magnitude)
    return f"the pessimistic end of its band, {shown(row, q=end)}, does not meet it" \
        if judge(row.requirement, end).status is Status.NOT_MET else ""


def _q(row: GapRow, value: Q, digits: int) -> str:
    """`fmt.q` of `value`, but a rate in what its metric counts: ``869.1 tokens/s``, not ``869.1 1/s``.

    As `check` and the documents show it (`display.metric_value`; newuser95: the gap table read ``>= 300 1/s``).
    """
    metric = lookup(row.subject, row.requirement.metric)
    rate = metric.rate_unit() if metric is not None else None
    if metric is None or rate is None or not metric.accepts(value):
        return fmt.q(value, digits=digits)
    return f"{fmt.decimals(float(metric.display(value).magnitude), digits)} {rate}"


def target_cell(row: GapRow) -> str:
    """The requirement's target as written, its tolerance after; a rate's in what its metric counts.

    ``>= 300 tokens/s``, not ``>= 300 1/s``, as `check` words it (`display.target_text`), beside a value in the
    target's unit.
    """
    req, metric = row.requirement, lookup(row.subject, row.requirement.metric)
    rated = metric is not None and metric.rate_unit() is not None
    return (fmt.target_text(req.target, metric) if rated else str(req.target)) + tolerance.text(req.tolerance)


def deviation_text(row: GapRow) -> str:
    """``+10.5 kW (+33.3 %), worse``: the proposal's value less the reference's, relative to it, and which is better.

    Signed as proposal minus reference, in the target's unit (K for a limit in °C, with no percentage: an offset
    scale's zero is arbitrary); better or worse by the target (`GapRow.better`). '—' without both values.
    """
    d = row.deviation
    if d is None:
        return "—"
    d = _tidy(d)
    text = ("+" if float(d.magnitude) > 0 else "") + _q(row, d, max(fmt.digits_for(d), _digits(row, d)))
    if (ratio := row.deviation_ratio) is not None and ratio:
        text += f" ({ratio * 100:+.{2 if 0 < abs(ratio) < 0.01 else 1}f} %)"
    return f"{text}, {row.better}"


def margin_text(row: GapRow) -> str:
    """``+6.7 % (+3 kW)``: the relative margin and the headroom; only the headroom where no ratio is defined."""
    if row.headroom is None or not math.isfinite(float(row.headroom.magnitude)):   # none, or no bound to measure to
        return "—"
    head = _tidy(row.headroom)
    absolute = ("+" if float(head.magnitude) > 0 else "") + _q(row, head, _digits(row, head))
    m = row.margin
    if m is None:
        return absolute
    rel = "0 %" if m == 0 else f"{m * 100:+.{2 if abs(m) < 0.01 else 1}f} %"
    ratio = _ratio(row)
    if ratio is not None and (abs(m) >= RATIO_FROM or 0 < abs(ratio) < 1 / RATIO_FROM ** 2):
        rel = f"{fmt.significant(ratio, 2)} × the limit"   # 5,400 × the limit, not -541367.1 %; 9.7e-06 × the limit
    return f"{rel} ({absolute})"


#: A margin at least this many times the limit (1,000 %), or a value under 1/RATIO_FROM² of it (1 %), reads as the
#: value's ratio to the limit: a percentage in the thousands, or -100.0 % for a value that is not 0, says less.
RATIO_FROM = 10


def _ratio(row: GapRow) -> float | None:
    """The value over the limit, in the limit's unit; None where the limit is 0 or on an offset temperature scale."""
    limit = row.requirement.target.limit
    if row.value is None or row.margin is None or not float(limit.magnitude):
        return None
    return float((row.value / limit).to("dimensionless").magnitude)


def summary_line(g: Gap) -> str:
    """One line: the rows by status and level, and the proposal's own findings."""
    s = g.summary()
    counts = ", ".join(f"{s[key(st)]} {st}" for st in status_counts(())   # as the documents count them
                       if s[key(st)] or st in (Status.MET, Status.NOT_MET, Status.NOT_PROVIDED))
    levels = "; ".join(f"{level.upper()}: " + ", ".join(f"{n} {st.replace('_', ' ')}" for st, n in c.items() if n)
                       for level, c in s["by_level"].items())
    text = f"{s['rows']} result(s) of {s['requirements']} requirement(s): {counts}"
    text += f" ({levels})" if levels else ""
    text += f". The proposal has {s['errors']} error and {s['warnings']} warning finding(s)"
    if s["our_errors"] or s["our_warnings"]:
        text += f"; our requirements have {s['our_errors']} error and {s['our_warnings']} warning finding(s)"
    if s["waived"]:
        text += f"; {s['waived']} result(s) waived"
    if s["to_verify"]:
        text += (f"; {s['to_verify']} result(s) judged by analysis only, each still to be verified by the test, "
                 "inspection or demonstration its status names")
    return text + "." + (f" Waivers judged as of {g.as_of}." if g.as_of else "")


def look(g: Gap) -> bool:
    """The report passes, but a reader must look: its first mark is ⚠️, as `archgen diff`'s is on a new warning.

    An unwaived warning finding of the proposal or of our requirements (an expired waiver's SPC004, a shadowed
    catalog entry's CAT007, a requirement at risk's REQ004), or a row that is not met and does not fail: a SHOULD
    or MAY missed (`check` reports it as a warning), at risk, or a SHALL miss our requirements document waives; or a
    row met by analysis whose `verification` (a test at acceptance) is still to decide it. A row not applicable (a
    glob matched a job that cannot have the metric) asks nothing of the reader; one met only within its tolerance
    (past the limit itself) does.
    """
    s = g.summary()
    return bool(s["warnings"] or s["our_warnings"] or s.get("revisions_unstated")) or any(
        (r.status not in (Status.MET, Status.NOT_APPLICABLE) or r.to_verify or r.tolerated) and not r.failing
        for r in g.rows)


def markdown(g: Gap, audience: str = "internal") -> str:
    """The report as Markdown for a partner: summary, requirements, what is not provided, findings, objects.

    As `archgen diff`'s, no ``@`` in it mentions anyone (`fmt.no_mentions`). The customer `audience` names no path
    of ours (module docstring).
    """
    public = audience == "customer"
    # a `Worded` reason in its own customer words, as a finding's (a figure REL006 withholds), then no key of ours
    text = (lambda t: public_text(customer_text(t))) if public else (lambda t: t)
    icon = "❌" if g.failing else "⚠️" if look(g) else "✅"   # passes, but look (README, Vendor proposals)
    title = ("## Gap report: the proposal against our requirements" if public else
             f"## archgen gap: {fmt.code(' '.join(map(shown_file, g.proposal)) or 'proposal')} against "
             f"{fmt.code(' '.join(map(shown_file, g.against)) or 'requirements')}")
    lines = [title, "", f"{icon} {summary_line(g)}", ""]
    lines += [f"**Revision.** {fmt.md(a.text(public))}" for a in g.answers] + [""] * bool(g.answers)
    if not public:   # the notes name our files
        lines += [f"> ⚠️ {fmt.md(n)}" for n in g.notes] + ([""] if g.notes else [])
    if g.rows:
        several = any(r.designs for r in g.rows)   # rows of several designs (`compare.gap.merge`) name theirs
        ref = bool(g.reference)                    # `--reference`: the reference design's value beside each
        lines += ["### Requirements", "",
                  "| " + "design | " * several
                  + "requirement | level | subject | statement | target | proposal | "
                  + "reference | deviation | " * ref
                  + "status | margin |",
                  "|" + "---|" * several + "---|---|---|---|---|--:|" + "--:|--:|" * ref + "---|--:|"]
        labels = {} if public else {w: f"W{i}" for i, w in enumerate(dict.fromkeys(
            r.waived.strip() for r in g.rows if r.waived), 1)}
        for r in g.rows:
            req = r.requirement
            subject = f"`{r.subject}`" if r.subject else "—"
            lines.append("| " + f"{design_text(r)} | " * several
                         + f"{req.id} | {req.level.upper()} | {subject} | {fmt.md(text(req.traced))} | "
                         f"{fmt.md(target_cell(r))} | {value_cell(r)} | "
                         + f"{based(r, reference=True)} | {deviation_text(r)} | " * ref
                         + f"{_status_cell(r, public, labels)} | {margin_text(r)} |")
        lines.append("")
        lines += _waiver_notes(g, labels)
        # an at-risk row's reason too: a capex met as a lower bound read "⚠️ at risk" and nothing more (newuser90)
        for status, heading in (("not provided", "Not provided"), ("not applicable", "Not applicable"),
                                ("at risk", "At risk")):
            missing = [r for r in g.rows if r.status == status and (r.note or band_misses(r) or status != "at risk")]
            if missing:
                lines += [f"**{heading}:**", ""]
                lines += [f"- {r.requirement.id}" + (f" on `{r.subject}`" if r.subject else "")
                          + (f" (design {design_text(r)})" if r.designs else "")
                          + f": {fmt.md(text(r.note or band_misses(r)))}" for r in missing]
                lines.append("")
    else:
        lines += ["No requirements.", ""]
    live = [f for f in g.proposal_findings if not f.waived]
    if live:
        if public:
            lines += ["### Findings of the proposal", "", "| severity | check | object | message |",
                      "|---|---|---|---|"]
            lines += [f"| {f.severity} | {f.id} | `{f.object}` | "
                      f"{fmt.md(text(withheld_finding(f.id, f.public_message)))} |" for f in live]
        else:
            lines += ["### Findings of the proposal", "", "| severity | check | object | where | message |",
                      "|---|---|---|---|---|"]
            lines += [f"| {f.severity} | {f.id} | `{f.object}` | "
                      f"{located(f.location)} | {fmt.md(f.message)} |" for f in live]
        lines.append("")
    ours = [f for f in g.ours_findings if not f.waived]
    if ours and not public:   # our documents' own (an expired waiver of ours): named apart from the proposal's
        lines += ["### Findings of our requirements", "", "| severity | check | object | where | message |",
                  "|---|---|---|---|---|"]
        lines += [f"| {f.severity} | {f.id} | `{f.object}` | "
                  f"{located(f.location)} | {fmt.md(f.message)} |" for f in ours]
        lines.append("")
    if g.objects or g.library:
        lines += [f"### Objects in the proposal ({len(g.objects) + len(g.library)})", ""]
        groups: dict[str, list[str]] = {}
        for o in g.objects:
            groups.setdefault("fabric" if "/fabric/" in o else o.split("/", 1)[0], []).append(o)
        lines += [f"- {kind} ({len(objs)}): " + ", ".join(f"`{o}`" for o in objs)
                  for kind, objs in sorted(groups.items())]
        lines += [f"- library rack ({len(g.library)}): " + ", ".join(f"`{o}`" for o in g.library)
                  + " (the shipped catalog's, placed by the proposal's clusters and judged with it)"] * bool(g.library)
        lines.append("")
    return fmt.no_mentions("\n".join(lines))             # posted as a comment too: it notifies no one


def design_text(r: GapRow) -> str:
    """The design(s) a row belongs to, named by their clusters as code spans (several where designs share the row)."""
    return ", ".join(fmt.code(d) for d in r.designs) or "—"


#: How Markdown reports (gap, diff) show each requirement status.
MARKS = {"met": "✅ met", "at risk": "⚠️ at risk", "not met": "❌ not met", "not provided": "❓ not provided",
         "not applicable": "➖ not applicable"}


def _status_cell(r: GapRow, public: bool = False, labels: dict[str, str] | None = None) -> str:
    """A row's status; a waived one's reason by its label (`W1`), given once under the table (`_waiver_notes`)."""
    notes = ["within tolerance"] if r.tolerated else []
    notes += [r.requirement.pending] if r.to_verify else []
    said = map(field_words.assumed_said, r.assumed) if public else r.assumed   # as the customer's documents say it
    notes += [f"on assumed inputs: {field_words.grouped_inputs(said)}"] if r.assumed else []
    mark = MARKS[r.status] + (f" ({fmt.md('; '.join(notes))})" if notes else "")
    if r.waived and public:
        return f"{mark} (waived)"
    reason = r.waived.strip()
    label = (labels or {}).get(reason)
    return (f"{mark} (waived: {label or fmt.md(reason)})") if r.waived else mark


def _waiver_notes(g: Gap, labels: dict[str, str]) -> list[str]:
    """Each waiver's reason once, under its label, with the rows it waives and the scope it applied (stated or not).

    newuser84: a 400-character reason had stood in every status cell it waived.
    """
    if not labels:
        return []
    out = ["**Waivers:**", ""]
    for reason, label in labels.items():
        waived: dict[str, list[str]] = {}
        for r in g.rows:
            if r.waived.strip() == reason:
                waived.setdefault(r.requirement.id, []).append(f"`{r.subject}`" if r.subject else "—")
        rows = "; ".join(f"{req} on {', '.join(subjects)}" for req, subjects in waived.items())
        scopes = ", ".join(dict.fromkeys(r.waiver_scope for r in g.rows if r.waived.strip() == reason))
        out.append(f"- {label} ({rows}; scope {fmt.md(scopes)}): {fmt.md(reason)}")
    return [*out, ""]


def _public_row(row: dict) -> dict:
    """A customer-edition JSON row: no file, line or column of ours, a waiver without its reason, inputs in words."""
    row = {k: v for k, v in row.items() if k not in ("file", "line", "column")}
    row["waived"] = bool(row["waived"])
    row["statement"] = public_text(row["statement"])
    row["note"] = row["note"] and public_text(customer_text(row["note"]))   # a `Worded` reason's customer words
    row["assumed"] = row["assumed"] and [field_words.assumed_said(x) for x in row["assumed"]]   # as its status cell
    return row


def _row_json(r: GapRow, reference: bool = False) -> dict:
    req, loc = r.requirement, shown_location(r.location)
    return {"requirement": req.id, "design": list(r.designs) or None, "statement": req.statement,
            "parent": list(req.parent) or None,
            "level": req.level, "basis": req.basis, "verification": req.verification,
            "source": req.source or None, "subject": r.subject, "pattern": r.pattern or None, "metric": req.metric,
            "target": str(req.target), "op": req.target.op, "limit": metric_quantity(req.metric, req.target.limit),
            "tolerance": quantity(req.slack) if req.slack is not None else None, "within_tolerance": r.tolerated,
            "value": metric_quantity(req.metric, r.value), "value_is": r.basis or None,
            "band": {"low": metric_quantity(req.metric, r.band[0]), "high": metric_quantity(req.metric, r.band[1])}
            if r.band and r.value is not None else None,
            "status": r.status, "margin": r.margin,
            "headroom": metric_quantity(req.metric, r.headroom),   # infinite under an infinite value
            **({"reference": metric_quantity(req.metric, r.reference),
                "deviation": quantity(r.deviation) if r.deviation is not None else None,
                "deviation_ratio": r.deviation_ratio, "deviation_is": r.better or None} if reference else {}),
            "note": r.note or None, "waived": r.waived.strip() or None,
            "waiver_scope": (r.waiver_scope or None) if r.waived else None, "failing": r.failing,
            "assumed": list(r.assumed) or None,
            "file": loc.file if loc else None, "line": loc.line if loc else None,
            "column": loc.column if loc else None}


def to_json(g: Gap, audience: str = "internal") -> str:
    """The report in the JSON quantity contract (quantities as {"value", "unit"} in SI units).

    The customer `audience` leaves out `proposal`, `against` (our paths) and each finding's location.
    """
    if audience == "customer":
        return dumps(document(
            summary=g.summary() | {"line": summary_line(g)},
            rows=[_public_row(_row_json(r, bool(g.reference))) for r in g.rows],
            findings=[public_finding(finding(replace(f, message=f.public_message))) for f in g.proposal_findings],
            objects=list(g.objects), **({"library": list(g.library)} if g.library else {}),
            **({"revisions": [_answer_json(a, public=True) for a in g.answers]} if g.answers else {}),
        ), ascii_only=False)
    return dumps(document(
        proposal=[shown_file(p) for p in g.proposal],
        against=[shown_file(p) for p in g.against],
        summary=g.summary() | {"line": summary_line(g)},
        rows=[_row_json(r, bool(g.reference)) for r in g.rows],
        findings=[finding(f) for f in g.proposal_findings],
        requirement_findings=[finding(f) for f in g.ours_findings],
        objects=list(g.objects), **({"library": list(g.library)} if g.library else {}),
        **({"notes": list(g.notes)} if g.notes else {}),
        **({"revisions": [_answer_json(a) for a in g.answers]} if g.answers else {}),
    ), ascii_only=False)


def _answer_json(a: Answer, public: bool = False) -> dict:
    """A Requirements document's released revision and the proposal's answer (`compare.answers.Answer`)."""
    return {"requirements": a.requirements, "released": a.released, "answered": list(a.answered),
            **({} if public else {"objects": list(a.objects)}), "current": a.current}


def public_finding(f: dict, prices: bool = False) -> dict:
    """A JSON finding of the customer edition: no location, a waiver without its reason, no paths in the message.

    Its message is the check's customer words (`Finding.public_message`, put in by `to_json`); unit prices in it are
    withheld unless `prices` (its document's `show_prices`, `withheld_finding`).
    """
    f = {k: v for k, v in f.items() if k not in ("file", "line", "column", "location")}
    if "waived" in f:
        f["waived"] = bool(f["waived"])
    if isinstance(f.get("message"), str):
        f["message"] = public_text(withheld_finding(str(f.get("id", "")), f["message"], prices))
    return f
