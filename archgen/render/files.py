"""Atomic file writes: a temporary file in the same directory, then a rename; never a partial file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from archgen.errors import RenderError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Mode of written files: what `open()` would give (mkstemp alone makes them private, 0600).
FILE_MODE = 0o666 & ~_umask()


def write_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to `path` atomically, creating parent directories.

    A path that cannot be written (a parent is a file, no permission, a full disk) is a `RenderError` naming it.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise RenderError(f"{path}: cannot write it: {_why(path, err)}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise RenderError(f"{path}: cannot write it: {_why(path, err)}") from None
        raise
    return path


def _why(path: Path, err: OSError) -> str:
    """What stops a write: the parent that is a file, else the system's reason."""
    blocking = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        return f"{blocking} is a file, expected a directory"
    return err.strerror or str(err)
