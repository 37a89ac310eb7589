"""Which files are a spec tree's, and how reports name them: one rule for `load` and the console script's snapshot key.

`find_files` decides what is read. Everything that reads spec files goes through it first, so that nothing reads a
file `load` refuses: a link that leaves the spec tree (to a file or to a folder) is refused, unread, with its location;
and a directory named that holds no spec file is an error that says what it holds, never a green run over nothing.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from pathlib import Path

from archgen.errors import LoadError, Location, SpecProblem, UnreadableError
from archgen.path_links import climbs_out, inside, leaving_link, tree_words
from archgen.yaml_guard import char_name, entry

#: The suffixes of the files `find_files` reads under a directory (lower case, as written).
SUFFIXES = (".yaml", ".yml")
#: Characters a spec file's path under its tree may not hold: controls (line ends and ESC included), the Unicode line
#: and paragraph separators, and the lone surrogates that stand for bytes that are not UTF-8. Every report names the
#: file, and such a name broke out of its line (a PR's `x\n::error file=README.md::forged\n.yaml` printed a GitHub
#: workflow command of its own in `check`'s text and `diff`'s errors), hid text (ESC) or crashed SARIF's encoder. And
#: the directional overrides `yaml_guard.NOT_TEXT` refuses in a string, which show a name reordered.
NOT_A_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def shipped_catalog() -> Path:
    """Directory of the parts catalog shipped with archgen.

    ``archgen/catalog`` inside the package (a link to the repository's ``specs/catalog`` in a checkout); where the
    link did not survive (a checkout without symlinks), the repository's ``specs/catalog`` itself.
    """
    pkg, repo = _CATALOG_PLACES
    return pkg if pkg.is_dir() or not repo.is_dir() else repo


#: Where `shipped_catalog` looks, by this module's real path, resolved once: each call resolved it twice (two
#: `realpath` walks, 50 µs), some nine times a pipeline run, and `shown_file` of a catalog file asks four times.
_CATALOG_PLACES = (Path(__file__).resolve().parent / "catalog",
                   Path(__file__).resolve().parent.parent / "specs" / "catalog")


def packaged(file: str) -> str | None:
    """The path inside the shipped catalog (``systems/dgx-h100.yaml``) of a catalog file reports name by the package.

    That is a file of the catalog installed with archgen (a wheel's ``archgen/catalog``), or of a checkout's
    ``specs/catalog`` outside the working directory. A checkout's catalog under the working directory is None: its
    files are named relative to the working directory, as the user's are (``specs/catalog/...``), a path that
    resolves there and in the repository (SARIF's ``%SRCROOT%``). Any file outside the catalog is None too.
    """
    path = Path(file)
    if not path.is_absolute():
        return None                               # the catalog is loaded from absolute paths; this is the user's
    home = _home(path)
    return None if home is None or _in_checkout(path) else path.relative_to(home).as_posix()


def _catalogs() -> set[Path]:
    """The shipped catalog as `shipped_catalog` names it and with its links followed."""
    catalog = shipped_catalog()
    return {catalog, _real_catalog(catalog)}


@functools.cache
def _real_catalog(catalog: Path) -> Path:
    """`catalog` with its links followed, once a process (as `_CATALOG_PLACES` are found once).

    `shown_file` resolved the package's link to the catalog for every finding's file (fuzzpipe37).
    """
    return catalog.resolve()


def _home(path: Path) -> Path | None:
    """The folder of `_catalogs` that the absolute `path` is under, or None (the first, as the set gives them)."""
    return next((c for c in _catalogs() if path.is_relative_to(c)), None)


def _in_checkout(path: Path) -> bool:
    """Whether a catalog file is a checkout's (outside the installed package) and under the working directory."""
    real = path.resolve()
    try:
        cwd = Path.cwd().resolve()
    except OSError:                               # the working directory was removed
        return False
    return real.is_relative_to(cwd) and not real.is_relative_to(_PACKAGE)


#: The installed package's directory: a catalog file resolved under it is a wheel's, never the repository's.
_PACKAGE = Path(__file__).resolve().parent


def shown_file(file: str, absolute: bool = False) -> str:
    """A spec file as documents and reports show it: never a machine's absolute path, unless `absolute`.

    A file of the shipped catalog that `packaged` names is ``catalog/<kind>/<file>``; a checkout's catalog under the
    working directory is relative to it (``specs/catalog/<kind>/<file>``, the link ``archgen/catalog`` followed). A
    file given by a relative path is shown as the user wrote it; one given by an absolute path is relative to the
    working directory (a CI runner's ``$PWD/specs`` is ``specs``), with forward slashes. Outside that directory it is
    ``../`` steps from it, or with `absolute` its absolute path (``/tmp/x/r.yaml``, not ``../../../tmp/x/r.yaml``):
    `check`'s own reports, read by whoever ran it, name it so; documents and reports for others never do.
    """
    path = Path(file)
    if not path.is_absolute():
        return path.as_posix()
    home = _home(path)
    if home is not None:
        if not _in_checkout(path):
            return "catalog/" + path.relative_to(home).as_posix()
        path = path.resolve()                     # the checkout's specs/catalog, not the package's link to it
    try:
        inside = os.path.relpath(path)
    except (OSError, ValueError):                 # the working directory was removed; another drive on Windows
        return Path(os.path.normpath(path)).as_posix() if absolute else path.name
    return Path(os.path.normpath(path) if absolute and climbs_out(inside) else inside).as_posix()


def find_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``*.yaml``/``*.yml`` file under `paths`, sorted; a missing path is a `LoadError` (`find_real`)."""
    return [f for f, _ in find_real(paths)]


def find_real(paths: Iterable[str | Path]) -> list[tuple[Path, Path]]:
    """Every ``*.yaml``/``*.yml`` file under `paths` with its real path, sorted; a missing path is a `LoadError`.

    The real path is the one the rule below judges the file by (`os.path.realpath` of it: the snapshot's key names
    it, `archgen.snapshot`, without resolving each file a second time).

    A file reached through a symbolic link that leaves its spec tree (the directory named, or the folder holding a
    file named) is refused, unread, with its location: a pull request that adds ``specs/x.yaml -> ~/.git-credentials``
    must not get a line of that file quoted into a report; nor may a spec drop out of it through a dangling link. A
    link to a folder outside the tree (``specs/up -> ../../other``) is refused the same way (its files would otherwise
    drop out of the run unseen); one to a folder inside it adds nothing (its files are read where they are). Hidden
    files and folders (``.x.yaml``, ``.github/``) are not read, not even through a link: a link whose target, below
    the tree's root, has a part starting with '.' (``t4/y.yaml -> ../.git/config`` under ``archgen check .``) is
    refused with its location, as one that leaves the tree is. A directory named that holds no spec file is an error
    naming what it holds that is not read.

    A file whose suffix is ``.yaml``/``.yml`` in another case (``b200.YAML``, ``r.Yml``) is refused with its
    location, not read and not skipped: beside real specs it would otherwise drop out of the run unseen. It is
    refused rather than loaded so that the set of spec files is the same for every tool that picks YAML files by
    their suffix as written (an editor's schema mapping, a pre-commit hook, a CI path filter); the hint says what
    to rename it to.
    """
    found: dict[Path, Path] = {}  # by resolved path: a file named twice (a directory and the file in it) loads once
    problems: list[SpecProblem] = []
    folders: dict[Path, Path] = {}  # each folder resolved once (the catalog's files are named one by one)
    for raw in paths:
        p = Path(raw)
        if (out := linked_out(p)) is not None:
            problems.append(out)
            continue
        if p.is_dir():
            root = p.resolve()
            files, links, unread, miscased = _walk(p)
            problems.extend(_miscased(f) for f in miscased)
            bad = {f for f in [*files, *links] if NOT_A_NAME.search("/".join(f.parts[len(p.parts):]))}  # below p
            problems.extend(_unnamable(f) for f in [*files, *links] if f in bad)
            files, links = [f for f in files if f not in bad], [f for f in links if f not in bad]
            for link in links:
                try:
                    target = link.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue                       # a dangling link without a spec suffix: no spec of ours
                if not target.is_relative_to(root):
                    problems.append(_outside(link, root, "a folder"))
                elif _hidden(target, root):
                    problems.append(_into_hidden(link, "a folder"))
            if not files and not links and not miscased:   # a miscased file is refused where it is
                problems.append(_empty(p, unread))
        elif entry(p) or p.is_symlink():           # a file, a pipe or device `load_file` refuses by name, or a
            files, root = [p], _real_folder(p.parent, folders)   # link to nothing or a loop, refused below by name
        else:
            raise LoadError(f"{raw}: no such file or directory")
        for f in files:
            try:
                is_link = f.is_symlink()
                real = f.resolve(strict=True) if is_link else _real_folder(f.parent, folders) / f.name
            except (OSError, RuntimeError):  # a link to nothing, or a loop (3.11: RuntimeError), is no spec to skip
                problems.append(_outside(f, root, "a file") if _leaves(f, root) else
                                SpecProblem(Location(str(f)), message="a symbolic link to no file", hint="remove it"))
                continue
            if not inside(real, root):
                problems.append(_outside(f, root, "a file"))
                continue
            if is_link and _hidden(real, root):
                problems.append(_into_hidden(f, "a file"))
                continue
            found.setdefault(real, f)
    if problems:
        raise UnreadableError(problems)
    return sorted((f, real) for real, f in found.items())


def _walk(top: Path) -> tuple[list[Path], list[Path], list[str], list[Path]]:
    """The spec files under `top`, its folder links, the hidden YAML files it skips, and the miscased ones.

    A miscased file's suffix is ``.yaml``/``.yml`` in another case (``b200.YAML``); `find_files` refuses it. Links
    to folders are not followed; anything under a hidden folder, or hidden itself, is not read. The entries come in
    `Path.rglob`'s order (Python 3.11: each folder's, then its subfolders' in turn; an unreadable folder is skipped),
    from `os.scandir` with the types it read: rglob scanned each folder twice and every entry was asked two or three
    `stat` calls more, about 40 µs a file (a fifth of loading specs/, suite38). A link is still asked through `Path`.
    """
    files: list[Path] = []
    links: list[Path] = []
    unread: list[str] = []
    miscased: list[Path] = []
    todo = [(top, False)]  # (folder, whether it is hidden or under a hidden folder below `top`), depth first
    while todo:
        folder, hidden_folder = todo.pop()
        try:
            with os.scandir(folder) as found:
                entries = list(found)
        except PermissionError:
            continue
        below = []
        for e in entries:
            name, link = e.name, e.is_symlink()
            hidden = hidden_folder or name.startswith(".")
            if not link and e.is_dir():
                below.append((folder / name, hidden))
                continue
            suffix = name[name.rfind("."):] if 0 < name.rfind(".") < len(name) - 1 else ""   # `Path.suffix`
            if suffix.lower() not in SUFFIXES and not link:
                continue
            f = folder / name   # an entry that is no link or folder is there and no folder (`yaml_guard.entry`)
            if suffix in SUFFIXES and not hidden:
                files.append(f)
            elif link and not hidden and f.is_dir():
                links.append(f)
            elif suffix.lower() in SUFFIXES and not (link and f.is_dir()):
                if hidden:
                    unread.append(f"{printable(f.relative_to(top).as_posix())} (hidden)")
                else:
                    miscased.append(f)
        todo.extend(reversed(below))
    return files, links, sorted(unread), sorted(miscased)


def _miscased(f: Path) -> SpecProblem:
    """A file named like a spec but for its suffix's case (``b200.YAML``): refused, with the name to give it."""
    return SpecProblem(Location(printable(str(f))), message=f"the suffix '{f.suffix}' is not "
                       f"{' or '.join(SUFFIXES)} as written, so this file is not read",
                       expected=f"a spec file named *{' or *'.join(SUFFIXES)} (lower case)",
                       hint=f"rename it to {printable(f.stem)}{f.suffix.lower()} to have it read, or move it out of "
                            "the tree")


def printable(name: str) -> str:
    r"""A file name with each `NOT_A_NAME` character written as an escape, so that a report shows it on one line.

    A byte that is not UTF-8 (a lone surrogate from the file system) reads as its byte (``\xff``), any other as its
    code point (``\u000a``).
    """
    return NOT_A_NAME.sub(lambda m: f"\\x{ord(m[0]) - 0xDC00:02x}" if 0xDC80 <= ord(m[0]) <= 0xDCFF
                          else f"\\u{ord(m[0]):04x}", name)


#: Characters .NET's culture-aware `StartsWith`/`IndexOf` may skip as ignorable (zero-width, joiners, BOM, soft hyphen),
#: so that a line starting ``\u200b::`` may still read as a command to the runner: looked through when judging a line.
_SKIPPED = "[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]"
_IGNORABLE = re.compile(_SKIPPED)
#: GitHub's runner runs a log line as a workflow command where, leading white space trimmed, it starts with ``::``
#: (v2), or where it holds ``##[`` anywhere (v1), tried in that order. actions/runner at
#: 079cdb1d05fe0ec50f8c51de5a4fa51d0eb189b0, src/Runner.Common/ActionCommand.cs: `TryParseV2`
#: (``message.TrimStart()``, ``StartsWith("::")``) and `TryParse` (``message.IndexOf("##[")``); both are tried by
#: src/Runner.Worker/ActionCommandManager.cs, `TryProcessCommand`.
_V1_COMMAND = re.compile(f"#({_SKIPPED}*#{_SKIPPED}*\\[)")


def inert(text: str) -> str:
    r"""`text` with no line that GitHub's runner would run as a workflow command, whatever text the line carries.

    A line that starts with ``::`` (after white space and ignorable characters) gets ``./`` after its indent: the
    lines archgen prints that do are spec paths shown from inside their folder (``cd specs && archgen check .``
    printed ``::error title=forged::by PR.yaml:3:6: error: ...``, a forged annotation; ``::stop-commands::`` would
    have muted the real ones), and ``./::error ...`` names the same file. ``##[`` is written ``\u0023#[``, as
    `printable` writes what a line cannot show (in JSON on stdout, the same string once decoded). Lines that do not
    look like commands are unchanged, byte for byte.
    """
    if ":" not in text and "#" not in text:
        return text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _IGNORABLE.sub("", line).lstrip().startswith("::"):
            indent = len(line) - len(line.lstrip())             # kept: YAML or JSON on stdout keeps its shape
            line = line[:indent] + "./" + line[indent:]
        lines[i] = _V1_COMMAND.sub(lambda m: "\\u0023" + m[1], line)
    return "".join(lines)


def _unnamable(f: Path) -> SpecProblem:
    """A spec file (or a folder link) whose path holds a `NOT_A_NAME` character: refused unread, shown escaped."""
    bad = NOT_A_NAME.search(str(f))
    what = f"byte 0x{ord(bad[0]) - 0xDC00:02X} that is not UTF-8" if bad and 0xDC80 <= ord(bad[0]) <= 0xDCFF \
        else char_name(bad[0]) if bad else "a character"
    why = "would show the path reordered" if "directional" in what else "a report cannot show on its line"
    return SpecProblem(Location(printable(str(f))), message=f"the path holds {what}, which {why}, so this file is "
                       "not read",
                       expected="a path of printable UTF-8 characters",
                       hint="rename it (a CI log would otherwise obey what the name writes after a line end)")


def _outside(link: Path, root: Path, what: str) -> SpecProblem:
    """A link under `root` to `what` ('a file', 'a folder') outside it, refused unread."""
    return SpecProblem(Location(str(link)), message=f"a symbolic link to {what} outside the spec tree",
                       expected=f"{'a spec file' if what == 'a file' else what} inside {shown_file(str(root)) or '.'}",
                       hint="archgen reads no file outside the tree it is given: copy the "
                            f"{what.split()[-1]} into the tree")


def linked_out(p: Path) -> SpecProblem | None:
    """The refusal of a path named to be read that reaches out of the repository through one of its links, else None.

    `path_links.leaving_link`, the rule `render` writes by: ``specs -> ../outside`` named as ``specs/``, or a file
    under it, or a file named that is itself such a link, is refused unread with one message whether its target is a
    file, a folder or nothing (``x.yaml -> /etc/hostname`` read "a link to a file outside the spec tree", ``->
    /nowhere`` this: which runner files exist). `archgen sweep` asks it before whether its file exists, for the same.
    """
    found = leaving_link(p, folder=True)
    if found is None:
        return None
    return SpecProblem(Location(printable(str(found[0]))), message=f"a symbolic link leading out of {tree_words()}",
                       expected="a spec folder or file inside it", hint="archgen reads no file through a link that "
                       "leaves the repository: name the folder it points at, or copy the files into the tree")


def _leaves(link: Path, root: Path) -> bool:
    """Whether a link that resolves to no file points outside `root`, judged on its text, not on what exists there.

    Said as any link out of the tree is, never "to no file": the two messages told a pull request's author whether a
    path of the runner exists (`specs/x.yaml -> /home/runner/.ssh/id_rsa`, newuser65), in annotations anyone reads.
    """
    try:
        return not link.resolve(strict=False).is_relative_to(root)
    except (OSError, RuntimeError):   # a loop: it leads nowhere, inside or out
        return False


def _hidden(target: Path, root: Path) -> bool:
    """Whether `target` (resolved, under `root`) is hidden or in a hidden folder below `root` (``.git/config``)."""
    return any(part.startswith(".") for part in target.relative_to(root).parts)


def _into_hidden(link: Path, what: str) -> SpecProblem:
    """A link to `what` ('a file', 'a folder') that is hidden or in a hidden folder of the tree, refused unread.

    Hidden files are not read, and a link is no way round that: ``archgen check .`` at a repository's root would
    otherwise read ``specs/x.yaml -> ../.git/config`` (or a runner's ``.env``) and quote it in its report.
    """
    return SpecProblem(Location(str(link)), message=f"a symbolic link to {what} in a hidden folder (or hidden itself)",
                       expected=f"{'a spec file' if what == 'a file' else what} that is not hidden",
                       hint="archgen reads no hidden file or folder (.git, .github, .env), not even through a link: "
                            f"copy the {what.split()[-1]} to a name without a leading '.'")


def _empty(top: Path, unread: list[str]) -> SpecProblem:
    """A directory named that holds no spec file: a CI pointed at the wrong path must not pass over nothing."""
    held = f"; found, not read: {', '.join(unread[:5])}{', ...' if len(unread) > 5 else ''}" if unread else ""
    return SpecProblem(Location(str(top)), message=f"no spec file in this directory{held}",
                       expected="at least one *.yaml or *.yml file (hidden files and folders are not read)",
                       hint="name the directory that holds the specs, or rename the files to *.yaml")


def _real_folder(folder: Path, folders: dict[Path, Path]) -> Path:
    """`folder.resolve(strict=True)`, kept in `folders`."""
    return folders[folder] if folder in folders else folders.setdefault(folder, folder.resolve(strict=True))


def roots(paths: Iterable[str | Path]) -> tuple[str, ...]:
    """The folders the specs under `paths` are loaded from, resolved: each named folder, and a named file's own.

    A vendor's proposal is what one of them holds: a `Prices` list prices the clusters of its own folder and the
    folders under it, never another's (`analyse.price_scope`), so `archgen gap b200/ gb200/` prices each proposal by
    its own quote.
    """
    out: list[str] = []
    for p in paths:
        try:
            real = Path(p).resolve()
        except (OSError, RuntimeError):  # a link loop: loading reports it with the path (`find_real`)
            real = Path(p).absolute()
        folder = str(real if real.is_dir() else real.parent)
        if folder not in out:
            out.append(folder)
    return tuple(out)
