"""What several commands share: default spec paths, report formats, check-ID options, and checks of output paths."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from archgen.errors import ArchgenError, SpecError, UsageError, did_you_mean
from archgen.pipeline import load
from archgen.render.files import refuse_leaving_link
from archgen.validate import Specs, validate

#: The spec directory a command reads when given no path.
DEFAULT_SPECS = Path("specs")
#: The formats `archgen diff` and `archgen gap` write their report in (`output.diff`, `output.gap`).
REPORT_FORMATS = ("md", "json")


def spec_paths(paths: Sequence[Path] | None) -> list[Path]:
    """The paths given, or `specs/`."""
    return list(paths) if paths else [DEFAULT_SPECS]


def existing_spec_paths(paths: Sequence[Path] | None) -> list[Path]:
    """The paths given, or `specs/` where it exists (a command that also reads the shipped catalog)."""
    return list(paths) if paths else [p for p in spec_paths(paths) if p.exists()]


def sweep_paths(given: Sequence[Path], paths: Sequence[Path] | None) -> tuple[list[Path], list[Path]]:
    """`archgen sweep PATH... [--path PATH]`: the files whose Sweep documents run, and the spec paths.

    Paths are given as arguments, as `check`, `render` and `estimate` take them, or with `--path` (both add up). A
    file argument may hold Sweep documents (those run; `commands.sweep.analyse`) or other specs; a directory argument
    is a spec path only, so that `archgen sweep specs my/sw.yaml` runs my/sw.yaml's sweeps, not the shipped ones.
    Without a directory or `--path`, specs/ is read where it exists (`existing_spec_paths`). A lone argument is the
    sweep file, whatever it is (a directory is refused as one).
    """
    files = [p for p in given if not p.is_dir()] if len(given) > 1 else list(given)
    return files, existing_spec_paths([*(p for p in given if p not in files), *(paths or ())])


def split(codes: str) -> tuple[str, ...]:
    """A comma-separated option as its items, blanks dropped."""
    return tuple(c.strip() for c in codes.split(",") if c.strip())


def check_codes(option: str, codes: str) -> tuple[str, ...]:
    """The check IDs or prefixes given to `option`; one that no check ID starts with is a usage error."""
    from archgen.checks import REGISTRY, RESERVED
    ids = sorted([*REGISTRY, *RESERVED])
    known = ids + sorted({i[:-3] for i in ids})  # IDs and their prefixes (PWR, NET)
    unknown = [f"'{c}'" + (f" ({hint})" if (hint := did_you_mean(c, known)) else "") for c in split(codes)
               if not any(i.startswith(c) for i in ids)]
    if unknown:
        raise UsageError(f"{option}: unknown check ID or prefix {', '.join(unknown)}; `archgen checks` lists them")
    return split(codes)


def check_output_file(output: Path | None) -> None:
    """`--output` must not be a directory, nor lie through a link that leaves the work tree (`leaving_link`)."""
    if output is not None and output.is_dir():
        raise UsageError(f"{output}: is a directory, expected a file")
    if output is not None:
        refuse_leaving_link(output, "--output ")


def check_out_dir(out: Path) -> None:
    """Check, before anything is written, that `--out` is a directory or does not exist yet, through no leaving link.

    A link in the work tree that leads out of it is refused (`leaving_link`); `write_atomic` judges each file too.
    """
    existing = next((p for p in (out, *out.parents) if p.exists()), None)  # `out` or the folder it would go in
    if existing is not None and not existing.is_dir():
        raise UsageError(f"--out must be a directory; {existing} is a file")
    refuse_leaving_link(out, "--out ", folder=True)


@contextmanager
def located(specs: Specs, fallback: tuple[str, tuple[str | int, ...]] | None = None) -> Iterator[None]:
    """Place an error of the library that has no location at its subject's spec line, else at `fallback`'s.

    The performance model knows ids, not files: what it raises names the document and field at fault (`subject`);
    a command holds the specs and shows the error there, or at what it was running (a workload's job), so that no
    error of the model reaches the user without a ``file:line``. Usage errors and problem lists pass unchanged.
    """
    try:
        yield
    except ArchgenError as err:
        if err.location is None and not isinstance(err, UsageError | SpecError):
            err.location = next((at for ref in (err.subject, fallback) if ref and (at := specs.locate(*ref))), None)
        raise


def load_specs(paths: Sequence[Path] | None) -> Specs:
    """The validated specs under `paths` (default `specs/` where it exists) with the shipped catalog."""
    return validate(*load(existing_spec_paths(paths)))


def failing_note(errors: Sequence[str]) -> str:
    """Why a command that wrote its documents exits 1: the specs have error findings (`errors`: their check ids).

    As the documents' control table names them ("Draft — has failing checks: SWP002"); newuser107: a sweep's note
    named none, and its own SWP002 took a `check` of the whole tree to find.
    """
    return (f"{len(errors)} error finding(s) in the specs: the documents are marked as failing checks: "
            f"{', '.join(sorted(set(errors)))}; `archgen check` lists them")
