"""Generated docs are up to date, and the layer contract holds."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from archgen.docs import PAGES

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_generated_page_is_current(name):
    assert (DOCS / name).read_text(encoding="utf-8") == PAGES[name](), f"regenerate with `make docs` ({name})"


def test_every_check_is_documented():
    from archgen.checks import REGISTRY
    page = (DOCS / "checks.md").read_text(encoding="utf-8")
    assert all(f"### {cid}" in page for cid in REGISTRY)


def test_import_layers_contract():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    result = subprocess.run([exe], capture_output=True, text=True, cwd=DOCS.parent)
    assert result.returncode == 0, result.stdout[-3000:]
