"""The user's cache directory for derived data (pint definitions, parsed YAML) by content hash; an in-process `Memo`.

Everything here is an optimisation: a missing or unwritable cache only makes archgen slower, never different.

A cache directory may come from elsewhere (a CI cache shared between pull requests), so nothing read from it can
run code or change a result. archgen's own entries are JSON, never pickle, and each carries an HMAC of its kind, key
and content whose key lives outside the cache directory (`$XDG_CONFIG_HOME/archgen/cache.key`): an entry planted
under the right content hash but without this machine's MAC is ignored and recomputed. pint keeps its parsed
definitions as pickles, so its folder is sealed (`seal`) with the same key: a file without this machine's seal is
deleted before pint could read it (`unsealed_removed`). A cache restored from another machine is rebuilt rather
than trusted; where no key can be kept, nothing is cached. `Memo` keeps, in one process, what it has loaded and
validated (`load.LOADED`, `validate.VALIDATED`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Hashable
from pathlib import Path
from typing import Any, Generic, TypeVar

V = TypeVar("V")

#: Bump when the format of cached values changes.
VERSION = "3"
_MAC = ".mac"


def cache_dir(*parts: str) -> Path:
    """`$XDG_CACHE_HOME/archgen/...` (default `~/.cache/archgen/...`); not created."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base.joinpath("archgen", *parts)


def digest(*texts: str) -> str:
    """A short content key."""
    h = hashlib.sha256(VERSION.encode())
    for t in texts:
        h.update(b"\0" + t.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def load(kind: str, key: str) -> Any | None:
    """The cached value for `key` (JSON data), or None: missing, unreadable, or not sealed by this machine's key."""
    secret = _key()
    if secret is None:
        return None
    try:
        mac, _, body = cache_dir(kind, f"{key}.json").read_text(encoding="utf-8").partition("\n")
        if not hmac.compare_digest(mac, _entry_mac(secret, kind, key, body)):
            return None                                   # planted, tampered with, or from another machine
        return json.loads(body)
    except Exception:  # missing, unreadable or from another version: recompute
        return None


def store(kind: str, key: str, value: Any) -> None:
    """Cache `value` (JSON data: dicts, lists, strings, numbers) under `key`, sealed (atomic; errors ignored)."""
    secret = _key()
    if secret is None:
        return
    path = cache_dir(kind, f"{key}.json")
    try:
        body = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(_entry_mac(secret, kind, key, body) + "\n" + body, encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, TypeError, ValueError):
        pass


def _entry_mac(secret: bytes, kind: str, key: str, body: str) -> str:
    return hmac.new(secret, f"{kind}\0{key}\0{body}".encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


#: The key read by this process, by its path: a command checks one entry per spec file (106 reads of the same file
#: were a fifth of loading the specs, issue 25). A key replaced meanwhile (two first uses at once) costs this process
#: only entries that others rebuild once, as when the race is lost.
_KEYS: dict[Path, bytes] = {}


def _key() -> bytes | None:
    """This machine's cache key, created on first use (0600) outside the cache directory; None where it cannot be."""
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    path = base / "archgen" / "cache.key"
    if path in _KEYS:
        return _KEYS[path]
    try:
        data = path.read_bytes()
        if len(data) == 32:
            _KEYS[path] = data
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
            good = seal.is_file() and hmac.compare_digest(seal.read_text().strip(), _mac(key, path))
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
            seal_path.write_text(_mac(key, path))
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
