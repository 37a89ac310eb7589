"""The diff's bill of materials (count and line-power changes, part swaps) and its changed findings, as Markdown/JSON.

`compare.bom` finds the lines and swaps, `compare.finding_changes` the findings whose message changed; this module
only writes them (`archgen.output.diff` places them in the comment and the JSON document).
"""

from __future__ import annotations

from archgen.checks import Finding
from archgen.compare.bom import PartChange, Swap
from archgen.output.diff_cells import decimals, magnitude, shown_number
from archgen.output.diff_waivers import where
from archgen.output.envelope import finding, quantity
from archgen.render.fmt import number, pr_md, unit_label
from archgen.units import Q


def bom_section(changes: tuple[PartChange, ...], swaps: tuple[Swap, ...] = ()) -> list[str]:
    """The parts whose count or line power changed, a swap as one row, as a Markdown section; none: no lines.

    A swap's row ("`sn5610` → `sn5600` (5)") stands for its two parts' rows: its base and head are the two parts'
    count together (equal, as as many came as went), its power and cost the two lines' changes added.
    """
    if not changes:
        return []
    body = ["| object | part | kind | base | head | change | power change | cost change |",
            "|---|---|---|--:|--:|--:|--:|--:|"]
    swapped = {id(c): s for s in swaps for c in (s.old, s.new)}
    for c in changes:
        s = swapped.get(id(c))
        if s is not None:
            if c is s.old:
                inside = f" in `{c.within}`" if c.within else ""
                both = s.old.base + s.new.base
                body.append(f"| `{c.object}` | `{s.old.part}` → `{s.new.part}` ({number(s.count)}){inside} | "
                            f"{c.kind} | {number(both)} | {number(both)} | swapped | {_signed(s.power, 'kW')} | "
                            f"{_signed(s.cost)} |")
            continue
        part = f"`{c.part}` in `{c.within}`" if c.within else f"`{c.part}`"
        body.append(f"| `{c.object}` | {part} | {c.kind} | {number(c.base)} | {number(c.head)} | "
                    f"{shown_number(c.change, 0, sign=True)} | {_signed(c.power, 'kW')} | {_signed(c.cost)} |")
    rows = len(body) - 2
    if rows > 25:
        body = ["<details><summary>" f"{rows} changed parts</summary>", ""] + body + ["", "</details>"]
    return ["### Bill of materials", "", "Parts whose count changed, and lines whose total power changed at the same "
            "count (unchanged lines are left out); a part whose count fell by N beside another of its kind that rose "
            "by N in the same place reads as one swap, old → new (N). Power and cost are the change of the line's "
            "total, — where the part has no power or price of its own in the BOM.", ""] + body + [""]


def _signed(q: Q | None, unit: str = "") -> str:
    """A change with its sign, in `unit` (a price in its own currency); — for None."""
    if q is None:
        return "—"
    unit = unit or f"{q.units:~}"
    value = magnitude(q.to(unit))
    return f"{shown_number(value, decimals(value), sign=True)} {unit_label(unit)}"


def bom_json(changes: tuple[PartChange, ...]) -> list[dict]:
    """Each changed BOM line (a swap's two parts each their own): counts, power and cost change."""
    return [{"object": c.object, "part": c.part, "kind": c.kind, "within": c.within or None, "base": c.base,
             "head": c.head, "change": c.change, "power_change": quantity(c.power),
             "cost_change": quantity(c.cost)} for c in changes]


def swaps_json(swaps: tuple[Swap, ...]) -> list[dict]:
    """Each swap: where, the part that went, the part that came, how many, the two lines' power and cost change."""
    return [{"object": s.old.object, "kind": s.old.kind, "within": s.old.within or None, "from": s.old.part,
             "to": s.new.part, "count": s.count, "power_change": quantity(s.power), "cost_change": quantity(s.cost)}
            for s in swaps]


def changed_findings_section(changed: tuple[tuple[Finding, Finding], ...]) -> list[str]:
    """Errors and warnings both sides have whose message changed, old → new, as a Markdown section; none: no lines."""
    if not changed:
        return []
    return ["### Changed findings", "", "Errors and warnings of the same check, object and requirement on both sides "
            "whose message changed: neither new nor resolved.", "",
            "| severity | check | object | where | message (base → head) |", "|---|---|---|---|---|",
            *(f"| {b.severity} | {b.id} | `{b.object}` | {where(b)} | {pr_md(a.message)} → **{pr_md(b.message)}** |"
              for a, b in changed), ""]


def changed_json(changed: tuple[tuple[Finding, Finding], ...]) -> list[dict]:
    """Each changed finding as BASE's and HEAD's."""
    return [{"base": finding(a), "head": finding(b)} for a, b in changed]
