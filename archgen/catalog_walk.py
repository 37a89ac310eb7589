"""The shipped catalog's list of files, walked again only where a folder of it changed (`catalog_files`).

Moved out of `archgen/spec_files.py` (its size, split30), which keeps the rule of which files a spec tree's are
(`find_files`): this module only remembers what that rule returned for a catalog a process loads with every run.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from archgen.cache import Memo
from archgen.spec_files import find_files

#: How long before a walk a folder's last change must be for `catalog_files` to trust its memo of the walk: a file
#: system stamps times in ticks (Linux's coarse clock: a jiffy, 1-10 ms; FAT: 2 s), so a file added in the tick of the
#: walk could leave its folder's time as the walk saw it (git's "racily clean" entries, for the same reason).
RACY_S = 2.0
#: `catalog_files`' walks: {folder named: (it resolved, {each folder of the tree: (inode, mtime in ns)}, files)}.
_WALKED = Memo[tuple[Path, dict[str, tuple[int, int]], list[Path]]](64)


def catalog_files(catalog: Path) -> list[Path]:
    """`find_files([catalog])`, walked again only where some folder of the tree changed since the walk.

    For the catalog a process loads with every pipeline run (3 ms a walk of the shipped one's 100 files, about a sixth
    of a `pipeline.run` on specs/racks). A file added, removed or renamed changes its folder's modification time, and
    a folder added or removed its parent's; the memo holds only a tree with no symbolic link in it (a link's target
    can change with no folder of the tree changing) whose folders all changed `RACY_S` or more before the walk, and
    is used only while the folder named resolves where it did and every folder of the tree has the inode and time
    it had. What `find_files` returns reads nothing else (a file's content is `load_file`'s, keyed by content).
    """
    real = catalog.resolve()
    known = _WALKED.get(catalog)
    if known is not None and known[0] == real and _stats(known[1]) == known[1]:
        return list(known[2])
    start = time.time()
    folders = _folders(catalog)
    files = find_files([catalog])
    if folders is not None and folders == _folders(catalog) and \
            all(mtime < (start - RACY_S) * 1e9 for _, mtime in folders.values()):
        _WALKED.put(catalog, (real, folders, files))
    return list(files)


def _stats(folders: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]] | None:
    """The inode and modification time in ns of each of `folders` now; None where one is gone."""
    try:
        return {f: ((st := os.stat(f)).st_ino, st.st_mtime_ns) for f in folders}
    except OSError:
        return None


def _folders(top: Path) -> dict[str, tuple[int, int]] | None:
    """Each folder of the tree at `top` with its inode and modification time in ns (None: a link in it, or unread)."""
    out: dict[str, tuple[int, int]] = {}
    todo = [str(top)]
    try:
        while todo:
            folder = todo.pop()
            stat = os.stat(folder)
            out[folder] = stat.st_ino, stat.st_mtime_ns
            with os.scandir(folder) as entries:
                for e in entries:
                    if e.is_symlink():
                        return None
                    if e.is_dir(follow_symlinks=False):
                        todo.append(e.path)
    except OSError:
        return None
    return out
