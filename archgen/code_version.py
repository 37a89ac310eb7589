"""Which archgen code is running, as a key: what the disk cache keys each entry on besides its input (cachestale).

A cached result must be keyed on everything that decides it. Its input (a spec file's text, the catalog) is in
each key already; the code that computed it was in the snapshot's key (`snapshot`) but not in the parsed-YAML
cache's (`load.parse_key`), which relied on a format number bumped by hand: an edit to the parser that forgot to
bump it had every later run read the older code's parse (a line moved by 1,000 in `load._plain` still read the
old line with the cache on, the new one with `ARCHGEN_CACHE=off`).

`digest` is Python's version, each module of the package (``*.py`` under this folder, ``__pycache__`` left out)
by its path, size and modification time in nanoseconds, and the same for the YAML parser's package file
(`ruamel.yaml`'s ``__init__.py``, which holds its version and which an upgrade rewrites; found without importing
it, so a cache hit never imports the parser). Size and time are the test by which Python itself reuses a module's
byte code (`importlib`'s source loader, in whole seconds; here in nanoseconds), so an entry is reused exactly while
the code that made it is what Python runs: an edit, a `git checkout`, a merge or a reinstall gives every file it
writes a new time. What it cannot see is a file replaced by one of the same size under the same time (a copy that
keeps times, ``cp -p``, ``rsync -a``, ``tar x`` over an older tree), which Python's byte code, where it keeps it,
misses too.
Where the modules cannot be listed (a package imported from a zip) there is no digest and nothing is kept. The
console script takes the digest first (`startup.console_script`), so a module edited while a command runs leaves at
most an entry no later run reads; a library caller or a test process takes it at its first cache lookup, and an
edit between its imports and that lookup is not seen. The digest costs about 1.2-1.5 ms of CPU once a process
(stat-ing the 336 modules 0.8 ms of it); hashing their 3.2 MB instead cost 4.4 ms (measured on the project's shared
2-core machine).

`parser_digest` is the narrower key of a file's parse: Python's version and the text of the modules that parse
(`PARSER`: `archgen.load` and every archgen module it imports, held so by tests/test_cache_code_key.py) and of
ruamel.yaml's package file, by content, not path or time (tests32). A parse depends on nothing else, so a commit that
leaves the parser alone, another checkout or a clean clone of the same code reads the parses already kept, where
the whole-package digest had every commit and every checkout parse every spec again (a first `archgen check
specs/` in a checkout ~7 ms a file more). Hashing the eight modules' ~90 kB costs about 0.1 ms once a process.

What each entry is keyed on (cachestale's audit):

- parsed YAML (`load.cached`, kind ``yaml``): the file's text, `load.MAX_NODES`, `cache.VERSION` and
  `parser_digest`.
- validated specs and what is derived from them (`snapshot`, kind ``specs``): every spec file found (name, real
  path, bytes), the catalog, the working directory, `cache.VERSION`, `snapshot.FORMAT`, `digest`, and the versions
  of Python, pydantic, pydantic-core, pint and numpy.
- compiled dataclass methods (`startup`, kind ``code``): the method's source text, one file per interpreter's cache
  tag, each checked against `importlib.util.MAGIC_NUMBER`: the code `compile` gives for the text.
- pint's definitions (`units`): the definitions file is named by a hash of its text and read back only where its
  text is the one archgen built; pint keys its own pickles on that file's content, pint's version and Python's
  (pint `delegates/base_defparser.py` `PintHeader`, flexcache `BasicPythonHeader`, pint 0.25.3).
- unit parses (`units`, `parses-*`, the console script's: `unit_definitions._kept`): the definitions' text, pint's
  version and Python's.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.util import find_spec

#: The package whose modules are hashed.
ROOT = os.path.dirname(os.path.abspath(__file__))
#: The modules, relative to `ROOT`, that decide what a YAML file parses to (`parser_digest`): `archgen.load` and the
#: archgen modules it imports. PyYAML (`yaml_guard.precount`) only refuses a file, which nothing keeps.
PARSER = ("__init__.py", "cache.py", "code_version.py", "errors.py", "load.py", "path_links.py", "spec_files.py",
          "yaml_fast.py", "yaml_guard.py")
#: The digest of this process (`digest`): the code does not change under a running process. None: the modules could
#: not be listed.
_DIGEST: list[bytes | None] = []
#: `parser_digest` of this process, and the hash of its sources (`parser_sources`) it adds the libraries' versions to.
_PARSER_DIGEST: list[bytes | None] = []
_PARSER_SOURCES: list[hashlib._Hash | None] = []


def digest() -> bytes | None:
    """The key of the code running (once a process): Python's version, archgen's and the YAML parser's modules.

    The modules by path, size and time; None where the package's modules cannot be listed (imported from a zip), so
    that nothing is kept.
    """
    if not _DIGEST:
        lines = [f"{sys.version}\0{ROOT}".encode("utf-8", "surrogatepass")]
        try:
            tree(ROOT, (".py",), lines)
        except OSError:
            _DIGEST.append(None)
            return None
        _stat(_origin("ruamel.yaml"), lines)
        _DIGEST.append(hashlib.sha256(b"\n".join(lines)).digest())
    return _DIGEST[0]


def parser_digest() -> bytes | None:
    """The key of the parser running (once a process): its modules' text, not where they are or when written.

    Python's version, the text of `PARSER` and of ruamel.yaml's package file (its version), PyYAML's and libyaml's
    versions (`yaml_fast` reads with them); None where a `PARSER` module cannot be read, so that nothing is kept.
    The versions of PyYAML and libyaml are added here, at the first parse looked up, not at the start
    (`parser_sources`): importing PyYAML to ask them (its regular expressions compiled on import) cost some 10 ms of
    a warm `archgen check specs/`, whose specs all come from the snapshot and are never parsed (issue 25). The
    version read here is the one of the module that parses, the one this process imports.
    """
    if not _PARSER_DIGEST:
        sources = parser_sources()
        if sources is None:
            _PARSER_DIGEST.append(None)
            return None
        h = sources.copy()
        h.update(b"\0libyaml\0" + _libyaml().encode())
        _PARSER_DIGEST.append(h.digest())
    return _PARSER_DIGEST[0]


def parser_sources() -> hashlib._Hash | None:
    """The text of the parser's sources hashed (once a process): `parser_digest` less the PyYAML and libyaml versions.

    Python's version, `PARSER`'s modules and ruamel.yaml's package file, read without importing either parser
    (`startup.console_script` takes it before the command imports any of archgen); None where a `PARSER` module
    cannot be read.
    """
    if not _PARSER_SOURCES:
        h = hashlib.sha256(sys.version.encode("utf-8", "surrogatepass"))
        try:
            for name in PARSER:
                with open(os.path.join(ROOT, name), "rb") as f:
                    text = f.read()
                h.update(b"\0%s\0%d\0%s" % (name.encode(), len(text), text))
        except OSError:
            _PARSER_SOURCES.append(None)
            return None
        try:
            with open(_origin("ruamel.yaml"), "rb") as f:
                h.update(b"\0ruamel.yaml\0" + f.read())
        except OSError:
            h.update(b"\0ruamel.yaml\0missing")
        _PARSER_SOURCES.append(h)
    return _PARSER_SOURCES[0]


def tree(top: str, suffixes: tuple[str, ...], lines: list[bytes]) -> None:
    """Add to `lines` each file under `top` named `*suffixes` (links to folders not followed): path, size and time."""
    with os.scandir(top) as it:
        entries = sorted(it, key=lambda e: e.name)
    for e in entries:
        if e.is_dir(follow_symlinks=False):
            if e.name != "__pycache__":
                tree(e.path, suffixes, lines)
        elif e.name.endswith(suffixes):
            _stat(e.path, lines)


def _stat(path: str, lines: list[bytes]) -> None:
    """Add `path`, its size and its modification time (ns) to `lines`; a missing path as itself."""
    name = path.encode("utf-8", "surrogatepass")
    try:
        st = os.stat(path)
        lines.append(name + b"\0%d\0%d" % (st.st_size, st.st_mtime_ns))
    except OSError:
        lines.append(name + b"\0missing")


def _origin(module: str) -> str:
    """The file a module would be imported from, without importing it (its parent package is); "" where none."""
    try:
        spec = find_spec(module)
    except (ImportError, ValueError):
        return ""
    return (spec.origin or "") if spec is not None else ""


def _libyaml() -> str:
    """PyYAML's version and libyaml's, as `yaml_fast` reads with them ("" parts where there is none)."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        return ""
    get = getattr(getattr(yaml, "_yaml", None), "get_version_string", None)
    return f"{yaml.__version__} {get() if get is not None and yaml.__with_libyaml__ else ''}"
