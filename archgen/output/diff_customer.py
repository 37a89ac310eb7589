"""`archgen diff --audience customer`: the change list a partner (an ODM quoting a revision) receives.

The internal report is a pull-request comment for the design team: our folders in its title, each finding's check ID
and file:line, waivers with their owners and reasons, our stated prices and each BOM line's cost change. A partner
quoting revision B against A needs what moved in what it builds, by the numbers it orders by, and nothing of ours
(newuser87's trial: the change list sent to an ODM carried `revB/clusters/x.yaml:64:18`, NET017 and COST002). This
edition follows the rules of a rendered customer edition (`archgen.render.edition`):

- the title names the revision pair of the design's documents (`document.number` and `document.revision`), no
  folder; without a new revision it says so, as the internal report's Revisions line does;
- the bill of materials gives each part's name and orderable part number (`PartChange.name`, `number`) beside its
  id, base → head per rack and cluster, swaps as one row, the change of the line's power; no cost change (a cost
  change over a count change is a unit price, which a customer edition withholds);
- findings by severity, object and message in the customer's words (`Finding.public_message`, `edition.public_text`,
  prices withheld): no check ID and no file:line; requirement rows as the internal report's, a waived one "(waived)"
  with no reason;
- metrics by their registry title (`it_power` of a rack: "IT power at the equipment");
- left out: the waivers that changed and the findings they newly cover (reasons and owners are ours), our stated
  prices, and the paths of links left out (a count stays);
- no figure that rests on our part prices (`priced`: the capex and what grows with it, `capex_bounds.BOUNDED`, and
  the capex shares), in the figure tables or as a requirement's value: a change of the capex over a change of one
  part's count is that part's unit price (review48: one SN4600C more read "+15,010 USD"), as a BOM line's cost
  change is; a line says how many are withheld. Power, energy and the hall's own rates stay.

JSON likewise: no `base`/`head` folders, no finding `file`/`line`/`column`, no `waivers` or `prices`, no cost change;
each BOM row with its `name` and `part_number`. Rows, counts, the first mark and the exit code are the internal
report's.
"""

from __future__ import annotations

from collections.abc import Iterable

from archgen import metrics
from archgen.analyse.capex_bounds import BOUNDED
from archgen.checks import Finding
from archgen.compare.bom import PartChange, Swap
from archgen.compare.diff import Diff, MetricChange
from archgen.compare.pairs import pairs_json
from archgen.compare.requirement_changes import RequirementState
from archgen.compare.revisions import RevisionChange
from archgen.output.diff import (
    mark,
    one_sided,
    power_and_cost,
    revision_text,
    state_json,
    status_cell,
    target_cell,
)
from archgen.output.diff_cells import TABLE_RULE, decimals, direction_cell, magnitude, metric_cells, requirement_value
from archgen.output.diff_cells import shown_number as shown
from archgen.output.envelope import document, dumps, finding, metric_quantity, quantity
from archgen.output.gap import public_finding
from archgen.render.edition import public_text, words
from archgen.render.edition_prices import withheld_finding
from archgen.render.fmt import code, no_mentions, number, pr_md, unit_label
from archgen.units import Q

#: Summary keys of the internal report that count what this edition leaves out (waivers, our prices).
_OURS = ("waivers_", "prices_", "findings_newly_waived", "findings_waiver_renewed")
#: What a requirement's value on a figure of our part prices reads (`priced`).
WITHHELD = "[withheld]"


def priced(metric: str) -> bool:
    """Whether a figure rests on our part prices: the capex and what grows with it, and the capex shares."""
    return metric.startswith(BOUNDED) or metric.endswith("capex_share")


def _shown(changes: Iterable[MetricChange]) -> list[MetricChange]:
    """The changed figures a partner may read: none resting on our part prices (`priced`)."""
    return [c for c in changes if not priced(c.metric)]


def design_revisions(d: Diff) -> list[RevisionChange]:
    """The racks' and clusters' documents whose stated revision moved: the release a partner quotes."""
    return [r for r in d.revisions if r.changed and not r.object.startswith("requirements/")]


