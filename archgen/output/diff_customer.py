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
from archgen.compare.requirement_changes import RequirementChange, RequirementState
from archgen.compare.revisions import RevisionChange
from archgen.output import diff_bands as bands
from archgen.output.diff import (
    mark,
    one_sided,
    power_and_cost,
    revision_text,
    state_json,
    status_cell,
)
from archgen.output.diff_bom import POWER_NOTE, bom_row, by_object, totals_json, unconfirmed_note
from archgen.output.diff_cells import TABLE_RULE, direction_cell, metric_cells, requirement_value, tightened_words
from archgen.output.envelope import document, dumps, finding, metric_quantity, quantity
from archgen.output.gap import public_finding
from archgen.render.edition import public_text, words
from archgen.render.edition_prices import withheld_finding
from archgen.render.fmt import code, no_mentions, pr_md

#: Summary keys of the internal report that count what this edition leaves out (waivers, our prices).
_OURS = ("waivers_", "prices_", "findings_newly_waived", "findings_waiver_renewed")
#: What a requirement's value on a figure of our part prices reads (`priced`).
WITHHELD = "[withheld]"


def priced(metric: str) -> bool:
    """Whether a figure rests on our part prices: the capex and what grows with it, and the capex shares."""
    return metric.startswith(BOUNDED) or metric.endswith("capex_share")


def shows_prices(d: Diff, obj: str) -> bool:
    """Whether the object's document shows prices in both revisions (`Diff.prices_shown`; of a rack or cluster)."""
    return any(obj == p or obj.startswith(f"{p}/") for p in d.prices_shown)


def withheld(d: Diff, obj: str, metric: str) -> bool:
    """Whether a figure is withheld: it rests on our part prices and the object's editions withhold them."""
    return priced(metric) and not shows_prices(d, obj)


def _shown(d: Diff, changes: Iterable[MetricChange]) -> list[MetricChange]:
    """The changed figures a partner may read: none resting on part prices its editions withhold (`withheld`)."""
    return [c for c in changes if not withheld(d, c.object, c.metric)]


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
             for k, words in (("failing", "newly failing"), ("met", "newly met"), ("at_risk", "newly at risk"),
                              ("from_miss", "at risk, up from a miss"),
                              ("missed", "newly missed (SHOULD or MAY)"), ("redefined", "redefined"),
                              ("removed", "removed")) if s[f"requirements_{k}"]]
    if asked:
        parts.append("requirement(s): " + ", ".join(asked))
    warned = f", {s['findings_new_warnings']} warning(s)" if s["findings_new_warnings"] else ""
    parts.append(f"{s['findings_new']} new finding(s) ({s['findings_new_errors']} error(s){warned}), "
                 f"{s['findings_resolved']} resolved" + (f", {s['findings_changed']} changed"
                                                         if s["findings_changed"] else ""))
    ends = len(_band_ends(d))
    parts.append(f"{s['metrics_changed']} figure(s) changed" + (f" ({ends} of them band ends, shown beside their "
                                                                 "figure)" if ends else "")
                 + (f", {under} more moved by less than {d.under_threshold[0] * 100:g} % (left out)"
                    if (under := s["metrics_under_threshold"]) else ""))
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
                  f"{_target(r)} | {status_cell(r.base)} | {status_cell(r.head)} | "
                  f"{_value(d, r.base)} → {_value(d, r.head)} |" for r in d.requirements] + [""]
    for heading, found in (("New findings", d.new_findings), ("Resolved findings", d.resolved_findings)):
        if found:
            lines += [f"### {heading}", "", "| severity | object | message |", "|---|---|---|"]
            lines += [f"| {f.severity} | `{f.object}` | {pr_md(_message(d, f))} |" for f in found] + [""]
    if d.changed_findings:
        lines += ["### Changed findings", "", "| severity | object | message (previous → new) |", "|---|---|---|"]
        lines += [f"| {b.severity} | `{b.object}` | {pr_md(_message(d, a))} → **{pr_md(_message(d, b))}** |"
                  for a, b in d.changed_findings] + [""]
    lines += _metrics("Power and cost", _shown(d, power_and_cost(d)))
    lines += _metrics("Figures", _shown(d, d.both_sided), fold=25)
    if held := sum(withheld(d, c.object, c.metric) for c in d.metrics):
        lines += [f"{held} figure(s) resting on part prices withheld (capex, TCO and the costs on them): a "
                  "change of one over a change of a part's count is its unit price.", ""]
    lines += _one_sided(d)
    if not (d.metrics or d.requirements or d.new_findings or d.resolved_findings or d.changed_findings or d.bom
            or d.objects_added or d.objects_removed or d.revisions):
        lines += ["No differences.", ""]
    return no_mentions("\n".join(lines))


