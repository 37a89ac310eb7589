"""Atomic file writes: a temporary file in the same directory, then a rename; never a partial file."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from archgen.errors import RenderError
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


def boundary() -> Path:
    """The tree archgen writes into through links: the git work tree holding the working directory, else that directory.

    The top level is found by its ``.git`` entry (a folder, or a file in a worktree or submodule), without running git.
    """
    cwd = Path.cwd().resolve()
    return next((d for d in (cwd, *cwd.parents) if (d / ".git").exists()), cwd)


def leaving_link(path: Path, folder: bool = False) -> tuple[Path, str] | None:
    """The first link on the way to `path` that lies inside the `boundary` and leads out of it, with its target.

    The path is walked folder by folder as the system does (a link followed where it stands, ``..`` from where the
    walk is), so ``out/../x`` through a link `out` is judged where it lands. A link outside the boundary (the user's
    own ``/tmp`` on macOS) is not judged, and a path given outside it without links is the user's to choose; only a
    link the repository could hold, pointing out of it, is refused: a pull request that commits ``out -> ../victim``
    would otherwise have `archgen render specs --out out` write its documents into ``../victim``. The last component
    is followed only for a `folder` (`--out`): `write_atomic` replaces a link to a file rather than writing through it.
    """
    try:
        top, here = boundary(), Path.cwd().resolve()
    except OSError:                               # the working directory was removed: the write itself fails
        return None
    parts = Path(path).parts
    for i, part in enumerate(parts):
        if part == "..":
            here = here.parent
            continue
        step = here / part
        if (i == len(parts) - 1 and not folder) or not _is_link(step):
            here = step
            continue
        real = Path(os.path.realpath(step))       # a loop of links is left as it is: the write fails on it
        if step.parent.is_relative_to(top) and not real.is_relative_to(top):
            return Path(*parts[:i + 1]), os.readlink(step)
        here = real
    return None


def _is_link(path: Path) -> bool:
    try:
        return path.is_symlink()
    except OSError:                               # a folder that cannot be read: the write fails there, named
        return False


def refuse_leaving_link(path: Path, what: str = "", folder: bool = False) -> None:
    """Refuse (`RenderError`, exit 2) to write `path` where a link in the tree leads it out (`leaving_link`)."""
    found = leaving_link(path, folder)
    if found is not None:
        link, target = found
        raise RenderError(f"{what}{printable(str(path))}: {printable(str(link))} is a link to "
                          f"{printable(target)}, outside {_tree()}; archgen writes no file through a link that "
                          "leaves it")


def _tree() -> str:
    """The `boundary` as a message names it: never a machine's absolute path."""
    top = boundary()
    if top == Path.cwd().resolve():
        return "the working directory" if not (top / ".git").exists() else "the git work tree (the working directory)"
    return f"the git work tree ({Path(os.path.relpath(top)).as_posix()})"


def _why(path: Path, err: OSError) -> str:
    """What stops a write: the parent that is a file, else the system's reason."""
    blocking = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        return f"{blocking} is a file, expected a directory"
    return err.strerror or str(err)
