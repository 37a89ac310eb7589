"""The console script's validated specs, kept between its runs, by content (issue 25: start like a shell tool).

Loading and validating the specs is most of what a command does before its own work: for `archgen estimate
--workload llama3-70b-pretrain-b200` on the shipped specs, some 150 ms of its CPU (pydantic builds the schemas of
the kinds it reads and validates 124 documents; the YAML is read from its cache), a quarter of the command. The
result, `validate.Specs` (frozen models and the source map of every document), is the same for the same input; the
console script (`cli.main`: `startup.console_script`) keeps it in the cache directory and, in its next run over the
same input, reads it back (15 ms) in place of loading and validating.

- The key is the content of everything the result is made from: each spec file `load` would read, found by the
  rule `load` finds them by (`spec_files.find_files`: nothing it refuses is read, not even a link out of the tree),
  by its name as given, its real path and its bytes, under the paths given and in the shipped catalog; archgen's
  source (every module of the package: the loader, the models, the units, the validation); and the versions of
  Python, pydantic, pydantic-core, pint and numpy.
  A file added, removed, renamed or changed, or any change to archgen, is another key.
- Only specs that validated are kept: specs with problems are validated each time, and raise as they did.
- The entry is a pickle, sealed as the cache's other binary entries are (pint's pickles, `startup`'s compiled code):
  an HMAC with this machine's cache key (`cache._key`), checked before anything is unpickled; an entry without the
  seal is ignored and replaced. No key, a missing or unreadable entry or path: the specs are validated as always.
- Bounded: at most `MAX_SNAPSHOTS` entries and `cache.MAX_BYTES`, the least recently used removed first
  (`cache.prune`).

`derived` keeps, the same way, what a stage computes from specs kept so (a pure function of them and archgen's
code): `pipeline.cluster_network`, the sized fabric of the clusters a workload runs on and its problems, 20 ms of
`estimate`; `pipeline.judged`'s workload estimates, keyed on the sized fabrics too (some 130 ms of a warm `check
specs/`, read back in 2 ms). The specs' documents in such a value are pickled by their id, not copied
(`_Pickler`), and read back as the specs' own objects, as `make` gave them.

A library caller and the tests' in-process runs neither read nor write it (`startup.is_console_script`).
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from archgen import cache, code_version
from archgen.load import shipped_catalog
from archgen.spec_files import find_real
from archgen.startup import is_console_script, resume_gc
from archgen.validate import Specs
from archgen.yaml_guard import MAX_FILE_BYTES, opened, read_most

#: Bump when what is kept changes form.
FORMAT = "1"
KIND = "specs"
SUFFIX = ".pickle"
#: Entries kept (some 0.4 MB each for the shipped specs): one per spec tree and archgen version in use.
MAX_SNAPSHOTS = 32
_code: list[bytes] = []
#: The key of each `Specs` this process validated or read back under one, by `id` (the object kept beside it).
_KEYED: dict[int, tuple[Specs, str]] = {}
T = TypeVar("T")


def validated(paths: Sequence[str | Path], validate: Callable[[], Specs], catalog: Path | None = None,
              roots: Sequence[str] = ()) -> Specs:
    """`validate()` (the specs under `paths`, loaded and validated), read back from the cache where it was kept.

    `catalog`: the library `validate` loads in place of the shipped catalog (`pipeline.load`), keyed as it is;
    `roots`: the proposal folders `validate` gives the specs (`Specs.roots`), keyed too, since the same files run
    as one proposal or as several price differently.
    """
    key = _key(paths, catalog, roots) if is_console_script() else None
    if key is None:
        return validate()
    found = _read(key, Specs)
    if found is not None:
        resume_gc()  # as `validate.validate` does at its end: a command's start-up ends here
        specs = found
    else:
        specs = validate()
        _write(key, specs)
    _KEYED[id(specs)] = (specs, key)
    return specs


def derived(specs: Specs, name: str, kind: type, make: Callable[[], T]) -> T:
    """`make()`, a pure function of `specs` named `name` and returning a `kind`, kept beside specs `validated` kept."""
    known = _KEYED.get(id(specs))
    if known is None or known[0] is not specs:
        return make()
    key = hashlib.sha256(f"{known[1]}\0{name}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
    found = _read(key, kind, specs)
    if found is not None:
        return found
    value = make()
    _write(key, value, specs)
    return value


class _Pickler(pickle.Pickler):
    """Pickles a value derived from `specs` with their documents by id, not copied (`derived`)."""

    def __init__(self, file: io.BytesIO, specs: Specs) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.ids = {id(doc): ref for ref, doc in specs.items.items()}

    def persistent_id(self, obj: object) -> str | None:
        return self.ids.get(id(obj))


class _Unpickler(pickle.Unpickler):
    """Reads what `_Pickler` wrote: each document named is the specs' own object, as `make` gave it."""

    def __init__(self, file: io.BytesIO, specs: Specs) -> None:
        super().__init__(file)
        self.items = specs.items

    def persistent_load(self, pid: str) -> object:
        return self.items[pid]


