"""Which catalog stands for the shipped one on a side of `archgen diff` (`commands.diff.spec_source`).

In archgen's own repository `specs/catalog` is the shipped catalog (`archgen/catalog` links to it): a revision's
export of it, or a checkout's, is the library, not the user's parts. Which repository is archgen's own is decided by
the running package (`is_own`), never by a folder of that name; any other repository's sides use the shipped catalog.
"""

from __future__ import annotations

import posixpath
import subprocess
from pathlib import Path

from archgen.errors import UsageError
from archgen.load import shipped_catalog


def git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`git ARGS` run in `cwd`, its output captured; a `UsageError` where git is not installed."""
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed, so BASE and HEAD must be directories") from None


#: Where archgen's own repository links its package to the shipped catalog (`spec_files.shipped_catalog`).
CATALOG_LINK = "archgen/catalog"


def own_top() -> Path | None:
    """The work tree of archgen's own repository that the running archgen is a checkout of; None for a wheel.

    In a checkout, the package's `CATALOG_LINK` is a link (to ``specs/catalog``) and the package's parent the work
    tree; a wheel's catalog is a folder, so no repository is archgen's own, wherever the wheel is installed (a
    ``.venv`` inside the user's repository included).
    """
    link = Path(__file__).resolve().parents[1] / "catalog"
    top = link.parent.parent
    return top if link.is_symlink() and (top / ".git").exists() else None


def is_own(top: Path) -> bool:
    """Whether the git work tree `top` is archgen's own repository, the checkout archgen runs from (`own_top`).

    Decided by the installed package, not by the repository's files: any repository may hold a folder or link named
    `CATALOG_LINK`, and a pull request adding ``archgen/catalog -> ../specs`` had its own specs taken for the
    library in place of the shipped catalog (HEAD lost every catalog part: 177 new errors on the shipped specs).
    """
    own = own_top()
    return own is not None and top.resolve() == own.resolve()


def library(catalog: Path, specs: Path) -> Path | None:
    """`catalog`, the folder a repository's `CATALOG_LINK` is or points to, where it stands for the shipped catalog.

    That is archgen's own repository, whose `specs/catalog` is the shipped catalog: loaded as `specs` is, its parts
    are the library's, as in a checkout, not the user's. A catalog outside `specs`, or none (any other repository):
    None, the shipped catalog, as `archgen check` uses it.
    """
    return catalog if catalog.is_relative_to(specs) and catalog.is_dir() else None


def revision_catalog(commit: str, top: Path) -> str | None:
    """The repository path of the folder `CATALOG_LINK` is or links to in a revision; None where it has none."""
    mode = git(["ls-tree", commit, "--", CATALOG_LINK], top).stdout.decode(errors="replace").split(" ")[0]
    if mode == "040000":
        return CATALOG_LINK
    link = git(["cat-file", "-p", f"{commit}:{CATALOG_LINK}"], top) if mode == "120000" else None
    if link is None or link.returncode != 0:
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(CATALOG_LINK), link.stdout.decode(errors="replace")))


def checkout_catalog(directory: Path) -> Path | None:
    """The catalog that stands for the shipped one for a spec directory (`library`); None: the shipped catalog.

    The folder `CATALOG_LINK` of the directory's git repository is or links to; None outside a repository, and
    where it is the shipped catalog itself (the checkout archgen runs from).
    """
    try:
        top = git(["rev-parse", "--show-toplevel"], directory)
    except UsageError:                       # no git: the directory is used as it is
        return None
    if top.returncode != 0:
        return None
    if not is_own(Path(top.stdout.decode().strip())):
        return None
    catalog = (Path(top.stdout.decode().strip()) / CATALOG_LINK).resolve()
    found = library(catalog, directory.resolve())
    return None if found is None or found == shipped_catalog().resolve() else found
