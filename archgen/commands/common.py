"""What several commands share: default spec paths, check-ID options, and checks of output paths."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from archgen.errors import UsageError, did_you_mean
from archgen.pipeline import load
from archgen.validate import Specs, validate

#: The spec directory a command reads when given no path.
DEFAULT_SPECS = Path("specs")


def spec_paths(paths: Sequence[Path] | None) -> list[Path]:
    """The paths given, or `specs/`."""
    return list(paths) if paths else [DEFAULT_SPECS]


def existing_spec_paths(paths: Sequence[Path] | None) -> list[Path]:
    """The paths given, or `specs/` where it exists (a command that also reads the shipped catalog)."""
    return list(paths) if paths else [p for p in spec_paths(paths) if p.exists()]


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
    """`--output` must not be a directory."""
    if output is not None and output.is_dir():
        raise UsageError(f"{output}: is a directory, expected a file")


def check_out_dir(out: Path) -> None:
    """Check, before anything is written, that `--out` is a directory or does not exist yet."""
    existing = next((p for p in (out, *out.parents) if p.exists()), None)  # `out` or the folder it would go in
    if existing is not None and not existing.is_dir():
        raise UsageError(f"--out must be a directory; {existing} is a file")


def load_specs(paths: Sequence[Path] | None) -> Specs:
    """The validated specs under `paths` (default `specs/` where it exists) with the shipped catalog."""
    return validate(*load(existing_spec_paths(paths)))


def failing_note(errors: Sequence[object]) -> str:
    """Why a command that wrote its documents exits 1: the specs have error findings."""
    return (f"{len(errors)} error finding(s) in the specs: the documents are marked as failing checks; "
            "`archgen check` lists them")
