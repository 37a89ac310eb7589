"""Golden files of the shipped examples: how they are produced (shared by the test and `make golden`).

Markdown is kept byte for byte. In HTML each inline diagram is replaced by a placeholder: the SVG bytes are
tested for determinism separately, and keeping them out makes golden diffs readable.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from archgen.pipeline import run
from archgen.render import render_all

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
#: Fixed revision printed in golden documents (the real one comes from git and changes with every commit).
REVISION = "golden"
#: One rack and one cluster: every kind of section, in each format (the other targets are covered by tests that
#: state what they check, so adding a rack to specs/ does not add golden files).
TARGETS = ("gb200-nvl72", "gb200-nvl72-su")
_SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def normalise_html(text: str) -> str:
    """HTML with every inline SVG replaced by ``<svg data-golden="elided"></svg>``."""
    return _SVG.sub('<svg data-golden="elided"></svg>', text)


#: What a diagram is drawn as when the golden test renders (`render_golden(draw=False)`).
PLACEHOLDER = {"svg": b'<svg xmlns="http://www.w3.org/2000/svg"></svg>\n', "png": b""}  # matplotlib ends with a newline


def render_golden(draw: bool = True) -> dict[str, str]:
    """{relative golden path: text} for `TARGETS` of the shipped examples (rendered from the repo root).

    `draw=False` (the test) puts `PLACEHOLDER` where each diagram goes instead of drawing it: nothing golden holds a
    diagram's bytes (Markdown links the file by name; `normalise_html` elides each inline SVG), so the goldens are
    the same text, and drawing them was two thirds of the test's time. `every_document` draws these targets' diagrams.
    """
    from archgen.render import diagrams

    old, drawn = Path.cwd(), diagrams.render
    if not draw:
        diagrams.render = lambda name, draw, formats: {f: PLACEHOLDER[f] for f in formats}
    os.chdir(REPO)
    try:
        result = run([Path("specs")], scaling=True)
        with tempfile.TemporaryDirectory() as tmp:
            written = [p for t in TARGETS for p in render_all(result, tmp, target=t, formats=("md", "html"),
                                                             revision=REVISION, progress=False)]
            out = {}
            for path in written:
                rel = path.relative_to(tmp).as_posix()
                if path.suffix == ".md":
                    out[rel] = path.read_text(encoding="utf-8")
                elif path.suffix == ".html":
                    out[rel] = normalise_html(path.read_text(encoding="utf-8"))
            return out
    finally:
        os.chdir(old)
        diagrams.render = drawn


def render_golden_fresh() -> dict[str, str]:
    """`render_golden` (without drawing) in a fresh interpreter, so the checks registered are exactly those `archgen`
    imports (other test modules may register more in this process).
    """
    import json
    import subprocess
    import sys

    code = ("import json, sys; from tests.render.golden_util import render_golden; "
            "json.dump(render_golden(draw=False), sys.stdout)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def table_caption(md: str, start: str) -> str:
    """``*Table N: <start>``: the first Markdown table caption of `md` whose text begins with `start`, numbered as
    the document numbers its tables (`blocks.DocumentModel.label`); a test splits the document there."""
    found = re.search(r"\*Table \d+: " + re.escape(start), md)
    assert found, f"no table caption beginning {start!r}"
    return found.group(0)
