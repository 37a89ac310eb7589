"""The diff's bill of materials (count and line-power changes, part swaps) and its changed findings, as Markdown/JSON.

`compare.bom` finds the lines and swaps, `compare.finding_changes` the findings whose message changed; this module
only writes them (`archgen.output.diff` places them in the comment and the JSON document).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from archgen.checks import Finding
from archgen.compare.bom import PartChange, Swap, power_totals
from archgen.output.diff_cells import decimals, magnitude, shown_number
from archgen.output.diff_waivers import where
from archgen.output.envelope import finding, quantity
from archgen.render.fmt import number, pr_md, unit_label
from archgen.units import Q


def bom_section(changes: tuple[PartChange, ...], swaps: tuple[Swap, ...] = ()) -> list[str]:
    """The parts whose count or line power changed, a swap as one row, as a Markdown section; none: no lines.

    A swap's row ("`sn5610` → `sn5600` (5)") stands for its two parts' rows: its base and head are the two parts'
    count together (equal, as as many came as went), its power and cost the two lines' changes added. A rack line's
    power is in parentheses, and each object's rows end in a total that leaves it out (`by_object`).
    """
    if not changes:
        return []
    swapped = {id(c): s for s in swaps for c in (s.old, s.new)}

    def row(c: PartChange) -> str | None:
        return bom_row(c, swapped.get(id(c)))

    body = ["| object | part | kind | base | head | change | power change | cost change |",
            "|---|---|---|--:|--:|--:|--:|--:|", *by_object(changes, row, cells=8, power=6)]
    rows = len(body) - 2
    if rows > 25:
        body = ["<details><summary>" f"{rows} changed parts</summary>", ""] + body + ["", "</details>"]
    return ["### Bill of materials", "", "Parts whose count changed, and lines whose total power changed at the same "
            "count (unchanged lines are left out); a part whose count fell by N beside another of its kind that rose "
            "by N in the same place reads as one swap, old → new (N). Power and cost are the change of the line's "
            "total, — where the part has no power or price of its own in the BOM. " + POWER_NOTE
            + unconfirmed_note(changes), ""] + body + [""]


def unconfirmed_note(changes: Sequence[PartChange]) -> str:
    """What "(unconfirmed)" in the power column means, naming the parts so marked; "" where none is.

    A part's draw listed under `unconfirmed:` (a placeholder maximum) is an estimate the analysis adds as it adds a
    datasheet's: the power and energy figures that sum it rest on it too (PWR012 names them in `check`).
    """
    parts = sorted({c.part for c in changes if c.unconfirmed})
    if not parts:
        return ""
    return (f" \"(unconfirmed)\": the part's stated draw is an estimate it lists as unconfirmed ({', '.join(parts)}), "
            "not a published figure; the IT power and the figures built on it sum it as they sum the others.")


def bom_row(c: PartChange, swap: Swap | None, middle: Sequence[str] = (), *, cost: bool = True) -> str | None:
    """One BOM row of both editions: object, part, `middle` (the customer's number and name), kind, counts, power, cost.

    A swap's row ("`sn5610` → `sn5600` (5)") stands for its two parts' rows: its base and head are the two parts'
    count together (equal, as as many came as went), its power and cost the two lines' changes added; its new part's
    change writes no row (None). `cost`: whether the row ends in the cost change (the customer edition's does not).
    """
    if swap is not None and c is not swap.old:
        return None
    inside = f" in `{c.within}`" if c.within else ""
    if swap is None:
        part, base, head, change = f"`{c.part}`{inside}", c.base, c.head, shown_number(c.change, 0, sign=True)
        power, price = c.power, c.cost
    else:
        both = swap.old.base + swap.new.base
        part, base, head, change = f"`{swap.old.part}` → `{swap.new.part}` ({number(swap.count)}){inside}", both, \
            both, "swapped"
        power, price = swap.power, swap.cost
    cells = [f"`{c.object}`", part, *middle, c.kind, number(base), number(head), change,
             power_cell(power, c.subtotal, c.unconfirmed or (swap is not None and swap.new.unconfirmed)),
             *([_signed(price)] if cost else [])]
    return f"| {' | '.join(cells)} |"


#: What the power column's parentheses and total rows mean, in both editions' BOM sections.
POWER_NOTE = ("A rack line's power, in parentheses, is its placed parts' draw, which their own lines give: the "
              "**total** row under an object's lines adds its power column without the rack lines, each draw once. "
              "These are the parts' stated maximum draws at their own inputs, before the power shelves' losses and "
              "without the optics no part's figure holds: a cluster's IT power at the rack feeds, among the "
              "figures, counts both.")


def power_cell(q: Q | None, subtotal: bool = False, unconfirmed: bool = False) -> str:
    """A line's power change in kW with its sign, in parentheses where it is a subtotal (a rack line); — for None.

    `unconfirmed`: it rests on a power figure its part lists unconfirmed, and says so ("+36 kW (unconfirmed)").
    """
    text = _signed(q, "kW")
    text = f"({text})" if subtotal and q is not None else text
    return f"{text} (unconfirmed)" if unconfirmed and q is not None else text


def by_object(changes: tuple[PartChange, ...], row: Callable[[PartChange], str | None], cells: int,
              power: int) -> list[str]:
    """The rows `row` writes (None: no row), each object's followed by its power total where it has two or more.

    The total (`compare.bom.power_totals`) stands in the `power` column of a row of `cells` cells.
    """
    totals = {t.object: t for t in power_totals(changes)}
    out: list[str] = []
    for obj in dict.fromkeys(c.object for c in changes):
        rows = [r for c in changes if c.object == obj if (r := row(c)) is not None]
        out += rows
        if len(rows) > 1:
            t = totals[obj]
            cell = ["" for _ in range(cells)]
            unknown = f"; {t.unknown} line(s) of no power of their own" if t.unknown else ""
            cell[0], cell[1] = f"`{obj}`", f"**total** without the rack lines{unknown}"
            marked = any(c.unconfirmed for c in changes if c.object == obj and not c.subtotal)
            cell[power] = f"**{_signed(t.power, 'kW')}**" + (" (unconfirmed)" if marked else "")
            out.append("| " + " | ".join(cell) + " |")
    return out


def _signed(q: Q | None, unit: str = "") -> str:
    """A change with its sign, in `unit` (a price in its own currency); — for None."""
    if q is None:
        return "—"
    unit = unit or f"{q.units:~}"
    value = magnitude(q.to(unit))
    return f"{shown_number(value, decimals(value), sign=True)} {unit_label(unit)}"


def bom_json(changes: tuple[PartChange, ...]) -> list[dict]:
    """Each changed BOM line (a swap's two parts each their own): counts, power and cost change, whether a subtotal."""
    return [{"object": c.object, "part": c.part, "kind": c.kind, "within": c.within or None, "base": c.base,
             "head": c.head, "change": c.change, "power_change": quantity(c.power), "subtotal": c.subtotal,
             "power_unconfirmed": c.unconfirmed,
             "cost_change": quantity(c.cost)} for c in changes]


def totals_json(changes: tuple[PartChange, ...]) -> list[dict]:
    """Each object's power change over its BOM lines but the rack lines, and how many lines have no power."""
    return [{"object": t.object, "power_change": quantity(t.power), "power_unknown": t.unknown}
            for t in power_totals(changes)]


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
