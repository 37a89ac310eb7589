"""The document model: sections of plain blocks (paragraphs, tables, figures, lists) that every format renders.

The builders in `archgen.render.rack` and `archgen.render.common` fill this model from a pipeline `Run`; the
templates (`templates/document.*`) only lay it out. Keeping one model means the Markdown, HTML and PDF carry the
same content, and text from a spec is escaped once per format, in the template layer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from archgen.errors import InternalError
from archgen.render import fmt

#: How a requirement's status (`model.requirements.Status`) is styled, as a check's pass, fail or warn.
STYLES = {"met": "pass", "at risk": "warn", "not met": "fail", "not provided": "warn", "not applicable": ""}
#: Where a status cell's qualification starts (`Outcome.shown`): assumed inputs, a verification left to a test, why it
#: is at risk (`compliance.status_cell`), a tolerance.
_QUALIFIED = re.compile(r" \(")


@dataclass(frozen=True)
class Formula:
    """A spreadsheet cell computed from others: the workbook writes `expr` ('=C2*D2'), every other format `value`.

    Only archgen builds one (`render.cost_sheet`), from cell addresses; text from a spec is never a formula
    (`tables.neutral`, and the workbook writes a string starting with '=' as text).
    """

    expr: str
    value: float


@dataclass(frozen=True)
class Column:
    """A table column: its title, the display unit and decimals of its quantities, and alignment."""

    title: str
    unit: str | None = None
    digits: int = 1
    align: str = "left"

    @property
    def heading(self) -> str:
        """Title with the unit, e.g. ``'Power (kW)'``."""
        label = fmt.unit_label(self.unit) if self.unit else ""
        return f"{self.title} ({label})" if label else self.title


@dataclass(frozen=True)
class Table:
    """A table. Cells hold raw values (quantities, numbers, text); `text()` formats them per column."""

    id: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]
    anchors: tuple[str | None, ...] = ()
    status_column: int | None = None
    kind: str = "table"

    def text(self) -> list[list[str]]:
        """Every cell as display text; a quantity is shown as its number, the unit being in the heading."""
        out = []
        for row in self.rows:
            out.append([_plain(v, c) for v, c in zip(row, self.columns, strict=True)])
        return out

    def row_anchor(self, i: int) -> str | None:
        """Anchor of row `i`, if any."""
        return self.anchors[i] if i < len(self.anchors) else None

    def row_status(self, i: int) -> str:
        """Style of row `i` from its status: ``pass``, ``fail``, ``warn`` (a requirement's met, not met...), or ''."""
        if self.status_column is None:
            return ""
        cell = str(self.rows[i][self.status_column]).lower()
        word = _QUALIFIED.split(cell)[0]  # Outcome.shown
        return STYLES.get(word, word)


def _plain(value: Any, col: Column) -> str:
    """Cell text without the unit when the column heading carries it (a `fmt.Noted` value's, its word after it)."""
    if isinstance(value, fmt.Noted):
        return f"{_plain(value.value, col)} ({value.said(lambda v: _plain(v, col))})"
    text = fmt.cell(value.value if isinstance(value, Formula) else value, col.unit, col.digits)
    label = fmt.unit_label(col.unit) if col.unit else ""
    if label and text.endswith(" " + label):
        return text[: -len(label) - 1]
    return text


@dataclass(frozen=True)
class Para:
    """A paragraph of plain text. `style` is ``text``, ``note`` (an aside) or ``lead`` (the abstract)."""

    text: str
    style: str = "text"
    kind: str = "para"


@dataclass(frozen=True)
class Bullets:
    """A bulleted list of plain-text items."""

    items: tuple[str, ...]
    kind: str = "bullets"


@dataclass(frozen=True)
class Figure:
    """A diagram by name (``elevation`` → ``<target>-elevation.svg``) with its caption and text alternative.

    `alt` says what the diagram shows, from the figures it is drawn from (`render.alt_text`): the PDF's ``/Alt``, the
    HTML SVG's ``<desc>`` and Markdown's image text. Empty: the caption stands in.
    """

    id: str
    name: str
    caption: str
    alt: str = ""
    kind: str = "figure"

    @property
    def text(self) -> str:
        """The text alternative: `alt`, else the caption."""
        return self.alt or self.caption


Block = Table | Para | Bullets | Figure


@dataclass(frozen=True)
class Cite:
    """The sources a table cell cites.

    In a document they are numbered into its references list (`DocumentModel.number`), so a table shows ``[3, 7]``
    rather than a column of source text; a CSV or spreadsheet cell holds their full text.
    """

    sources: tuple[str, ...]
    numbers: tuple[int, ...] = ()

    @classmethod
    def of(cls, source: str | list[str] | tuple[str, ...] | None) -> Cite:
        """The sources of a part or requirement (one string or a list), blanks dropped."""
        items = [source] if isinstance(source, str) else list(source or ())
        return cls(tuple(s.strip() for s in items if s and s.strip()))

    @property
    def full(self) -> str:
        """Every source, separated by ' | '."""
        return " | ".join(self.sources)

    def __str__(self) -> str:
        if not self.sources:
            return "—"
        return "[" + ", ".join(map(str, self.numbers)) + "]" if self.numbers else self.full


@dataclass
class Section:
    """A numbered section with blocks and subsections."""

    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    number: str = ""

    def add(self, *blocks: Block) -> Section:
        """Append blocks; returns self."""
        self.blocks.extend(b for b in blocks if b is not None)
        return self

    def sub(self, sid: str, title: str, *blocks: Block) -> Section:
        """Append and return a subsection."""
        child = Section(sid, title, [b for b in blocks if b is not None])
        self.sections.append(child)
        return child


@dataclass
class DocumentModel:
    """A whole document: control data, key metrics and sections, plus the diagrams it references."""

    target: str
    kind: str
    title: str
    control: list[tuple[str, str]]
    sections: list[Section]
    figures: dict[str, Any] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)
    #: the spec's `document.show_prices`: whether the customer edition may show unit prices and capex by part
    show_prices: bool = False
    #: which edition this is (`archgen.render.edition`): named in the HTML title, the PDF footer and file names
    edition: str = "internal"

    def number(self, reference: Callable[[str], str] = str) -> DocumentModel:
        """Give every section its number (1, 1.1, ...), make ids unique and number the citations; returns self.

        Every source a table cell cites (`Cite`) gets a number in the order of first citation; the section with id
        ``references`` (when there is one) receives the numbered list, each entry as `reference` writes it.
        """
        seen: set[str] = set()

        def walk(sections: list[Section], prefix: str) -> None:
            for i, s in enumerate(sections, 1):
                s.number = f"{prefix}{i}"
                base, n = fmt.slug(s.id), 2
                s.id = base
                while s.id in seen:
                    s.id, n = f"{base}-{n}", n + 1
                seen.add(s.id)
                walk(s.sections, f"{s.number}.")

        walk(self.sections, "")
        self._cite(reference)
        return self

    def _cite(self, reference: Callable[[str], str]) -> None:
        numbers: dict[str, int] = {}
        for section in self.walk():
            for i, b in enumerate(section.blocks):
                if isinstance(b, Table) and any(isinstance(v, Cite) for row in b.rows for v in row):
                    rows = tuple(tuple(_numbered(v, numbers) for v in row) for row in b.rows)
                    section.blocks[i] = replace(b, rows=rows)
        self.references = list(numbers)
        for section in self.walk():
            if section.id == "references" and numbers:
                section.add(Table("references", "References", (Column("No.", align="right"), Column("Source")),
                                  tuple((f"[{n}]", reference(s)) for s, n in numbers.items())))


    def label(self, block: Table | Figure) -> str:
        """``Table 3`` or ``Figure 1``: the block's place among the document's tables or figures.

        Counted in the order every format shows them, so a caption reads the same in Markdown, HTML and PDF (the PDF
        counted them and the others did not), and when the document is written, after the customer edition drops or
        adds blocks.
        """
        kind = Table if isinstance(block, Table) else Figure
        same = (b for s in self.walk() for b in s.blocks if isinstance(b, kind))
        number = next((i for i, b in enumerate(same, 1) if b is block), None)
        if number is None:
            raise InternalError(f"{kind.__name__.lower()} {block.id!r} is not in document {self.target!r}")
        return f"{kind.__name__} {number}"

    def walk(self) -> list[Section]:
        """Every section, depth first."""
        out: list[Section] = []

        def rec(sections: list[Section]) -> None:
            for s in sections:
                out.append(s)
                rec(s.sections)

        rec(self.sections)
        return out

    def tables(self) -> list[Table]:
        """Every table, in document order."""
        return [b for s in self.walk() for b in s.blocks if isinstance(b, Table)]

    def figure_blocks(self) -> list[Figure]:
        """Every figure block, in document order."""
        return [b for s in self.walk() for b in s.blocks if isinstance(b, Figure)]


def _numbered(value: Any, numbers: dict[str, int]) -> Any:
    """`value`, or a `Cite` with the number of each of its sources (new sources numbered on)."""
    if not isinstance(value, Cite):
        return value
    return replace(value, numbers=tuple(numbers.setdefault(s, len(numbers) + 1) for s in value.sources))
