"""`archgen diff BASE HEAD`: the specs of two sides (directories or git revisions) run and compared.

`spec_source` gives the spec directory of a BASE or HEAD argument: a directory as it is, or the specs of a git
revision exported to a temporary directory, and the catalog that stands for the shipped one on that side: in
archgen's own repository, `specs/catalog` is the shipped catalog (`archgen/catalog` links to it), and a revision's
export of it must be the library too, not the user's parts (every library rack would join its design). Which
repository is archgen's own is decided by the running package (`side_catalog.is_own`), never by a folder of that name.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from archgen.as_of import given
from archgen.commands.common import REPORT_FORMATS
from archgen.commands.side_catalog import checkout_catalog, git, is_own, library, revision_catalog
from archgen.compare.diff import compare
from archgen.compare.pairs import parse_pairs, read_pairs
from archgen.compare.waiver_changes import WaiverChange, WaiverState
from archgen.errors import ArchgenError, LoadError, Location, SpecError, SpecProblem, UnreadableError, UsageError
from archgen.output import diff as output
from archgen.output import diff_customer as customer
from archgen.pipeline import Run, run
from archgen.render import AUDIENCES
from archgen.render.files import write_atomic
from archgen.spec_files import printable

#: How the errors of a side that cannot be analysed are headed (`diff`); `failed_side` reads the side back.
CANNOT = "archgen diff: {side}, {label}, cannot be analysed:"


def diff(base: str, head: str, fmt: str = "md", path: str | None = None, threshold: float = 0.1,
         as_of: str | None = None, pair: tuple[str, ...] = (), pairs_file: Path | None = None,
         audience: str = "internal") -> tuple[str, int]:
    """The report comparing BASE with HEAD (`threshold` in percent); exit code 1 when HEAD fails.

    `pair`: `--pair BASE_ID=HEAD_ID` arguments, HEAD's object compared as BASE's (`compare.pairs`); `pairs_file`:
    `--pairs FILE`, more of them kept in a file (`compare.pairs.read_pairs`), read before `pair`.

    `as_of`: `--as-of`, the day both sides' waivers' `expires` is judged on (`as_of`), one date for both.

    `path`: `--path`, the spec directory inside a git revision (``specs`` where not given); stated where BASE and
    HEAD are both directories it would read nothing, so it is refused (newuser95: `diff a/ b/ --path specs`, meant to
    add the shipped clusters to both sides, was passed over and the report read "No differences").

    `audience`: ``internal`` (the pull-request comment) or ``customer`` (the change list a partner receives, with
    nothing of ours: `output.diff_customer`); the rows, counts and exit code are the same.

    HEAD fails when a requirement newly fails or it has error findings. A side whose specs have errors raises them,
    headed by which side it is.
    """
    if fmt not in REPORT_FORMATS:
        raise UsageError(f"unknown format '{fmt}'; expected md or json")
    if audience not in AUDIENCES:
        raise UsageError(f"unknown audience '{audience}'; expected {' or '.join(AUDIENCES)}")
    if not threshold >= 0 or threshold == float("inf"):  # NaN compares false and hid every change
        raise UsageError(f"--threshold {threshold}: expected a finite percentage >= 0")
    if path is not None and all(Path(arg).is_dir() for arg in (base, head)):
        raise UsageError(f"--path {path}: BASE and HEAD are both spec directories, so no git revision is read and "
                         "--path names nothing; give each side's specs as its directory (a design and the shipped "
                         "specs it names together in one folder), or leave --path out")
    path = "specs" if path is None else path
    pairs = parse_pairs((*(read_pairs(pairs_file) if pairs_file else ()), *pair))
    runs = []
    on = given(as_of)
    out: list[SpecProblem] = []           # links out of the specs, of either side, left out unread
    sides: list[tuple[str, str]] = []     # (side, the link's path) of each, for the report
    with ExitStack() as stack:
        for name, arg in (("BASE", base), ("HEAD", head)):
            source = stack.enter_context(spec_source(arg, path))
            out += source.refused
            sides += [(name, str(p.location)) for p in source.refused]
            try:
                analysed = run([source.directory], catalog=source.catalog, as_of=on)
                runs.append((relocate_run(analysed, source), source.label, source))
            except SpecError as err:
                raise relocate_error(err, source, CANNOT.format(side=name, label=source.label), out) from None
    result = compare(runs[0][0], runs[1][0], threshold=threshold / 100, base_label=runs[0][1],
                     head_label=runs[1][1], pairs=pairs)
    result = replace(result, waivers=tuple(   # a waiver's line, as a finding's, is a file of the checkout
        WaiverChange(_relocated(w.base, runs[0][2]), _relocated(w.head, runs[1][2])) for w in result.waivers),
        prices=tuple(replace(p, location=runs[1 if p.head is not None else 0][2].relocate(p.location))
                     for p in result.prices), refused=tuple(sides))
    edition = customer if audience == "customer" else output
    text = edition.to_json(result) if fmt == "json" else edition.markdown(result)
    if out:
        raise LinksOut(out, text)
    return text, 1 if result.failing else 0


def failed_side(err: Exception) -> str:
    """Which side, BASE or HEAD, an error `diff` raised is of (its heading, `CANNOT`); "" where it names none."""
    heading = getattr(err, "heading", "")
    return next((side for side in ("BASE", "HEAD") if heading.startswith(f"archgen diff: {side}, ")
                 and heading.endswith(" cannot be analysed:")), "")


def unanalysable(err: ArchgenError, fmt: str, audience: str = "internal") -> str:
    """The report of a diff that `err` stopped, for its audience.

    Internal: each error at its file:line (`output.diff.unanalysable`). Customer: which revision failed and how many
    errors it has, nothing of our tree (`diff_customer.not_made`).
    """
    if audience == "customer":
        return customer.not_made(failed_side(err), len(getattr(err, "problems", ())), err.exit_code, fmt)
    return output.unanalysable(err.report(), err.exit_code, fmt)


class LinksOut(UnreadableError):
    """Links leading out of the specs that `diff` left out unread (exit 2), with the report on everything else.

    The CLI writes `compared` where a report goes and prints the links, each at its path, as any unreadable input.
    """

    def __init__(self, problems: list[SpecProblem], compared: str):
        super().__init__(problems, "archgen diff: links leading out of the specs left out unread; everything else "
                                   "was compared:")
        self.compared = compared


def for_comment(text: str, fmt: str, file: Path) -> str:
    """The report to write to `file` (`--output`): a Markdown one cut to a comment's length where it is longer.

    The cut is `output.diff.comment`'s. A Markdown report is also written whole beside it as ``<stem>.full<suffix>``
    (``diff.md`` → ``diff.full.md``) for the job's artifact, cut or not: written only when cut, a ``diff.full.md``
    the pull request committed went into the artifact as archgen's (newuser39's open item 7); now whatever is there
    is replaced. JSON is never cut; nor is a report printed on stdout, which has no second file to point to.
    """
    if fmt != "md":
        return text
    full = file.with_name(f"{file.stem}.full{file.suffix}")
    write_atomic(full, text.encode())
    cut = output.comment(text, full.name)
    return text if cut is None else cut


# --- BASE and HEAD arguments ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where one side's specs are: the directory to run on, a label for the report, and how to show its files."""

    directory: Path
    label: str
    root: Path | None = None  # export directory that stands for the repository's top level
    top: Path | None = None   # the repository's top level
    catalog: Path | None = None  # the library in place of the shipped catalog (`library`); None: the shipped one
    refused: tuple[SpecProblem, ...] = ()  # links out of the specs left out of the export, unread (`_export`)

    def relocate(self, location: Location | None) -> Location | None:
        """A location in an exported revision as the path of the same file in the checkout, relative to cwd."""
        if location is None or self.root is None or self.top is None:
            return location
        try:
            inside = Path(location.file).relative_to(self.root)
        except ValueError:
            return location
        return replace(location, file=os.path.relpath(self.top / inside))


