"""Shared fixtures: spec trees in a temp dir, and the CLI run in-process."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest
from typer.testing import CliRunner

if TYPE_CHECKING:
    from archgen.perf.explore.problem import SweepProblem
    from archgen.pipeline import Run

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "specs"


def docs_script(name: str) -> ModuleType:
    """`docs/<name>.py`, a generator script, as a module (registered under its name, as its own imports expect)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    """`git *args` in `repo` under a test identity, `stdin` fed to it; its stdout, stripped (a failure raises)."""
    done = subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=t", *args], cwd=repo, check=True,
                          capture_output=True, input=None if stdin is None else stdin.encode())
    return done.stdout.decode().strip()


def racks_repo(top: Path) -> Path:
    """A git repository at `top` whose main commit holds the shipped racks (specs/racks); `top`."""
    shutil.copytree(SPECS / "racks", top / "specs" / "racks")
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "base")
    return top


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write {relative path: text or bytes} under `root` and return it."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def case_files(check_id: str, name: str) -> dict[str, Any]:
    """The spec files of the case `name` in `tests/checks/cases/<check_id>.yml`: a new dict, for a test to change.

    Read with libyaml where PyYAML has it: `yaml.safe_load`'s pure-Python parser, the same data, took 0.63 of 0.69
    CPU-s over the 45 calls in the tests (speedsub34).
    """
    import yaml

    text = (REPO / "tests" / "checks" / "cases" / f"{check_id}.yml").read_text(encoding="utf-8")
    doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    (case,) = [c for c in doc["cases"] if c["name"] == name]
    return dict(case["files"])


def run_specs(root: Path, files: dict[str, str | bytes], folder: str = "specs", **options: Any) -> Run:
    """`pipeline.run` of `files` written under `root/folder`, run from `root` on the relative path `folder`.

    So that a location or message reads `specs/...` wherever the test runs, as the check cases run
    (`tests/checks/test_cases.py`); `options` go to `run`.
    """
    from archgen.pipeline import run

    write_tree(root / folder, files)
    with contextlib.chdir(root):
        return run([Path(folder)], **options)


def shipped_edited(root: Path, path: str, old: str, new: str, files: dict[str, str | bytes] | None = None) -> Run:
    """`run_specs` of the shipped specs (less the catalog and sweeps) with `old` replaced by `new` once in `path`.

    `path` is relative to specs/; `files` are added beside. Fails where `old` is not in the file.
    """
    shutil.copytree(SPECS, root / "specs", ignore=shutil.ignore_patterns("catalog", "sweeps"))
    target = root / "specs" / path
    text = target.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return run_specs(root, files or {})


def sweep_problems_of(sweep_file: Path, paths: list[Path]) -> list[SweepProblem]:
    """The sweeps of `sweep_file` on the specs under `paths`, resolved as `archgen sweep` resolves them
    (`commands.sweep.load`, then `commands.sweep_problems.problems`)."""
    from archgen.commands import sweep as sw
    from archgen.commands import sweep_problems

    return sweep_problems.problems(*sw.load(sweep_file, paths))


def sweep_problem_written(tmp_path: Path, sweep: str) -> SweepProblem:
    """The first sweep of the YAML text `sweep`, written to `tmp_path`, on the shipped specs (`sweep_problems_of`)."""
    path = tmp_path / "sweep.yaml"
    path.write_text(sweep, encoding="utf-8")
    return sweep_problems_of(path, [SPECS, tmp_path])[0]


@pytest.fixture
def spec_tree(tmp_path):
    """`spec_tree({name: yaml})` writes a spec directory and returns its path."""
    return lambda files: write_tree(tmp_path / "specs", files)

#: A credential a hostile spec tree links to from inside (tests/test_hostile_*.py): it must never be read or echoed.
SECRET = "https://octocat:ghp_0123456789abcdefSECRET@github.com"


