"""Fixtures for the renderer tests: pipeline runs of the shipped examples and of a rack with hostile text."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.pipeline import run
from tests.conftest import shared_diagrams

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
#: The name of the test rack: every character that means something in Markdown, HTML or Typst.
HOSTILE = 'GB200 NVL72 test rack <b>&amp; {braces} *stars* #panic("x") $x$'


@pytest.fixture(scope="session")
def test_run():
    """A run of the test rack (markup in its name, a requirement with HTML, a failing SHOULD)."""
    return run([DATA / "racks"])


@pytest.fixture(scope="session")
def shipped_run(shipped):
    """The session's run of the shipped examples (`tests/conftest.py::shipped`)."""
    return shipped


@pytest.fixture(scope="session")
def every_document(shipped_run, example, tmp_path_factory):
    """Markdown, HTML and PDF of every rack and cluster of specs/ and of examples/gb300-nvl72-su, once a session.

    Building a document is most of rendering it (a second format adds about a fifth), so the tests that need every
    target share this: (the shipped examples' written files, the GB300 example's, the folder holding both).
    """
    from archgen.render import render_all
    out = tmp_path_factory.mktemp("every")
    with shared_diagrams():
        shipped = render_all(shipped_run, out, formats=("md", "html", "pdf"), revision="test", progress=False)
        return shipped, render_all(example, out, formats=("md", "html", "pdf"), revision="test", progress=False), out


@pytest.fixture(scope="session")
def su_customer(shipped_run, tmp_path_factory):
    """The customer edition of the shipped GB200 SU document in every format its tests read, once a session.

    `test_edition`, `test_reference` and `test_layout` each rendered it (the diagrams, most of the cost, three
    times); a document is the same bytes whichever other formats are rendered with it. The folder is
    ``<tmp>/customer/gb200-nvl72-su``.
    """
    import importlib.util

    from archgen.render import render_all
    folder = tmp_path_factory.mktemp("edition") / "customer"
    pdf = ("pdf",) if importlib.util.find_spec("typst") else ()  # the `pdf` extra: test_layout's, not the others'
    with shared_diagrams():  # the diagrams of `every_document`'s internal edition
        render_all(shipped_run, folder, target="gb200-nvl72-su", formats=("md", "html", "csv", "xlsx", "svg", *pdf),
                   revision="test", progress=False, audience="customer")
    return folder / "gb200-nvl72-su"
