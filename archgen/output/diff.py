"""`archgen diff`: a `Diff` as a Markdown pull-request comment or as JSON (quantities in SI units)."""

from __future__ import annotations

from archgen import metrics
from archgen.compare.diff import PRESENCE, PRICE_CHANGES, WAIVER_CHANGES, Diff, MetricChange
from archgen.compare.pairs import pairs_json
from archgen.compare.requirement_changes import RequirementChange, RequirementState
from archgen.compare.revisions import RevisionChange
from archgen.load import shown_file
from archgen.model.cost import Price
from archgen.model.requirements import pending_words
from archgen.output.diff_bom import (
    bom_json,
    bom_section,
    changed_findings_section,
    changed_json,
    swaps_json,
    totals_json,
)
from archgen.output.diff_cells import (
    TABLE_HEAD,
    TABLE_RULE,
    banded_cells,
    decimals,
    direction_cell,
    magnitude,
    measure_json,
    requirement_value,
    shown_number,
    tightened_words,
)
from archgen.output.diff_waivers import (
    renewed_json,
    waived_sections,
    waived_summary,
    waiver_json,
    waiver_section,
    where,
)
from archgen.output.envelope import document, dumps, finding, located, metric_quantity, quantity
from archgen.output.gap import MARKS
from archgen.render.fmt import code, no_mentions, pr_md


def summary_line(d: Diff) -> str:
    """One line: what changed, what is new, and whether HEAD passes."""
    s = d.summary()
    moved = "; ".join(", ".join(f"{s[f'metrics_{k}']} {w}" for k, w in kinds if s[f"metrics_{k}"]) for kinds in (
        (("worse", "worse"), ("better", "better")),
        (("within_band", "within the model's band"), ("not_comparable", "not comparable")))).strip("; ")
    sides = [f"{s[_presence_key(k)]} {k}" for k in PRESENCE if s[_presence_key(k)]]
    parts = [f"{s['metrics_changed']} metric(s) changed in {s['objects_changed']} object(s)"
             + (f" ({moved})" if moved else "")
             + (f", {s['metrics_one_sided']} of them on one side only ({', '.join(sides)})" if sides else "")
             + (f", {under} more moved by less than --threshold {d.under_threshold[0] * 100:g} % (left out)"
                if (under := s["metrics_under_threshold"]) else "")]
    if s["objects_added"] or s["objects_removed"]:
        parts.append(f"{s['objects_added']} object(s) added, {s['objects_removed']} removed")
    if s["parts_changed"]:
        swapped = f" ({s['parts_swapped']} swap(s) of one part for another)" if s["parts_swapped"] else ""
        parts.append(f"{s['parts_changed']} part count(s) changed in the bill of materials{swapped}")
    if s["parts_power_changed"]:   # a line of one count drawing another power (`compare.bom`)
        parts.append(f"{s['parts_power_changed']} BOM line(s) changed power at the same count")
    warned = f", {s['findings_new_warnings']} warning(s)" if s["findings_new_warnings"] else ""
    parts.append(f"{s['findings_new']} new finding(s) ({s['findings_new_errors']} error(s){warned}), "
                 f"{s['findings_resolved']} resolved"
                 + (f", {s['findings_changed']} changed" if s["findings_changed"] else "") + waived_summary(d))
    parts.append(_moves(s, "failing", "requirement(s) newly failing") + ", " + _moves(s, "met", "newly met")
                 + "".join(", " + _moves(s, k, _MOVE_WORDS.get(k, k.replace("_", " "))) for k in _REQUIREMENT_MOVES
                           if s[f"requirements_{k}"]))
    if d.waivers:
        parts.append(f"{len(d.waivers)} waiver(s) changed ("
                     + ", ".join(f"{s[f'waivers_{k}']} {k}" for k in WAIVER_CHANGES if s[f"waivers_{k}"]) + ")")
    if d.prices:
        parts.append(f"{len(d.prices)} stated price(s) changed ("
                     + ", ".join(f"{s[f'prices_{k}']} {k}" for k in PRICE_CHANGES if s[f"prices_{k}"]) + ")")
    if d.refused:
        parts.append(f"{len(d.refused)} link(s) out of the specs left out unread (exit 2)")
    verdict = f"HEAD has {s['head_errors']} error finding(s)" if s["head_errors"] else "HEAD has no error findings"
    return "; ".join(parts) + f". {verdict}." + (f" Waivers judged as of {d.as_of}." if d.as_of else "")


