"""The console script's validated specs kept between runs (`archgen.snapshot`, issue 25), and its one BLAS thread.

Each run is a fresh interpreter through `cli.main`, as the console script runs, with its own cache and key; the
wrapper reports, after the command, whether any spec schema was built (a run that read its specs back validated
nothing) and the BLAS thread setting. What a run prints is compared with the command run in-process (`run_cli`: a
library caller keeps nothing), and the tests that start from the first run of `ESTIMATE` share it (`first_estimate`,
its cache and key copied into each test's folder).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from archgen import cache, snapshot
from archgen.startup import BLAS_THREADS
from tests.conftest import REPO, SPECS, run_cli

_MAIN = """
import atexit, json, os, sys
sys.argv = ["archgen", *sys.argv[1:]]
def report():
    from archgen.model import KINDS
    built = sorted(k for k, cls in KINDS.items() if cls.__pydantic_complete__)
    print(json.dumps({"built": built, "blas": os.environ.get("OPENBLAS_NUM_THREADS"),
                      "sized": "archgen.analyse.network" in sys.modules,
                      "estimated": "archgen.perf.workload.cluster" in sys.modules}), file=sys.stderr)
atexit.register(report)
from archgen.cli import main
main()
"""


def _run(tmp_path: Path, *args: str, env: dict[str, str] | None = None, cwd: Path = REPO
         ) -> tuple[int, str, str, dict]:
    """`archgen ARGS` through `cli.main` with the cache under `tmp_path`: exit code, stdout, stderr, the report."""
    base = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    full = {**base, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), **(env or {})}
    r = subprocess.run([sys.executable, "-c", _MAIN, *args], cwd=cwd, env=full, capture_output=True, text=True,
                       timeout=300)
    *err, last = r.stderr.rstrip("\n").split("\n")
    return r.returncode, r.stdout, "\n".join(err), json.loads(last)


def _kept(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "archgen" / snapshot.KIND).glob("*" + snapshot.SUFFIX))


ESTIMATE = ("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(SPECS))


@pytest.fixture(scope="module")
def first_estimate(tmp_path_factory) -> tuple[Path, int, str, dict]:
    """`ESTIMATE` from an empty cache, run once for the tests that start with it: (the folder holding its cache/ and
    config/, exit code, stdout, report)."""
    folder = tmp_path_factory.mktemp("first")
    code, out, _, seen = _run(folder, *ESTIMATE)
    return folder, code, out, seen


def _after_first(first_estimate, tmp_path: Path) -> tuple[int, str, dict]:
    """`tmp_path` as the first `ESTIMATE` left its cache and key (a copy: a test may change it); what that run gave."""
    folder, code, out, seen = first_estimate
    for sub in ("cache", "config"):
        shutil.copytree(folder / sub, tmp_path / sub, symlinks=True)
    return code, out, seen


def test_a_second_run_reads_the_specs_back_validates_nothing_and_prints_the_same(first_estimate, tmp_path):
    code, first, seen = _after_first(first_estimate, tmp_path)
    assert code == 0 and "Cluster" in seen["built"] and "Workload" in seen["built"]   # validated
    assert seen["sized"]                                        # the cluster's fabric sized
    kept = _kept(tmp_path)
    assert len(kept) == 2                                       # the specs, and the sized fabric beside them
    code, again, _, seen = _run(tmp_path, *ESTIMATE)
    assert code == 0 and again == first
    assert seen["built"] == [] and not seen["sized"]            # no schema built, no network analysed
    assert _kept(tmp_path) == kept
    code, other, _, seen = _run(tmp_path, *ESTIMATE, "--cluster", "gb200-nvl72-su")   # another cluster: sized
    assert seen["built"] == [] and seen["sized"] and len(_kept(tmp_path)) == 3
    code, checked, _, seen = _run(tmp_path, "check", str(SPECS))  # another command over the same input: the same entry
    assert seen["built"] == [] and seen["estimated"] and len(_kept(tmp_path)) == 4   # the estimates kept beside
    assert checked == run_cli("check", SPECS).out  # as the command in-process prints it (it keeps nothing: below)
    for fmt in ("text", "json", "sarif"):   # the estimates read back: none run, and every format the same
        code, again, _, seen = _run(tmp_path, "check", str(SPECS), "--format", fmt)
        assert seen["built"] == [] and not seen["estimated"] and len(_kept(tmp_path)) == 4
        assert again == (checked if fmt == "text" else run_cli("check", SPECS, "--format", fmt).out)


def _tree(tmp_path: Path) -> Path:
    """A copy of the shipped specs without the catalog (the shipped one is read) to change."""
    root = tmp_path / "specs"
    shutil.copytree(SPECS, root, ignore=shutil.ignore_patterns("catalog"))
    return root


def test_a_changed_spec_file_is_validated_again_and_its_change_shows(tmp_path):
    root = _tree(tmp_path)
    args = ("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(root))
    code, before, _, _ = _run(tmp_path, *args)
    assert code == 0 and len(_kept(tmp_path)) == 2
    workloads = root / "workloads" / "llama3-70b.yaml"
    text = workloads.read_text(encoding="utf-8")
    changed = text.replace("seq_len: 8192\n  global_batch: 512\n", "seq_len: 8192\n  global_batch: 1024\n", 1)
    assert changed != text
    workloads.write_text(changed, encoding="utf-8")
    code, after, _, seen = _run(tmp_path, *args)
    assert "Workload" in seen["built"] and len(_kept(tmp_path)) == 4    # another key: validated, kept beside
    assert after != before
    assert after == run_cli(*args).out   # as a run that keeps nothing prints it (in-process: test_a_library_caller_...)


class _Planted:
    def __reduce__(self):
        return (exec, ("raise SystemExit('planted')",))


def test_an_entry_without_this_machines_seal_is_never_unpickled(first_estimate, tmp_path):
    code, first, _ = _after_first(first_estimate, tmp_path)
    (entry,) = [p for p in _kept(tmp_path) if p.stat().st_size > 100_000]   # the specs (the fabric's is small)
    mac, _, _ = entry.read_bytes().partition(b"\n")
    entry.write_bytes(mac + b"\n" + pickle.dumps(_Planted()))   # the old seal: not this content's
    code, again, err, seen = _run(tmp_path, *ESTIMATE)
    assert (code, again) == (0, first) and "planted" not in err
    assert "Cluster" in seen["built"]                             # validated again, and kept anew, sealed
    key = (tmp_path / "config" / "archgen" / "cache.key").read_bytes()
    mac, _, body = entry.read_bytes().partition(b"\n")
    assert mac == cache._entry_mac(key, snapshot.KIND, entry.stem, body)
    code, _, _, seen = _run(tmp_path, *ESTIMATE)
    assert seen["built"] == []


def test_specs_with_problems_are_never_kept_and_raise_each_time(tmp_path):
    root = _tree(tmp_path)
    path = root / "workloads" / "llama3-70b.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("kind: Workload", "kind: Workloads", 1),
                    encoding="utf-8")
    args = ("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(root))
    for _ in range(2):
        code, out, err, _ = _run(tmp_path, *args)
        assert code == 1 and "unknown document kind" in err, err
        assert _kept(tmp_path) == []


def test_a_missing_path_is_reported_as_before(tmp_path):
    code, _, err, _ = _run(tmp_path, "estimate", "--workload", "x", "--path", str(tmp_path / "nowhere"))
    assert code == 2 and "no such file or directory" in err and _kept(tmp_path) == []


def test_the_key_is_of_the_catalog_loaded(tmp_path):
    """`archgen diff` loads a revision's own catalog in place of the shipped one (`pipeline.load`'s `catalog`): a
    catalog elsewhere, or one part changed in it, is another key, so one side is never read back for the other."""
    from archgen.load import shipped_catalog
    root, library = _tree(tmp_path), tmp_path / "catalog"
    shutil.copytree(shipped_catalog(), library)
    first = snapshot._key([root], library)
    assert None is not first != snapshot._key([root])
    part = library / "systems" / "dgx-h100.yaml"
    part.write_text(part.read_text(encoding="utf-8").replace("max: 10.2 kW", "max: 10.7 kW", 1), encoding="utf-8")
    assert snapshot._key([root], library) != first


def test_a_library_caller_keeps_nothing(tmp_path, monkeypatch):
    from archgen.pipeline import built
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    built([SPECS])
    assert not (tmp_path / "cache" / "archgen" / snapshot.KIND).exists()


def test_the_entries_are_bounded_least_recently_used_first(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = cache.cache_dir(snapshot.KIND)
    folder.mkdir(parents=True)
    for i in range(snapshot.MAX_SNAPSHOTS + 8):
        (folder / f"{i:032x}{snapshot.SUFFIX}").write_bytes(b"x")
        os.utime(folder / f"{i:032x}{snapshot.SUFFIX}", (1000 + i, 1000 + i))
    (folder / "other.json").write_bytes(b"{}")                  # another kind's suffix: not counted, not removed
    assert cache.prune(snapshot.KIND, max_entries=snapshot.MAX_SNAPSHOTS, suffix=snapshot.SUFFIX) == 16
    left = sorted(p.name for p in folder.glob("*" + snapshot.SUFFIX))
    assert left == [f"{i:032x}{snapshot.SUFFIX}" for i in range(16, snapshot.MAX_SNAPSHOTS + 8)]
    assert (folder / "other.json").exists()


def test_the_console_script_starts_one_blas_thread_unless_told(tmp_path):
    _, out, _, seen = _run(tmp_path, "--version")
    assert (out, seen["blas"]) == ("archgen 0.1.0\n", "1")
    _, _, _, seen = _run(tmp_path, "--version", env={"OMP_NUM_THREADS": "2"})
    assert seen["blas"] is None                                   # the user's count: OpenBLAS reads it


#: numpy's BLAS routines (a matrix product, a solve, a decomposition), which one BLAS thread would run serially.
_BLAS = re.compile(r"np\.(dot|vdot|inner|outer|matmul|einsum|tensordot|linalg)\b|\.dot\(|[\w)\]] @ [\w(]")


def test_archgen_calls_no_blas_routine():
    """`startup.one_blas_thread` costs nothing only while the model's arrays stay element-wise."""
    found = [f"{path.relative_to(REPO)}:{n}" for path in sorted((REPO / "archgen").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if _BLAS.search(line.split("#")[0]) and not line.lstrip().startswith(('"', "'"))]
    assert found == []


def test_a_derived_value_reads_back_the_specs_own_documents(tmp_path, monkeypatch):
    """`derived` pickles the specs' documents by id (`snapshot._Pickler`): read back, a value names the very objects
    the specs hold, as the value `make` gave did; one naming a document these specs lack is not read (made again)."""
    from archgen.pipeline import built
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    specs, _ = built([SPECS])
    job = specs.items["llama3-70b-pretrain-b200"]
    snapshot._write("0" * 32, {"job": job, "copy": job.model_copy()}, specs)
    got = snapshot._read("0" * 32, dict, specs)
    assert got["job"] is job and got["copy"] == job and got["copy"] is not job
    other = dataclasses.replace(specs, items={k: v for k, v in specs.items.items() if k != job.id})
    assert snapshot._read("0" * 32, dict, other) is None
    assert snapshot._read("0" * 32, dict) is None                # not pickled plainly: never read as a plain one
