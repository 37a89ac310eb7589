"""The user's cache directory for derived data (pint definitions, parsed YAML) by content hash; an in-process `Memo`.

Everything here is an optimisation: a missing or unwritable cache only makes archgen slower, never different.

A cache directory may come from elsewhere (a CI cache shared between pull requests), so nothing read from it can
run code or change a result. archgen's own entries are JSON, never pickle, and each carries an HMAC of its kind, key
and content whose key lives outside the cache directory (`$XDG_CONFIG_HOME/archgen/cache.key`): an entry planted
under the right content hash but without this machine's MAC is ignored and recomputed. pint keeps its parsed
definitions as pickles, so its folder is sealed (`seal`) with the same key: a file without this machine's seal is
deleted before pint could read it (`unsealed_removed`). The console script's compiled code (`startup`) and its
validated specs (`snapshot`) are binary too (marshal, pickle), each file sealed with the same key and never read
without its seal. A cache restored from another machine is rebuilt rather than trusted; where no key can be kept,
nothing is cached. `Memo` keeps, in one process, what it has loaded and
validated (`load.LOADED`, `validate.VALIDATED`).

`ARCHGEN_CACHE=off` in the environment (`enabled`) turns the cache directory and its key off: archgen then reads and
writes nothing under `$XDG_CACHE_HOME/archgen` or `$XDG_CONFIG_HOME/archgen`, and computes everything each time, as
where no key can be kept. It is read on each use; the units registry reads it once, when `archgen.units` is imported.

The directory is shared by every checkout, version and process of archgen on the machine, so it is bounded: each kind
of entry (`store`'s folders) keeps at most `MAX_ENTRIES` files and `MAX_BYTES`, the least recently used removed
first (`prune`; a hit refreshes an entry's time). Entries are keyed by content, by `VERSION` and, where archgen's code
computed them, by that code (`code_version.digest`), so those of an older format, of older code or of files since
changed are never hit again and are the first to go. pint's folder is bounded by the number of definition texts
(`emptied_when_full`, `MAX_DEFINITIONS`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from pathlib import Path
from typing import Any, Generic, TypeVar

V = TypeVar("V")

#: Bump when the format of cached values changes.
VERSION = "3"
_MAC = ".mac"
#: The bound on each kind of entry: what `prune` leaves is at most three quarters of each, so that it runs rarely.
#: A run over the shipped specs reads about 110 files; what fills the cache is generated specs (the fuzz tests).
MAX_ENTRIES = 4096
MAX_BYTES = 64 * 2**20
#: A storing process looks at a folder's size when its marker is older than this (one `stat` per entry stored
#: otherwise), and after every `PRUNE_STORES` entries or a quarter of `MAX_BYTES` it stored itself (a test run
#: storing thousands of entries in minutes; a render storing PDFs of some 0.7 MB each, which 512 would let pass
#: 64 MiB five times over): what `prune` leaves plus what one process stores before it looks is within the bound.
PRUNE_EVERY = 3600.0
PRUNE_STORES = 512
_MARKER = ".pruned"
#: The pint definition texts (one per pint version and archgen patch) the units folder keeps: past it, it is emptied.
MAX_DEFINITIONS = 8
#: Per kind, the entries and bytes this process stored since it last looked at the folder (`prune_due`).
_stored: dict[str, tuple[int, int]] = {}


#: The values of `$ARCHGEN_CACHE` that leave the cache on; it is unset by default. Any other (off, 0, no) turns it off:
#: a value meant to turn it off is never read as on.
ON = ("", "on", "1", "yes", "true")


def enabled() -> bool:
    """Whether archgen may use its cache directory and key: not where `$ARCHGEN_CACHE` is set to other than `ON`."""
    return os.environ.get("ARCHGEN_CACHE", "").strip().lower() in ON


def _home(variable: str, default: str) -> str:
    """`$variable`, else `~/default`: a string, since `load` joins one per spec file (pathlib costs ~50 us each)."""
    return os.environ.get(variable) or os.path.join(os.path.expanduser("~"), default)


def cache_dir(*parts: str) -> Path:
    """`$XDG_CACHE_HOME/archgen/...` (default `~/.cache/archgen/...`); not created."""
    base = Path(_home("XDG_CACHE_HOME", ".cache"))
    return base.joinpath("archgen", *parts)


def digest(*texts: str) -> str:
    """A short content key."""
    h = hashlib.sha256(VERSION.encode())
    for t in texts:
        h.update(b"\0" + t.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def load(kind: str, key: str) -> Any | None:
    """The cached value for `key` (JSON data), or None: missing, unreadable, or not sealed by this machine's key."""
    body = load_bytes(kind, key)
    if body is None:
        return None
    try:
        return json.loads(body)
    except ValueError:  # from another version: recompute
        return None