def relocate_run(run: Run, source: Source) -> Run:
    """The run with its findings' locations shown as files of the checkout rather than of the export."""
    if source.root is None:
        return run
    return replace(run, findings=[replace(f, location=source.relocate(f.location)) for f in run.findings])


def _relocated(state: WaiverState | None, source: Source) -> WaiverState | None:
    """A waiver of an exported revision with its location shown as the file of the checkout."""
    return state if state is None else replace(state, location=source.relocate(state.location))


def relocate_error(err: SpecError, source: Source, heading: str = "",
                   refused: list[SpecProblem] | None = None) -> SpecError:
    """A spec error of an exported revision with its locations shown as files of the checkout, under `heading`.

    `refused`: the links out of the specs left out so far (`Source.refused`), named with the error, whose exit code
    is then an unreadable input's (2) where its own is lower.
    """
    problems = err.problems if source.root is None else [replace(p, location=source.relocate(p.location))
                                                         for p in err.problems]
    kind = UnreadableError if refused and err.exit_code < UnreadableError.exit_code else type(err)
    return kind([*problems, *(refused or ())], heading)


@contextmanager
def spec_source(arg: str, path: str = "specs", cwd: Path | None = None) -> Iterator[Source]:
    """The specs named by a BASE or HEAD argument: a directory, or `path` in a git revision.

    A revision's `path` is exported as committed (`_export`) into a temporary directory that is removed on exit; a
    name that is both a directory and a revision is refused (`_refuse_ambiguous`). An unknown revision is a
    `UsageError`; a `path` missing from the revision, or one that is not a directory there, a `LoadError`. On
    either side, the catalog that the repository's `archgen/catalog` links to stands for the shipped one where it
    lies in the specs (`side_catalog.library`: archgen's own repository).
    """
    cwd = Path.cwd() if cwd is None else cwd
    if (cwd / arg).is_dir():
        _refuse_ambiguous(arg, cwd)
        yield Source(Path(arg), arg, catalog=checkout_catalog(cwd / arg))
        return
    if (cwd / arg).exists():
        raise UsageError(f"{arg}: not a directory (BASE and HEAD are spec directories or git revisions)")
    top = git(["rev-parse", "--show-toplevel"], cwd)
    if top.returncode != 0:
        raise UsageError(f"{arg}: no such directory, and {_shown_dir(cwd)} is not in a git repository")
    top_dir = Path(top.stdout.decode().strip())
    sha = git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{arg}^{{commit}}"], cwd)
    if arg.startswith("-") or sha.returncode != 0:
        raise UsageError(f"{arg}: neither a directory nor a git revision")
    commit = sha.stdout.decode().strip()
    inside = Path(os.path.relpath((cwd / path).resolve(), top_dir.resolve()))
    if inside.parts[:1] == ("..",):
        raise UsageError(f"--path {path}: outside the git repository (its top level: {_shown_dir(top_dir)})")
    label = f"{arg} ({commit[:7]})" if not commit.startswith(arg) else commit[:7]
    with tempfile.TemporaryDirectory(prefix="archgen-diff-") as tmp:
        root = Path(tmp)
        out = _export(commit, inside.as_posix(), top_dir, root, arg, path)
        if not (root / inside).is_dir():
            raise LoadError(f"{path}: not a directory in revision {arg}")
        found = revision_catalog(commit, top_dir) if is_own(top_dir) else None
        catalog = library(root / found, root / inside) if found else None
        yield Source(root / inside, label, root, top_dir, catalog, tuple(link_out(name, arg, top_dir) for name in out))


