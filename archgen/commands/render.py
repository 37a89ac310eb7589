"""`archgen render`: documents and diagrams of every rack and cluster (or one target) into OUT/<target>/."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from archgen.as_of import given
from archgen.commands.common import check_out_dir, failing_note, spec_paths, split
from archgen.errors import UsageError
from archgen.load import shown_file
from archgen.pipeline import run
from archgen.render import AUDIENCES, render_all


def render(paths: Sequence[Path] | None, target: str | Sequence[str] | None, out: Path, formats: str,
           templates: Path | None = None, progress: bool = False,
           note: Callable[[str], None] = lambda text: None, audience: str = "internal",
           as_of: str | None = None) -> tuple[str, int]:
    """The files written, one per line; exit code 1 when the specs have error findings (`note` says so).

    `as_of`: `--as-of`, the day waivers' `expires` is judged on (`as_of`), as `archgen check` takes it, so that a
    document shows the findings and waivers `check` shows on that day. `target`: `--target`, repeatable (newuser108:
    a second `--target` silently replaced the first, and one document was written where two were asked for).
    """
    targets = [target] if isinstance(target, str) else list(target or ())
    check_out_dir(out)
    if audience not in AUDIENCES:  # before the pipeline runs
        raise UsageError(f"unknown audience '{audience}'; expected {' or '.join(AUDIENCES)}")
    on = given(as_of)
    # with the growth series of each cluster document rendered (a rack's document shows none)
    result = run(spec_paths(paths), scaling=set(targets) or True, as_of=on)
    written = render_all(result, out, target=targets or None, formats=split(formats), templates=templates,
                         progress=progress, audience=audience)
    for text in foreign_requirements(result, spec_paths(paths)):
        note(text)
    if result.errors:
        note(failing_note([f.id for f in result.errors]))
    return "".join(f"{p}\n" for p in written), 1 if result.errors else 0


def foreign_requirements(result: Any, roots: Sequence[Path], skip: frozenset[Path] = frozenset(), given: str = "PATH",
                         advice: str = "render each project on its own to keep them apart") -> list[str]:
    """A warning per Requirements file whose glob subjects (``rack/*``) bind objects of another PATH given.

    Rendered together (`render specs examples`), a glob of one project's requirements applies to every project's
    objects (README, Vendor proposals); a team that keeps vendor projects in one repository would otherwise send one
    project's requirements in another's documents unawares. Requirements written with an object's own id, and a
    PATH given alone, are never foreign. An object of the shipped library (a library rack) belongs to the PATHs whose
    clusters place it: it is another PATH's where those clusters are all another's (vendor B's `rack/mi355x-compute`
    under vendor A's `rack/*` rules). `skip`: files (resolved) whose requirements are meant for every PATH (`gap`'s
    `--against`); `given` and `advice`: the command's words for a PATH and for what to do.
    """
    if len(roots) < 2:
        return []
    sources = result.specs.sources
    placed = _placed_by(result, roots)
    found: dict[Path, dict[str, set[str]]] = {}
    for j in result.requirements:
        b = j.bound
        owner, subject_id = sources.get(b.owner), b.subject.split("/")[1] if b.subject.count("/") else ""
        obj = sources.get(subject_id)
        if not b.pattern or owner is None or obj is None or Path(owner.file).resolve() in skip:
            continue
        mine, theirs = _root(owner.file, roots), _root(obj.file, roots)
        users = {theirs} if theirs is not None else placed.get(subject_id, set())
        if mine is not None and users and mine not in users:
            found.setdefault(owner.file, {}).setdefault(b.req.id, set()).add(b.subject)
    return [f"warning: {shown_file(str(file))} applies its requirements to objects of another {given} given: "
            + "; ".join(f"{rid} on {_some(sorted(subjects))}" for rid, subjects in sorted(reqs.items()))
            + f". Its glob subjects match every {given}'s objects; {advice}."
            for file, reqs in sorted(found.items())]


def _placed_by(result: Any, roots: Sequence[Path]) -> dict[str, set[Path]]:
    """By id of a rack from no PATH given (the library's), the PATHs whose clusters place it."""
    sources = result.specs.sources
    out: dict[str, set[Path]] = {}
    for c in result.design.clusters:
        at = sources.get(c.spec.id)
        root = _root(at.file, roots) if at is not None else None
        for rid in c.rack_types:
            if root is not None and (rack := sources.get(rid)) is not None and _root(rack.file, roots) is None:
                out.setdefault(rid, set()).add(root)
    return out


def _some(names: list[str], shown: int = 3) -> str:
    """The first `shown` names, and how many more."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _root(file: Path, roots: Sequence[Path]) -> Path | None:
    """The PATH given that holds `file`, or None (the shipped catalog's library, say)."""
    at = Path(file).resolve()
    for root in roots:
        r = Path(root).resolve()
        if at == r or at.is_relative_to(r):
            return r
    return None
