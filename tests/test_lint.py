"""The code passes ruff with the project's configuration (pyproject.toml: pycodestyle, pyflakes, isort, Google-style
docstrings, bugbear)."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.parsed_source import tree

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    result = subprocess.run([exe, "check", "archgen", "tests", "bench", "docs"], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stdout[-4000:]


#: Most lines a module of the package may have (STYLE.md; issue 12's bar).
MAX_MODULE_LINES = 400
#: Modules still over it, with their size when listed: a ratchet that only shrinks (empty since issue 12).
OVER: dict[str, int] = {}


def test_no_module_is_over_400_lines():
    package = ROOT / "archgen"
    sizes = {str(p.relative_to(package)): len(p.read_text(encoding="utf-8").splitlines())
             for p in sorted(package.rglob("*.py"))}
    over = {m: n for m, n in sizes.items() if n > OVER.get(m, MAX_MODULE_LINES)}
    assert not over, f"modules over {MAX_MODULE_LINES} lines (split them): {over}"
    assert all(sizes.get(m, 0) > MAX_MODULE_LINES for m in OVER), "a listed module is under the limit: drop it"


#: Class names two modules share on purpose: the scale-up fields of an Accelerator and of a Cluster are spec models
#: named for their YAML key (renaming one renames its JSON-schema definition).
SHARED_CLASS_NAMES = {"ScaleUp"}


def test_one_class_per_name():
    """A name means one class in the package (issue 12: three `Document`s, two `Problem`, `Target` and `Row` were)."""
    where: dict[str, list[str]] = {}
    for p in sorted((ROOT / "archgen").rglob("*.py")):
        for name in re.findall(r"^class (\w+)", p.read_text(encoding="utf-8"), re.M):
            where.setdefault(name, []).append(str(p.relative_to(ROOT)))
    shared = {n: ps for n, ps in where.items() if len(ps) > 1 and n not in SHARED_CLASS_NAMES}
    assert not shared, shared


def _text_call_without_encoding(call: ast.Call) -> bool:
    """A text-mode `open(...)`, `Path.open(mode)`, `read_text()` or `write_text(data)` that names no encoding."""
    if any(k.arg in ("encoding", None) for k in call.keywords):
        return False
    f = call.func
    mode = next((k.value for k in call.keywords if k.arg == "mode"), None)
    if isinstance(f, ast.Name) and f.id == "open":
        mode = call.args[1] if len(call.args) > 1 else mode
        return len(call.args) <= 3 and (mode is None or isinstance(mode, ast.Constant) and "b" not in mode.value)
    if not isinstance(f, ast.Attribute):
        return False
    if f.attr in ("read_text", "write_text"):
        return len(call.args) == (f.attr == "write_text")
    mode = call.args[0] if call.args else mode  # Path.open(mode): only a literal text mode says it is a path's
    return f.attr == "open" and isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
        and bool(re.fullmatch(r"[rwax]t?\+?", mode.value))


def test_text_files_are_opened_as_utf8():
    """Every text file is read and written as UTF-8, whatever the locale (a non-UTF-8 one reads the specs wrongly).

    Ruff's PLW1514 finds only some of these (not `read_text()` on a path it cannot type) and is a preview rule.
    archgen's modules are parsed once a process (`tests.parsed_source`: other modules walk them too), the rest here.
    """
    found = [f"{p.relative_to(ROOT)}:{node.lineno}" for folder in ("archgen", "tests", "bench", "docs")
             for p in sorted((ROOT / folder).rglob("*.py"))
             for node in ast.walk(tree(p) if folder == "archgen" else ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and _text_call_without_encoding(node)]
    assert not found, f"give encoding='utf-8': {found}"


def _is_overload(node: ast.stmt) -> bool:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
        (d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else "") == "overload"
        for d in node.decorator_list)


def _squeezed(path: Path) -> list[int]:
    """Lines of `path` where a top-level function or class, or the statement after one, follows fewer than two blank
    lines (PEP 8; comment lines between are passed over; a run of `@overload`s and their implementation may touch)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    body = tree(path).body
    found = []
    for before, node in zip(body, body[1:], strict=False):
        defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        if not isinstance(node, defs) and not isinstance(before, defs):
            continue
        if _is_overload(before) and isinstance(node, defs) and node.name == before.name:
            continue
        k, blanks = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno]) - 2, 0
        while k >= 0 and (not lines[k].strip() or lines[k].lstrip().startswith("#")):
            blanks += not lines[k].strip()
            k -= 1
        if blanks < 2:
            found.append(node.lineno)
    return found


def test_top_level_definitions_keep_their_two_blank_lines():
    """A module is not brought under 400 lines by deleting the blank lines PEP 8 asks for (issue 19: `build.py`
    reached 399 so). Ruff's E302/E305 say the same, as preview rules only; this holds them without preview."""
    squeezed = {str(p.relative_to(ROOT)): lines for p in sorted((ROOT / "archgen").rglob("*.py"))
                if (lines := _squeezed(p))}
    assert not squeezed, f"two blank lines before and after each top-level function and class: {squeezed}"


def test_model_modules_keep_their_annotations_evaluated():
    """No `from __future__ import annotations` under `archgen/model` (cli34, issue 25): with it, pydantic evaluates
    every field's annotation string when it builds each model class, some 20 ms of every command's start (a same-run
    A/B of `estimate`, docs/architecture.md "Start-up" (11)). A later class is named in quotes, and a validator that
    returns its model is annotated `Self`."""
    found = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "archgen" / "model").glob("*.py"))
             if any(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in tree(p).body)]
    assert not found, f"`from __future__ import annotations` in {found}"
