"""Fixtures for the renderer tests: pipeline runs of the shipped examples and of a rack with hostile text."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from archgen.pipeline import run
from tests.conftest import SPECS, shared_diagrams

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


def raised_mfu_target(root: Path, workload: str) -> Path:
    """The shipped specs' clusters, racks, requirements and workloads under `root`, the MFU target of the workload
    file `workload` raised from 0.35 to 0.45: met by its estimate but not at its error band's low end (at risk)."""
    for folder in ("clusters", "racks", "requirements", "workloads"):
        shutil.copytree(SPECS / folder, root / folder)
    path = root / "workloads" / workload
    text = path.read_text(encoding="utf-8")
    assert 'metric: mfu, target: ">= 0.35"' in text
    path.write_text(text.replace('metric: mfu, target: ">= 0.35"', 'metric: mfu, target: ">= 0.45"'), encoding="utf-8")
    return root


def render_text(result, out: Path, targets, formats: tuple[str, ...]) -> None:
    """`render_all` of each of `targets` into `out` with placeholder diagrams (for tests that read only the text)."""
    from archgen.render import diagrams, render_all
    from tests.render.golden_util import PLACEHOLDER
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(diagrams, "render", lambda name, draw, formats: {f: PLACEHOLDER[f] for f in formats})
        for target in targets:
            render_all(result, out, target=target, formats=formats, revision="test", progress=False)
