"""Cold start (issue 25 part 2): a command imports only what it uses; pint without Dask until a scheduler asks.

Each command runs in a fresh interpreter (the test process has imported everything), which then lists the modules
it imported.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from importlib.util import find_spec

import pytest

from tests.conftest import REPO, SPECS, run_cli

#: Libraries no command of the estimate or validate kind uses: Dask (pint imports it, and jinja2 with it, when the
#: `distributed` extra is installed), the plots, graphs and documents of `render` and `sweep`.
NEVER = ("dask", "distributed", "jinja2", "matplotlib", "networkx", "openpyxl", "weasyprint", "rich")
#: What `archgen estimate --workload` does not run: the checks, cost and reliability, the pipeline's workload pass,
#: the documents, the scoring of validation cases (`--cases`) and their models.
NOT_ESTIMATE = ("archgen.checks", "archgen.analyse.cost", "archgen.analyse.operations_stage",
                "archgen.analyse.reliability", "archgen.analyse.scaling", "archgen.perf.workload.results",
                "archgen.render.blocks", "archgen.render.target", "archgen.scoring", "archgen.model.cases",
                "archgen.output.cases")

_WRAPPER = """
import json, sys
sys.argv = ["archgen", *json.loads(sys.argv[1])]
from archgen.cli import app  # not `main`, which ends the process without returning (`startup.exit_now`)
try:
    app()
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""
#: After `validate` (`_WRAPPER`), in the same interpreter: the checks' registry asked for, then Dask's probe of a
#: quantity (`test_the_registry_is_complete_once_asked_for_after_validate`, `test_dask_meets_quantities_once_enabled`;
#: one interpreter for the three tests). Each part prints "ok" or what went wrong.
_AFTER_VALIDATE = """
def registry():
    from archgen.checks import MODULE_NAMES, REGISTRY
    found = {cid.rstrip("0123456789") for cid in REGISTRY}
    return "ok" if found == set(MODULE_NAMES) else f"registry {sorted(REGISTRY)}, modules {sorted(MODULE_NAMES)}"

def dask():
    from importlib.util import find_spec
    if find_spec("dask") is None:
        return "no dask"
    from archgen.units import Q_
    if "dask" in sys.modules:
        return "dask imported before it was asked for"
    import dask.base
    try:
        dask.base.is_dask_collection(Q_(1, "m"))
        return "pint answered Dask without enable_dask"
    except AttributeError:
        pass
    from archgen.pint_import import enable_dask
    enable_dask()
    enable_dask()
    assert dask.base.is_dask_collection(Q_(1, "m")) is False
    assert dask.base.tokenize(Q_(1, "m")) == dask.base.tokenize(Q_(1, "m")) != dask.base.tokenize(Q_(2, "m"))
    return "ok"

for part in (registry, dask):  # in this order: the registry before Dask's import
    try:
        said = part()
    except Exception as err:
        said = repr(err)
    print(json.dumps({part.__name__: said}))
"""


def fresh(script: str, *args: str) -> dict:
    """Run `script` with ARGS (as JSON) in a fresh interpreter; the JSON objects it printed last, one a line, merged
    (the command's own output comes before them)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    r = subprocess.run([sys.executable, "-c", script, json.dumps(list(args))], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    said: dict = {}
    for line in reversed(r.stdout.strip().splitlines()):
        if not line.startswith('{"'):
            break
        said = {**json.loads(line), **said}
    return said


@functools.cache
def after_validate() -> dict:
    """`archgen validate specs/` in a fresh interpreter, then `_AFTER_VALIDATE`: once for the tests that read it."""
    return fresh(_WRAPPER + _AFTER_VALIDATE, "validate", str(SPECS))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Those of `names` (or their submodules) that were imported."""
    return sorted(n for n in names if n in modules or any(m.startswith(n + ".") for m in modules))


def test_estimate_imports_neither_dask_nor_the_checks():
    """As the console script runs it (`quick_exit`: `main`, the modules listed when the process ends)."""
    r = quick_exit(*ESTIMATE)
    assert r.returncode == 0, r.stderr
    modules = exit_modules(r)
    assert "pint" in modules and "archgen.perf.train.training" in modules  # it did estimate
    assert loaded(modules, NEVER) == []
    assert loaded(modules, NOT_ESTIMATE) == []


def test_check_imports_no_masked_arrays():
    """`np.unique` of an array alone imports `numpy.ma` (its masked-array test, 14 ms); `check` never needs it."""
    r = quick_exit("check", str(SPECS))
    assert r.returncode in (0, 1), r.stderr
    modules = exit_modules(r)
    assert "archgen.checks.registry" in modules  # it did check
    assert loaded(modules, ("numpy.ma", *NEVER)) == []