def _code_digest() -> bytes | None:
    """A hash of archgen's modules (`code_version.digest`) and of the libraries' versions (once a process).

    None where the modules cannot be listed: then there is no key, so nothing is kept (`_key`).
    """
    code = code_version.digest()
    if code is None:
        return None
    if not _code:
        import numpy
        import pydantic
        import pydantic_core

        from archgen.pint_import import pint
        h = hashlib.sha256(f"{FORMAT}\0{cache.VERSION}\0{sys.version}\0{pydantic.VERSION}\0{pydantic_core.__version__}"
                           f"\0{pint.__version__}\0{numpy.__version__}\0".encode("utf-8", "surrogatepass"))
        h.update(code)
        _code.append(h.digest())
    return _code[0]


def _read_spec(path: str) -> bytes:
    """A spec file's bytes and their count, up to one byte past what `load` accepts.

    A larger file is refused by `load`, so specs that hold one never validate and are never kept. A file that is
    not a regular one (a named pipe, a device) is opened as `load` opens it (`yaml_guard.opened`: without blocking,
    refused unread), so the specs get no key and `validate` reports it with its location.
    """
    with opened(Path(path), path) as fh:
        body = read_most(fh, MAX_FILE_BYTES + 1)
    return b"%d\0" % len(body) + body


def _key(paths: Sequence[str | Path], library: Path | None = None, roots: Sequence[str] = ()) -> str | None:
    """The content key of the specs under `paths` with the catalog; None where a path cannot be read.

    What `load` reads, found by the rule it finds them by (`spec_files.find_files`): each spec file under each path
    and the catalog (`library`, else the shipped one), by name, real path and content; the working directory;
    archgen's modules and the libraries' versions. Where `find_files` refuses a path (a link out of the tree, an
    empty directory) there is no key and nothing is read: `validate` raises the same refusal, located.
    """
    if (code := _code_digest()) is None:
        return None
    try:
        h = hashlib.sha256(code)
        h.update(os.getcwd().encode("utf-8", "surrogatepass"))
        for folder in roots:
            h.update(b"\0root\0" + folder.encode("utf-8", "surrogatepass"))
        catalog = str(shipped_catalog() if library is None else library)
        read: dict[Path, bytes] = {}  # by real path: the catalog's files, also under `specs/`, are read once (7 ms)
        for raw in [*map(str, paths), catalog]:
            h.update(b"\0path\0" + raw.encode("utf-8", "surrogatepass") + b"\0"
                     + os.path.realpath(raw).encode("utf-8", "surrogatepass"))
            if raw == catalog and not os.path.exists(raw):   # no catalog shipped: nothing to read
                continue
            for f, real in find_real([raw]):
                if real not in read:
                    read[real] = _read_spec(str(f))
                h.update(b"\0" + str(f).encode("utf-8", "surrogatepass") + b"\0"
                         + str(real).encode("utf-8", "surrogatepass") + b"\0" + read[real])
    except Exception:  # a missing, unreadable or refused path: `validate` says what is wrong
        return None
    return h.hexdigest()[:32]


def _read(key: str, kind: type, specs: Specs | None = None) -> Any:
    """The `kind` kept under `key`, or None: none kept, unreadable, or not sealed with this machine's key.

    `specs`: the specs a `derived` value refers to (`_Unpickler`).
    """
    body = cache.load_bytes(KIND, key, SUFFIX)   # planted, tampered with, or from another machine: never unpickled
    if body is None:
        return None
    try:
        value = pickle.loads(body) if specs is None else _Unpickler(io.BytesIO(body), specs).load()
    except Exception:  # cut short, made by another version, or naming a document these specs lack: validate
        return None
    return value if isinstance(value, kind) else None


def _write(key: str, value: object, specs: Specs | None = None) -> None:
    """Keep `value` under `key`, sealed (atomic; errors ignored), and bound the entries (`specs`: `_Pickler`'s)."""
    try:
        if specs is None:
            body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        else:
            out = io.BytesIO()
            _Pickler(out, specs).dump(value)
            body = out.getvalue()
    except Exception:  # a model that does not pickle: validated again next time
        return
    if cache.store_bytes(KIND, key, body, SUFFIX):
        cache.prune(KIND, max_entries=MAX_SNAPSHOTS, suffix=SUFFIX)
