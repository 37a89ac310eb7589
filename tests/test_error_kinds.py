"""The error hierarchy by stage (issue 19 part 5): every raise is of a stage's kind, and its kind is the exit code.

mkdocs' `exceptions.py` is the model: one base, a class per stage, the CLI maps the class to the exit code.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import pickle
import typing
from pathlib import Path

import pydantic_core
import pytest
import typer

from archgen.commands.common import load_specs, located
from archgen.errors import (
    STAGES,
    AnalyseError,
    ArchgenError,
    BuildError,
    InternalError,
    LoadError,
    Location,
    RenderError,
    SpecError,
    SpecProblem,
    UnreadableError,
    UsageError,
    ValidateError,
    WorkloadError,
)
from archgen.model.base import FieldError
from archgen.pipeline import load, references
from archgen.render.files import write_atomic
from tests.conftest import run_cli
from tests.data.clusters.small import RACKS, files
from tests.parsed_source import tree as parsed

PACKAGE = Path(__file__).resolve().parents[1] / "archgen"
#: The command line's modules: they alone end the process, with the command's exit code.
CLI = ("cli.py", "cli_app.py", "cli_run.py")

#: Exceptions of pydantic's validator protocol: raised in a validator, pydantic collects them into a
#: ValidationError, which `validate` turns into a located `ValidateError`. Only the schema modules raise them.
PYDANTIC_PROTOCOL = (ValueError, pydantic_core.PydanticCustomError)
SCHEMA_MODULES = ("model/", "units.py", "quantity_text.py", "quantity_bounds.py",   # quantity_text: what units.py
                  "money.py")                  # reads first; quantity_bounds: what a quantity field refuses (fin9)


def _module(path: Path):
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return importlib.import_module(".".join(parts))


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)):
        return f"{base}.{node.attr}"
    return None


def _resolve(module, name: str) -> object:
    head, *rest = name.split(".")
    obj = getattr(module, head, None) or getattr(builtins, head, None)
    for attr in rest:
        obj = getattr(obj, attr, None)
    return obj


def _caught_here(raise_node: ast.Raise, parents: dict[ast.AST, ast.AST], name: str) -> bool:
    """Whether a `try` around the raise, in the same function, catches `name`: control flow, not an error."""
    node, child = parents.get(raise_node), raise_node
    while node is not None and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        if isinstance(node, ast.Try) and child in node.body:
            for handler in node.handlers:
                types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                if any(t is not None and _dotted(t) == name for t in types):
                    return True
        node, child = parents.get(node), node
    return False


def _caught_in_module(rel: str, name: str) -> bool:
    """Whether archgen/`rel` defines the private class `name` and an `except` of that module catches it."""
    tree = parsed(PACKAGE / rel)
    defined = any(isinstance(n, ast.ClassDef) and n.name == name for n in tree.body)
    return defined and any(isinstance(n, ast.ExceptHandler) and n.type is not None and name in {
        _dotted(t) for t in (n.type.elts if isinstance(n.type, ast.Tuple) else [n.type])} for n in ast.walk(tree))


@functools.cache
def _raised() -> tuple[tuple[str, int, str, object, bool], ...]:
    """(file, line, name, resolved object, caught by its own try) of every `raise X` / `raise X(...)` in archgen/.

    Scanned once per process: three tests read it (parsing and walking the package is ~1.8 CPU-s).
    """
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__main__.py":
            continue
        tree = parsed(path)
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        module = None
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = _dotted(target)
            if name is None or (isinstance(node.exc, ast.Name) and name[:1].islower()):
                continue  # `raise err`: a caught exception raised on
            module = module or _module(path)
            rel = path.relative_to(PACKAGE).as_posix()
            out.append((rel, node.lineno, name, _resolve(module, name), _caught_here(node, parents, name)))
    return tuple(out)


def _kind(obj: object) -> object:
    """The class a raise raises: the object itself, or what a function that builds the error returns."""
    if isinstance(obj, type):
        return obj
    if isinstance(getattr(obj, "__self__", None), type) and obj.__name__.startswith("from_"):  # type: ignore[union-attr]
        return obj.__self__  # type: ignore[union-attr]  # an alternate constructor: ValidationError.from_exception_data
    if callable(obj):
        return typing.get_type_hints(obj).get("return")
    return None


def _in_def(rel: str, line: int, name: str, method: bool = False) -> bool:
    """Whether `line` of archgen/`rel` lies in a function called `name` at module level, or a method of that name
    (`method`): a protocol that fixes what it raises (PEP 562's `__getattr__`, a dict's `__missing__`)."""
    body = parsed(PACKAGE / rel).body
    funcs = [f for c in body if isinstance(c, ast.ClassDef) for f in c.body] if method else body
    return any(isinstance(f, ast.FunctionDef) and f.name == name and f.lineno <= line <= (f.end_lineno or 0)
               for f in funcs)


def test_every_raise_in_the_package_is_of_a_stage_kind():
    wrong = []
    for rel, line, name, obj, caught in _raised():
        cls = _kind(obj)
        ok = isinstance(cls, type) and (
            (issubclass(cls, ArchgenError) and (cls.stage or callable(obj) and not isinstance(obj, type)))
            or cls is InternalError                                        # a bug: a traceback and a bug report
            or (issubclass(cls, PYDANTIC_PROTOCOL) and rel.startswith(SCHEMA_MODULES))
            or (cls in (typer.Exit, SystemExit) and rel in CLI)             # the CLI's exit, with its code
            or (cls is AttributeError and (_in_def(rel, line, "__getattr__")  # a module's lazy attributes
                                           or _in_def(rel, line, "__getattr__", method=True)))  # a ModuleType's
            or (cls is KeyError and _in_def(rel, line, "__missing__", method=True))  # a dict's protocol: KeyError
            or caught                                                      # raised to its own `except`
            or (name.startswith("_") and _caught_in_module(rel, name)))  # a module's own control flow (yaml_fast)
        if not ok:
            wrong.append(f"archgen/{rel}:{line}: raise {name}")
    assert not wrong, "raise a stage's kind (archgen.errors.STAGES) or InternalError:\n" + "\n".join(wrong)


def test_the_scan_sees_the_raises():  # a scan that found nothing would pass the test above
    names = {name for _, _, name, _, _ in _raised()}
    assert {"LoadError", "UnreadableError", "ValidateError", "BuildError", "AnalyseError", "WorkloadError",
            "TemplateError", "RenderError", "UsageError", "FieldError", "InternalError"} <= names


def test_the_performance_model_raises_no_usage_error():
    assert not [f"{rel}:{line}" for rel, line, name, _, _ in _raised()
                if rel.startswith("perf/") and name in ("UsageError", "ArchgenError", "SpecError")]


def test_each_kind_names_its_stage_and_exit_code():
    assert [(k.__name__, k.stage, k.exit_code) for k in STAGES] == [
        ("UsageError", "usage", 2), ("LoadError", "load", 2), ("ValidateError", "validate", 1),
        ("BuildError", "build", 2), ("AnalyseError", "analyse", 2), ("RenderError", "render", 2)]
    assert (UnreadableError.stage, UnreadableError.exit_code) == ("load", 2)
    assert issubclass(UnreadableError, LoadError) and issubclass(UnreadableError, SpecError)
    assert issubclass(WorkloadError, AnalyseError) and not issubclass(WorkloadError, UsageError)
    assert not issubclass(FieldError, ArchgenError)  # pydantic's, inside validators only


@pytest.mark.parametrize("err", [
    BuildError("cluster 'c' has no accelerators", Location("c.yaml", 3, 1), ("c", ("layout",))),
    WorkloadError("w", "tp (16) exceeds the scale-up domain", Location("w.yaml", 5, 1)),
    ValidateError([SpecProblem(Location("w.yaml", 6, 12), "training.seq_len", expected="an integer")], "HEAD:"),
    UnreadableError([SpecProblem(Location("bad.yaml", 3, 1), message="YAML syntax error")]),
], ids=lambda e: type(e).__name__)
def test_an_error_from_a_worker_process_arrives_whole(err):
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), back.report(), back.location, back.subject) == (type(err), err.report(), err.location,
                                                                      err.subject)


def _write(root: Path, specs: dict[str, str]) -> Path:
    for name, text in specs.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


WORKLOAD = """kind: Workload
id: w
model: llama3-70b
cluster: c
{extra}training:
  seq_len: 8192
  global_batch: 512
  precision: bf16