#: What a warm `archgen check` (its specs read back from the snapshot) does not import: the YAML parsers (the parse
#: cache's key asks PyYAML for its version only when a file is parsed: `code_version.parser_digest`) and package
#: metadata, which pydantic's plugin discovery imports at the first schema a process builds (NET008's expectations
#: read without `model_dump`, which built two), nor `zipfile` (pint's definitions read from its folder, not through
#: `importlib.resources`' readers: `unit_definitions._definitions`).
NOT_WARM_CHECK = ("yaml", "ruamel.yaml", "importlib.metadata", "pydantic.plugin._loader", "email", "zipfile")


def test_a_warm_check_parses_nothing_and_builds_no_schema(tmp_path):
    """`check specs/` twice on one cache: the second imports neither a YAML parser nor package metadata."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("ARCHGEN_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", _EXIT, "check", str(SPECS)], cwd=REPO, capture_output=True,
                           text=True, timeout=300, env=env) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr
    assert runs[1].stdout == runs[0].stdout
    cold, warm = (exit_modules(r) for r in runs)
    assert "archgen.checks.registry" in warm and "archgen.validate" in warm  # it did check
    assert loaded(cold, ("yaml",)) == ["yaml"]                                # the first run parsed
    assert loaded(warm, NOT_WARM_CHECK) == []


#: What `archgen validate` does not run: the analyses, the performance model, the checks other than REF.
NOT_VALIDATE = ("archgen.perf", "archgen.analyse.rack", "archgen.analyse.cabling", "archgen.analyse.cost",
                "archgen.analyse.operations_stage",
                "archgen.checks.perf", "archgen.checks.power", "archgen.checks.requirements", "archgen.scoring")


def test_validate_imports_only_the_reference_checks():
    said = after_validate()
    code, modules = said["code"], set(said["modules"])
    assert code == 0
    assert "archgen.checks.references" in modules  # the REF checks ran
    assert loaded(modules, NEVER) == []
    assert loaded(modules, NOT_VALIDATE) == []


def test_the_registry_is_complete_once_asked_for_after_validate():
    """`validate` registers the REF checks only; asking `archgen.checks` for its registry registers every module."""
    said = after_validate()
    assert "archgen.checks.perf" not in said["modules"]   # the modules when validate was done
    assert said["registry"] == "ok"


def test_version_imports_no_units():
    r = quick_exit("--version")
    assert r.returncode == 0, r.stderr
    modules = exit_modules(r)
    assert loaded(modules, ("pint", "numpy", "pydantic_core", "archgen.units", *NEVER)) == []


def test_python_dash_m_archgen():
    r = subprocess.run([sys.executable, "-m", "archgen", "--version"], cwd=REPO, capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert (r.returncode, r.stdout) == (0, "archgen 0.1.0\n")


@pytest.mark.skipif(find_spec("dask") is None, reason="Dask is not installed (the 'distributed' extra)")
def test_dask_meets_quantities_once_enabled():
    """pint imported without Dask answers Dask's collection probe with an AttributeError until `enable_dask`
    (`_AFTER_VALIDATE`: in the interpreter that ran `validate`, which imported pint and not Dask)."""
    assert after_validate()["dask"] == "ok"


_EXIT = """
import atexit, gc, json, sys, threading, time
def late():
    time.sleep(0.5)
    print("thread joined", file=sys.stderr)
threading.Thread(target=late).start()
def ended():
    print("modules:", json.dumps(sorted(sys.modules)), file=sys.stderr)  # for the tests of what a command imports
    print("atexit ran; collector on:", gc.isenabled())
    print("watched:", sys.modules["archgen.startup"].watched(), file=sys.stderr)