def _message(d: Diff, f: Finding) -> str:
    """A finding's message as a customer edition words it: no spec key or path, no instruction, prices withheld.

    Unit prices in it stay where the object's editions show prices (`shows_prices`), as in its rendered edition.
    """
    return public_text(withheld_finding(f.id, f.public_message, shows_prices(d, f.object)))


def _title(c: MetricChange) -> str:
    """A changed figure by its metric's title (`title_of`)."""
    return title_of(c.object, c.metric)


def title_of(obj: str, metric: str) -> str:
    """A metric by its registry title for the object's kind ("IT power at the equipment"), else the key in words.

    A title that several keys share (``interruptions_per_day.<class>``: "Interruptions per day by class") is
    followed by the key's member in words: "Interruptions per day by class (high) (accelerator)".
    """
    m = metrics.lookup(obj, metric)
    if m is None:
        return words(metric)
    if "<" not in m.name:
        return m.title
    before, _, rest = m.name.partition("<")
    after = rest.partition(">")[2]     # the member is what the key holds where the name has its placeholder
    member = metric[len(before):len(metric) - len(after)]
    return f"{m.title} ({words(member)})" if member else m.title


def _target(r: RequirementChange) -> str:
    """The target by its metric's title, "Input power <= 145 kW"; level and previous → new where redefined.

    As the internal report's `target_cell`, which names the metric by its key (`input_power`): newuser87's partner
    read "SHALL input_power <= 145 kW".
    """
    def text(state: RequirementState, level: bool = True) -> str:
        by = "" if state.verification == "analysis" else f", verified by {state.verification}"
        by += f", refines {', '.join(state.parent)}" if state.parent else ""
        said = f"{title_of(state.object, state.metric)} {state.target}{by}"
        return pr_md(f"{state.level.upper()} {said}" if level else said)
    if r.redefined and r.base is not None and r.head is not None:
        way = tightened_words(r.tightened)
        return f"{text(r.base)} → **{text(r.head)}**{way}"
    return text(r.state, level=False)


def _metrics(heading: str, changes: list[MetricChange], fold: int = 0) -> list[str]:
    """A table of changed figures by title, previous → new, each with its bands (`diff_bands`); folded.

    Under <details> where longer than `fold` rows.
    """
    if not changes:
        return []
    shown_rows = bands.rows(changes)
    body = ["| object | figure | previous | new | change | relative | direction |", TABLE_RULE]
    for r in shown_rows:
        old, new, change, rel = metric_cells(r.change)
        body.append(f"| `{r.change.object}` | {pr_md(_title(r.change))} | {bands.with_band(old, r, 'base')} | "
                    f"{bands.with_band(new, r, 'head')} | {change} | {rel} | {direction_cell(r.change)} |")
    if fold and len(shown_rows) > fold:
        body = ["<details><summary>" f"{len(shown_rows)} changed figures</summary>", ""] + body + ["", "</details>"]
    said = [BAND_NOTE, ""] if any(r.ends for r in shown_rows) else []
    return [f"### {heading}", "", *said, *body, ""]