def revision_text(r: RevisionChange) -> str:
    """'`cluster/x` (AG-1) A → B', or what a document changed under BASE's revision needs (`compare.revisions`)."""
    if not r.changed:
        return f"{code(r.object)} changed but still states revision {pr_md(r.head)}: a release of it needs a new " \
            "revision"
    number = f" ({pr_md(r.number)})" if r.number else ""
    approval = f" ({pr_md(r.approval)})" if r.approval.startswith("not approved") else \
        f" (approved by {pr_md(r.approval)})" if r.approval else ""
    return f"{code(r.object)}{number} {pr_md(r.base or 'not stated')} → {pr_md(r.head or 'not stated')}{approval}"


def _moves(s: dict, kind: str, label: str) -> str:
    """A kind of requirement change by requirement, with its objects where more: '1 redefined (on 12 objects)'."""
    ids, objects = s[f"requirements_{kind}"], s[f"requirement_objects_{kind}"]
    ways = [f"{s[f'requirements_{w}']} {w}" for w in ("tightened", "relaxed")
            if kind == "redefined" and s[f"requirements_{w}"]]   # `RequirementChange.tightened`
    within = ways + ([f"on {objects} objects"] if objects > ids else [])
    return f"{ids} {label}" + (f" ({', '.join(within)})" if within else "")


#: Requirement changes a reviewer must see even where nothing newly fails (`RequirementChange`): the summary counts
#: them and the comment starts ⚠️, not ✅. "newly at risk": met at the value, not at its band's end (REQ004), where
#: BASE met it or lacked it; "at risk, up from a miss": where BASE did not meet or provide it (better, not a pass);
#: "newly missed": a SHOULD or MAY not met or not provided, which exits 0 as `check` warns of it (both read "0
#: requirement(s) newly failing" beside their row, newuser101); "redefined": another target, level, metric,
#: verification method or parent; "newly waived": a miss a waiver covers; "waived again (renewed)": a miss whose
#: waiver BASE had let expire, renewed in HEAD (`Diff.renewal`); "removed": a requirement HEAD no longer has.
_REQUIREMENT_MOVES = ("at_risk", "from_miss", "missed", "redefined", "newly_waived", "waiver_renewed", "removed")
_MOVE_WORDS = {"at_risk": "newly at risk", "from_miss": "at risk, up from a miss",
               "missed": "newly missed (SHOULD or MAY)", "waiver_renewed": "waived again (renewed)"}


def _presence_key(presence: str) -> str:
    """The summary's count of the metrics with that presence: 'not provided in HEAD' -> metrics_not_provided_in_head."""
    return f"metrics_{presence.replace(' ', '_').lower()}"


def one_sided(d: Diff) -> list[MetricChange]:
    """The metrics one side does not have, by presence (`compare.diff.PRESENCE`: lost in HEAD first), then object."""
    return sorted(d.one_sided, key=lambda c: (PRESENCE.index(c.presence), c.object, c.metric))


