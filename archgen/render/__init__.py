"""Render partner-facing deliverables from a pipeline `Run`: documents, diagrams and tables per target.

`render_all` finds the targets (every rack, and every cluster once the cluster layer provides them), builds each
target's document model (`archgen.render.blocks`), renders every requested format into memory, and only then
writes the files, each atomically: a render that fails leaves the previous output intact.

Layout of ``OUT/<target>/``: ``<target>.md``, ``<target>.html``, ``<target>.pdf``, ``<target>.xlsx``,
``bom.csv``, ``requirements.csv`` (``cabling.csv`` for clusters) and one ``<diagram>.svg``/``.png`` per diagram.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from archgen.errors import UsageError
from archgen.render_caches import render_caches_kept_private

render_caches_kept_private()   # before any renderer imports matplotlib: ARCHGEN_CACHE=off writes nothing under HOME

from archgen.render.files import read_written, refuse_leaving_link, write_atomic  # noqa: E402

FORMATS = ("md", "html", "pdf", "xlsx", "csv", "svg", "png")
#: Editions of a document (`archgen.render.edition`): everything, or what a customer can read.
AUDIENCES = ("internal", "customer")


@dataclass(frozen=True)
class RenderTarget:
    """One thing a document is written for: a rack or a cluster, by id."""

    id: str
    kind: str
    analysis: Any


def targets(result: Any) -> list[RenderTarget]:
    """Every rack and cluster of a run, sorted by kind then id."""
    found = [RenderTarget(a.rack.spec.id, "rack", a) for a in result.racks.values()]
    for key, analysis in sorted(getattr(result, "clusters", {}).items()):
        cid = getattr(getattr(analysis, "spec", None), "id", None) or str(key).split("/", 1)[-1]
        found.append(RenderTarget(cid, "cluster", analysis))
    return sorted(found, key=lambda t: (t.kind != "cluster", t.id))


def render_all(result: Any, out: str | Path, *, target: str | Sequence[str] | None = None,
               formats: Sequence[str] = ("md", "svg"),
               templates: str | Path | None = None, revision: str | None = None, date: str | None = None,
               progress: bool | None = None, audience: str = "internal") -> list[Path]:
    """Render every target (or only `target`) of `result` into ``out/<target>/`` and return the written paths.

    Args:
        result: a `archgen.pipeline.Run`.
        out: output directory.
        target: a rack or cluster id, or several; None renders all of them.
        formats: any of md, html, pdf, xlsx, csv, svg, png.
        templates: a directory whose templates override the shipped ones of the same name.
        revision: the source revision to print; None asks git for the spec files' revision.
        date: a date to print in document control; None prints none (output never depends on the clock).
        progress: show a progress display on stderr; None shows it only when stderr is a terminal.
        audience: ``internal`` (everything) or ``customer`` (the edition of `archgen.render.edition`: numbered
            references, no spec locations, internal notes or links to archgen's docs, metrics by title).

    Raises:
        UsageError: an unknown format, audience or target, or a templates directory that does not exist.
    """
    from archgen.render.diagrams import drawn_once  # documents import matplotlib: only when rendering
    from archgen.render.target import render_target, reused_drawers

    if audience not in AUDIENCES:
        raise UsageError(f"unknown audience '{audience}'; expected {' or '.join(AUDIENCES)}")
    wanted = parse_formats(formats)
    override = Path(templates) if templates else None
    if override is not None and not override.is_dir():
        raise UsageError(f"templates directory '{override}' does not exist")
    found = targets(result)
    if target is not None:
        ids = [target] if isinstance(target, str) else list(dict.fromkeys(target))
        if unknown := [i for i in ids if i not in {t.id for t in found}]:
            known = ", ".join(t.id for t in found) or "none"
            raise UsageError(f"no rack or cluster {', '.join(map(repr, unknown))} (known: {known})")
        found = [t for t in found if t.id in ids]
    for t in found:                       # every target's folder judged before any is rendered (`leaving_link`)
        refuse_leaving_link(Path(out) / t.id, folder=True)
    written: list[Path] = []
    users = [draw for t in found for draw in reused_drawers(result, t)]  # each kept until its last user saved it
    with _progress(progress, len(found)) as step, drawn_once(users):
        for t in found:
            files = render_target(result, t, wanted, override, revision, date, partial(step, t.id), audience)
            base = Path(out) / t.id
            for name in sorted(files):
                written.append(write_atomic(base / name, files[name]))
            _remove_stale(base, set(files), wanted, audience)
            step(t.id, None)
    return written


#: The list of files render wrote into a target's folder, so that the next run removes only files of its own.
MANIFEST = ".archgen-files"
#: The most bytes a manifest of ours holds (a target writes a few dozen files); a larger one is not ours.
MANIFEST_MAX = 1 << 20
#: File extensions each format writes (Markdown links SVG diagrams beside it; HTML and PDF embed theirs).
_WRITES = {"md": ("md", "svg"), "html": ("html",), "pdf": ("pdf",), "xlsx": ("xlsx",), "csv": ("csv",),
           "svg": ("svg",), "png": ("png",)}


def _remove_stale(folder: Path, names: set[str], formats: tuple[str, ...], edition: str = "internal") -> None:
    """Delete the files an earlier render wrote into `folder` that this one, in the same formats, did not.

    A rack that lost its CDU leaves no cooling diagram of the last run behind, while files of formats not asked
    for this time, the other edition's documents and tables (`edition.edition_of`; the diagrams are the same in
    both), and files archgen never wrote (listed in no manifest), stay.
    """
    from archgen.render.edition import edition_of

    manifest = folder / MANIFEST
    before = set((read_written(manifest, MANIFEST_MAX) or "").split("\n")) - {""}   # never a link's target
    produced = {ext for f in formats for ext in _WRITES.get(f, ())}
    stale = {n for n in before - names if "/" not in n and n not in ("", ".", "..", MANIFEST)
             and n.rpartition(".")[2] in produced and (n.rpartition(".")[2] in ("svg", "png")
                                                       or edition_of(n) == edition)}
    for name in sorted(stale):
        try:
            (folder / name).unlink(missing_ok=True)
        except OSError:
            pass
    write_atomic(manifest, "".join(f"{n}\n" for n in sorted((before - stale) | names)).encode("utf-8"))


def parse_formats(formats: Iterable[str]) -> tuple[str, ...]:
    """The requested output formats, lower-cased and without repeats; an unknown one is a usage error."""
    wanted = tuple(dict.fromkeys(f.strip().lower() for f in formats if f.strip()))
    unknown = [f for f in wanted if f not in FORMATS]
    if unknown:
        raise UsageError(f"unknown format(s) {', '.join(unknown)}; expected some of {','.join(FORMATS)}")
    for f in wanted:  # before anything is rendered, not as a traceback half-way
        package, extra = EXTRAS.get(f, (None, None))
        if package and importlib.util.find_spec(package) is None:
            raise UsageError(f"{f.upper()} output needs the {package} package: pip install 'archgen[{extra}]'")
    return wanted


#: Formats that need an optional package: (module, the extra that installs it).
EXTRAS = {"pdf": ("typst", "pdf"), "xlsx": ("openpyxl", "office")}


class _progress:
    """A rich progress bar on stderr, one task per target; silent when stderr is not a terminal."""

    def __init__(self, enabled: bool | None, total: int) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.total = total
        self.bar: Any = None

    def __enter__(self) -> Callable[[str, str | None], None]:
        if not self.enabled:
            return lambda target, message: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("rendering"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.description}"), TimeElapsedColumn(),
                            console=Console(stderr=True), transient=True)
        self.bar.start()
        task = self.bar.add_task("", total=self.total)

        def step(target: str, message: str | None) -> None:
            if message is None:
                self.bar.advance(task)
            else:
                self.bar.update(task, description=f"{target}: {message}")

        return step

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
