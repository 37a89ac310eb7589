"""The PDF's Title metadata names the edition as the HTML's <title> does (newuser56: the customer PDF's did not)."""

from __future__ import annotations

import html as html_lib
import importlib.util
import re
import shutil
import subprocess

import pytest

from archgen.render import render_all

pytestmark = pytest.mark.skipif(shutil.which("pdfinfo") is None or importlib.util.find_spec("typst") is None,
                                reason="needs pdfinfo (poppler-utils) and typst (the pdf extra)")


@pytest.mark.parametrize("audience", ["internal", "customer"])
def test_pdf_title_is_the_html_title(test_run, tmp_path, audience: str, drawn_once) -> None:
    """The titles only: the test rack's diagrams are drawn once for both editions (`drawn_once`)."""
    render_all(test_run, tmp_path, formats=("html", "pdf"), revision="test", progress=False, audience=audience)
    [html] = sorted(tmp_path.glob("*/*.html"))
    [pdf] = sorted(tmp_path.glob("*/*.pdf"))
    want = html_lib.unescape(re.search(r"<title>(.*?)</title>", html.read_text(encoding="utf-8"), re.S)[1])
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    title = re.search(r"^Title:\s+(.*)$", info, re.M)[1]
    assert title == want
    assert title.endswith("(customer edition)") == (audience == "customer")