def one_sided_section(d: Diff) -> list[str]:
    """The metrics of objects of both sides that one side lacks, with why, as a Markdown section; none: no lines."""
    found = one_sided(d)
    if not found:
        return []
    body = ["| object | metric | base | head | on one side | why |", "|---|---|--:|--:|---|---|"]
    for c in found:
        old, new, _, _ = banded_cells(c)
        body.append(f"| `{c.object}` | {pr_md(c.metric)} | {old} | {new} | {c.presence} | {pr_md(c.why) or '—'} |")
    if len(found) > 25:
        body = ["<details><summary>" f"{len(found)} metrics on one side only</summary>", ""] + body + ["", "</details>"]
    return ["### Metrics on one side only", "", "Metrics of an object both sides have that one side does not: not "
            "provided (that side says why, as `archgen check` does) or only in one side (the other's design has no "
            "such figure, such as a storage or front-end network it lacks). They are not compared.", ""] \
        + body + [""]


def mark(d: Diff) -> str:
    """The report's first mark: ❌ where HEAD fails, ⚠️ where it passes but a reader must look, else ✅ (README)."""
    lost = any(c.presence in ("not provided in HEAD", "only in BASE") for c in d.metrics)
    s = d.summary()
    moved = any(s[f"requirements_{k}"] for k in _REQUIREMENT_MOVES)
    waived = s["findings_newly_waived"] or s["findings_waiver_renewed"] or any(w.review for w in d.waivers)
    look = (s["metrics_worse"] or lost or moved or s["findings_new_warnings"] or waived or s.get("revisions_kept")
            or s["findings_changed"])
    return "❌" if d.failing or d.refused else "⚠️" if look else "✅"


def markdown(d: Diff) -> str:
    """The diff as a Markdown pull-request comment: summary, requirements, findings, metrics, objects.

    No ``@`` in it mentions anyone (`no_mentions`): a requirement's `statement: "@org/team ..."` pinged the team on
    every pull request that listed it.
    """
    icon = mark(d)
    lines = [f"## archgen diff: {code(shown_file(d.base_label))} → {code(shown_file(d.head_label))}", "",
             f"{icon} {summary_line(d)}", ""]
    if d.revisions:   # what a partner quotes (`compare.revisions`)
        lines += ["**Revisions:** " + "; ".join(map(revision_text, d.revisions)) + ".", ""]
    if d.pairs:   # `--pair`: HEAD's objects under BASE's paths below
        lines += ["Paired (BASE = HEAD): " + ", ".join(f"{code(b)} = {code(h)}" for b, h in d.pairs)
                  + "; HEAD's objects are shown by BASE's ids.", ""]
    if d.refused:
        lines += ["### Links left out", "", "Symbolic links leading out of the specs: archgen read neither them nor "
                  "what they point at, and compared everything else without them. The job fails (exit 2) until each is "
                  "removed or points inside the specs.", "", "| side | link |", "|---|---|",
                  *(f"| {side} | {code(link)} |" for side, link in d.refused), ""]
    if d.requirements:
        lines += ["### Requirements", "", "| requirement | object | statement | target | base | head | value "
                  "(base → head) |", "|---|---|---|---|---|---|---|"]
        above = None
        for r in d.requirements:       # by requirement: its objects under it, the requirement named once
            if above is not None and above.state.requirement == r.state.requirement:
                named = ("", "↳", "" if target_cell(above) == target_cell(r) else target_cell(r))
            else:
                refines = f" (refines {', '.join(r.state.parent)})" if r.state.parent else ""   # `Requirement.traced`
                named = (r.state.requirement, pr_md(r.state.statement + refines), target_cell(r))
            lines.append(f"| {named[0]} | `{r.state.object}` | {named[1]} | {named[2]} | "
                         f"{status_cell(r.base)} | {status_cell(r.head, d.renewal(r))} | "
                         f"{requirement_value(r.base)} → {requirement_value(r.head)} |")
            above = r
        lines.append("")
    for title, found in (("New findings", d.new_findings), ("Resolved findings", d.resolved_findings)):
        if found:
            lines += [f"### {title}", "", "| severity | check | object | where | message |", "|---|---|---|---|---|"]
            lines += [f"| {f.severity} | {f.id} | `{f.object}` | {where(f)} | {pr_md(f.message)} |" for f in found]
            lines.append("")
    lines += changed_findings_section(d.changed_findings)
    lines += waived_sections(d) + waiver_section(d.waivers)
    money = power_and_cost(d)
    if money:
        lines += ["### Power and cost", "", TABLE_HEAD, TABLE_RULE]
        lines += [f"| `{c.object}` | {pr_md(c.metric)} | " + " | ".join(banded_cells(c)) + f" | {direction_cell(c)} |"
                  for c in money]
        lines.append("")
    lines += bom_section(d.bom, d.swaps)
    if d.prices:
        lines += ["### Stated prices", "", "| change | object | part | base | head | where |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {p.kind} | `{p.object}` | `{p.part}` | {_price(p.base)} | {_price(p.head)} | "
                  f"{located(p.location)} |" for p in d.prices]
        lines.append("")
    if d.not_costed:
        lines += ["### Not costed", "", *(f"- {pr_md(n)}" for n in d.not_costed), ""]
    both = d.both_sided
    if both:
        lines += ["### Metrics", ""]
        body = [TABLE_HEAD, TABLE_RULE]
        for c in both:
            old, new, change, rel = banded_cells(c)
            body.append(f"| `{c.object}` | {pr_md(c.metric)} | {old} | {new} | {change} | {rel} | "
                        f"{direction_cell(c)} |")
        if len(both) > 25:
            body = ["<details><summary>" f"{len(both)} changed metrics</summary>", ""] + body + ["", "</details>"]
        lines += body + [""]
    lines += one_sided_section(d)
    for title, objs in (("Objects added", d.objects_added), ("Objects removed", d.objects_removed)):
        if objs:
            lines += [f"**{title}:** " + ", ".join(f"`{o}`" for o in objs), ""]
    if not (d.metrics or d.requirements or d.new_findings or d.resolved_findings or d.objects_added
            or d.objects_removed or d.bom or d.not_costed or d.waivers or d.newly_waived or d.renewed or d.prices
            or d.refused or d.revisions or d.changed_findings):
        lines += ["No differences.", ""]
    return no_mentions("\n".join(lines))