def title(d: Diff) -> str:
    """'Change list: HS-GB300-SU-0001 revision A → B'; without a design revision moved, 'Change list'."""
    moved = design_revisions(d)
    if not moved:
        return "## Change list"
    pairs = [f"{r.number or r.object} revision {r.base or 'not stated'} → {r.head or 'not stated'}" for r in moved]
    return "## Change list: " + pr_md("; ".join(pairs))


def summary_line(d: Diff) -> str:
    """What moved for a partner: parts, objects, requirements, findings, metrics; and whether HEAD passes."""
    s = d.summary()
    parts = []
    if s["parts_changed"] or s["parts_power_changed"]:
        swapped = f", {s['parts_swapped']} swap(s) of one part for another" if s["parts_swapped"] else ""
        power = f", {s['parts_power_changed']} line(s) drawing another power" if s["parts_power_changed"] else ""
        parts.append(f"{s['parts_changed']} part count(s) changed in the bill of materials{swapped}{power}")
    if s["objects_added"] or s["objects_removed"]:
        parts.append(f"{s['objects_added']} object(s) added, {s['objects_removed']} removed")
    ways = ", ".join(f"{s[f'requirements_{w}']} {w}" for w in ("tightened", "relaxed") if s[f"requirements_{w}"])
    asked = [f"{s[f'requirements_{k}']} {words}" + (f" ({ways})" if k == "redefined" and ways else "")
             for k, words in (("failing", "newly failing"), ("met", "newly met"), ("redefined", "redefined"),
                              ("removed", "removed")) if s[f"requirements_{k}"]]
    if asked:
        parts.append("requirement(s): " + ", ".join(asked))
    warned = f", {s['findings_new_warnings']} warning(s)" if s["findings_new_warnings"] else ""
    parts.append(f"{s['findings_new']} new finding(s) ({s['findings_new_errors']} error(s){warned}), "
                 f"{s['findings_resolved']} resolved" + (f", {s['findings_changed']} changed"
                                                         if s["findings_changed"] else ""))
    parts.append(f"{s['metrics_changed']} figure(s) changed")
    if d.refused:
        parts.append(f"{len(d.refused)} file(s) left out unread")
    verdict = "The new revision has error findings" if s["head_errors"] else "The new revision has no error findings"
    return "; ".join(parts) + f". {verdict}."


def markdown(d: Diff) -> str:
    """The change list as Markdown for a partner: revisions, BOM, requirements, findings, figures, objects."""
    lines = [title(d), "", f"{mark(d)} {summary_line(d)}", ""]
    if d.revisions:
        lines += ["**Revisions:** " + "; ".join(map(revision_text, d.revisions)) + ".", ""]
    if not design_revisions(d):
        lines += ["**No new revision:** no rack or cluster document states a revision other than the previous "
                  "release's; ask for one before quoting against these changes.", ""]
    if d.pairs:
        lines += ["Paired (previous = new): " + ", ".join(f"{code(b)} = {code(h)}" for b, h in d.pairs)
                  + "; the new release's objects are shown by the previous ids.", ""]
    lines += _bom(d.bom, d.swaps)
    if d.objects_added or d.objects_removed:
        lines += [f"**{t}:** " + ", ".join(f"`{o}`" for o in objs) for t, objs in
                  (("Objects added", d.objects_added), ("Objects removed", d.objects_removed)) if objs] + [""]
    if d.requirements:
        lines += ["### Requirements", "", "| requirement | object | statement | target | previous | new | value "
                  "(previous → new) |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {r.state.requirement} | `{r.state.object}` | {pr_md(public_text(r.state.statement))} | "
                  f"{target_cell(r)} | {status_cell(r.base)} | {status_cell(r.head)} | "
                  f"{_value(r.base)} → {_value(r.head)} |" for r in d.requirements] + [""]
    for heading, found in (("New findings", d.new_findings), ("Resolved findings", d.resolved_findings)):
        if found:
            lines += [f"### {heading}", "", "| severity | object | message |", "|---|---|---|"]
            lines += [f"| {f.severity} | `{f.object}` | {pr_md(_message(f))} |" for f in found] + [""]
    if d.changed_findings:
        lines += ["### Changed findings", "", "| severity | object | message (previous → new) |", "|---|---|---|"]
        lines += [f"| {b.severity} | `{b.object}` | {pr_md(_message(a))} → **{pr_md(_message(b))}** |"
                  for a, b in d.changed_findings] + [""]
    lines += _metrics("Power and cost", _shown(power_and_cost(d)))
    lines += _metrics("Figures", _shown(d.both_sided), fold=25)
    if withheld := sum(priced(c.metric) for c in d.metrics):
        lines += [f"{withheld} figure(s) resting on part prices withheld (capex, TCO and the costs on them): a "
                  "change of one over a change of a part's count is its unit price.", ""]
    lost = _shown(one_sided(d))
    if lost:
        lines += ["### Figures on one side only", "", "| object | figure | previous | new | on one side |",
                  "|---|---|--:|--:|---|"]
        lines += [f"| `{c.object}` | {pr_md(_title(c))} | {metric_cells(c)[0]} | {metric_cells(c)[1]} | "
                  f"{c.presence.replace('BASE', 'the previous').replace('HEAD', 'the new')} |" for c in lost] + [""]
    if not (d.metrics or d.requirements or d.new_findings or d.resolved_findings or d.changed_findings or d.bom
            or d.objects_added or d.objects_removed or d.revisions):
        lines += ["No differences.", ""]
    return no_mentions("\n".join(lines))


