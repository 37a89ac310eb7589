"""No dead code in the package (issue 19 part 6): every function, class, method and constant of archgen is used.

The scan that found issue 19's dead functions (commit 22d5c227) was run by hand and kept nowhere, so new ones could
land unseen. Here it is a test. A definition is used where its name occurs in archgen's code other than as its own
definition: as a name, an attribute, an imported name, a keyword or an identifier inside a string (a `getattr`, a
registry key), docstrings not counted; or as a word of the package's templates, of `docs/` or `bench/` (tools that
generate the documents and time the model). A decorated definition is registered by its decorator (a check, a CLI
command, a pydantic validator) and is not read; nor are dunder methods, which Python calls. The scan goes by name, so a
name two definitions share is used for both where either is (`hardware_scope.unpowered` and `conversion.unpowered`).

A definition that only the tests use is test-only: `TEST_ONLY` lists those there were when the scan became a test,
and the list only shrinks (a reference formula a test compares with, such as Young's interval, may stay on it).
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from tests.parsed_source import tree

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "archgen"
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Definitions only tests use, as "module path:name", when the scan became a test (audit19: 21, the same as at
#: 69977d4d) and when it first judged module-level constants (review51: +5, cited figures and sources the tests
#: hold the model to; it had taken `X = ...` for a use of X); it only shrinks. Most are reference forms a test
#: holds the package's fast one to (`clos_graph` and the other networkx graphs against the closed forms,
#: `prompt_chunks` against the sum the scheduler takes).
TEST_ONLY = frozenset("""
archgen/analyse/rack_heat.py:unracked_heat archgen/perf/hw/kernels.py:attention_backward
archgen/perf/comm/dispatcher.py:KERNEL_SMS archgen/perf/serve/attention_quant.py:ATTENTION_SOURCE
archgen/perf/serve/inference.py:RANK_LIMITS
archgen/perf/hw/memory.py:activation_bytes archgen/perf/hw/memory.py:params_per_gpu
archgen/perf/serve/chunks.py:prompt_chunks archgen/perf/serve/mlperf.py:server_requirements
archgen/perf/serve/scheduler.py:iteration_time archgen/perf/train/goodput.py:young archgen/perf/train/host.py:layer_ops
archgen/perf/train/pipeline_split.py:busiest_layers archgen/perf/workload/efficiency_range.py:efficiency_note
archgen/render/edition_text.py:leftovers archgen/render/sweep_figure.py:category archgen/scoring/scores.py:score_file
archgen/topology.py:clos_graph archgen/topology.py:cut_capacity archgen/topology.py:dragonfly_graph
archgen/topology.py:max_hops archgen/topology.py:max_switch_hops archgen/topology.py:rail_only_graph
archgen/topology.py:torus_graph
""".split())


def _docstrings(module: ast.Module) -> set[int]:
    """The ids of the docstring nodes of a module and of its functions and classes."""
    out = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _definitions(module: ast.Module):
    """(name, node) of each module-level function, class and constant and each method of a module-level class."""
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not node.name.startswith("__"):  # a module's `__getattr__` (PEP 562) is Python's to call
                yield node.name, node
            for method in node.body if isinstance(node, ast.ClassDef) else ():
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) and not method.name.startswith("__"):
                    yield method.name, method
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name) and not target.id.startswith("__"):
                    yield target.id, node


def _module_uses(module: ast.Module) -> set[str]:
    """The names a module's code uses: names read, attributes, imported names, keywords, words of its strings."""
    used: set[str] = set()
    skip = _docstrings(module)
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):   # `X = ...` defines X
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.alias):
            used.update(node.name.split("."))
        elif isinstance(node, ast.keyword) and node.arg:
            used.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            used.update(WORD.findall(node.value))
    return used


@cache
def _package_uses() -> frozenset[str]:
    """Every name archgen's code uses, and every word of its templates, docs/ and bench/."""
    used: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        used |= _module_uses(tree(path))
    words = [p for folder in (PACKAGE / "templates", ROOT / "templates") for p in folder.rglob("*") if p.is_file()]
    words += [p for folder in ("docs", "bench") for p in (ROOT / folder).rglob("*.py")]
    for path in words:
        used.update(WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
    return frozenset(used)


def _unused() -> tuple[list[str], list[str]]:
    """(dead, test-only) definitions as "module path:name"."""
    in_tests: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        in_tests.update(WORD.findall(path.read_text(encoding="utf-8")))
    used = _package_uses()
    dead, test_only = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        for name, node in _definitions(tree(path)):
            if getattr(node, "decorator_list", None) or name in used:
                continue
            where = f"{path.relative_to(ROOT).as_posix()}:{name}"
            (test_only if name in in_tests else dead).append(where)
    return dead, test_only


def test_no_dead_code():
    dead, test_only = _unused()
    assert not dead, f"defined and used nowhere (delete them): {dead}"
    new = sorted(set(test_only) - TEST_ONLY)
    assert not new, f"used by tests only (let the package use them, or move them into the tests): {new}"
    gone = sorted(TEST_ONLY - set(test_only))
    assert not gone, f"no longer test-only: take them off TEST_ONLY: {gone}"


def test_the_scan_can_fail():
    """A definition nobody names is found; one named in a docstring only is still dead; a decorated one is not; an
    assignment defines its name, it does not use it."""
    module = ast.parse('"""Mentions orphan."""\n@register\ndef checked(): pass\ndef orphan(): pass\n'
                       'def used(): pass\nX = used()\n')
    names = dict(_definitions(module))
    assert set(names) == {"checked", "orphan", "used", "X"}
    assert id(module.body[0].value) in _docstrings(module)
    assert _module_uses(module) == {"register", "used"}   # not orphan (its docstring), nor X (assigned only)
    assert "young" not in _package_uses() and "judge" in _package_uses()