def _price(price: Price | None) -> str:
    """A stated price as a cell: '3,000 USD (assumed, 2025-01)'; — where none is stated."""
    if price is None:
        return "—"
    value = magnitude(price.capex)
    return pr_md(f"{shown_number(value, decimals(value))} {price.capex.units:~} ({price.basis}, {price.date})")


def _price_json(price: Price | None) -> dict | None:
    return None if price is None else {"capex": quantity(price.capex), "basis": price.basis, "date": str(price.date)}


def unanalysable(error: str, code: int, fmt: str = "md") -> str:
    """The report of a diff whose BASE or HEAD cannot be analysed: its errors, so that a comment says why.

    Written to `--output`, or printed on stdout: a pull-request job posts that file (README, Pull requests), and
    without one its comment step failed on a missing file, or posted an empty comment from `archgen diff ... >
    diff.md`. `error` is what the command prints on stderr.
    """
    if fmt == "json":
        return dumps(document(compared=False, exit_code=code, errors=error.splitlines()), ascii_only=False)
    return no_mentions("\n".join(["## archgen diff: not compared", "",
                       f"❌ BASE or HEAD cannot be analysed (exit {code}); `archgen check` shows the same errors.",
                       "", *(_item(line) for line in error.splitlines() if line.strip()), ""]))


def _item(line: str) -> str:
    """A line of stderr as a list item; an indented one (an error's `hint:`) nested under the error above it.

    Flat, a hint read as an error of its own (newuser101: "- hint: allowed keys: ..." under the unknown key's line).
    """
    return f"{'  ' if line[:1].isspace() else ''}- {pr_md(line.strip())}"


#: The longest comment GitHub takes: a longer body is refused with "Body is too long (maximum is 65536 characters)"
#: (telia-oss/github-pr-resource issue #259; newuser20's trial hit it with a 132,320-character diff.md). GitHub does
#: not say what it counts as a character; `comment` counts UTF-16 code units, never fewer than code points.
COMMENT_LIMIT = 65_536


