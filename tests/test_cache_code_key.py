"""A cached result is never served to other code than made it: its key holds the code (`archgen.code_version`).

cachestale: the parsed-YAML cache was keyed on the file's text and a format number bumped by hand, so an edit to
the parser that forgot the number had every later run read the older code's parse: a line moved by 1,000 in
`load._plain` read the old line with the cache on and the new one with `ARCHGEN_CACHE=off`
(`test_an_edited_parser_is_not_served_its_old_parse`, which failed on main). The snapshot of validated specs had
the code in its key already; it now takes it from the same place.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from archgen import cache, code_version, load, snapshot, startup
from tests.conftest import REPO

TEXT = "kind: Rack\nid: r1\n"


def _edited(path: Path, old: str, new: str) -> None:
    """Replace `old` with `new` in `path` and move its time on by a second (a coarse clock cannot hide the edit)."""
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


@pytest.fixture
def package(tmp_path, monkeypatch) -> Path:
    """A package of one module that `code_version` hashes in place of archgen's; a cache and key under tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARCHGEN_CACHE", raising=False)
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "model.py").write_text("EFFICIENCY = 0.5\n", encoding="utf-8")
    monkeypatch.setattr(code_version, "ROOT", str(root))
    monkeypatch.setattr(code_version, "_DIGEST", [])
    monkeypatch.setattr(snapshot, "_code", [])
    return root


def _new_process(monkeypatch) -> None:
    """Forget what this process computed once: the code's digest and the loaded files, as a new process would."""
    monkeypatch.setattr(code_version, "_DIGEST", [])
    monkeypatch.setattr(snapshot, "_code", [])
    load.LOADED.clear()


def test_a_changed_module_is_not_served_the_old_entry(package, monkeypatch):
    """An entry the older code stored (a sealed one, as it would have) is read while the code is the same, not after
    one module changes, even by a digit of the same size."""
    load.LOADED.clear()
    cache.store("yaml", load.parse_key(TEXT), [[{"kind": "Rack", "id": "from-older-code"}, []]])
    assert load.cached(TEXT, "a.yaml")[0].id == "from-older-code"        # same code: the entry is served
    _edited(package / "model.py", "0.5", "0.6")
    _new_process(monkeypatch)
    assert load.cached(TEXT, "a.yaml")[0].id == "r1"                     # changed code: parsed again


def test_the_snapshot_key_follows_the_code(package, monkeypatch, tmp_path):
    """The validated specs' key changes with a module, and only with it."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "r.yaml").write_text(TEXT, encoding="utf-8")
    first = snapshot._key([specs])
    _new_process(monkeypatch)
    assert snapshot._key([specs]) == first is not None
    _edited(package / "model.py", "0.5", "0.6")
    _new_process(monkeypatch)
    assert snapshot._key([specs]) != first


def test_the_digest_sees_a_module_added_or_removed(package, monkeypatch):
    before = code_version.digest()
    (package / "extra.py").write_text("", encoding="utf-8")
    _new_process(monkeypatch)
    added = code_version.digest()
    (package / "extra.py").unlink()
    _new_process(monkeypatch)
    assert len({before, added}) == 2 and code_version.digest() == before


_PROBE = """
import sys
from pathlib import Path
import archgen
from archgen.load import load_file
assert archgen.__file__.startswith(sys.argv[2]), archgen.__file__
print(load_file(Path(sys.argv[1]))[0].positions[("id",)])
"""


def test_an_edited_parser_is_not_served_its_old_parse(tmp_path):
    """The reproduction: a copy of archgen, run, its parser edited, run again; the cache on must agree with off. A
    second checkout of the unedited code, sharing the cache directory, is not served the edited one's parse."""
    spec = tmp_path / "r.yaml"
    spec.write_text("kind: Rack\n\nid: r1\n", encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("ARCHGEN_CACHE", None)

    def checkout(name: str) -> Path:
        shutil.copytree(REPO / "archgen", tmp_path / name / "archgen", ignore=shutil.ignore_patterns("__pycache__"))
        return tmp_path / name

    def position(copy: Path, **more: str) -> str:
        r = subprocess.run([sys.executable, "-c", _PROBE, str(spec), str(copy)], cwd=tmp_path,
                           env={**env, "PYTHONPATH": str(copy), **more}, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    edited = checkout("edited")
    assert position(edited) == "(3, 5)"
    _edited(edited / "archgen" / "load.py", "positions[path + (k,)] = pos\n",
            "positions[path + (k,)] = (pos[0] + 1000, pos[1])\n")
    assert position(edited) == position(edited, ARCHGEN_CACHE="off") == "(1003, 5)"
    assert position(checkout("other")) == "(3, 5)"


def test_code_that_cannot_be_listed_keeps_nothing(package, monkeypatch, tmp_path):
    """Modules imported from where they cannot be listed (a zip): nothing is read from or kept in the cache."""
    monkeypatch.setattr(code_version, "ROOT", str(tmp_path / "archgen.zip" / "archgen"))
    _new_process(monkeypatch)
    cache.store("yaml", load.parse_key(TEXT), [[{"kind": "Rack", "id": "from-older-code"}, []]])
    assert code_version.digest() is None
    assert load.cached(TEXT, "a.yaml")[0].id == "r1"
    assert snapshot._key([tmp_path]) is None
    assert len(list((tmp_path / "cache" / "archgen" / "yaml").glob("*.json"))) == 1   # the planted one only


def test_the_console_script_takes_the_code_at_its_start(package, monkeypatch):
    """`cli.main` takes the digest before its command imports the code: an edit landing while it runs is not seen,
    so what the run keeps is keyed on the code it started with and is never read by a run of the edited code."""
    monkeypatch.setattr(startup, "_console", False)
    startup.console_script()
    at_start = code_version.digest()
    _edited(package / "model.py", "0.5", "0.6")
    assert code_version.digest() == at_start
    _new_process(monkeypatch)
    assert code_version.digest() != at_start
