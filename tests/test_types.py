"""The type checker (mypy, pinned in the `test` extra) is clean on the package (issue 12; config in pyproject.toml).

Modules on the typing-debt list of `[[tool.mypy.overrides]]` are checked with their errors not yet enforced; the
list only shrinks. mypy's cache (`.mypy_cache/`) makes a run after the first take a few seconds.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def test_mypy_is_clean():
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]')")
    result = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_typing_debt_only_shrinks():
    """The debt list names modules, not whole new packages: commands, output, compare and render stay enforced."""
    import tomllib
    overrides = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]["overrides"]
    debt = {m for o in overrides if o.get("ignore_errors") for m in o["module"]}
    assert len(debt) <= 14, sorted(debt)
    assert not {m for m in debt if m.startswith(("archgen.render", "archgen.commands", "archgen.output",
                                                   "archgen.compare", "archgen.cli", "archgen.pipeline",
                                                   "archgen.metrics"))}