@pytest.fixture
def leaky(tmp_path, monkeypatch):
    """A spec tree with one real rack folder and a link from inside it to a credentials file outside it."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".git-credentials").write_text(SECRET + "\n", encoding="utf-8")
    shutil.copytree(SPECS / "racks", tmp_path / "specs" / "racks")
    (tmp_path / "specs" / "racks" / "zz-leak.yaml").symlink_to(tmp_path / "home" / ".git-credentials")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="session")
def shipped():
    """The shipped examples through the pipeline, once per test session (the one fixture for them).

    Run from the repository root with relative paths, as `make demo` does, and with the growth series documents
    show (`pipeline.run(..., scaling=True)`). A `Run` is frozen: tests read it, never change it.
    """
    return _from_repo("specs")


#: The shipped Llama 3.1 405B GB200 pretraining job given Llama 3.1 405B's 15.6e12 training tokens (arXiv 2407.21783
#: section 3.1) as its token budget: `shipped_edited`'s (path, old, new), for `edited_shipped`.
TOKEN_BUDGET_405B = ("workloads/llama3-405b.yaml", "  precision: bf16\nrequirements:\n",
                     "  precision: bf16\ncheckpoint: {tokens: 15.6e12}\nrequirements:\n")


@pytest.fixture(scope="session")
def edited_shipped(tmp_path_factory):
    """`edited_shipped(path, old, new)`: `shipped_edited` run once per test session for each edit, the same frozen
    `Run` for every module that asks for the same edit (tests read it, never change it)."""
    runs: dict[tuple[str, str, str], Run] = {}

    def edited(path: str, old: str, new: str) -> Run:
        if (path, old, new) not in runs:
            runs[path, old, new] = shipped_edited(tmp_path_factory.mktemp("edited"), path, old, new)
        return runs[path, old, new]
    return edited


@pytest.fixture(scope="session")
def example():
    """`examples/gb300-nvl72-su` through the pipeline as `shipped` runs specs/ (once per session; frozen)."""
    return _from_repo("examples/gb300-nvl72-su")


def _from_repo(path: str):
    """`pipeline.run` of `path` from the repository root with relative paths and the growth series, as `make demo`."""
    import os

    from archgen.pipeline import run
    old = Path.cwd()
    os.chdir(REPO)
    try:
        return run([Path(path)], scaling=True)
    finally:
        os.chdir(old)


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@functools.cache
def _command(app):
    """A Typer app's click command, built once: typer rebuilds it on every invoke (~40 ms, most of a small test)."""
    from typer.main import get_command
    return get_command(app)


