"""Issue 24, part 2: the PDF of every shipped and example design survives its real content.

The PDFs are read back with poppler's `pdftotext -bbox-layout` (the logic of /work/shared/tools/pdf_layout.py): no
two words on a page overlap (a table that did not fit a page had its last rows drawn over each other and over the
footer), every word stays inside the side margins and, below the text area, only the footer line is printed; no
page ends with a section heading or a table caption; long tables break with their header row repeated; and
poppler reads the file without a syntax error.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is missing")]

#: A4 and the margins of templates/document.typ, in pt (1 mm = 72 / 25.4 pt).
WIDTH, HEIGHT, MM = 595.276, 841.89, 72 / 25.4
LEFT = RIGHT = 16 * MM
TOP, BOTTOM = 18 * MM, 20 * MM
WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>')


@pytest.fixture(scope="module")
def pdfs(every_document, su_customer):
    """Every rack and cluster of specs/ and of examples/gb300-nvl72-su as PDF (`every_document`), and the GB200 SU's
    customer edition (`su_customer`), in the order of their paths under one folder (the edition under customer/)."""
    out, mine = every_document[2], su_customer.parent.parent
    found = [p for _, p in sorted([(p.relative_to(out), p) for p in out.glob("**/*.pdf")]
                                  + [(p.relative_to(mine), p) for p in mine.glob("**/*.pdf")])]
    assert {p.stem for p in found} >= {"gb200-nvl72-su", "dgx-b200-superpod", "gb300-nvl72-su", "gb200-nvl72"}
    return found


def pages(pdf: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """The words of each page with their boxes (x0, y0, x1, y1, text), y growing downward."""
    xml = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    return [[(float(a), float(b), float(c), float(d), t) for a, b, c, d, t in WORD.findall(page)]
            for page in re.findall(r"<page .*?</page>", xml, re.S)]


def overlaps(words: list[tuple[float, float, float, float, str]]) -> list[tuple[str, str]]:
    """Pairs of words whose boxes overlap by more than 1 pt across and 40 % of a line height down."""
    words = sorted(words, key=lambda w: (w[1], w[0]))
    hits = []
    for i, (ax0, ay0, ax1, ay1, a) in enumerate(words):   # each word against those below it that start above
        for j in range(i + 1, len(words)):                 # its bottom (indices: a slice copied the rest of the
            bx0, by0, bx1, by1, b = words[j]               # page for every word)
            if by0 >= ay1:
                break
            across = min(ax1, bx1) - max(ax0, bx0)
            down = min(ay1, by1) - max(ay0, by0)
            if across > 1.0 and down > 0.4 * min(ay1 - ay0, by1 - by0):
                hits.append((a, b))
    return hits


def test_no_word_overlaps_another_or_crosses_the_margins(pdfs):
    """The GB200 SU PDF's page 7 had 2,108 overlapping word pairs (the Key components rows drawn over each other
    and over the footer) and 42 words below the page."""
    problems = []
    for pdf in pdfs:
        for n, words in enumerate(pages(pdf), 1):
            assert words, f"{pdf.name} p{n}: no text"
            if hits := overlaps(words):
                problems.append(f"{pdf.name} p{n}: {len(hits)} overlapping word pair(s), e.g. {hits[0]}")
            outside = [w[4] for w in words if w[0] < LEFT - 1 or w[2] > WIDTH - RIGHT + 1 or w[1] < TOP - 8]
            if outside:
                problems.append(f"{pdf.name} p{n}: words in the side or top margin: {outside[:3]}")
            footer = {round(w[1]) for w in words if w[1] > HEIGHT - BOTTOM}
            if len(footer) != 1 or max(w[3] for w in words) > HEIGHT:
                problems.append(f"{pdf.name} p{n}: text below the text area other than the footer line")
    assert problems == []


def test_no_page_ends_with_a_heading_or_a_caption(pdfs):
    """Headings and table captions stick to what follows ("4 Key components" stood alone at a page end)."""
    stranded, headings = [], 0
    for pdf in pdfs:
        text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                              check=True).stdout
        titles = {" ".join(m) for m in re.findall(r"^\s*(\d+(?:\.\d+)*) (\S.*?) \.", text, re.M)}  # the contents
        headings += len(titles)
        for n, page in enumerate(text.split("\f")[1:], 2):
            lines = [" ".join(line.split()) for line in page.splitlines() if line.strip()][:-1]  # less the footer
            if lines and (lines[-1] in titles or lines[-1].startswith("Table ")):
                stranded.append((pdf.name, n, lines[-1]))
    assert headings > 10 * len(pdfs) and stranded == []


def test_long_tables_break_with_their_header_repeated_and_short_sections_share_pages(pdfs):
    """The BOM of the GB200 SU does not fit one page: each page it covers starts with its header row; and the
    first sections no longer take a page each (pages 2-6 held one short section each)."""
    pdf = next(p for p in pdfs if p.stem == "gb200-nvl72-su" and p.parent.parent.name != "customer")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout.split("\f")
    header = re.compile(r"^\s*Part\s+Name\s+Part\s+Kind\s+Note\s+Qty", re.M)  # "Part number" wraps
    bom = [n for n, page in enumerate(text, 1) if header.search(page)]
    assert len(bom) >= 2, bom
    first = [n for n, page in enumerate(text, 1) for title in ("Conventions", "Requirements and assumptions")
             if re.search(rf"^\s*\d+\s+{title}$", page, re.M)]
    assert len(first) == 2 and first[0] == first[1], first


@pytest.mark.skipif(shutil.which("pdfinfo") is None, reason="pdfinfo (poppler-utils) is missing")
def test_poppler_reads_the_pdf_without_a_syntax_error(pdfs):
    """Typst writes /Suspects false, which poppler reports as "Syntax Error: Suspects object is wrong type"."""
    for pdf in pdfs[:3]:
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
        assert info.stderr == "", (pdf.name, info.stderr)
        assert "Tagged:          yes" in info.stdout
