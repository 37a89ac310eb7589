"""archgen's modules import a name from the module that defines it, or from one that declares it as its API (lo23cli).

`output/sweep.py` took `DISPLAY` and `level_text` from `render.sweep`, which only imports them from
`render.point_table`; `analyse/fabric.py` took `Problem` from `analyse.tiers`, which imports it from
`analyse.ports`. Such an import works only while the middle module happens to use the name, and hides the real
dependency from a reader and from import-linter. Import-linter cannot forbid it: its contracts are between modules,
never about the names one imports (its `forbidden` and `layers` contracts see `output.sweep -> render.sweep`, which
is allowed, whatever name travels). So this test reads the package's source instead.

A module may hand on a name it imports when it says so: the name is in its `__all__`, imported as itself
(`from x import a as a`, PEP 484's explicit re-export), or the import carries a `re-export`/`noqa: F401` comment
(`archgen.perf.api`, `archgen.render.fmt` and the modules whose functions moved keep their old names so). A
package's `__init__` is its API and is not read. Every other `from archgen.X import name` where X only imports
`name` fails, with its file:line and the module it should come from.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from tests.parsed_source import tree

REPO = Path(__file__).resolve().parent.parent


def _top(body: list[ast.stmt]):
    """The statements at a module's top level, those under `if`/`try` included (`if TYPE_CHECKING:`)."""
    for node in body:
        yield node
        for block in ("body", "orelse", "finalbody"):
            if isinstance(node, (ast.If, ast.Try)):
                yield from _top(getattr(node, block, []))
        for handler in getattr(node, "handlers", []):
            yield from _top(handler.body)


def _tree(path: Path) -> ast.Module:
    """The parsed source of `path`, once per process (`tests.parsed_source`, shared with the other modules that
    walk archgen): `passed_on` reads every file and `homes` the modules imported from (most of them again). Read
    only."""
    return tree(path)


def _statements(node: ast.AST):
    """Every statement under `node`, at any depth (an import is a statement: expressions are not looked into)."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, None) or ():
            yield child
            yield from _statements(child)


def _file(module: str) -> Path | None:
    """The source of a plain module (None for a package or a name that is no module)."""
    path = REPO.joinpath(*module.split(".")).with_suffix(".py")
    return path if path.is_file() else None


@cache
def homes(module: str) -> tuple[frozenset[str], dict[str, str]]:
    """What `module` offers (defines or declares as handed on), and where each name it only imports comes from."""
    path = _file(module)
    assert path is not None
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    offered: set[str] = set()
    imported: dict[str, str] = {}
    for node in _top(_tree(path).body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            offered.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            offered |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                offered |= {e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            source = "\n".join(lines[node.lineno - 1:node.end_lineno])
            declared = "re-export" in source or "noqa: F401" in source
            for alias in node.names:
                name = alias.asname or alias.name
                if declared or alias.asname == alias.name:
                    offered.add(name)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    imported[name] = f"{node.module}.{alias.name}"
    return frozenset(offered), imported


def passed_on(root: Path) -> list[str]:
    """`file:line: module.name (defined in ...)` for each import under `root` of a name its module only imports."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        for node in _statements(_tree(path)):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                    and node.module.split(".")[0] == "archgen" and _file(node.module)):
                continue
            offered, imported = homes(node.module)
            bad += [f"{path.relative_to(root.parent)}:{node.lineno}: {node.module}.{a.name} (from {imported[a.name]})"
                    for a in node.names if a.name not in offered and a.name in imported]
    return bad


def test_names_are_imported_from_their_home():
    assert passed_on(REPO / "archgen") == []


def test_the_check_sees_a_name_taken_through_a_module_that_only_imports_it(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "user.py").write_text("from archgen.render.sweep import DISPLAY, shown\n"
                                              "from archgen.analyse.network import count\n", encoding="utf-8")
    assert passed_on(tmp_path / "pkg") == [
        "pkg/user.py:1: archgen.render.sweep.DISPLAY (from archgen.render.point_table.DISPLAY)"]
