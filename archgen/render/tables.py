r"""Deliverable tables: bill of materials, requirements compliance matrix, cable runs; as CSV and XLSX bytes.

Rows are built from the design (counts, catalog figures); the writers only format. CSV is UTF-8 with ``\n`` line
ends and a fixed column order so diffs stay small. XLSX is byte-reproducible too: its document times and its zip
entries' dates are pinned (`_pinned_zip`).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from archgen.analyse.bom_line import BomLine, part_number
from archgen.analyse.rack_power_inputs import unconfirmed_draws
from archgen.analyse.unconfirmed_share import CONFIRMED, Share, cluster_shares
from archgen.display import decimals, decimals_column
from archgen.errors import UsageError
from archgen.model import Part
from archgen.model.field_words import said
from archgen.pint_import import pint
from archgen.render import fmt
from archgen.render.blocks import Cite, Column, Formula, Table

BOM_COLUMNS = (
    Column("Part"), Column("Name"), Column("Part number"), Column("Kind"), Column("In"),
    Column("Qty", digits=0, align="right"), Column("Unit power", "kW", 2, "right"),
    Column("Total power", "kW", 2, "right"), Column("Unit weight", "kg", 1, "right"),
    Column("Total weight", "kg", 1, "right"), Column("Source or rule"),
)


def bom_name(line: BomLine, part: Any) -> tuple[str, str, str | Cite]:
    """Name, part number and sources (or counting rule) of a BOM line: a catalog part's, else the line's."""
    if part is None:
        return line.name or line.part, part_number(line, part), line.note or "—"
    return line.name or part.name or part.id, part_number(line, part), Cite.of(getattr(part, "source", ""))


def quantity(line: BomLine) -> int | str:
    """A BOM line's quantity cell: its count, or "not provided" for a part the spec does not state."""
    return line.quantity if line.provided else "not provided"


#: The BOM data files' column beside Qty: whether the spec states the line's quantity (`quantity`).
QTY_STATUS = Column("Qty status")


#: The BOM data files' column after Qty status: whether the line's unit power rests on a figure its part lists
#: unconfirmed (`unconfirmed_power`).
POWER_STATUS = Column("Power status")


def bom_data(table: Table) -> Table:
    """A BOM table as `bom.csv` and the XLSX `bom` sheet write it: Qty a number or empty, its status beside it.

    The document's Qty cell reads "not provided" where the spec states no quantity; a procurement import reads Qty
    as a number, so the data files leave it empty and say "not provided" in a "Qty status" column ("stated" else),
    the last one, so that an import mapping the columns by position before it still reads them. A unit power the
    document marks "(unconfirmed)" (`unconfirmed_power`) is a number there too, and "Power status" after it says
    "unconfirmed" ("stated" else; "not provided" where the line has no power figure).
    """
    at = next(i for i, c in enumerate(table.columns) if c.title == "Qty")
    power = next(i for i, c in enumerate(table.columns) if c.title == "Unit power")
    rows = tuple((*r[:at], None if isinstance(r[at], str) else r[at], *r[at + 1:],
                  r[at] if isinstance(r[at], str) else "stated",
                  r[power].note if isinstance(r[power], fmt.Noted) else "not provided" if r[power] is None
                  else "stated") for r in table.rows)
    return replace(table, columns=(*table.columns, QTY_STATUS, POWER_STATUS), rows=rows)


def unconfirmed_power(value: Any, parts: Iterable[Any], specs: Any) -> Any:
    """A power `value` that sums `parts`' draws as its cell, marked "(unconfirmed)" where one of those draws is.

    A `fmt.Noted` where a part's draw sums a figure its catalog entry lists unconfirmed (`analyse.rack_power_inputs.
    unconfirmed_draws`: its own, the NICs a system adds; REQ005 names the same), else `value` as it is (None stays
    None). A Celestica DS5000's placeholder maximum read "3.00 kW" as a datasheet's did (newuser101). A BOM line
    sums its own part; a cluster BOM's rack line sums its placed parts, and says how much of it is unconfirmed
    (`marked`, its rack's `RackShares`) where the BOM's `shares` gives them.
    """
    return fmt.Noted(value, "unconfirmed") if value is not None and unconfirmed_parts(parts, specs) else value


