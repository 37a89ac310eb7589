"""The parsed source of a Python file, once a test process.

Five test modules walk every module of archgen (test_cycles, test_doc_names, test_error_kinds, test_import_homes,
test_lint): each parsed all of them again, 1.06 CPU-s for archgen's 354 files (measured at testspeed8, `ast.parse`
of each file's text). Kept, they hold some 100 MB of a test process (test_lint's parse of tests/, bench/ and docs/,
another 100 MB, is not kept).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


def tree(path: Path) -> ast.Module:
    """`ast.parse` of the file at `path` (UTF-8), kept for the process by its resolved path: read it, never change
    it."""
    return _parsed(path.resolve())


@cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))
