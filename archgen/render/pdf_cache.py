"""Typst's PDFs kept in the user's cache by the content of everything a compile reads (`compiled`).

Compiling a document's Typst is about half of rendering it as PDF (the shipped specs' 16 documents: some 16 of 36
CPU-s, the other half the diagrams). A compile is a pure function of what it is given: the driver's source, the
files under its root folder (the templates folder: what ``#import``, ``read`` or ``image`` could reach), the document
data (``sys.inputs``), the timestamp (0), the fonts (those bundled with the `typst` wheel; system fonts are ignored)
and the compiler. So the PDF is kept under a hash of all of these, and a document whose data, template and compiler
are unchanged is read back, not compiled again: re-rendering after an edit that touches one rack recompiles that
rack's document and the clusters that show it, and the test suite compiles each distinct document once. Measured
(speedrender34, `python -m archgen render specs/ --formats md,html,pdf`, user + system CPU, base and this alternated):
the same render again 32.0 -> 20.1 CPU-s, again after an edit to one rack (one PDF compiled) 37.4 -> 23.7.

- The key: the `typst` wheel's version and the SHA-256 of its compiled module's bytes (a rebuilt compiler is another
  key; the same wheel installed in another environment is the same one, so a fresh checkout's first render, or its
  test suite, reads back what another checkout compiled: the module's path and modification time keyed it before
  suitespeed41, and each new environment compiled every document again; hashing the 84 MB module costs about 0.06
  CPU-s, once a process), the driver's name and bytes, each file under the root by its relative name
  and bytes, the compile's options and the data. A root holding a link or a file not regular (a named pipe, whose
  read would wait for a writer), or more than `MAX_ROOT_FILES` files or `MAX_ROOT_BYTES`, is not keyed: its PDFs
  are compiled each time. So is a root whose files name a Typst package
  (`PACKAGE`, ``"@``: ``#import "@local/lib:0.1.0"``): Typst reads packages from its own folders outside the root
  (``$XDG_DATA_HOME/typst/packages``, where a local package is edited in place, and its download cache), which the
  key does not cover; the shipped templates name none.
- What is kept is Typst's own output; `pdf.pdf_bytes` edits it after (the `/Suspects` entry) either way, so a change
  there needs no new key.
- Entries are sealed like the cache's other binary entries (`cache.store_bytes`: an HMAC with this machine's key); an
  entry without the seal is ignored and replaced. `ARCHGEN_CACHE=off` reads and writes none (`cache.enabled`).
- Bounded: `cache.MAX_ENTRIES` entries and `cache.MAX_BYTES`, the least recently used removed first (`cache.prune`,
  when due: `cache.prune_due`, hourly and after each quarter of `cache.MAX_BYTES` this process stored; before
  review52 only hourly or every 512 entries, some 350 MB of PDFs). The shipped specs' 16 PDFs are some 11 MB (the
  diagrams they embed), so the folder holds the documents of about five such trees.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from pathlib import Path
from typing import Any

from archgen import cache

KIND = "pdf"
SUFFIX = ".pdf"
#: Bump when what is kept, or how it is keyed, changes.
FORMAT = "1"
#: A root folder past these is not keyed (its files would be read and hashed on every compile).
MAX_ROOT_FILES = 256
MAX_ROOT_BYTES = 16 * 2**20
#: How a Typst string naming a package starts (``"@preview/...``, ``"@local/...``, or ``"@" + name`` built up): a root
#: whose files hold it is not keyed, since a package's files lie outside the root.
PACKAGE = b'"@'
#: The compiler's identity, once a process for each compiled module: its version and its bytes' digest.
_COMPILER: dict[str | None, str] = {}


def compiled(typst: Any, driver: Path, data: str, **options: Any) -> bytes:
    """``typst.compile`` of `driver` (root: its folder) with `data` as ``sys.inputs.data``, as PDF bytes.

    Read from the cache where the same compile was kept before, and kept where it was not.
    """
    source = driver.read_bytes()
    key = _key(typst, driver, source, data, options) if cache.enabled() else None
    if key is not None and (kept := cache.load_bytes(KIND, key, SUFFIX)) is not None:
        return kept
    pdf = bytes(typst.compile(source, root=str(driver.parent), format="pdf", sys_inputs={"data": data}, **options))
    if key is not None and cache.store_bytes(KIND, key, pdf, SUFFIX) and cache.prune_due(KIND, len(pdf)):
        cache.prune(KIND, suffix=SUFFIX)
    return pdf


def _key(typst: Any, driver: Path, source: bytes, data: str, options: dict[str, Any]) -> str | None:
    """The content key of one compile, or None: the root folder holds a link, names a package, or is too much."""
    root = _root_files(driver.parent)
    if root is None:
        return None
    h = hashlib.sha256(f"{cache.VERSION}\0{FORMAT}\0{_compiler(typst)}\0{driver.name}\0".encode())
    h.update(source)
    for name, body in root:
        h.update(b"\0" + name.encode("utf-8", "surrogatepass") + b"\0" + hashlib.sha256(body).digest())
    h.update(b"\0" + repr(sorted(options.items())).encode() + b"\0" + data.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def _root_files(root: Path) -> list[tuple[str, bytes]] | None:
    """Every file under `root` (relative name, bytes), sorted, or None.

    None where one is a link or not a regular file (a named pipe), names a package, or the root is past the bounds.
    """
    found: list[tuple[str, bytes]] = []
    total = 0
    try:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(dirs + files):
                path = Path(folder, name)
                if path.is_symlink() or (name in files and not path.is_file()):
                    return None   # a link could reach outside; a pipe or device would block the read or never end
                if name in files:
                    body = path.read_bytes()
                    if PACKAGE in body:
                        return None
                    total += len(body)
                    found.append((path.relative_to(root).as_posix(), body))
                if len(found) > MAX_ROOT_FILES or total > MAX_ROOT_BYTES:
                    return None
    except OSError:
        return None
    return sorted(found)


def _compiler(typst: Any) -> str:
    """The compiler's version and its compiled module's SHA-256 (its path where the module cannot be read)."""
    module = getattr(getattr(typst, "_typst", None), "__file__", None)
    if module not in _COMPILER:
        try:
            version = importlib.metadata.version("typst")
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        identity = f"{module}"
        if module:
            try:
                with open(module, "rb") as f:
                    identity = hashlib.file_digest(f, "sha256").hexdigest()
            except OSError:
                pass
        _COMPILER[module] = f"{version}\0{identity}"
    return _COMPILER[module]