def _value(state: RequirementState | None) -> str:
    """A requirement's value on one side, withheld where its figure rests on our part prices (`priced`)."""
    return WITHHELD if state is not None and state.value is not None and priced(state.metric) else \
        requirement_value(state)


def _state_json(state: RequirementState | None) -> dict | None:
    """`state_json`, its value None where its figure rests on our part prices (`priced`)."""
    out = state_json(state)
    return out if out is None or state is None or not priced(state.metric) else out | {"value": None}


def _message(f: Finding) -> str:
    """A finding's message as a customer edition words it: no spec key or path, no instruction, prices withheld."""
    return public_text(withheld_finding(f.id, f.public_message))


def _title(c: MetricChange) -> str:
    """A metric by its registry title for the object's kind ("IT power at the equipment"), else the key in words.

    A title that several keys share (``interruptions_per_day.<class>``: "Interruptions per day by class") is
    followed by the key's member in words: "Interruptions per day by class (high) (accelerator)".
    """
    m = metrics.lookup(c.object, c.metric)
    if m is None:
        return words(c.metric)
    if "<" not in m.name:
        return m.title
    before, _, rest = m.name.partition("<")
    after = rest.partition(">")[2]     # the member is what the key holds where the name has its placeholder
    member = c.metric[len(before):len(c.metric) - len(after)]
    return f"{m.title} ({words(member)})" if member else m.title


def _metrics(heading: str, changes: list[MetricChange], fold: int = 0) -> list[str]:
    """A table of changed figures by title, previous → new; folded under <details> where longer than `fold`."""
    if not changes:
        return []
    body = ["| object | figure | previous | new | change | relative | direction |", TABLE_RULE]
    body += [f"| `{c.object}` | {pr_md(_title(c))} | " + " | ".join(metric_cells(c)) + f" | {direction_cell(c)} |"
             for c in changes]
    if fold and len(changes) > fold:
        body = ["<details><summary>" f"{len(changes)} changed figures</summary>", ""] + body + ["", "</details>"]
    return [f"### {heading}", "", *body, ""]