def _refuse_ambiguous(arg: str, cwd: Path) -> None:
    """Refuse `arg` (`UsageError`) where it names a directory and a git revision both, as git refuses such a name.

    A pull request that commits a folder ``HEAD/`` (a copy of the base's specs) had the README's
    ``archgen diff origin/main HEAD`` compare the base with that folder, not with the pull request's ``specs``:
    "✅ ... No differences", exit 0, over a requirement newly failing. ``./HEAD`` names the folder alone (no revision
    is spelt so).
    """
    if arg.startswith("-"):
        return
    found = git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{arg}^{{commit}}"], cwd)
    if found.returncode == 0:
        raise UsageError(f"{printable(arg)}: both a directory and a git revision of this repository; write "
                         f"./{printable(arg)} for the directory, or remove or rename the directory to compare the "
                         "revision")


def _export(commit: str, inside: str, top: Path, root: Path, arg: str, path: str) -> list[str]:
    """Write the files under `inside` in `commit` into `root` as committed, whatever the tree's `.gitattributes` say.

    Not `git archive`: it honours the archived tree's attributes, so a pull request's `export-ignore` hid a file from
    the diff and `export-subst` rewrote one (tests/test_hostile_pr.py). Blobs are read one at a time through
    `git cat-file --batch`; a link is written as a link where it stays inside the export, and left out unread where
    it leaves it (itself, through a chain of links, or through a folder that is a link out), as tarfile's data filter
    refused it. Returns the repository paths of the links left out, every one: the diff compares the rest and names
    them (`refused`), where it stopped at the first (newuser65's open item 7).
    """
    listing = git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", inside], top)
    entries = [line.split(b"\t", 1) for line in listing.stdout.split(b"\0") if line]
    if listing.returncode != 0 or not entries:
        raise LoadError(f"{path}: not in revision {arg}")
    links: list[tuple[str, str]] = []
    with subprocess.Popen(["git", "cat-file", "--batch"], cwd=top, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE) as batch:
        assert batch.stdin is not None and batch.stdout is not None
        for meta, raw in entries:
            mode, kind, sha = meta.decode().split(" ")
            name = raw.decode("utf-8", "surrogateescape")
            if kind != "blob" or ".." in Path(name).parts:   # a submodule, or a name git itself refuses to check out
                continue
            batch.stdin.write(sha.encode() + b"\n")
            batch.stdin.flush()
            size = int(batch.stdout.readline().split()[2])
            if mode == "120000":
                links.append((name, batch.stdout.read(size).decode("utf-8", "surrogateescape")))
            else:
                try:
                    (root / name).parent.mkdir(parents=True, exist_ok=True)
                    with (root / name).open("wb") as out:
                        _copy(batch.stdout, out, size)
                except OSError:                       # a tree naming `a` twice, as a file and as a folder
                    raise LoadError(f"revision {arg}: {printable(name)}: a file where the revision also has a "
                                    "folder of that name") from None
            batch.stdout.read(1)                      # the newline after each object
        batch.stdin.close()
    refused: list[str] = []
    for name, target in links:                        # after the files, so that no file is written through a link
        if not _stays_inside(root, (root / name).parent):
            refused.append(name)                      # its folder is a link out: made, it would lie outside
            continue
        try:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).symlink_to(target)
        except OSError:
            raise LoadError(f"revision {arg}: {printable(name)}: a link where the revision also has a folder") \
                from None
    made = [name for name, _ in links if name not in refused]
    out = [name for name in made if _leads_out(root, name)]   # judged with every link in place: a chain as read
    for name in out:                                  # then taken away, unread: what is left reads inside alone
        (root / name).unlink()
    return sorted([*refused, *out])