def _length(text: str) -> int:
    """`text`'s length in UTF-16 code units (an emoji beyond the BMP counts 2): the larger of the usual counts."""
    return len(text.encode("utf-16-le")) // 2


def comment(text: str, full: str) -> str | None:
    """A Markdown report cut to `COMMENT_LIMIT`, saying that the whole of it is in the file `full`; None if it fits.

    Cut at a line end, whole lines kept from the top (summary, requirements and findings come first); a `<details>`
    left open is closed. The note stands under the summary and again at the cut, so neither reader misses it.
    """
    if _length(text) <= COMMENT_LIMIT:
        return None
    lines = text.split("\n")
    head, rest = lines[:4], lines[4:]            # the heading and the summary line, each with its blank line
    total = f"{_length(text):,}"
    note = (f"✂️ **Truncated:** this comment shows part of a report of {total} characters (GitHub takes at most "
            f"{COMMENT_LIMIT:,}); the full report is {pr_md(full)}, kept as the job's artifact.")
    room = COMMENT_LIMIT - _length("\n".join([*head, note, "", "", "---", note, ""])) - len("</details>\n")
    kept: list[str] = []
    for line in rest:
        room -= _length(line) + 1
        if room < 0:
            break
        kept.append(line)
    opened = sum(line.startswith("<details>") for line in kept) - sum(line == "</details>" for line in kept)
    return "\n".join([*head, note, "", *kept, *(["</details>"] if opened > 0 else []), "", "---", note, ""])


#: Metrics a pull request's power, energy, emissions and cost delta is read from, shown together before the other
#: metrics: a hall's carbon and water per year (`analyse.sustainability`) and a job's energy (`analyse.job_energy`)
#: with its energy per year, where both sides have them (nu48fix: they were only among the other metrics). The TCO's
#: parts (capital, energy and space per year, and the cluster's stated opex: cost32) stand before it (newuser64: an
#: electricity price from 0.08 to 0.12 USD/kWh moved the energy cost +50 % and the table showed only the TCO's
#: +4.6 %, the cause below the BOM).
POWER_AND_COST = ("it_power", "power_average", "facility_energy_per_year", "carbon_per_year",
                  "market_carbon_per_year", "water_per_year", "facility_energy_per_million_tokens", "job_energy",
                  "job_carbon", "job_market_carbon", "job_water", "capex", "capital_cost_per_year",
                  "energy_cost_per_year", "space_cost_per_year", "support_cost_per_year", "licence_cost_per_year",
                  "other_opex_per_year", "tco_per_year", "tco_per_accelerator_hour",
                  "tco_per_used_accelerator_hour", "breakeven_utilisation", "cost_per_million_tokens")


def power_and_cost(d: Diff) -> list[MetricChange]:
    """The changed power and cost metrics both sides have (one side's are `one_sided`), by object, power first."""
    return sorted((c for c in d.both_sided if c.metric in POWER_AND_COST),
                  key=lambda c: (c.object, POWER_AND_COST.index(c.metric)))


def target_cell(r: RequirementChange) -> str:
    """The target with its level (SHALL, SHOULD, MAY); base → head where the requirement was redefined."""
    def text(state: RequirementState) -> str:
        by = "" if state.verification == "analysis" else f", verified by {state.verification}"
        by += f", refines {', '.join(state.parent)}" if state.parent else ""
        return pr_md(f"{state.level.upper()} {state.metric} {state.target}{by}")
    if r.redefined:
        assert r.base is not None and r.head is not None   # redefined: both sides have it
        way = tightened_words(r.tightened)
        return f"{text(r.base)} → **{text(r.head)}**{way}"
    return pr_md(r.state.target)