#: What a figure's parentheses say, above a table that has any.
BAND_NOTE = ("In parentheses beside a figure, the ends of its bands that moved with it: its band (low to high: over "
             "the failure-rate sets, a part class's 95 % Poisson interval, a cost with and without hot spares) and its "
             "95 % confidence interval; `docs/metrics.md` says which for each figure.")


def _one_sided(d: Diff) -> list[str]:
    """The figures one side has, each with its bands, and which side."""
    lost = bands.rows(_shown(d, one_sided(d)))
    if not lost:
        return []
    said = [BAND_NOTE, ""] if any(r.ends for r in lost) else []
    return ["### Figures on one side only", "", *said, "| object | figure | previous | new | on one side |",
            "|---|---|--:|--:|---|",
            *(f"| `{r.change.object}` | {pr_md(_title(r.change))} | "
              f"{bands.with_band(metric_cells(r.change)[0], r, 'base')} | "
              f"{bands.with_band(metric_cells(r.change)[1], r, 'head')} | "
              f"{r.change.presence.replace('BASE', 'the previous').replace('HEAD', 'the new')} |" for r in lost), ""]


def _value(d: Diff, state: RequirementState | None) -> str:
    """A requirement's value on one side, withheld where its figure rests on part prices withheld (`withheld`)."""
    return WITHHELD if state is not None and state.value is not None and withheld(d, state.object, state.metric) \
        else requirement_value(state)


def _state_json(d: Diff, state: RequirementState | None) -> dict | None:
    """`state_json`, its value None where its figure rests on part prices withheld (`withheld`)."""
    out = state_json(state)
    return out if out is None or state is None or not withheld(d, state.object, state.metric) else \
        out | {"value": None}


def _band_ends(d: Diff) -> set[tuple[str, str]]:
    """(object, key) of each changed band end the tables state beside its figure."""
    return bands.grouped(list(d.both_sided)) | bands.grouped(list(one_sided(d)))


def _bom(changes: tuple[PartChange, ...], swaps: tuple[Swap, ...]) -> list[str]:
    """The BOM delta with each part's name and part number; a swap as one row; no cost (`output.diff_bom`'s rows)."""
    if not changes:
        return []
    swapped = {id(c): s for s in swaps for c in (s.old, s.new)}

    def row(c: PartChange) -> str | None:
        s = swapped.get(id(c))
        middle = (c.number, c.name or "—") if s is None else \
            (f"{s.old.number} → {s.new.number}", f"{s.old.name or '—'} → {s.new.name or '—'}")
        return bom_row(c, s, [pr_md(x) for x in middle], cost=False)

    body = ["| object | part | part number | name | kind | previous | new | change | power change |",
            "|---|---|---|---|---|--:|--:|--:|--:|", *by_object(changes, row, cells=9, power=8)]
    if len(body) - 2 > 25:
        body = ["<details><summary>" f"{len(body) - 2} changed parts</summary>", ""] + body + ["", "</details>"]
    return ["### Bill of materials", "", "Parts whose count changed in each rack and cluster, previous → new, and "
            "lines whose power changed at the same count; a part replaced by as many of another of its kind in the "
            "same place reads as one swap. Part number: the vendor's orderable number where the part states one, "
            "else why there is none, as the BOM says it (generic part: no OPN; ordered with its system; not "
            "provided). Power: the change of the line's total. " + POWER_NOTE + unconfirmed_note(changes), "", *body,
            ""]


def _bom_json(c: PartChange) -> dict:
    return {"object": c.object, "part": c.part, "name": c.name or None, "part_number": c.number,
            "kind": c.kind, "within": c.within or None, "base": c.base, "head": c.head, "change": c.change,
            "power_change": quantity(c.power), "subtotal": c.subtotal, "power_unconfirmed": c.unconfirmed}