def link_out(name: str, arg: str, top: Path) -> SpecProblem:
    """The problem of a link out of the exported specs that `_export` left out: its path in the checkout, no target.

    Said as `check` says a link out of the spec tree, whatever it points at: its target is the pull request's own
    text, but a path of the runner named there read differently by whether it exists (`spec_files._leaves`).
    """
    return SpecProblem(Location(printable(os.path.relpath(top / name))),
                       message=f"revision {printable(arg)}: a symbolic link leading out of the specs, left out unread",
                       expected="a spec file, or a link to one inside the specs",
                       hint="archgen reads no file outside the exported tree; it compared everything else without "
                            "the link, and fails the job until it is removed or points inside the specs")


def _leads_out(root: Path, name: str) -> bool:
    """Whether the link `name`, made in `root`, resolves outside it; a loop does not (the system cannot open it).

    A loop stays, for the load to name as `check` does ("a symbolic link to no file"; it was a traceback, review33).
    """
    try:
        return not (root / name).resolve().is_relative_to(root.resolve())
    except RuntimeError:
        return False


def _stays_inside(root: Path, folder: Path) -> bool:
    """Whether `folder`, made where it is missing, lies inside `root`: judged where the way to it already exists.

    A link written earlier may stand on that way: a tree that names `d` twice, once a link out (``d -> /tmp/x``) and
    once a folder holding a link ``d/e`` (git builds such a tree, ``git fsck`` calls it duplicateEntries; on a file
    system that ignores case ``D`` and ``d/e`` are enough), had ``d/e`` made in ``/tmp/x``, outside the export,
    before any link was judged.
    """
    existing = next(p for p in (folder, *folder.parents) if os.path.lexists(p))
    return existing.resolve().is_relative_to(root.resolve())


def _copy(source: IO[bytes], out: IO[bytes], size: int) -> None:
    """`size` bytes from `source` to `out`, a megabyte at a time (a large blob is never held whole)."""
    while size:
        chunk = source.read(min(size, 1 << 20))
        if not chunk:
            raise LoadError("git cat-file ended early")
        out.write(chunk)
        size -= len(chunk)


def _shown_dir(directory: Path) -> str:
    """A directory as a message shows it: relative to the working directory, never a machine's absolute path.

    ``..`` or ``../repo``; "the working directory" for ``.`` itself.
    """
    try:
        rel = os.path.relpath(directory)
    except ValueError:                            # another drive on Windows: no relative path exists
        return directory.name
    return "the working directory" if rel == "." else Path(rel).as_posix()
