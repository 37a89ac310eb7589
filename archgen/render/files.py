"""Atomic file writes: a temporary file in the same directory, then a rename; never a partial file."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from archgen.errors import RenderError
from archgen.path_links import leaving_link, tree_words
from archgen.spec_files import printable


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
    refuse_leaving_link(path)
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


def read_written(path: Path, limit: int) -> str | None:
    """The text of `path` where it can be a file archgen wrote: a regular file, not a link, of at most `limit` bytes.

    Else None, as for a missing one. `write_atomic` writes regular files, so a link or a device in their place was
    put there by someone else: a pull request's committed ``out/<target>/.archgen-files -> /proc/self/environ`` had
    `render` copy the runner's environment (its secrets included) into the new manifest, and ``-> /dev/zero`` read
    until memory ran out (a `MemoryError` traceback, or the runner killed).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:                               # missing, a link (ELOOP), unreadable
        return None
    with os.fdopen(fd, "rb") as fh:
        if path.is_symlink() or not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        data = fh.read(limit + 1)
    try:
        return data.decode("utf-8") if len(data) <= limit else None
    except UnicodeDecodeError:
        return None


def refuse_leaving_link(path: Path, what: str = "", folder: bool = False) -> None:
    """Refuse (`RenderError`, exit 2) to write `path` where a link in the tree leads it out (`leaving_link`)."""
    found = leaving_link(path, folder)
    if found is not None:
        link, target = found
        raise RenderError(f"{what}{printable(str(path))}: {printable(str(link))} is a link to "
                          f"{printable(target)}, outside {tree_words()}; archgen writes no file through a link that "
                          "leaves it")


def _why(path: Path, err: OSError) -> str:
    """What stops a write: the parent that is a file, else the system's reason."""
    blocking = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        return f"{blocking} is a file, expected a directory"
    return err.strerror or str(err)
