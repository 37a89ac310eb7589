"""`archgen render`: documents and diagrams of every rack and cluster (or one target) into OUT/<target>/."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from archgen.commands.common import check_out_dir, failing_note, spec_paths, split
from archgen.errors import UsageError
from archgen.pipeline import run
from archgen.render import AUDIENCES, render_all


def render(paths: Sequence[Path] | None, target: str | None, out: Path, formats: str,
           templates: Path | None = None, progress: bool = False,
           note: Callable[[str], None] = lambda text: None, audience: str = "internal") -> tuple[str, int]:
    """The files written, one per line; exit code 1 when the specs have error findings (`note` says so)."""
    check_out_dir(out)
    if audience not in AUDIENCES:  # before the pipeline runs
        raise UsageError(f"unknown audience '{audience}'; expected {' or '.join(AUDIENCES)}")
    # with the growth series of each cluster document rendered (a rack's document shows none)
    result = run(spec_paths(paths), scaling=True if target is None else {target})
    written = render_all(result, out, target=target, formats=split(formats), templates=templates, progress=progress,
                         audience=audience)
    if result.errors:
        note(failing_note(result.errors))
    return "".join(f"{p}\n" for p in written), 1 if result.errors else 0
