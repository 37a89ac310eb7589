"""`archgen diff`'s waiver parts: the waivers that changed, and the findings a waiver newly covers or covers again.

A finding BASE counted that a waiver covers in HEAD is *newly waived* (accepted, not fixed) where the waiver is new
to it, and *waived again* where HEAD renews the waiver BASE had let expire (`WaiverChange.renewal`: `renewed (expiry
2027-03-31 → 2027-09-30)`): the summary line, the Markdown sections and the JSON each say which.
"""

from __future__ import annotations

from archgen.checks import Finding
from archgen.compare.diff import Diff
from archgen.compare.waiver_changes import WaiverChange, WaiverState
from archgen.load import shown_file
from archgen.output.envelope import finding, located
from archgen.render.fmt import pr_md


def waived_summary(d: Diff) -> str:
    """The summary line's words for them: ', 1 newly waived, 1 waived again: renewed (expiry A → B)'; "" if none."""
    fresh = f", {len(d.newly_waived)} newly waived" if d.newly_waived else ""
    renewals = "; ".join(sorted({w.renewal for _, w in d.renewed}))
    return fresh + (f", {len(d.renewed)} waived again: {renewals}" if d.renewed else "")


def waived_sections(d: Diff) -> list[str]:
    """The findings newly waived and those waived again by a renewal, as Markdown sections; no lines where none."""
    lines: list[str] = []
    for title, intro, rows in (
            ("Newly waived findings", "Findings BASE counted that a waiver covers in HEAD: accepted, not fixed.",
             [(f, pr_md(f.waived)) for f in d.newly_waived]),
            ("Findings waived again", "Findings BASE counted because their waiver had expired, which HEAD renews: "
             "waived longer, not newly accepted.", [(f, pr_md(f"{w.renewal}: {f.waived}")) for f, w in d.renewed])):
        if rows:
            lines += [f"### {title}", "", intro, "", "| severity | check | object | where | message | waived |",
                      "|---|---|---|---|---|---|"]
            lines += [f"| {f.severity} | {f.id} | `{f.object}` | {where(f)} | {pr_md(f.message)} | {text} |"
                      for f, text in rows]
            lines.append("")
    return lines


def where(f: Finding) -> str:
    """A finding's file:line as a code span, a shipped catalog's said so (`envelope.located`); "" if none."""
    return located(f.location)


def renewed_json(d: Diff) -> list[dict]:
    """The findings waived again, each as `check`'s JSON with its `renewal` and the waiver's two expiries."""
    return [finding(f) | {"renewal": w.renewal, "expires": {side: state.expires.isoformat() if state.expires else None
                                                          for side, state in (("base", w.base), ("head", w.head))
                                                          if state is not None}}
            for f, w in d.renewed]


def waiver_section(changes: tuple[WaiverChange, ...]) -> list[str]:
    """The waivers added, renewed, shortened, edited or removed, as a Markdown section; no lines where none were."""
    if not changes:
        return []
    body = ["### Waivers", "", "| change | waives | where | what changed | reason |", "|---|---|---|---|---|"]
    for w in changes:
        s = w.state
        where = located(s.location)
        body.append(f"| {w.kind} | {pr_md(s.names)} | {where} | {pr_md('; '.join((*w.changes, *_lapsed(w))))} | "
                    f"{pr_md(s.reason)} |")
    return body + [""]


def _lapsed(w: WaiverChange) -> tuple[str, ...]:
    """Whether either side's waiver had expired on the date judged: it waived nothing there."""
    return tuple(f"{side}'s had expired: it waived nothing there" for side, state in (("BASE", w.base),
                                                                                     ("HEAD", w.head))
                 if state is not None and state.expired)


def waiver_json(state: WaiverState | None) -> dict | None:
    """One side's waiver in the JSON `waivers` rows; None where that side has none."""
    return None if state is None else {
        "owner": state.owner or None, "expires": state.expires.isoformat() if state.expires else None,
        "expired": state.expired, "reason": state.reason,
        "file": shown_file(state.location.file) if state.location else None,
        "line": state.location.line if state.location else None}
