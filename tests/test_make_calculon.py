"""`make calculon` (the Makefile) builds the Calculon the benches compare against: one commit, pinned dependencies.

The CLI bar of issue 25 is a ratio to Calculon's `llm` run, which moves with how Calculon is installed (speed31:
0.357 against 0.472 CPU-s for the same command in two environments); the target pins both halves, and the commit
is the one every Calculon figure of the project came from.
"""

from __future__ import annotations

import re
import sys

import yaml

from tests.conftest import REPO


def test_the_target_builds_the_commit_the_inputs_and_figures_came_from():
    make = (REPO / "Makefile").read_text(encoding="utf-8")
    commit = re.search(r"^CALCULON_COMMIT\s*:=\s*([0-9a-f]{40})$", make, re.M)
    assert commit, "Makefile: CALCULON_COMMIT := <40 hex digits>"
    optima = yaml.safe_load((REPO / "tests/perf/data/calculon-optima.yaml").read_text(encoding="utf-8"))
    assert optima["calculon"]["commit"] == commit[1]
    assert commit[1] in (REPO / "bench/calculon/README.md").read_text(encoding="utf-8")
    assert re.search(r"^calculon: \$\(CALCULON_BUILD\)/venv/\.installed$", make, re.M)


def test_every_dependency_is_pinned_to_one_version():
    lines = [ln.strip() for ln in (REPO / "bench/calculon/requirements.txt").read_text(encoding="utf-8").splitlines()]
    pins = [ln for ln in lines if ln and not ln.startswith("#")]
    assert {p.partition("==")[0] for p in pins} >= {"numpy", "pandas", "psutil"}
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*", p) for p in pins), pins


def test_the_bench_runs_the_built_calculon_unless_told_otherwise(monkeypatch):
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import bench_calculon
    finally:
        sys.path.remove(str(REPO / "bench"))
    monkeypatch.setenv("CALCULON", "python /x/bin/calculon")
    assert bench_calculon.calculon_command() == ["python", "/x/bin/calculon"]
    assert bench_calculon.calculon_source() == "the command in `$CALCULON`"
    monkeypatch.delenv("CALCULON")
    monkeypatch.setattr(bench_calculon, "BUILT_CLI", REPO / "Makefile")   # any file: as if `make calculon` had run
    assert bench_calculon.calculon_command() == [str(REPO / "Makefile")]
    assert "make calculon" in bench_calculon.calculon_source()
    assert bench_calculon._portable(str(bench_calculon.BUILT_SRC / "calculon/__init__.py"), str(bench_calculon.BUILT_SRC)) \
        == "build/calculon/src/calculon/__init__.py"


def test_the_bench_keeps_its_caches_apart(monkeypatch):
    """The children's caches are the bench's own, so the runs after a spec change remove only the bench's entries."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import bench_calculon
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert bench_calculon.ENV["XDG_CACHE_HOME"] == str(bench_calculon.CACHE)
    assert bench_calculon.SPECS_KEPT.is_relative_to(bench_calculon.CACHE) and bench_calculon.CACHE.is_dir()
    assert "PYTHONDONTWRITEBYTECODE" not in bench_calculon.ENV