def _bom(changes: tuple[PartChange, ...], swaps: tuple[Swap, ...]) -> list[str]:
    """The BOM delta with each part's name and part number; a swap as one row; no cost (`output.diff_bom`'s rows)."""
    if not changes:
        return []
    body = ["| object | part | part number | name | kind | previous | new | change | power change |",
            "|---|---|---|---|---|--:|--:|--:|--:|"]
    swapped = {id(c): s for s in swaps for c in (s.old, s.new)}
    for c in changes:
        s = swapped.get(id(c))
        inside = f" in `{c.within}`" if c.within else ""
        if s is None:
            body.append(f"| `{c.object}` | `{c.part}`{inside} | {pr_md(c.number or '—')} | {pr_md(c.name or '—')} | "
                        f"{c.kind} | {number(c.base)} | {number(c.head)} | {shown(c.change, 0, sign=True)} | "
                        f"{_kw(c.power)} |")
        elif c is s.old:
            both = s.old.base + s.new.base
            body.append(f"| `{c.object}` | `{s.old.part}` → `{s.new.part}` ({number(s.count)}){inside} | "
                        f"{pr_md((s.old.number or '—') + ' → ' + (s.new.number or '—'))} | "
                        f"{pr_md((s.old.name or '—') + ' → ' + (s.new.name or '—'))} | {c.kind} | {number(both)} | "
                        f"{number(both)} | swapped | {_kw(s.power)} |")
    if len(body) - 2 > 25:
        body = ["<details><summary>" f"{len(body) - 2} changed parts</summary>", ""] + body + ["", "</details>"]
    return ["### Bill of materials", "", "Parts whose count changed in each rack and cluster, previous → new, and "
            "lines whose power changed at the same count; a part replaced by as many of another of its kind in the "
            "same place reads as one swap. Part number: the vendor's orderable number where the part states one "
            "(—: none stated). Power: the change of the line's total.", "", *body, ""]


def _kw(q: Q | None) -> str:
    """A power change in kW with its sign; — where not known."""
    if q is None:
        return "—"
    value = magnitude(q.to("kW"))
    return f"{shown(value, decimals(value), sign=True)} {unit_label('kW')}"


def _bom_json(c: PartChange) -> dict:
    return {"object": c.object, "part": c.part, "name": c.name or None, "part_number": c.number or None,
            "kind": c.kind, "within": c.within or None, "base": c.base, "head": c.head, "change": c.change,
            "power_change": quantity(c.power)}


def to_json(d: Diff) -> str:
    """The change list in the JSON quantity contract, with nothing of ours (module docstring)."""
    return dumps(document(
        audience="customer",
        summary={k: v for k, v in d.summary().items() if not k.startswith(_OURS)} | {"line": summary_line(d)},
        **({"revisions": [{"object": r.object, "number": r.number or None, "base": r.base or None,
                           "head": r.head or None, "changed": r.changed, "approval": r.approval or None}
                          for r in d.revisions]}
           if d.revisions else {}),
        **({"pairs": pairs_json(d.pairs)} if d.pairs else {}),
        bom=[_bom_json(c) for c in d.bom],
        **({"swaps": [{"object": s.old.object, "kind": s.old.kind, "within": s.old.within or None,
                       "from": s.old.part, "to": s.new.part, "from_part_number": s.old.number or None,
                       "to_part_number": s.new.number or None, "count": s.count, "power_change": quantity(s.power)}
                      for s in d.swaps]} if d.swaps else {}),
        objects={"added": list(d.objects_added), "removed": list(d.objects_removed)},
        requirements=[{"object": r.state.object, "requirement": r.state.requirement,
                       "statement": public_text(r.state.statement), "target": r.state.target,
                       "level": r.state.level, "base": _state_json(r.base), "head": _state_json(r.head),
                       "failing": r.failing, "redefined": r.redefined, "tightened": r.tightened}
                      for r in d.requirements],
        findings={"new": [_finding_json(f) for f in d.new_findings],
                  "resolved": [_finding_json(f) for f in d.resolved_findings],
                  "changed": [{"base": _finding_json(a), "head": _finding_json(b)} for a, b in d.changed_findings]},
        metrics=[{"object": c.object, "metric": c.metric, "title": _title(c),
                  "base": metric_quantity(c.metric, c.base), "head": metric_quantity(c.metric, c.head),
                  "change": metric_quantity(c.metric, c.change), "relative": c.relative, "direction": c.direction,
                  "presence": c.presence} for c in _shown(d.metrics)],
    ), ascii_only=False)


def _finding_json(f: Finding) -> dict:
    """A finding as `gap --audience customer` gives it: no location, the customer's words, no waiver reason."""
    return public_finding(finding(f) | {"message": f.public_message})
