"""`archgen.render.pdf_cache`: a Typst compile done before is read back; anything Typst reads, changed, compiles again.

Each test compiles a one-page driver (a few ms) in a cache folder of its own; `test_outputs.test_pdf_is_reproducible`
compares a document compiled with the cache off with the one the suite rendered (read back or compiled).
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from archgen import cache
from archgen.render import pdf_cache

typst = pytest.importorskip("typst")

DRIVER = '#let d = json(bytes(sys.inputs.data))\n#include "part.typ"\nTitle: #d.title\n'
OPTIONS = {"timestamp": 0, "ignore_system_fonts": True}


class Counted:
    """The `typst` module, its compiles counted."""

    TypstError = typst.TypstError
    _typst = typst._typst

    def __init__(self) -> None:
        self.calls = 0

    def compile(self, *args, **kwargs):  # noqa: D102 - typst.compile
        self.calls += 1
        return typst.compile(*args, **kwargs)


@pytest.fixture
def templates(tmp_path, monkeypatch):
    """A driver and the file it includes, in a folder of their own; the cache under `tmp_path`."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARCHGEN_CACHE", raising=False)
    root = tmp_path / "templates"
    root.mkdir()
    (root / "document.typ").write_text(DRIVER, encoding="utf-8")
    (root / "part.typ").write_text("Included part.\n", encoding="utf-8")
    return root


def _compile(root, data='{"title": "one"}'):
    counted = Counted()
    return pdf_cache.compiled(counted, root / "document.typ", data, **OPTIONS), counted.calls


def _kept(tmp_path):
    return sorted(p.name for p in (tmp_path / "cache" / "archgen" / "pdf").glob(f"*{pdf_cache.SUFFIX}"))


def test_the_same_compile_is_read_back_as_the_same_bytes(templates, tmp_path):
    first, compiles = _compile(templates)
    assert compiles == 1 and first.startswith(b"%PDF-") and len(_kept(tmp_path)) == 1
    again, compiles = _compile(templates)
    assert compiles == 0 and again == first
    fresh = bytes(typst.compile((templates / "document.typ").read_bytes(), root=str(templates), format="pdf",
                               sys_inputs={"data": '{"title": "one"}'}, **OPTIONS))
    assert fresh == first   # what is kept is Typst's own output


@pytest.mark.parametrize("change", ["data", "driver", "included file", "file added", "option"])
def test_anything_typst_reads_changed_compiles_again(templates, tmp_path, change):
    first, _ = _compile(templates)
    data = '{"title": "one"}'
    if change == "data":
        data = '{"title": "two"}'
    elif change == "driver":
        (templates / "document.typ").write_text(DRIVER + "More.\n", encoding="utf-8")
    elif change == "included file":
        (templates / "part.typ").write_text("Included part, edited.\n", encoding="utf-8")
    elif change == "file added":
        (templates / "unused.typ").write_text("// read by nothing, but readable by the driver\n", encoding="utf-8")
    if change == "option":
        counted = Counted()
        pdf_cache.compiled(counted, templates / "document.typ", data, timestamp=86400, ignore_system_fonts=True)
        compiles = counted.calls
    else:
        _, compiles = _compile(templates, data)
    assert compiles == 1 and len(_kept(tmp_path)) == 2


def test_the_compiler_is_keyed_by_its_bytes_not_where_it_is_installed(templates, tmp_path, monkeypatch):
    """The same compiler installed in another environment (another path, another modification time) reads back what
    the first compiled, so a fresh checkout's suite does not compile every document again; other bytes compile
    again. Stand-ins for the compiled module: small files (`_compiler` reads only their bytes)."""
    monkeypatch.setattr(pdf_cache, "_COMPILER", {})

    def installed(folder, body, mtime):
        (tmp_path / folder).mkdir()
        module = tmp_path / folder / "_typst.abi3.so"
        module.write_bytes(body)
        os.utime(module, (mtime, mtime))
        counted = Counted()
        counted._typst = type("Module", (), {"__file__": str(module)})
        return pdf_cache.compiled(counted, templates / "document.typ", '{"title": "one"}', **OPTIONS), counted.calls

    first, compiles = installed("env1", b"compiler 1", 1_000_000)
    assert compiles == 1
    assert installed("env2", b"compiler 1", 2_000_000) == (first, 0)
    assert installed("env3", b"compiler 2", 1_000_000)[1] == 1 and len(_kept(tmp_path)) == 2


