"""No import cycle in the package, hidden ones included (issue 19 part 6).

import-linter's layer contracts see only the layers they name, and a cycle closed by an import inside a function body
or under `noqa: E402` passes them while it still ties two modules into one (`model.base` ↔ `model.cost` was one). The
graph here is built from the AST of every `archgen/**/*.py`: every `import` and `from` statement anywhere in a module
(top level, function bodies, class bodies, `try`), except those under `if TYPE_CHECKING:`, which never run; the
cycles those close are a list that only shrinks (`TYPE_ONLY`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from tests.parsed_source import tree as parsed

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "archgen"

#: Cycles (as sorted tuples of modules) still allowed, each with the issue that breaks it. Empty: a cycle found here
#: fails the test. (perf's `training` ↔ `exposure`/`ranks`, once under TYPE_CHECKING, is gone: `Job` and `Layout`
#: moved down to `perf.train.job`.)
KNOWN: set[tuple[str, ...]] = set()


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, typing_too: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in `tree`, at any depth, except the body of an `if TYPE_CHECKING:` block (unless
    `typing_too`)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        if isinstance(node, ast.If) and _type_checking(node.test) and not typing_too:
            stack.extend(node.orelse)  # the `else:` of a TYPE_CHECKING block runs
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: set[str]) -> set[str]:
    """The package modules `node` (in `module`) imports: `from a import b` is module `a.b` when that exists, else `a`."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            here = module.split(".") if is_package else module.split(".")[:-1]
            here = here[:len(here) - (node.level - 1)]
            base = ".".join([*here, base] if base else here)
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    found = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]  # a name inside a module, or a module's attribute
        if name and name != module:
            found.add(name)
    return found


def import_graph(typing_too: bool = False) -> nx.DiGraph:
    """Modules of `archgen` and the imports between them; each edge carries the file and line of one import.

    `typing_too`: the imports under `if TYPE_CHECKING:` as well (the type checker's graph)."""
    paths = {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    graph = nx.DiGraph()
    graph.add_nodes_from(paths)
    for module, path in paths.items():
        for node in _imports(parsed(path), typing_too):
            for target in _targets(node, module, path.name == "__init__.py", set(paths)):
                graph.add_edge(module, target, where=f"{path.relative_to(ROOT)}:{node.lineno}")
    return graph


def test_the_graph_sees_hidden_imports():
    """The scan counts an import in a function body and under noqa, and skips TYPE_CHECKING (so the test can fail)."""
    tree = ast.parse("import a.b  # noqa: E402\nif TYPE_CHECKING:\n    import c\nelse:\n    import d\n"
                     "def f():\n    from .e import g\n")
    modules = {"p", "p.e", "p.e.g", "a.b", "c", "d"}
    found = set().union(*(_targets(n, "p.m", False, modules) for n in _imports(tree)))
    assert found == {"a.b", "d", "p.e.g"}
    graph = import_graph()
    assert graph.number_of_nodes() > 100 and graph.has_edge("archgen.cli", "archgen.cli_run")  # in `main`


def test_no_import_cycle():
    graph = import_graph()
    cycles = []
    for component in nx.strongly_connected_components(graph):
        if len(component) < 2 or tuple(sorted(component)) in KNOWN:
            continue
        sub = graph.subgraph(component)
        edges = sorted(f"{a} -> {b} ({d['where']})" for a, b, d in sub.edges(data=True))
        cycles.append("\n  ".join(edges))
    assert not cycles, "import cycles (move the shared names down a layer):\n  " + "\n\n  ".join(cycles)
    stale = {c for c in KNOWN if not set(c) <= set(graph) or not nx.is_strongly_connected(graph.subgraph(c))}
    assert not stale, f"listed cycles that are broken now: drop them from KNOWN: {stale}"


#: Cycles the type checker's graph still closes through imports under `if TYPE_CHECKING:`, as the modules of each,
#: without the `archgen.` prefix. They never run, so they pass the test above, but they tie the modules as issue 19's
#: `training` <-> `exposure` did (broken by moving `Job`/`Layout` down to `perf.train.job`). Empty since cyclefab38:
#: audit19 listed six at 69977d4d, broken by moving a shared type down (`Cabling`, `CapexLine`, `Machine`,
#: `SweepProblem` and `PointRow`), a function up (`unbuilt_keys`) or passing the fields read (`Units.at_site`). A cycle
#: found here fails the test.
TYPE_ONLY: frozenset[frozenset[str]] = frozenset()


def test_cycles_under_type_checking_only_shrink():
    graph = import_graph(typing_too=True)
    found = {frozenset(m.removeprefix("archgen.") for m in c) for c in nx.strongly_connected_components(graph)
             if len(c) > 1}
    new = []
    for cycle in sorted(found - TYPE_ONLY, key=sorted):
        sub = graph.subgraph(f"archgen.{m}" for m in cycle)
        new.append("\n  ".join(sorted(f"{a} -> {b} ({d['where']})" for a, b, d in sub.edges(data=True))))
    assert not new, "import cycles closed under TYPE_CHECKING, new or grown (move the shared types down):\n  " + \
        "\n\n  ".join(new)
    assert not TYPE_ONLY - found, f"cycles broken or shrunk: take them off TYPE_ONLY: {sorted(map(sorted, TYPE_ONLY - found))}"