def run_cli(*args: str) -> CliResult:
    """Run `archgen ARGS` in-process; stdout and stderr separately.

    typer's command builder is swapped for `_command` by hand, not with `unittest.mock`: a mock patch in force keeps
    the shared estimates out (`tests.shared_results.patched`), and this one changes nothing an estimate reads.
    """
    import typer.testing

    from archgen.cli import app
    from tests.shared_runs import cli_runs
    builder = typer.testing._get_command  # type: ignore[attr-defined]
    typer.testing._get_command = _command  # type: ignore[attr-defined]
    try:
        with cli_runs():   # a pipeline run made before on the same files is not made again (tests/shared_runs.py)
            result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    finally:
        typer.testing._get_command = builder  # type: ignore[attr-defined]
    return CliResult(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def cli():
    """The `run_cli` helper as a fixture."""
    return run_cli


#: Diagrams drawn in this process under `shared_diagrams`: {(name, what the drawing reads): ({format: bytes}, the
#: objects it reads, kept so that their ids are not reused)}.
_DRAWN: dict[tuple[Any, ...], tuple[dict[str, bytes], Any]] = {}


def _reads(draw: Any) -> tuple[Any, Any] | None:
    """(a key, the objects) of what a diagram's `draw` reads: a partial's function and arguments, or a lambda's
    code, closure cells and defaults, by identity; None for anything else (drawn afresh every time)."""
    if isinstance(draw, functools.partial):
        held = (draw.args, tuple(draw.keywords.items()))
        return (draw.func, tuple(map(id, draw.args)), tuple((k, id(v)) for k, v in held[1])), held
    code = getattr(draw, "__code__", None)
    if code is None:
        return None
    held = (tuple(c.cell_contents for c in draw.__closure__ or ()), draw.__defaults__ or ())
    return (code, tuple(map(id, held[0])), tuple(map(id, held[1]))), held


@contextlib.contextmanager
def shared_diagrams() -> Iterator[None]:
    """Renders inside draw each diagram once per process: the same diagram (name, drawing function and the very
    objects it reads, which a frozen `Run` never changes) drawn again returns the bytes drawn the first time.

    For documents whose tests read their text, tables and files, not how the diagram bytes come about: a diagram is
    the same bytes whenever it is drawn (`test_render.test_output_is_byte_identical`, which does not use this, nor
    does `test_outputs`' PDF reproducibility). A format not drawn yet is drawn then, alone (a PNG or SVG is the
    same bytes whether or not the figure was saved in the other format first: `test_render.test_a_format_drawn_alone_
    is_the_same_bytes`).
    """
    from archgen.render import diagrams

    original = diagrams.render

    def render(name: str, draw: Any, formats: tuple[str, ...]) -> dict[str, bytes]:
        reads = _reads(draw)
        if reads is None:
            return original(name, draw, formats)
        key = (name, reads[0])
        drawn = _DRAWN.get(key, ({}, None))[0]
        if missing := tuple(f for f in formats if f not in drawn):
            drawn = {**drawn, **original(name, draw, missing)}
            _DRAWN[key] = drawn, reads[1]
        return {f: drawn[f] for f in formats}

    diagrams.render = render
    try:
        yield
    finally:
        diagrams.render = original


@pytest.fixture
def drawn_once() -> Iterator[None]:
    """`shared_diagrams` for one test."""
    with shared_diagrams():
        yield


@pytest.fixture(autouse=True)
def shared_estimates(request) -> Iterator[None]:
    """Every test whose module patches and times nothing runs with `tests.shared_results`: an estimate or serving
    simulation computed before in the process, with the same arguments, is not computed again."""
    from tests.shared_results import applies, shared_results

    if not applies(str(request.path)):
        yield
        return
    with shared_results():
        yield


#: The longest single tests (mypy from a cold cache, the fuzz shards), moved to the front of the run: `make test`'s
#: two workers then never wait at the end on one of them while the other has nothing left to take. The tests that
#: share `tests/render/conftest.py::every_document` or `su_customer` follow, together, so that one worker renders
#: them (xdist's worksteal hands each worker a contiguous half of the run at the start, and a worker that runs out
#: steals from the end of the other's queue: test_edition and test_reference, left in place, sat at the end of the
#: first half and in the second, and each worker rendered `su_customer`). test_cluster draws its SVG diagrams as
#: `every_document` drew them (`shared_diagrams`) when it runs on the same worker; so do test_render's renders of the
#: test rack (drawn by `test_browser.pages`) and test_fabric_examples' renders of shipped and example targets, which
#: drew every diagram again on the other worker (about 7 s). test_edition_withheld (`su_customer`, 3.5 CPU-s rendered
#: again on the other worker at the start of testspeed5), test_glossary_used and test_scale_up_table (the shipped
#: targets' documents, their diagrams drawn again: 2.6 and 0.6 CPU-s there) join them, and so does
#: test_edition_data_tables (`su_customer` rendered again, its diagrams drawn afresh, on the other worker: 7.3 CPU-s
#: in testspeed14's `make test`); `tests/render/test_session_renders.py` keeps every user of the two fixtures here.
FIRST = ("tests/test_types.py::test_mypy_is_clean", "tests/test_fuzz.py::", "tests/render/test_browser.py::",
         "tests/render/test_layout.py::", "tests/render/test_edition.py::", "tests/render/test_reference.py::",
         "tests/render/test_cluster.py::", "tests/render/test_edition_withheld.py::",
         "tests/render/test_edition_data_tables.py::", "tests/render/test_edition_docs_clause.py::",
         "tests/render/test_glossary_used.py::", "tests/render/test_scale_up_table.py::",
         "tests/render/test_render.py::test_all_targets_when_none_given",
         "tests/render/test_render.py::test_html_is_the_same_whichever_formats", "tests/render/test_render.py::",
         "tests/test_fabric_examples.py::test_examples_render")


def pytest_configure(config):
    """Have glibc's malloc keep large freed blocks for reuse in every test process, as `archgen sweep` and its
    workers do (`archgen.startup.keep_freed_memory`).

    The plan searches, batched sweeps and layout searches the tests run allocate numpy arrays of 1-8 MB; glibc gave
    each a mapping of its own and handed it back when freed, so every page was faulted in anew. Only where pages
    come from changes, not what a test computes or sees; a test's child interpreters keep glibc's defaults
    (test_startup measures both in children of their own).
    """
    from archgen.startup import keep_freed_memory
    keep_freed_memory()


def pytest_collection(session):
    """`run_cli`'s pipeline runs shared (`tests.shared_runs`) before any test module imports `pipeline.run`; an xdist
    worker imports its own share of the test modules first (`tests.collect_split`)."""
    from tests.collect_split import import_own_share
    from tests.shared_runs import share
    share()
    import_own_share(session.config)


def pytest_collection_modifyitems(items):
    """Run `FIRST` first, in their order; every other test keeps its place."""
    items[:] = sorted(items, key=lambda item: next((i for i, p in enumerate(FIRST) if item.nodeid.startswith(p)),
                                                   len(FIRST)))


#: The cyclic collector's first threshold in a test process (Python's default is 700 container allocations).
GC_THRESHOLD = 50_000


def pytest_collection_finish(session):
    """Collect less often in a test process: what collection imported is frozen, and generation 0 waits for
    `GC_THRESHOLD` allocations.

    A test process holds a large heap that lives to its end (the imported modules, pydantic schemas, the pint
    registry, then the session fixtures' runs and documents), and the collector examined it again and again while
    freeing little: over test_edition, test_plan and test_diff in one process, 3.31 of 34.8 CPU-s in 2,415
    collections. Frozen after collection (`gc.freeze`, as `archgen.startup.resume_gc` does for the CLI): 2.92 s;
    with a first threshold of 10,000: 1.48 s in 273 collections; 50,000: 1.30 s in 163; 200,000: 0.83 s in 145.
    Only when cyclic garbage is reclaimed changes (memory a little later); what a test runs and sees does not.
    """
    import gc
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