def status_cell(state: RequirementState | None, renewal: str = "") -> str:
    """A side's status of a requirement row: its mark, "(waived)" with the renewal where one renewed it; absent."""
    if state is None:
        return "absent"
    mark = MARKS[state.status] + (" (within tolerance)" if state.tolerated else "")
    if (pending := pending_words(state.verification)) and state.value is not None:   # as `Outcome.shown` says it
        mark += f" ({pending})"
    return (f"{mark} (waived)" + (f", {renewal}" if renewal else "")) if state.waived else mark


def _definition_json(state: RequirementState | None) -> dict | None:
    """BASE's target, level, metric and verification of a requirement HEAD redefined (HEAD's are the row's own)."""
    return None if state is None else {"target": state.target, "level": state.level, "metric": state.metric,
                                       "verification": state.verification, "parent": list(state.parent) or None}


def state_json(state: RequirementState | None) -> dict | None:
    """A side's status, value and waived flag of a requirement row in JSON; None where that side lacks it."""
    if state is None:
        return None
    return {"status": state.status, "value": metric_quantity(state.metric, state.value),
            "waived": state.waived or None}


def to_json(d: Diff) -> str:
    """The diff in the JSON quantity contract (quantities as {"value", "unit"} in SI units)."""
    return dumps(document(
        base=shown_file(d.base_label),
        head=shown_file(d.head_label),
        summary=d.summary() | {"line": summary_line(d)},
        metrics=[{"object": c.object, "metric": c.metric, "base": metric_quantity(c.metric, c.base),
                  "head": metric_quantity(c.metric, c.head), "change": metric_quantity(c.metric, c.change),
                  "relative": c.relative, "direction": c.direction,
                  "presence": c.presence, "why": c.why or None, "hall": c.hall or None, **measure_json(c),
                  "better": (m.better if (m := metrics.lookup(c.object, c.metric)) else None)} for c in d.metrics],
        objects={"added": list(d.objects_added), "removed": list(d.objects_removed)},
        not_costed=list(d.not_costed),
        bom=bom_json(d.bom),
        bom_totals=totals_json(d.bom),
        **({"swaps": swaps_json(d.swaps)} if d.swaps else {}),
        findings={"new": [finding(f) for f in d.new_findings],
                  "resolved": [finding(f) for f in d.resolved_findings],
                  **({"changed": changed_json(d.changed_findings)} if d.changed_findings else {}),
                  "newly_waived": [finding(f) for f in d.newly_waived], "waived_again": renewed_json(d)},
        refused=[{"side": side, "file": link} for side, link in d.refused],
        **({"pairs": pairs_json(d.pairs)} if d.pairs else {}),
        **({"revisions": [{"object": r.object, "number": r.number or None, "base": r.base or None,
                           "head": r.head or None, "changed": r.changed, "approval": r.approval or None}
                          for r in d.revisions]}
           if d.revisions else {}),
        prices=[{"change": p.kind, "object": p.object, "part": p.part, "base": _price_json(p.base),
                 "head": _price_json(p.head)} for p in d.prices],
        waivers=[{"change": w.kind, "object": w.state.object, "check": w.state.check, "subject": w.state.subject,
                  "requirement": w.state.requirement or None, "changes": list(w.changes),
                  "base": waiver_json(w.base), "head": waiver_json(w.head)} for w in d.waivers],
        requirements=[{"object": r.state.object, "requirement": r.state.requirement,
                       "statement": r.state.statement, "target": r.state.target,
                       "level": r.state.level, "verification": r.state.verification,
                       "parent": list(r.state.parent) or None,
                       "base": state_json(r.base),
                       "head": state_json(r.head), "failing": r.failing, "redefined": r.redefined,
                       "tightened": r.tightened,
                       "newly_waived": r.newly_waived and not d.renewal(r), "waiver_renewed": d.renewal(r) or None,
                       "base_definition": _definition_json(r.base) if r.redefined else None}
                      for r in d.requirements],
    ), ascii_only=False)
