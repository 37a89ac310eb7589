"""Issue 24, part 2: the PDF of every shipped and example design survives its real content.

The PDFs are read back with poppler's `pdftotext -bbox-layout` (the logic of /work/shared/tools/pdf_layout.py): no
two words on a page overlap (a table that did not fit a page had its last rows drawn over each other and over the
footer), every word stays inside the side margins and, below the text area, only the footer line is printed; no
page ends with a section heading or a table caption; long tables break with their header row repeated; and
poppler reads the file without a syntax error.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
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
    return [words for _, words in sized_pages(pdf)]


@functools.cache
def sized_pages(pdf: Path) -> list[tuple[tuple[float, float], list[tuple[float, float, float, float, str]]]]:
    """Each page's (width, height) in pt, A4 upright or on its side (a landscape table), and its words (`pages`).

    Read once a process for each PDF (the module's PDFs are written once, by its fixtures): read only.
    """
    xml = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    return [((float(w), float(h)), [(float(a), float(b), float(c), float(d), t) for a, b, c, d, t in WORD.findall(p)])
            for w, h, p in re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', xml, re.S)]


@functools.cache
def layout_text(pdf: Path) -> str:
    """`pdftotext -layout` of `pdf`, its pages separated by form feeds; once a process for each PDF (four tests
    read each one's: 1.9 CPU-s of poppler for all of them, measured at testspeed8)."""
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def overlaps(words: list[tuple[float, float, float, float, str]]) -> list[tuple[str, str]]:
    """Pairs of words whose boxes overlap by more than 1 pt across and 40 % of a line height down.

    Each word against those after it (by top, then left) that start above its bottom, all pairs of a page at once
    (numpy; the same pairs, in the same order, as a loop over them).
    """
    words = sorted(words, key=lambda w: (w[1], w[0]))
    n = len(words)
    x0, y0, x1, y1 = np.array([w[:4] for w in words], dtype=float).reshape(n, 4).T
    after = np.maximum(np.searchsorted(y0, y1, side="left") - np.arange(n) - 1, 0)  # words below i starting above
    i = np.repeat(np.arange(n), after)                                                 # its bottom
    j = i + 1 + np.arange(len(i)) - np.repeat(np.cumsum(after) - after, after)
    across = np.minimum(x1[i], x1[j]) - np.maximum(x0[i], x0[j])
    down = np.minimum(y1[i], y1[j]) - np.maximum(y0[i], y0[j])
    hit = (across > 1.0) & (down > 0.4 * np.minimum(y1[i] - y0[i], y1[j] - y0[j]))
    return [(words[a][4], words[b][4]) for a, b in zip(i[hit].tolist(), j[hit].tolist(), strict=True)]


def test_overlaps_finds_the_pairs_a_loop_over_every_pair_finds():
    """`overlaps` against the plain definition (every pair of words), on a page of words drawn over one another:
    the same pairs, none where boxes only touch or share less than 40 % of a line height."""
    rng = np.random.default_rng(24)
    words = [(float(x), float(y), float(x + w), float(y + 9.0), f"w{k}")
             for k, (x, y, w) in enumerate(zip(rng.uniform(40, 500, 400), rng.uniform(50, 780, 400).round(0),
                                               rng.uniform(5, 60, 400), strict=True))]
    words += [(100.0, 10.0, 120.0, 19.0, "a"), (119.5, 10.0, 140.0, 19.0, "touches a"),
              (100.0, 15.5, 120.0, 24.5, "under a")]  # 0.5 pt across; 3.5 of 9 pt down: neither overlaps "a"
    ordered = sorted(words, key=lambda w: (w[1], w[0]))
    every = [(a[4], b[4]) for k, a in enumerate(ordered) for b in ordered[k + 1:]
             if min(a[2], b[2]) - max(a[0], b[0]) > 1.0
             and min(a[3], b[3]) - max(a[1], b[1]) > 0.4 * min(a[3] - a[1], b[3] - b[1])]
    assert len(every) > 50 and overlaps(words) == every
    assert not {("a", "touches a"), ("a", "under a")} & set(overlaps(words))
    assert overlaps([]) == [] and overlaps(words[:1]) == []


def test_no_word_overlaps_another_or_crosses_the_margins(pdfs):
    """The GB200 SU PDF's page 7 had 2,108 overlapping word pairs (the Key components rows drawn over each other
    and over the footer) and 42 words below the page."""
    problems = []
    for pdf in pdfs:
        for n, ((width, height), words) in enumerate(sized_pages(pdf), 1):
            assert words, f"{pdf.name} p{n}: no text"
            assert {round(width), round(height)} == {round(WIDTH), round(HEIGHT)}, (pdf.name, n, width, height)
            if hits := overlaps(words):
                problems.append(f"{pdf.name} p{n}: {len(hits)} overlapping word pair(s), e.g. {hits[0]}")
            outside = [w[4] for w in words if w[0] < LEFT - 1 or w[2] > width - RIGHT + 1 or w[1] < TOP - 8]
            if outside:
                problems.append(f"{pdf.name} p{n}: words in the side or top margin: {outside[:3]}")
            footer = {round(w[1]) for w in words if w[1] > height - BOTTOM}
            if len(footer) != 1 or max(w[3] for w in words) > height:
                problems.append(f"{pdf.name} p{n}: text below the text area other than the footer line")
    assert problems == []


def test_no_page_ends_with_a_heading_or_a_caption(pdfs):
    """Headings and table captions stick to what follows ("4 Key components" stood alone at a page end)."""
    stranded, headings = [], 0
    for pdf in pdfs:
        text = layout_text(pdf)
        titles = {" ".join(m) for m in re.findall(r"^\s*(\d+(?:\.\d+)*) (\S.*?) \.", text, re.M)}  # the contents
        headings += len(titles)
        for n, page in enumerate(text.split("\f")[1:], 2):
            lines = [" ".join(line.split()) for line in page.splitlines() if line.strip()][:-1]  # less the footer
            # a caption ("Table 3: Key components"), not a reference's prose wrapped to "Table 7 'Major ..."
            if lines and (lines[-1] in titles or re.match(r"Table \d+: ", lines[-1])):
                stranded.append((pdf.name, n, lines[-1]))
    assert headings > 10 * len(pdfs) and stranded == []


def test_a_unit_in_a_table_never_breaks_at_its_slash(pdfs):
    """newuser31 (open item 6): narrow headings wrapped "Up speed (Gb/s)" as "(Gb/" over "s)", and cells "755 GB/"
    over "s" and "interruptions/" over "day". A word with a slash breaks there only when it is long enough for
    `fmt.breakable` to give it break opportunities (U+200B, kept by pdftotext); a lone "/" is a page number's.
    The customer edition: an internal one's prose breaks its docs paths, and a table too wide for the page (the
    requirements matrix with its Location column) squeezes a column below its longest word. Another repository's
    file cited at a commit (newuser94 keeps those in the customer edition: SGLang's python/sglang/srt/managers/...)
    is a path longer than 24 characters, which may break at its slashes, as in the prose test below."""
    pdf = next(p for p in pdfs if p.stem == "gb200-nvl72-su.customer")
    broken = {w for page in pages(pdf)
              for w, after in zip([w[4] for w in page], [w[4] for w in page[1:]], strict=False)
              if w.endswith("/") and w != "/" and "\u200b" not in w and len(w + after) <= 24}
    assert broken == set()


def test_a_short_word_with_a_slash_never_breaks_at_it_in_prose(pdfs):
    """review53: prose had no rule against a break at a slash, so "USD/kWh" broke in the cost paragraph (the lead said
    "USD per kWh" there) and "cross_entropy te/" ended a line over "unfused" in the MI355X design's bullet. A word of
    at most 24 characters with a slash is one box in prose as in a table (templates/document.typ); a longer one (a
    URL, a docs path) may still break at its slashes. Every PDF, internal and customer editions."""
    broken = [(pdf.name, w, after) for pdf in pdfs for page in pages(pdf)
              for w, after in zip([w[4] for w in page], [w[4] for w in page[1:]], strict=False)
              if w.endswith("/") and w != "/" and "\u200b" not in w and len(w + after) <= 24]
    assert broken == []


def test_a_table_that_fits_a_page_does_not_start_at_a_page_foot(pdfs):
    """newuser31 (open item 6): Table 14, the failure cases of fabric compute (section 8.3 of the GB200 SU), began with
    its caption, header and one row at the foot of page 10, its header repeated over the rest on page 11. A table
    that fits one page moves whole (as document.css's ``page-break-inside: avoid``): no page ends a table's first
    piece whose header the next page repeats, with fewer than three lines after its caption."""
    stranded = []
    for pdf in pdfs:
        text = layout_text(pdf)
        texts = [[" ".join(line.split()) for line in page.splitlines() if line.strip()] for page in text.split("\f")]
        for n, (page, after) in enumerate(zip(texts, texts[1:], strict=False), 1):
            body = page[:-1]  # less the footer
            captions = [i for i, line in enumerate(body) if line.startswith("Table ")]
            if captions and after and len(body) - captions[-1] <= 3 and after[0] == body[min(captions[-1] + 1,
                                                                                              len(body) - 1)]:
                stranded.append((pdf.name, n, body[captions[-1]]))
    assert stranded == []

def test_long_tables_break_with_their_header_repeated_and_short_sections_share_pages(pdfs):
    """The BOM of the GB200 SU does not fit one page: each page it covers starts with its header row; and the
    first sections no longer take a page each (pages 2-6 held one short section each)."""
    pdf = next(p for p in pdfs if p.stem == "gb200-nvl72-su" and p.parent.parent.name != "customer")
    text = layout_text(pdf).split("\f")
    header = re.compile(r"^\s*Part\s+Name\s+Part(\s+number)?\s+Kind\s+Note\s+Qty", re.M)  # on a landscape page
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


def test_a_table_too_wide_for_a_portrait_page_is_set_on_a_landscape_one(pdfs):
    """The requirements compliance matrix (12 columns) and the bill of materials need more than a portrait page's
    504.6 pt for their columns' longest words alone (pdf.py `narrowest`: about 615 and 551 pt in the GB200 SU), so
    Typst squeezed every column below its words and they broke inside ("tokens/ s", "specs/ catalog/ racks/ ...").
    Each is now set on landscape pages (751.2 pt wide), and no cell word on them breaks: none ends in a slash or a
    hyphen that its text does not hold."""
    for pdf in (p for p in pdfs if p.stem in ("gb200-nvl72-su", "gb200-nvl72-su.customer")):
        text = layout_text(pdf).split("\f")
        sized = sized_pages(pdf)
        for caption in ("Requirements compliance matrix",) + (("Bill of materials",) if "customer" not in pdf.stem
                                                             else ()):
            [first] = [n for n, page in enumerate(text) if re.search(rf"Table \d+: {caption}$", page, re.M)][:1]
            (width, height), words = sized[first]
            assert width > height, (pdf.name, caption, first + 1)
            assert not [w[4] for w in words if w[4].endswith("/") and w[4] != "/" and "\u200b" not in w[4]]
