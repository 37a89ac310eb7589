"""A PDF table whose columns' longest words alone overfill a portrait page is set on a landscape one (pdf.py).

The requirements compliance matrix has 12 columns; their longest words take about 615 pt in the GB200 SU document
(`pdf.narrowest`), more than a portrait A4 page's 504.6 pt of text, so Typst squeezed every column below its longest
word and the words broke inside ("tokens/ s"). Such a table now goes on landscape pages (751.2 pt: 297 mm less two
16 mm margins), its columns weighed against that width; a table that fits stays on the portrait page. The rendered
PDFs are checked in test_layout.py (slow).
"""

from __future__ import annotations

from archgen.render import pdf
from archgen.render.blocks import Column, DocumentModel, Table

#: 12 columns whose longest word is 12 characters: 12 x (12 x 4.0 pt + 7 pt insets) = 660 pt with no word broken.
WIDE = Table("wide", "Twelve columns", tuple(Column(f"C{i}") for i in range(12)),
             (tuple("abcdefghijkl short" for _ in range(12)),) * 3)
NARROW = Table("narrow", "Two columns", (Column("Name"), Column("Value")), (("a", "b"),))


def _json(table: Table) -> dict:
    return pdf._block(table, DocumentModel.__new__(DocumentModel))


def test_a_table_too_wide_for_portrait_goes_landscape_with_its_words_whole():
    assert pdf.narrowest([c.heading for c in WIDE.columns], WIDE.text()) == 12 * (12 * pdf.CHAR + pdf.INSETS) == 660
    block = _json(WIDE)
    assert block["landscape"] is True
    assert sum(block["widths"]) <= pdf.LANDSCAPE_WIDTH + 0.5
    assert min(block["widths"]) >= 12 * pdf.CHAR + pdf.INSETS       # no column below its longest word
    assert pdf.LANDSCAPE_WIDTH == round((297 - 2 * 16) * 72 / 25.4, 1)


def test_a_table_that_fits_stays_portrait():
    block = _json(NARROW)
    assert block["landscape"] is False and block["widths"] == ["auto", "auto"]