atexit.register(ended)
sys.argv = ["archgen", *sys.argv[1:]]
from archgen.cli import main
main()
"""
#: `archgen estimate` of a shipped workload.
ESTIMATE = ("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(SPECS))


@functools.cache
def quick_exit(*args: str) -> subprocess.CompletedProcess:
    """`archgen ARGS` through `cli.main` in a fresh interpreter (`_EXIT`), once for the tests that read it."""
    return subprocess.run([sys.executable, "-c", _EXIT, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})


def exit_modules(r: subprocess.CompletedProcess) -> set[str]:
    """Every module the process of `quick_exit` had imported when it ended."""
    return set(json.loads(r.stderr.rpartition("modules: ")[2].partition("\n")[0]))


@pytest.mark.parametrize("args, code, collecting", [
    (ESTIMATE, 0, True),                                                         # validated: resumed
    (("estimate", "--workload", "no-such-workload", "--path", str(SPECS)), 2, True),
    (("--version",), 0, False),                                                  # read no specs: still paused
])
def test_the_quick_exit_joins_threads_runs_atexit_and_keeps_the_exit_code(args, code, collecting):
    """`archgen.startup.exit_now`: threads joined, atexit handlers run, streams flushed, the command's exit code."""
    r = quick_exit(*args)
    assert r.returncode == code, r.stderr
    assert r.stdout.endswith(f"atexit ran; collector on: {collecting}\n"), r.stdout[-300:]
    assert "thread joined\n" in r.stderr
    assert "watched: False\n" in r.stderr  # no profiler: the quick exit
    if code == 0 and args[0] == "estimate":
        assert run_cli(*args).out == r.stdout.removesuffix(f"atexit ran; collector on: {collecting}\n")
    if code == 2:
        assert "no workload 'no-such-workload'" in r.stderr


def test_a_profiled_command_exits_the_ordinary_way_and_its_profile_is_written(tmp_path, monkeypatch):
    """`python -m cProfile -o FILE -m archgen ...` writes FILE: `exit_now` leaves a process that a profiler, tracer or
    coverage tool watches (`startup.watched`) to the ordinary exit, where cProfile writes its file."""
    import pstats

    from archgen import startup
    out = tmp_path / "prof.out"
    r = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "archgen", "--version"], cwd=REPO,
                       capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("archgen"), r.stdout
    profiled = {name for _, _, name in pstats.Stats(str(out)).stats}
    assert {"main", "exit_now", "watched"} <= profiled
    for name in startup.WATCHERS:  # a tool seen only by its module (`sys.monitoring`)
        monkeypatch.setitem(sys.modules, name, sys)
        assert startup.watched()
        monkeypatch.delitem(sys.modules, name)


def test_a_library_caller_keeps_its_collector():
    """Only the CLI's `main` pauses the collector; validating specs from a library leaves it as it was."""
    import gc

    from archgen.commands.common import load_specs
    assert gc.isenabled()
    frozen = gc.get_freeze_count()                 # the test process's own (tests/conftest.py freezes after collection)
    load_specs([SPECS])
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_models_shared_by_kinds_are_listed_innermost_first():
    """`core_schemas.shared`: the models nested in two or more kinds, each after those nested in it (issue 25)."""
    from archgen.model import KINDS, Cluster, Rack, System
    from archgen.model.base import Mechanical
    from archgen.model.core_schemas import shared
    from archgen.model.cost import Price
    from archgen.model.reliability import FailureRate
    from archgen.model.spec import Waiver
    found = shared(KINDS.values())
    assert {Waiver, Price, FailureRate, Mechanical} <= set(found)
    assert Rack not in found and Cluster not in found          # a kind itself is built once, by its own validation
    assert shared([System]) == []                              # nothing is shared within one kind
    for i, model in enumerate(found):                          # innermost first: no model before one it holds
        inner = {m for f in model.model_fields.values() for m in found if m in _models_in(f.annotation)}
        assert all(found.index(m) < i for m in inner), model


def _models_in(annotation: object) -> set[type]:
    import typing

    from pydantic import BaseModel
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {annotation}
    return set().union(*(_models_in(a) for a in typing.get_args(annotation)))


def _code_run(tmp_path) -> str:
    """`archgen checks` as the console script runs it (`cli.main`), with its own cache and key: its output."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    r = subprocess.run([sys.executable, "-c", "from archgen.cli import main; main()", "checks"], cwd=REPO,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def code_kept(tmp_path_factory):
    """A cache and config folder after a first `_code_run` (the key made, the code compiled and written) and that
    run's output; the tests that start from there copy the folder."""
    folder = tmp_path_factory.mktemp("code")
    return folder, _code_run(folder)


