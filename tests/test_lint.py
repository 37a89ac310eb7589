"""The code passes ruff with the project's configuration (pyproject.toml: pycodestyle, pyflakes, isort, Google-style
docstrings, bugbear)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    result = subprocess.run([exe, "check", "archgen", "tests", "bench", "docs"], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stdout[-4000:]
