"""`tests.collect_split`: worker k of N imports the k-th N-th of the test modules before collecting, and nothing else."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from tests.collect_split import import_own_share, modules_to_collect
from tests.conftest import REPO


def config(folder: Path, *args: str, ignore: list[str] | None = None) -> SimpleNamespace:
    """What of a `pytest.Config` the module reads: run from `folder` with `args`."""
    options = {"ignore": ignore, "ignore_glob": None, "importmode": "prepend"}
    return SimpleNamespace(args=list(args), invocation_params=SimpleNamespace(dir=folder), rootpath=folder,
                           getoption=options.__getitem__, getini=lambda name: False)


def test_the_modules_are_those_of_the_folders_in_collection_order():
    found = modules_to_collect(config(REPO, "tests"))
    assert Path(__file__).resolve() in found and all(p.name.startswith("test_") for p in found)
    names = [p.relative_to(REPO).as_posix() for p in found]
    # names sorted at each level, folders among files: tests/analyse/... before tests/test_absent_metric.py
    assert names.index("tests/analyse/test_bom.py") < names.index("tests/perf/test_plan.py") \
        < names.index("tests/render/test_render.py") < names.index("tests/test_absent_metric.py")


def test_named_files_or_ignored_paths_import_nothing_early():
    assert modules_to_collect(config(REPO, "tests/test_collect_split.py")) == []
    assert modules_to_collect(config(REPO, "tests/test_collect_split.py::test_x")) == []
    assert modules_to_collect(config(REPO, "tests", ignore=["tests/perf"])) == []


def test_worker_k_of_n_imports_its_share_only(tmp_path, monkeypatch):
    names = [f"test_split_probe_{i}" for i in range(4)]
    for name in names:
        (tmp_path / f"{name}.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "test_split_probe_9.py").write_text("import pytest\npytest.skip('x', allow_module_level=True)\n",
                                                    encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        imported_by_worker(tmp_path, names, monkeypatch)
    finally:
        for name in [n for n in sys.modules if n.startswith("test_split_probe_")]:
            del sys.modules[name]


def imported_by_worker(tmp_path: Path, names: list[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for worker, count in (("", "1"), ("gw0", "2"), ("gw1", "1")):   # not a worker, worker 0, one worker
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", count)
        import_own_share(config(tmp_path, "."))
        assert not [n for n in sys.modules if n.startswith("test_split_probe_")]
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    import_own_share(config(tmp_path, "."))   # the second half of 5: probes 2, 3 and the skipped 9
    assert sorted(n for n in sys.modules if n.startswith("test_split_probe_")) == names[2:]