def store(kind: str, key: str, value: Any) -> None:
    """Cache `value` (JSON data: dicts, lists, strings, numbers) under `key`, sealed (atomic; errors ignored)."""
    try:
        body = json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    except (TypeError, ValueError):
        return
    if store_bytes(kind, key, body) and prune_due(kind, len(body)):
        prune(kind)


def prune_due(kind: str, size: int = 0) -> bool:
    """After an entry of `kind` (`size` bytes) was stored: whether to `prune` its folder now.

    Due where the folder's marker is older than `PRUNE_EVERY` or missing, or where this process stored
    `PRUNE_STORES` entries or a quarter of `MAX_BYTES` of the kind since it last looked.
    """
    entries, stored = _stored.get(kind, (0, 0))
    entries, stored = entries + 1, stored + size
    marker = cache_dir(kind, _MARKER)
    try:
        due = (entries >= PRUNE_STORES or stored >= MAX_BYTES // 4
               or marker.stat().st_mtime < time.time() - PRUNE_EVERY)
    except OSError:
        due = True
    _stored[kind] = (0, 0) if due else (entries, stored)
    return due


def load_bytes(kind: str, key: str, suffix: str = ".json") -> bytes | None:
    """The body of the entry `key` + `suffix` of `kind`, or None: missing, unreadable, or not sealed by this machine.

    A hit older than `PRUNE_EVERY` is touched, so that `prune` removes it last.
    """
    secret = _key()
    if secret is None:
        return None
    path = os.path.join(_home("XDG_CACHE_HOME", ".cache"), "archgen", kind, key + suffix)
    try:
        with open(path, "rb") as fh:
            mac, _, body = fh.read().partition(b"\n")
            used = os.fstat(fh.fileno()).st_mtime
    except OSError:
        return None
    if not hmac.compare_digest(mac, _entry_mac(secret, kind, key, body)):
        return None                                       # planted, tampered with, or from another machine
    if used < time.time() - PRUNE_EVERY:  # used again: the last to be pruned (a write at most hourly per entry)
        try:
            os.utime(path)
        except OSError:
            pass
    return body


def store_bytes(kind: str, key: str, body: bytes, suffix: str = ".json") -> bool:
    """Keep `body` as the entry `key` + `suffix` of `kind`, sealed with this machine's key (atomic); whether it was."""
    secret = _key()
    if secret is None:
        return False
    path = cache_dir(kind, key + suffix)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(_entry_mac(secret, kind, key, body) + b"\n" + body)
        os.replace(tmp, path)
    except OSError:
        return False
    return True


def prune(kind: str, max_entries: int | None = None, max_bytes: int | None = None, suffix: str = ".json") -> int:
    """Bound the entries of `kind`; the number of files removed.

    Past `max_entries` files or `max_bytes` (default `MAX_ENTRIES`, `MAX_BYTES`), remove the least recently used (by
    modification time, which a hit refreshes) until three quarters of each remain; also remove what an interrupted
    `store` left (a temporary file an hour old). Safe while other processes read and store: a reader that loses an
    entry recomputes it. Errors are ignored. The entries are the files named `*suffix` (`store`'s: `.json`).
    """
    most = MAX_ENTRIES if max_entries is None else max_entries
    size = MAX_BYTES if max_bytes is None else max_bytes
    folder = cache_dir(kind)
    try:
        (folder / _MARKER).touch()
        with os.scandir(folder) as it:
            files = [(e.stat(follow_symlinks=False), e.name, e.path) for e in it
                     if e.is_file(follow_symlinks=False) and e.name != _MARKER]
    except OSError:
        return 0
    stale = time.time() - PRUNE_EVERY
    gone = [p for st, name, p in files if name.endswith(".tmp") and st.st_mtime < stale]
    entries = sorted((st.st_mtime, name, st.st_size, p) for st, name, p in files if name.endswith(suffix))
    total = sum(e[2] for e in entries)
    if len(entries) > most or total > size:
        keep, budget = len(entries), total
        for _, _, bytes_, p in entries:             # the least recently used first
            if keep <= most * 3 // 4 and budget <= size * 3 // 4:
                break
            gone.append(p)
            keep, budget = keep - 1, budget - bytes_
    removed = 0
    for p in gone:
        try:
            os.unlink(p)
            removed += 1
        except OSError:
            pass
    return removed


