"""Formatting helpers: units, numbers, and Markdown escaping that shows any text literally."""

from __future__ import annotations

import html

import pytest
from hypothesis import given
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
    (Q_(-0.01, "kW"), "kW", 1, "0.0 kW"),
    (None, "kW", 1, "—"),
])
def test_q_formats_in_the_display_unit(value, unit, digits, text):
    assert fmt.q(value, unit, digits) == text


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


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=40))
def test_md_escaping_property(text):
    flat = " ".join(text.split())
    assert _rendered_text(fmt.md(text)).strip() == flat.strip()