"""


def test_load_stage_a_file_that_is_not_yaml(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_text("kind: Rack\nid: [x\n", encoding="utf-8")
    with pytest.raises(LoadError):
        load(["bad.yaml"])
    result = run_cli("validate", "bad.yaml")
    assert result.code == 2
    assert result.err.startswith("bad.yaml:3:1: error: YAML syntax error")
    with pytest.raises(LoadError, match="no such file or directory"):
        load(["nope.yaml"])


def test_validate_stage_schema_errors_and_references(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {"w.yaml": WORKLOAD.format(extra="").replace("8192", "8192 tokens")})
    with pytest.raises(ValidateError) as err:
        references(["w.yaml"])
    assert err.value.problems[0].location == Location("w.yaml", 6, 12)
    assert run_cli("validate", "w.yaml").code == 1
    _write(tmp_path, {"w.yaml": WORKLOAD.format(extra="")})  # cluster 'c' names nothing: a finding, not an error
    result = run_cli("validate", "w.yaml")
    assert result.code == 1 and "w.yaml:4:10: error: REF001" in result.out


def test_build_stage_a_cluster_without_accelerators_is_shown_at_its_layout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {"racks.yaml": RACKS.replace("SWITCH", "sw8"), "w.yaml": WORKLOAD.format(extra=""),
                      "c.yaml": "kind: Cluster\nid: c\nlayout:\n- {rack: net, count: 1}\n"
                                "floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}\n"})
    result = run_cli("estimate", "--workload", "w", "--path", ".")
    assert (result.code, result.err) == (2, "c.yaml:3:1: error: cluster 'c' has no accelerators\n")


def test_analyse_stage_a_workload_larger_than_its_cluster_is_shown_at_its_job(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**files(), "w.yaml": WORKLOAD.format(extra="accelerators: 4096\n")})
    result = run_cli("estimate", "--workload", "w", "--path", ".")
    assert (result.code, result.err) == (
        2, "w.yaml:6:1: error: workload 'w': asks for 4096 accelerators; cluster 'c' has 128\n")


def test_located_places_an_error_of_the_model_at_its_subject_else_the_fallback(tmp_path):
    specs = load_specs([_write(tmp_path, {**files(), "w.yaml": WORKLOAD.format(extra="")})])
    with pytest.raises(AnalyseError) as err, located(specs, ("w", ("training",))):
        raise AnalyseError("no subject")
    assert err.value.report() == f"{tmp_path / 'w.yaml'}:5:1: error: no subject"
    with pytest.raises(BuildError) as err, located(specs, ("w", ("training",))):
        raise BuildError("at its subject", subject=("c", ("layout",)))
    assert err.value.location == Location(str(tmp_path / "clusters/c.yaml"), 6, 1)
    with pytest.raises(UsageError) as usage, located(specs, ("w", ("training",))):
        raise UsageError("--what-if: the command line has no spec line")
    assert usage.value.location is None


@pytest.mark.slow
def test_render_stage_a_template_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "specs", files())
    _write(tmp_path, {"tpl/document.md.j2": "# title\n\n{{ doc.no_such_field }}\n"})
    result = run_cli("render", "specs", "--out", "out", "--formats", "md", "--templates", "tpl")
    assert result.code == 2
    assert result.err.startswith("error: tpl/document.md.j2:3: template error: ")
    with pytest.raises(RenderError, match="cannot write it"):
        write_atomic(tmp_path / "specs" / "racks" / "r.yaml" / "x", b"")