#: How a document marks a figure that sums parts' draws (`marked`); `plain` leaves it as it is.
Mark = Callable[[Any], Any]


def plain(value: Any) -> Any:
    """`value` unmarked: the `Mark` of a section built without a document's parts (a test's)."""
    return value


def marked(share: Share) -> Mark:
    """The `Mark` of figures carrying `share` (`analyse.unconfirmed_share`): how much of each is unconfirmed.

    A figure all of which rests on unconfirmed draws reads "131.6 kW (unconfirmed)"; one that rests on them in part
    says how much, in its own unit: "57.3 kW (0.1 kW of it unconfirmed)", or, where more than half of it does, how
    much does not: "1,146.6 kW (all but 0.3 kW of it unconfirmed)"; where every such draw states a range in
    the catalog, the band it gives, instead: "16.1 kW (unconfirmed: 15.9 kW to 16.1 kW)". A zero stays plain, as no
    draw makes it (an air-cooled rack's heat to liquid), and so does every figure of a share of none. The
    document names the draws once (`unconfirmed_footnote`).
    """
    if not share.part:
        return plain
    band, but = share.band, share.part > 0.5 and not share.whole
    part = None if share.whole else 1 - share.part if but else share.part

    def mark(value: Any) -> Any:
        q = value.value if isinstance(value, fmt.Noted) else value   # a figure noted already: its own number
        if q is None or getattr(q, "magnitude", None) == 0:
            return value
        return fmt.noted(value, "unconfirmed", None if part is None else q * part,
                         None if band is None else (q * band[0], q * band[1]), but)
    return mark


def cluster_marks(a: Any, specs: Any, racks: Any) -> Callable[[str], Mark]:
    """The `Mark` of cluster analysis `a`'s metric by name (`analyse.unconfirmed_share.cluster_shares`).

    Its IT power's, its energy's, the facility's power; a metric that carries none (a headroom), `plain`. `racks`:
    the run's rack analyses (its shelves' loss is theirs).
    """
    shares = cluster_shares(a, specs, racks)
    return lambda name: marked(shares.get(name, CONFIRMED))


def unconfirmed_parts(parts: Iterable[Any], specs: Any, *typical: bool) -> tuple[str, ...]:
    """The draws of `parts` that are unconfirmed (`unconfirmed_draws`), as 'part field in words', sorted, each once.

    `typical`: at maximum draw (False, the default), at typical draw (True), or both (False, True).
    """
    return tuple(sorted({f"{pid} {said(field)}" for p in parts if isinstance(p, Part) for at in typical or (False,)
                         for pid, field in unconfirmed_draws(p, specs, at)}))


def unconfirmed_footnote(figures: str, parts: Iterable[Any], specs: Any) -> str:
    """The one note of a document (or section) on its figures marked "(unconfirmed)": the draws they sum; "" if none.

    `figures` says which figures it marks; a document marks each such figure once (`marked`, `unconfirmed_power`) and
    names the parts and their fields here once, as the BOM's reconciliation sentence does, with how a mark says how
    much of its figure rests on them.
    """
    if not (named := unconfirmed_parts(list(parts), specs, False, True)):   # the figures at maximum and typical draw
        return ""
    return (f"Marked (unconfirmed): {figures}. They sum draws the catalog lists as unconfirmed, estimates and not "
            f"published figures: {', '.join(named)} (their lines in a bill of materials are marked alike). A "
            f"figure that rests on them in part says how much of it does (\"0.1 kW of it unconfirmed\"), or, where "
            f"most of it does, how much does not (\"all but 0.3 kW of it\"): those draws' share of the draws it "
            f"sums, which the figures built on it carry in proportion; where each such draw states a range in the "
            f"catalog, the figure reads the band it gives instead (\"unconfirmed: 9.75 kW to 10.32 kW\").")


