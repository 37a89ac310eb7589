"""Links a repository can hold that lead out of it: the one rule for the files archgen reads and those it writes.

A pull request controls every entry of the checkout, links included. The git work tree that holds the working
directory (`boundary`) is the tree it controls; a path named on the command line that lies in that tree but reaches,
through one of its links, a folder outside it (``specs -> /home/runner``, ``out -> ../victim``) is refused: `spec_files`
reads no spec through such a link (newuser77: ``specs -> ../outside`` had `archgen check specs/` quote the keys and
values of every YAML file there into SARIF), and `render.files` writes no file through one. A path written outside the
tree, or a link outside it (the user's own ``/tmp`` on macOS), is the user's to choose and is not judged.
"""

from __future__ import annotations

import os
from pathlib import Path


def boundary() -> Path:
    """The tree a checkout's links are judged in: the git work tree holding the working directory, else that directory.

    The top level is found by its ``.git`` entry (a folder, or a file in a worktree or submodule), without running git.
    """
    cwd = Path.cwd().resolve()
    return next((d for d in (cwd, *cwd.parents) if (d / ".git").exists()), cwd)


def leaving_link(path: Path, folder: bool = False) -> tuple[Path, str] | None:
    """The first link on the way to `path` that lies inside the `boundary` and leads out of it, with its target.

    The path is walked folder by folder as the system does (a link followed where it stands, ``..`` from where the
    walk is), so ``out/../x`` through a link `out` is judged where it lands. A link outside the boundary is not
    judged, and a path given outside it without links is the user's to choose; only a link the repository could
    hold, pointing out of it, is found. The last component is followed only for a `folder` (`--out`, a spec folder):
    a link to a file is judged by its caller (`render.files.write_atomic` replaces it rather than writing through it;
    `spec_files.find_files` refuses one out of its folder).
    """
    try:
        top, here = boundary(), Path.cwd().resolve()
    except OSError:                               # the working directory was removed: the read or write fails itself
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
        real = Path(os.path.realpath(step))       # a loop of links is left as it is: the read or write fails on it
        if step.parent.is_relative_to(top) and not real.is_relative_to(top):
            return Path(*parts[:i + 1]), os.readlink(step)
        here = real
    return None


def inside(path: Path, top: Path) -> bool:
    """`path.is_relative_to(top)`, by their parts (which a `Path` keeps once made), as pathlib compares them on POSIX.

    pathlib's parses `top` again at each call (about 5 µs): loading specs/ asked it some 600 times (suite38). Parts
    are compared as written (pathlib ignores case on Windows): the callers pass paths resolved the same way.
    """
    return path.parts[:len(top.parts)] == top.parts


def climbs_out(relative: str) -> bool:
    """Whether a relative path names a place outside the folder it is relative to.

    That is, its first step, normalised, is ``..`` (``../r.yaml``, ``specs/../../r.yaml``; not ``..r/x.yaml``, a
    folder whose name starts with two dots).
    """
    return Path(os.path.normpath(relative)).parts[:1] == (os.pardir,)


def _is_link(path: Path) -> bool:
    try:
        return path.is_symlink()
    except OSError:                               # a folder that cannot be read: the read or write fails there, named
        return False


def tree_words() -> str:
    """The `boundary` as a message names it: never a machine's absolute path."""
    top = boundary()
    if top == Path.cwd().resolve():
        return "the working directory" if not (top / ".git").exists() else "the git work tree (the working directory)"
    return f"the git work tree ({Path(os.path.relpath(top)).as_posix()})"


def hidden_through_link(path: Path) -> bool:
    """Whether a link on the way to `path` lands it in a hidden file or folder of the `boundary` (``.git/config``).

    A file named with a '.' in its own path is the user's to choose; one a link of the checkout leads into a hidden
    place (``cases.yaml -> .git/config``, where a CI checkout keeps its token) is not read, as `spec_files` reads none.
    """
    top = boundary()
    real, written = Path(os.path.realpath(path)), Path(os.path.abspath(path))
    return real != written and real.is_relative_to(top) and any(
        p.startswith(".") for p in real.relative_to(top).parts) and not any(
        p.startswith(".") and p not in (".", "..") for p in Path(path).parts)
