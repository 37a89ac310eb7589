"""Formatting helpers: units, numbers, and Markdown escaping that shows any text literally."""

from __future__ import annotations

import html

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from archgen.render import fmt
from archgen.units import Q_


@pytest.mark.parametrize(("value", "unit", "digits", "text"), [
    (Q_(131400, "W"), "kW", 1, "131.4 kW"),
    (Q_(1340, "kg"), "kg", 0, "1,340 kg"),
    (Q_(2079.47, "ft**3/min"), "ft**3/min", 0, "2,079 CFM"),
    (Q_(168, "L/min"), "L/min", 1, "168.0 L/min"),
    (Q_(2091.1, "kg/m**2"), "kg/m**2", 0, "2,091 kg/m²"),
    (Q_(-0.01, "kW"), "kW", 1, "-0.01 kW"),   # two figures where one decimal would read 0.0 (`display.decimals`)
    (Q_(0.0523, "kW"), "kW", 1, "0.052 kW"),  # ... or a single figure, 0.1
    (None, "kW", 1, "—"),
])
def test_q_formats_in_the_display_unit(value, unit, digits, text):
    assert fmt.q(value, unit, digits) == text


def test_number_never_reads_minus_zero():
    assert fmt.number(-0.01, 1) == "0.0"


def test_a_table_cell_keeps_the_figures_of_a_small_value():
    """A document's cell (`fmt.cell`, every table of Markdown, HTML and PDF) keeps two significant figures of a value
    its column's decimals would show at fewer: a goodput of 8.7e-06 at the goodput table's 3 decimals read 0.000
    (leftovers21, issue 22); the golden documents' failure-rate table read 0.0 failures a year for a CDU (0.04)."""
    assert fmt.cell(8.7e-06, None, 3) == "8.7e-06"
    assert fmt.cell(Q_(0.036, "1/year"), None, 1) == "0.036 1/year"   # a year by its name, not pint's "a"
    assert fmt.cell(0.0, None, 3) == "0.000" and fmt.cell(0.184, None, 3) == "0.184"
    assert fmt.cell(Q_(131400, "W"), "kW", 1) == "131.4 kW"


@pytest.mark.parametrize(("value", "text"), [
    (11437.0, "11,440"), (11400.0, "11,400"), (1.23456, "1.235"), (0.0012345, "0.001234"), (999.96, "1,000"),
    (2.0, "2"), (123456789.0, "123,500,000"), (-11437.0, "-11,440"), (1e16, "1e+16"), (1e-5, "1e-05"),
])
def test_significant_has_no_exponent_in_the_span_of_a_report(value, text):
    """A TTFT p99 of 11.4 s printed as '1.14e+04 ms' in `estimate` (found by the serving work): four significant
    figures as Python's `g` gives them, written out between 10⁻⁴ and 10¹⁵."""
    assert fmt.significant(value) == text


@settings(deadline=None)  # hypothesis's default deadline (200 ms an example) is a wall clock, a loaded machine's
@given(st.floats(min_value=1e-4, max_value=1e14))
def test_significant_reads_back_as_g(value):
    assert float(fmt.significant(value).replace(",", "")) == float(f"{value:.4g}")


def test_pct():
    assert fmt.pct(0.85) == "85 %"
    assert fmt.pct(0.9955, 1) == "99.5 %" or fmt.pct(0.9955, 1) == "99.6 %"


def _rendered_text(markdown: str) -> str:
    out = MarkdownIt("commonmark").renderInline(markdown)
    return html.unescape(out)


@pytest.mark.parametrize("text", [
    'GB200 <b>&amp; {braces} *stars* #panic("x") $x$', "1. not a list", "- not a bullet", "a | b", "`code`",
    "[link](http://x)", "![img](x.png)", "_under_ __strong__", "<script>alert(1)</script>", "\\back\\slash",
])
def test_md_escaping_shows_text_literally(text):
    assert _rendered_text(fmt.md(text)) == text


@settings(deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=40))
def test_md_escaping_property(text):
    flat = " ".join(text.split())
    assert _rendered_text(fmt.md(text)).strip() == flat.strip()