def bom_table(lines: Sequence[BomLine], specs: Any, caption: str = "Bill of materials") -> Table:
    """A rack's BOM (`analyse.bom.rack_bom`) as a document table, with each part's name, part number and sources."""
    rows = []
    for r in lines:
        name, number, source = bom_name(r, specs.get(r.part))
        part = specs.get(r.part)
        rows.append((r.part, name, number, r.kind, r.within or "rack", quantity(r),
                     unconfirmed_power(r.unit_power, (part,), specs), unconfirmed_power(r.total_power, (part,), specs),
                     r.unit_weight,
                     r.total_weight, source))
    return Table("bom", caption, BOM_COLUMNS, tuple(rows))


def csv_bytes(table: Table, stamp: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A table as CSV: a header of column headings, then the cells as displayed (numbers without separators).

    A number at its column's decimals, one they would show at fewer than two significant figures at two
    (`display.decimals`, as the document's cells show it: 8.7e-06, not 0.000). `stamp`: (heading, value) columns
    added last with one value on every row, the document's number and revision (`emit.render_document`).
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([c.heading for c in table.columns] + [heading for heading, _ in stamp])
    width = len(table.columns)
    values = [value for _, value in stamp]
    if table.rows and all(len(row) == width for row in table.rows):
        # column by column: a port map's 10^6 rows (`bench/bench_render.py`) spent most of a render here cell by cell
        by_column = zip(*table.rows, strict=True)
        columns = [_csv_column(values, col) for values, col in zip(by_column, table.columns, strict=True)]
        columns += [[value] * len(table.rows) for value in values]
        writer.writerows(zip(*columns, strict=True))
    else:
        for row in table.rows:   # no rows, or a row of the wrong width (which `zip` names)
            writer.writerow([csv_cell(v, c) for v, c in zip(row, table.columns, strict=True)] + values)
    return buf.getvalue().encode("utf-8")


def _csv_column(values: Sequence[Any], col: Column) -> list[str]:
    """One column's cells as `csv_cell` writes them, by the kinds of value it holds.

    A column of only text has each distinct text worked out once, of only integers or only floats is formatted
    whole; a column of several kinds goes cell by cell (text, numbers and empty cells here, anything else through
    `csv_cell`).
    """
    kinds = set(map(type, values))
    if kinds == {str}:
        texts = {v: csv_cell(v, col) for v in set(values)}
        return list(map(texts.__getitem__, values))
    if kinds == {int}:
        return list(map(str, values))
    if kinds == {float}:
        return decimals_column(values, col.digits)

    def cell(value: Any) -> str:
        kind = type(value)
        if kind is int:
            return str(value)
        if kind is float:
            return decimals(value, col.digits, grouped=False)
        return "" if value is None else csv_cell(value, col)
    return list(map(cell, values))


def csv_cell(value: Any, col: Column) -> str:
    """One CSV cell as `csv_bytes` writes it: the spreadsheet value, floats to the column's decimals, text neutral.

    A float as `display.decimals` writes it without thousands separators: 8.7e-06, not 0.000.
    """
    plain = _xlsx_cell(value, col)
    if isinstance(plain, float):
        return decimals(plain, col.digits, grouped=False)
    if isinstance(plain, str):
        return neutral(plain)
    return "" if plain is None else str(plain)


#: First characters that make a spreadsheet read a CSV cell as a formula (OWASP, CSV Injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutral(text: str) -> str:
    """A CSV text cell that no spreadsheet runs.

    A cell starting like a formula gets a leading `'`, as OWASP's CSV-injection guidance says (`=HYPERLINK(...)` in
    a part name, the requirement target `== 8`); a plain number stays as it is.
    """
    if not text.startswith(FORMULA_START):
        return text
    try:
        float(text)
        return text
    except ValueError:
        return "'" + text


def _xlsx_cell(value: Any, col: Column) -> Any:
    """A cell as a spreadsheet value: quantities as floats in the column unit, the rest as text or numbers."""
    if value is None:
        return None
    if isinstance(value, Formula):   # the CSV's number; the workbook writes the formula (`xlsx_bytes`)
        return value.value
    if isinstance(value, fmt.Noted):   # its word has a column of its own (`bom_data`)
        return _xlsx_cell(value.value, col)
    if isinstance(value, Cite):
        return value.full or None
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
    try:
        from openpyxl import Workbook
        from openpyxl.cell.cell import Cell
        from openpyxl.styles import Font, PatternFill
        from openpyxl.utils import get_column_letter
    except ImportError:  # the `office` extra is optional (parse_formats says so before rendering starts)
        raise UsageError("XLSX output needs the openpyxl package: pip install 'archgen[office]'") from None

    wb = Workbook()
    wb.remove(wb.active)
    wb.properties.creator = "archgen"
    wb.properties.created = wb.properties.modified = EPOCH
    formulas = False
    for table in tables:
        ws = wb.create_sheet(table.id[:31])
        ws.append([c.heading for c in table.columns])
        for cell in ws[1]:
            cell.font = Font(bold=True)
            cell.fill = PatternFill("solid", fgColor="DDE4EE")
        # each row's cells made here and appended (`Worksheet.append` takes a Cell as it is): `ws[ws.max_row]` looked
        # at every cell of the sheet twice per row (openpyxl's max_row and max_column), 10 of the 12.8 CPU-s of the
        # SU's 2,600-row BOM edition; reading each row back (`iter_rows`), and each column with a unit to give its
        # number format, some 7 % of the rest (render37: the 32 workbooks of specs/, both editions, 4.64 -> 4.30
        # CPU-s, the same bytes)
        number_formats = [("#,##0" + ("." + "0" * c.digits if c.digits else "")) if c.unit else None
                          for c in table.columns]
        for row in table.rows:
            cells = [Cell(ws, value=v.expr if type(v) is Formula else _xlsx_cell(v, c))
                     for v, c in zip(row, table.columns, strict=True)]
            for cell, v, number in zip(cells, row, number_formats, strict=True):
                if cell.data_type == "f" and type(v) is not Formula:   # a string starting with '=' from a spec: text
                    cell.data_type = "s"
                if number:
                    cell.number_format = number
            ws.append(cells)
            formulas = formulas or any(type(v) is Formula for v in row)
        for j, col in enumerate(table.columns, 1):
            letter = get_column_letter(j)
            width = _widest(col, [r[j - 1] for r in table.rows])
            ws.column_dimensions[letter].width = min(max(width + 2, 8), 60)
        ws.freeze_panes = "A2"
    if formulas:   # no cached values: the spreadsheet computes every formula when it opens the workbook
        from openpyxl.workbook.properties import CalcProperties
        wb.calculation = CalcProperties(fullCalcOnLoad=True)
    return _pinned_zip(wb)


def _widest(col: Column, values: list[Any]) -> int:
    """The most characters a cell of `col` holding one of `values` shows (`fmt.cell`), or its heading's.

    Each distinct text once: a port map's 3,000 rows repeat a few rack, device and media names (render37).
    """
    texts = {v for v in values if type(v) is str}
    return max([len(col.heading)] + [len(fmt.cell(v)) for v in texts]
               + [len(fmt.cell(v.value if type(v) is Formula else v, col.unit, col.digits)) for v in values
                  if type(v) is not str])


def _pinned_zip(wb) -> bytes:
    """The workbook's bytes, the same for the same content.

    Written with `EPOCH` as its modification time (openpyxl's `save` stamps the time of writing,
    `openpyxl/writer/excel.py` `save_workbook`) and every zip entry dated 1980-01-01 (zip's earliest;
    `ZipFile.writestr` dates entries now).
    """
    from openpyxl.writer.excel import ExcelWriter
    raw = io.BytesIO()
    ExcelWriter(wb, zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED)).save()   # closes it; compressed once, below
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(zipfile.ZipInfo(info.filename, (1980, 1, 1, 0, 0, 0)), src.read(info.filename),
                         zipfile.ZIP_DEFLATED)
    return out.getvalue()