def emptied_when_full(folder: Path, pattern: str, most: int) -> None:
    """Empty `folder` (its files and its subfolders' files) where it holds `most` files matching `pattern` or more.

    The units folder, written once per definitions text: pint's entries, keyed by those files, go with them.
    """
    found = list(folder.glob(pattern))
    if len(found) >= most:
        for path in [*folder.glob("*"), *folder.glob("*/*")]:
            if path.is_file():
                path.unlink(missing_ok=True)


def _entry_mac(secret: bytes, kind: str, key: str, body: bytes) -> bytes:
    """The seal of an entry: an HMAC of its kind, key and body with this machine's key (hex)."""
    return hmac.new(secret, f"{kind}\0{key}\0".encode("utf-8", "surrogatepass") + body,
                    hashlib.sha256).hexdigest().encode("ascii")


#: The key read by this process, by its path: a command checks one entry per spec file (106 reads of the same file
#: were a fifth of loading the specs, issue 25). A key replaced meanwhile (two first uses at once) costs this process
#: only entries that others rebuild once, as when the race is lost.
_KEYS: dict[str, bytes] = {}


def _key() -> bytes | None:
    """This machine's cache key, created on first use (0600) outside the cache directory; None where it cannot be."""
    if not enabled():   # ARCHGEN_CACHE=off: no key, so no entry is read, stored or sealed
        return None
    name = os.path.join(_home("XDG_CONFIG_HOME", ".config"), "archgen", "cache.key")
    if name in _KEYS:
        return _KEYS[name]
    path = Path(name)
    try:
        data = path.read_bytes()
        if len(data) == 32:
            _KEYS[name] = data
            return data
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".cache.key.{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
        os.replace(tmp, path)  # two first uses at once: the last key wins, the other's seals are rebuilt once
        return path.read_bytes()
    except OSError:
        return None


def _mac(key: bytes, path: Path) -> str:
    return hmac.new(key, path.name.encode() + b"\0" + path.read_bytes(), hashlib.sha256).hexdigest()


def unsealed_removed(folder: Path) -> bool:
    """Delete every file in `folder` that lacks a valid seal; False where no key is available (do not use it)."""
    key = _key()
    if key is None:
        return False
    if not folder.is_dir():
        return True
    for path in folder.iterdir():
        if path.suffix == _MAC or not path.is_file():
            continue
        seal = path.with_name(path.name + _MAC)
        try:
            good = seal.is_file() and hmac.compare_digest(seal.read_text(encoding="utf-8").strip(), _mac(key, path))
        except OSError:
            good = False
        if not good:
            path.unlink(missing_ok=True)
            seal.unlink(missing_ok=True)
    return True


def seal(folder: Path) -> None:
    """Write a seal for every file in `folder` that has none (after `unsealed_removed`, only files just written)."""
    key = _key()
    if key is None or not folder.is_dir():
        return
    for path in folder.iterdir():
        seal_path = path.with_name(path.name + _MAC)
        if path.suffix == _MAC or not path.is_file() or seal_path.exists():
            continue
        try:
            seal_path.write_text(_mac(key, path), encoding="utf-8")
        except OSError:
            pass


class Memo(Generic[V]):
    """An in-process map from a content key to a value made from that content, the least recently used dropped first.

    Only for values that no one changes after they are made (frozen models, loaded documents that are only read):
    every caller with the same key gets the same object. `size` bounds the memory a long run (the fuzz tests, a
    sweep of generated specs) can hold on to. Safe to share between threads.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The value stored under `key`, or None."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> V:
        """Store `value` under `key` and return it."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
