"""The tests that read a session render (`every_document`, `su_customer`) run together, at the front of the run.

Under `make test`'s two workers a session fixture is built once in each worker that runs a test asking for it: a
user of `su_customer` left out of `tests/conftest.py::FIRST` rendered the customer edition again on the other worker,
its diagrams drawn afresh (test_edition_data_tables, 7.3 CPU-s in testspeed14's run).
"""

from __future__ import annotations

import ast

from tests.conftest import FIRST, REPO

#: The session renders of `tests/render/conftest.py`, each most of the cost of the tests that read it.
SESSION_RENDERS = {"every_document", "su_customer"}


def readers() -> list[str]:
    """The node ids (less parameters) of the test functions that ask for a session render, directly or through a
    fixture of their own module."""
    found = []
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if not any(name in text for name in SESSION_RENDERS):
            continue
        functions = [f for f in ast.walk(ast.parse(text)) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
        reading, more = set(SESSION_RENDERS), True
        while more:   # a module fixture that asks for one (test_browser's `pages`) reads it too
            args = {f.name: {a.arg for a in f.args.args} for f in functions}
            more = bool(new := {name for name, a in args.items() if a & reading} - reading)
            reading |= new
        found += [f"{path.relative_to(REPO).as_posix()}::{f.name}" for f in functions
                  if f.name.startswith("test_") and {a.arg for a in f.args.args} & reading]
    return found


def test_every_test_reading_a_session_render_is_in_first():
    found = readers()
    assert "tests/render/test_edition_data_tables.py::test_customer_bom_csv_quantities_are_the_documents" in found
    assert [n for n in found if not n.startswith(FIRST)] == []
