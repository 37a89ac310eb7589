"""Fixtures for the renderer tests: pipeline runs of the shipped examples and of a rack with hostile text."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.pipeline import run

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