def to_json(d: Diff) -> str:
    """The change list in the JSON quantity contract, with nothing of ours (module docstring).

    Every changed figure, a band end stated beside its figure in Markdown naming that figure's key (`band_of`).
    """
    ends = _band_ends(d)
    return dumps(document(
        audience="customer",
        summary={k: v for k, v in d.summary().items() if not k.startswith(_OURS)} | {"line": summary_line(d)},
        **({"revisions": [{"object": r.object, "number": r.number or None, "base": r.base or None,
                           "head": r.head or None, "changed": r.changed, "approval": r.approval or None}
                          for r in d.revisions]}
           if d.revisions else {}),
        **({"pairs": pairs_json(d.pairs)} if d.pairs else {}),
        bom=[_bom_json(c) for c in d.bom],
        bom_totals=totals_json(d.bom),
        **({"swaps": [{"object": s.old.object, "kind": s.old.kind, "within": s.old.within or None,
                       "from": s.old.part, "to": s.new.part, "from_part_number": s.old.number,
                       "to_part_number": s.new.number, "count": s.count, "power_change": quantity(s.power)}
                      for s in d.swaps]} if d.swaps else {}),
        objects={"added": list(d.objects_added), "removed": list(d.objects_removed)},
        requirements=[{"object": r.state.object, "requirement": r.state.requirement,
                       "statement": public_text(r.state.statement), "target": r.state.target,
                       "metric_title": title_of(r.state.object, r.state.metric),
                       "level": r.state.level, "base": _state_json(d, r.base), "head": _state_json(d, r.head),
                       "failing": r.failing, "redefined": r.redefined, "tightened": r.tightened}
                      for r in d.requirements],
        findings={"new": [_finding_json(d, f) for f in d.new_findings],
                  "resolved": [_finding_json(d, f) for f in d.resolved_findings],
                  "changed": [{"base": _finding_json(d, a), "head": _finding_json(d, b)}
                              for a, b in d.changed_findings]},
        metrics=[{"object": c.object, "metric": c.metric, "title": _title(c),
                  "base": metric_quantity(c.metric, c.base), "head": metric_quantity(c.metric, c.head),
                  "change": metric_quantity(c.metric, c.change), "relative": c.relative, "direction": c.direction,
                  "presence": c.presence, "not_comparable": c.unlike or None, "zeroed": c.zeroed or None,
                  "band_of": band[0] if (c.object, c.metric) in ends and (band := bands.band_of(c)) else None}
                 for c in _shown(d, d.metrics)],
    ), ascii_only=False)


def not_made(side: str, errors: int, code: int, fmt: str = "md") -> str:
    """A partner's report of a change list that could not be made: which revision failed, and how many errors.

    The internal report (`output.diff.unanalysable`) lists each error at its file:line in our checkout, headed by
    our folder; a partner has neither the specs nor our tree, so this says which revision's specs failed (`side`:
    BASE is the previous, HEAD the new; "" where the command names neither, a revision that is not found) and how
    many errors they have (0 where they could not be read at all), and that the design team sends it again.
    """
    which = {"BASE": "the previous revision's specs", "HEAD": "the new revision's specs"}.get(side, "the revisions' "
                                                                                                  "specs")
    what = f"have {errors} error{'s' * (errors != 1)}, found before anything was compared" if errors else \
        "could not be read, so nothing was compared"
    line = (f"No change list could be made: {which} {what}. The design team corrects them and sends the change list "
            "again.")
    if fmt == "json":
        return dumps(document(audience="customer", compared=False, exit_code=code,
                              side={"BASE": "previous", "HEAD": "new"}.get(side), errors=errors, line=line),
                     ascii_only=False)
    return "\n".join(["## Change list: not made", "", f"❌ {line}", ""])


def _finding_json(d: Diff, f: Finding) -> dict:
    """A finding as `gap --audience customer` gives it: no location, the customer's words, no waiver reason."""
    return public_finding(finding(f) | {"message": f.public_message}, shows_prices(d, f.object))
