r"""Deliverable tables: bill of materials, requirements compliance matrix, cable runs; as CSV and XLSX bytes.

Rows are built from the design (counts, catalog figures); the writers only format. CSV is UTF-8 with ``\n`` line
ends and a fixed column order so diffs stay small. XLSX is not byte-reproducible (zip and document timestamps), so
it is compared by content in the tests; we still pin its creation time to keep it as stable as openpyxl allows.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pint

from archgen.build import RackDesign
from archgen.model import System
from archgen.render import fmt
from archgen.render.blocks import Column, Table


@dataclass(frozen=True)
class BomRow:
    """One line of a bill of materials."""

    part: str
    name: str
    kind: str
    quantity: int
    unit_power: pint.Quantity | None
    unit_weight: pint.Quantity | None
    source: str
    within: str = ""

    @property
    def total_power(self) -> pint.Quantity | None:
        """Quantity × unit power (None when the part's power is counted in its parent)."""
        return None if self.unit_power is None else self.unit_power * self.quantity

    @property
    def total_weight(self) -> pint.Quantity | None:
        """Quantity × unit weight (None when counted in its parent or unknown)."""
        return None if self.unit_weight is None else self.unit_weight * self.quantity


def sources_text(source: str | list[str] | tuple[str, ...]) -> str:
    """One string of a part's sources, separated by ' | '."""
    return " | ".join(source) if isinstance(source, list | tuple) else str(source)


def unit_power(part: Any) -> pint.Quantity | None:
    """Maximum draw of a part as catalogued (systems, switches: power.max; CDUs: power), or None."""
    power = getattr(part, "power", None)
    if power is None or isinstance(power, pint.Quantity):
        return power
    return getattr(power, "max", None)


def rack_bom(rack: RackDesign, specs: Any) -> list[BomRow]:
    """BOM of one rack: placed items by part (in slot order), then the components inside each system."""
    counts = Counter(p.part.id for p in rack.items)
    rows: list[BomRow] = []
    seen: set[str] = set()
    for item in rack.items:
        part = item.part
        if part.id in seen:
            continue
        seen.add(part.id)
        mech = getattr(part, "mechanical", None)
        rows.append(BomRow(part.id, part.name or part.id, part.kind, counts[part.id], unit_power(part),
                           mech.weight if mech else None, sources_text(part.source)))
    for sys_id in [r.part for r in rows]:
        system = specs.get(sys_id)
        if not isinstance(system, System):
            continue
        inner: list[tuple[str, int]] = []
        if system.accelerator:
            inner.append((system.accelerator, system.accelerators))
        inner += [(n.part, n.count) for n in system.nics]
        for part_id, per in inner:
            sub = specs.get(part_id)
            if sub is None:
                continue
            rows.append(BomRow(sub.id, sub.name or sub.id, sub.kind, per * counts[sys_id], None, None,
                               sources_text(getattr(sub, "source", "")), within=sys_id))
    return rows


BOM_COLUMNS = (
    Column("Part"), Column("Name"), Column("Kind"), Column("In"), Column("Qty", digits=0, align="right"),
    Column("Unit power", "kW", 2, "right"), Column("Total power", "kW", 2, "right"),
    Column("Unit weight", "kg", 1, "right"), Column("Total weight", "kg", 1, "right"), Column("Source"),
)


def bom_table(rows: list[BomRow], caption: str = "Bill of materials") -> Table:
    """The BOM as a document table."""
    return Table("bom", caption, BOM_COLUMNS, tuple(
        (r.part, r.name, r.kind, r.within or "rack", r.quantity, r.unit_power, r.total_power, r.unit_weight,
         r.total_weight, r.source) for r in rows))


def csv_bytes(table: Table) -> bytes:
    """A table as CSV: a header of column headings, then the cells as displayed (numbers without separators)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([c.heading for c in table.columns])
    for row in table.rows:
        writer.writerow([_csv_cell(v, c) for v, c in zip(row, table.columns, strict=True)])
    return buf.getvalue().encode("utf-8")


def _csv_cell(value: Any, col: Column) -> str:
    plain = _xlsx_cell(value, col)
    if isinstance(plain, float):
        return f"{plain:.{col.digits}f}"
    return "" if plain is None else str(plain)


def _xlsx_cell(value: Any, col: Column) -> Any:
    """A cell as a spreadsheet value: quantities as floats in the column unit, the rest as text or numbers."""
    if value is None:
        return None
    if isinstance(value, pint.Quantity):
        return round(float(value.to(col.unit).magnitude), 9) if col.unit else fmt.q(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return value
    return fmt.cell(value)


#: Fixed workbook timestamps: the output must not depend on the wall clock.
EPOCH = dt.datetime(2000, 1, 1)


def xlsx_bytes(tables: list[Table]) -> bytes:
    """A workbook with one sheet per table: bold header row, frozen panes, number formats, column widths."""
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    wb.remove(wb.active)
    wb.properties.creator = "archgen"
    wb.properties.created = wb.properties.modified = EPOCH
    for table in tables:
        ws = wb.create_sheet(table.id[:31])
        ws.append([c.heading for c in table.columns])
        for cell in ws[1]:
            cell.font = Font(bold=True)
            cell.fill = PatternFill("solid", fgColor="DDE4EE")
        for row in table.rows:
            ws.append([_xlsx_cell(v, c) for v, c in zip(row, table.columns, strict=True)])
        for j, col in enumerate(table.columns, 1):
            letter = get_column_letter(j)
            if col.unit:
                for (cell,) in ws.iter_rows(min_row=2, min_col=j, max_col=j):
                    cell.number_format = "#,##0" + ("." + "0" * col.digits if col.digits else "")
            width = max([len(col.heading)] + [len(fmt.cell(r[j - 1], col.unit, col.digits)) for r in table.rows])
            ws.column_dimensions[letter].width = min(max(width + 2, 8), 60)
        ws.freeze_panes = "A2"
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
