"""The user's cache directory for derived data (pint definitions, parsed YAML), keyed by content hashes.

Everything here is an optimisation: a missing or unwritable cache only makes archgen slower, never different.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

#: Bump when the format of cached values changes.
VERSION = "1"


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
    """The cached value for `key`, or None."""
    try:
        return pickle.loads(cache_dir(kind, f"{key}.pickle").read_bytes())
    except Exception:  # missing, unreadable or from another version: recompute
        return None


def store(kind: str, key: str, value: Any) -> None:
    """Cache `value` under `key` (atomic; errors ignored)."""
    path = cache_dir(kind, f"{key}.pickle")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, path)
    except OSError:
        pass
