"""Fixtures for the renderer tests: pipeline runs of the shipped examples and of a rack with hostile text."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from archgen.pipeline import run

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
#: The name of the test rack: every character that means something in Markdown, HTML or Typst.
HOSTILE = 'GB200 NVL72 test rack <b>&amp; {braces} *stars* #panic("x") $x$'


#: Diagrams drawn in this process under `shared_diagrams`: {(name, what the drawing reads): ({format: bytes}, the
#: objects it reads, kept so that their ids are not reused)}.
_DRAWN: dict[tuple[Any, ...], tuple[dict[str, bytes], Any]] = {}


def _reads(draw: Any) -> tuple[Any, Any] | None:
    """(a key, the objects) of what a diagram's `draw` reads: a partial's function and arguments, or a lambda's
    code, closure cells and defaults, by identity; None for anything else (drawn afresh every time)."""
    if isinstance(draw, functools.partial):
        held = (draw.args, tuple(draw.keywords.items()))
        return (draw.func, tuple(map(id, draw.args)), tuple((k, id(v)) for k, v in held[1])), held
    code = getattr(draw, "__code__", None)
    if code is None:
        return None
    held = (tuple(c.cell_contents for c in draw.__closure__ or ()), draw.__defaults__ or ())
    return (code, tuple(map(id, held[0])), tuple(map(id, held[1]))), held


@contextlib.contextmanager
def shared_diagrams() -> Iterator[None]:
    """Renders inside draw each diagram once per process: the same diagram (name, drawing function and the very
    objects it reads, which a frozen `Run` never changes) drawn again returns the bytes drawn the first time.

    For documents whose tests read their text, tables and files, not how the diagram bytes come about: a diagram is
    the same bytes whenever it is drawn (`test_render.test_output_is_byte_identical`, which does not use this, nor
    does `test_outputs`' PDF reproducibility). A format not drawn yet is drawn then, alone (a PNG or SVG is the
    same bytes whether or not the figure was saved in the other format first: `test_render.test_a_format_drawn_alone_
    is_the_same_bytes`).
    """
    from archgen.render import diagrams

    original = diagrams.render

    def render(name: str, draw: Any, formats: tuple[str, ...]) -> dict[str, bytes]:
        reads = _reads(draw)
        if reads is None:
            return original(name, draw, formats)
        key = (name, reads[0])
        drawn = _DRAWN.get(key, ({}, None))[0]
        if missing := tuple(f for f in formats if f not in drawn):
            drawn = {**drawn, **original(name, draw, missing)}
            _DRAWN[key] = drawn, reads[1]
        return {f: drawn[f] for f in formats}

    diagrams.render = render
    try:
        yield
    finally:
        diagrams.render = original


@pytest.fixture
def drawn_once() -> Iterator[None]:
    """`shared_diagrams` for one test."""
    with shared_diagrams():
        yield


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