def test_the_code_of_dataclass_methods_is_compiled_once_and_kept_sealed(tmp_path, code_kept):
    import marshal
    import shutil
    from importlib.util import MAGIC_NUMBER
    shutil.copytree(code_kept[0], tmp_path, dirs_exist_ok=True)
    first = code_kept[1]
    (path,) = (tmp_path / "cache" / "archgen" / "code").glob("*.marshal")
    mac, _, body = path.read_bytes().partition(b"\n")
    kept = marshal.loads(body[len(MAGIC_NUMBER):])
    assert len(kept) > 100 and all(text.startswith("def __create_fn__(") for text in kept)
    assert all(type(marshal.loads(code)).__name__ == "code" for code in kept.values())  # each marshalled on its own
    written = path.stat().st_mtime_ns
    assert _code_run(tmp_path) == first and path.stat().st_mtime_ns == written  # nothing compiled: not rewritten
    planted = {text: compile("raise SystemExit('planted')", "<string>", "exec") for text in kept}
    path.write_bytes(mac + b"\n" + MAGIC_NUMBER + marshal.dumps(planted))  # the old seal: not this content's
    assert _code_run(tmp_path) == first                     # not run: compiled anew, and the file rebuilt, sealed
    mac, _, body = path.read_bytes().partition(b"\n")
    assert marshal.loads(body[len(MAGIC_NUMBER):]).keys() == kept.keys()
    written = path.stat().st_mtime_ns
    assert _code_run(tmp_path) == first and path.stat().st_mtime_ns == written


def test_dataclasses_made_from_kept_code_behave_as_made_from_text(monkeypatch):
    import dataclasses

    from archgen import startup
    monkeypatch.setattr(dataclasses, "exec", startup._exec, raising=False)  # as `main` sets it, this test only
    monkeypatch.setattr(startup, "_CODE", {})
    monkeypatch.setattr(startup, "_save", lambda: None)   # nothing written at the test process's exit

    @dataclasses.dataclass(frozen=True)
    class P:
        x: int
        y: str = "a"

    @dataclasses.dataclass(frozen=True)
    class Q:
        x: int
        y: str = "a"

    assert repr(P(1)) == "test_dataclasses_made_from_kept_code_behave_as_made_from_text.<locals>.P(x=1, y='a')"
    assert P(1) == P(1, "a") != P(2) and hash(P(1)) == hash(P(1, "a")) and P(1) != Q(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        P(1).x = 2
    assert P.__init__.__code__ is Q.__init__.__code__ and P.__init__ is not Q.__init__  # same text, code once


def test_only_the_console_script_keeps_code():
    import dataclasses
    assert "exec" not in vars(dataclasses)                  # the tests import the CLI, not run its `main`


def test_a_code_file_past_its_bound_is_cut_to_what_a_process_uses(tmp_path, code_kept):
    import marshal
    import shutil
    from importlib.util import MAGIC_NUMBER

    from archgen import cache, startup
    shutil.copytree(code_kept[0], tmp_path, dirs_exist_ok=True)
    first = code_kept[1]
    (path,) = (tmp_path / "cache" / "archgen" / "code").glob("*.marshal")
    used = marshal.loads(path.read_bytes().partition(b"\n")[2][len(MAGIC_NUMBER):])
    stale = {f"def __create_fn__():\n pass  # {i}": compile(f"pass  # {i}", "<string>", "exec")
             for i in range(startup.MAX_CODE)}               # another version's classes, say
    body = MAGIC_NUMBER + marshal.dumps(used | stale)
    key = (tmp_path / "config" / "archgen" / "cache.key").read_bytes()
    path.write_bytes(cache._entry_mac(key, "code", path.stem, body) + b"\n" + body)   # sealed: read, too much each start
    assert _code_run(tmp_path) == first
    assert marshal.loads(path.read_bytes().partition(b"\n")[2][len(MAGIC_NUMBER):]).keys() == used.keys()


_FAULTS = """
import resource, sys
import numpy as np
from archgen.startup import keep_freed_memory
kept = keep_freed_memory() if sys.argv[1] == "kept" else None
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(100):  # a batch's arrays, as a sweep allocates and frees them (8 MB each)
    a = np.ones(1 << 20)
    b = a * 2.0
    del a, b
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's mallopt")
def test_freed_arrays_are_reused_without_faulting_their_pages_in_again():
    """`keep_freed_memory`: 100 rounds of two 8 MB arrays fault their 2,048 pages in anew each time glibc hands them
    back (some 100,000 faults measured here, 18,000 on CI's kernel, which maps some in larger pages); kept for reuse,
    a few hundred to 1,500. The bar is the ratio, not a count: a kernel's page size changes the counts, not the
    reuse."""
    def faults(how: str) -> tuple[str, int]:
        out = subprocess.run([sys.executable, "-c", _FAULTS, how], capture_output=True, text=True, check=True,
                             cwd=REPO).stdout.split()
        return out[0], int(out[1])

    (_, freed), (took, kept) = faults("freed"), faults("kept")
    if took == "False":
        pytest.skip("not glibc: no mallopt settings")
    assert kept * 4 < freed, (freed, kept)
