"""A cached result is never served to other code than made it: its key holds the code (`archgen.code_version`).

cachestale: the parsed-YAML cache was keyed on the file's text and a format number bumped by hand, so an edit to
the parser that forgot the number had every later run read the older code's parse: a line moved by 1,000 in
`load._plain` read the old line with the cache on and the new one with `ARCHGEN_CACHE=off`
(`test_an_edited_parser_is_not_served_its_old_parse`, which failed on main). The snapshot of validated specs had
the code in its key already; it now takes it from the same place. The parse is keyed on the parser's modules alone
(`code_version.parser_digest`, tests32): an edit elsewhere in archgen, or another checkout of the same parser, reads
the parses kept.
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
    for name in code_version.PARSER:
        (root / name).write_text(f"# {name}: MAX_DEPTH = 64\n", encoding="utf-8")
    monkeypatch.setattr(code_version, "ROOT", str(root))
    monkeypatch.setattr(code_version, "_DIGEST", [])
    monkeypatch.setattr(code_version, "_PARSER_DIGEST", [])
    monkeypatch.setattr(code_version, "_PARSER_SOURCES", [])
    monkeypatch.setattr(snapshot, "_code", [])
    return root


def _new_process(monkeypatch) -> None:
    """Forget what this process computed once: the code's digest and the loaded files, as a new process would."""
    monkeypatch.setattr(code_version, "_DIGEST", [])
    monkeypatch.setattr(code_version, "_PARSER_DIGEST", [])
    monkeypatch.setattr(code_version, "_PARSER_SOURCES", [])
    monkeypatch.setattr(snapshot, "_code", [])
    load.LOADED.clear()


def test_a_changed_module_is_not_served_the_old_entry(package, monkeypatch):
    """An entry the older code stored (a sealed one, as it would have) is read while the parser is the same, a module
    that does not parse edited or not, and not after one parser module changes, even by a digit of the same size."""
    load.LOADED.clear()
    cache.store("yaml", load.parse_key(TEXT), [[{"kind": "Rack", "id": "from-older-code"}, []]])
    assert load.cached(TEXT, "a.yaml")[0].id == "from-older-code"        # same code: the entry is served
    _edited(package / "model.py", "0.5", "0.6")
    _new_process(monkeypatch)
    assert load.cached(TEXT, "a.yaml")[0].id == "from-older-code"        # the parser unchanged: served still
    for name in code_version.PARSER:
        _edited(package / name, "64", "65")
        _new_process(monkeypatch)
        assert load.cached(TEXT, "a.yaml")[0].id == "r1", name           # changed parser: parsed again
        cache.store("yaml", load.parse_key(TEXT), [[{"kind": "Rack", "id": "from-older-code"}, []]])


_IMPORTED = """
import sys
import archgen.load
archgen.load.load_text("kind: Rack\\nid: r1\\nwhen: 2026-01-01\\n<<: {a: 1}\\n", "a.yaml")
print(" ".join(sorted(m.__file__ for n, m in sys.modules.items() if n.split(".")[0] == "archgen")))
"""


def test_the_parser_key_holds_every_module_a_parse_imports():
    """`code_version.PARSER` is `archgen.load` and every archgen module a fresh interpreter has once it parsed a file
    (an import added to the loader without a line there would leave its edits out of the key)."""
    r = subprocess.run([sys.executable, "-c", _IMPORTED], cwd=REPO, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "ARCHGEN_CACHE": "off"})
    assert r.returncode == 0, r.stderr
    root = Path(code_version.ROOT)
    assert sorted(str(Path(f).relative_to(root)) for f in r.stdout.split()) == sorted(code_version.PARSER)


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
    _edited(edited / "archgen" / "yaml_fast.py", "else (v.line + 1, v.column + 1)\n",   # libyaml reads this file
            "else (v.line + 1001, v.column + 1)\n")
    assert position(edited) == position(edited, ARCHGEN_CACHE="off") == "(1003, 5)"
    assert position(checkout("other")) == "(3, 5)"
    assert len(list((tmp_path / "cache" / "archgen" / "yaml").glob("*.json"))) == 2  # the other read the first's


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
    _edited(package / "load.py", "64", "65")      # a parser module too: its text is read at the start
    assert code_version.digest() == at_start
    during = code_version.parser_digest()         # the first parse's key: PyYAML's version added then, not the text
    _new_process(monkeypatch)
    assert code_version.digest() != at_start
    assert code_version.parser_digest() != during