def test_a_root_with_a_link_or_too_many_files_is_not_kept(templates, tmp_path, monkeypatch):
    """A link could reach a file outside what is hashed: compiled each time, nothing kept; so is a root past the
    bounds (`MAX_ROOT_FILES`)."""
    (templates / "outside.typ").symlink_to(tmp_path / "elsewhere.typ")
    assert [_compile(templates)[1] for _ in range(2)] == [1, 1] and _kept(tmp_path) == []
    (templates / "outside.typ").unlink()
    monkeypatch.setattr(pdf_cache, "MAX_ROOT_FILES", 1)
    assert [_compile(templates)[1] for _ in range(2)] == [1, 1] and _kept(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_root_with_a_named_pipe_is_not_read(templates, tmp_path):
    """Reading a named pipe waits for a writer: hashing the root read one and never returned (review52). A root
    holding one is not keyed; the compile, which reads only what the driver names, goes on."""
    os.mkfifo(templates / "pipe")
    done: list = []
    worker = threading.Thread(target=lambda: done.append(_compile(templates)), daemon=True)
    worker.start()
    worker.join(30)
    if not done:   # the worker is blocked in the read: open the pipe's other end so that it ends
        with open(templates / "pipe", "wb"):
            pass
        worker.join(10)
    assert done and done[0][1] == 1 and done[0][0].startswith(b"%PDF-") and _kept(tmp_path) == []


def test_off_reads_and_writes_nothing(templates, tmp_path, monkeypatch):
    _compile(templates)
    monkeypatch.setenv("ARCHGEN_CACHE", "off")
    assert _compile(templates)[1] == 1
    (tmp_path / "other").mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other"))
    assert _compile(templates)[1] == 1 and list((tmp_path / "other").iterdir()) == []


def test_an_entry_without_this_machines_seal_is_ignored_and_replaced(templates, tmp_path):
    first, _ = _compile(templates)
    (name,) = _kept(tmp_path)
    path = tmp_path / "cache" / "archgen" / "pdf" / name
    path.write_bytes(b"0" * 64 + b"\n%PDF-planted")
    again, compiles = _compile(templates)
    assert compiles == 1 and again == first and b"planted" not in path.read_bytes()


def test_the_folder_is_bounded(templates, tmp_path, monkeypatch):
    """Past `cache.MAX_ENTRIES` PDFs the least recently used go (`cache.prune` when `cache.prune_due`)."""
    monkeypatch.setattr(cache, "MAX_ENTRIES", 4)
    monkeypatch.setattr(cache, "_stored", {})
    for i in range(6):
        _compile(templates, f'{{"title": "{i}"}}')
        os.utime(tmp_path / "cache" / "archgen" / "pdf" / ".pruned", (0, 0))   # due at every store
    assert len(_kept(tmp_path)) <= 4


def test_a_root_naming_a_package_is_not_kept(templates, tmp_path, monkeypatch):
    """Typst reads a package from its own folders, outside the root and the key: a local package edited in place
    must show in the next PDF (review52: before, the PDF of the first text was read back)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    package = tmp_path / "data" / "typst" / "packages" / "local" / "lib" / "0.1.0"
    package.mkdir(parents=True)
    (package / "typst.toml").write_text('[package]\nname = "lib"\nversion = "0.1.0"\nentrypoint = "lib.typ"\n',
                                        encoding="utf-8")
    (package / "lib.typ").write_text('#let word = "first"\n', encoding="utf-8")
    (templates / "part.typ").write_text('#import "@local/lib:0.1.0": word\nThe word: #word\n', encoding="utf-8")
    first, compiles = _compile(templates)
    assert compiles == 1 and _kept(tmp_path) == []
    (package / "lib.typ").write_text('#let word = "second, not the first"\n', encoding="utf-8")
    again, compiles = _compile(templates)
    assert compiles == 1 and again != first and _kept(tmp_path) == []


def test_the_shipped_templates_are_kept(tmp_path, monkeypatch):
    """The shipped driver's root names no package, holds no link and is within the bounds: its compiles are keyed."""
    from archgen.render.env import template_path
    driver = template_path("document.typ")
    assert pdf_cache._key(typst, driver, driver.read_bytes(), "{}", OPTIONS) is not None


def test_the_folder_stays_within_its_bytes_between_hourly_looks(templates, tmp_path, monkeypatch):
    """With the folder's marker fresh (looked at within the hour), a process storing PDFs still looks after each
    quarter of `cache.MAX_BYTES` it stored, so the folder never holds more than the bound (review52: before, it
    looked only hourly or every 512 entries, and PDFs of some 0.7 MB each passed 64 MiB five times over)."""
    monkeypatch.setattr(cache, "_stored", {})
    first, _ = _compile(templates, '{"title": "first"}')          # no marker yet: looks, and leaves the marker
    monkeypatch.setattr(cache, "MAX_BYTES", 4 * (len(first) + 65))   # four PDFs (a seal is 64 hex digits and a newline)
    folder = tmp_path / "cache" / "archgen" / "pdf"
    for i in range(12):
        _compile(templates, f'{{"title": "{i}"}}')
        assert sum(p.stat().st_size for p in folder.glob(f"*{pdf_cache.SUFFIX}")) <= cache.MAX_BYTES
    assert (folder / ".pruned").stat().st_mtime > time.time() - 3600   # never stale: not the hourly look
