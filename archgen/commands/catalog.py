"""`archgen catalog`: the parts and facilities of the shipped catalog and the user's specs, or one part in full."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from archgen.commands.common import load_specs
from archgen.errors import UsageError, did_you_mean
from archgen.model import Part
from archgen.quantity_json import json_text
from archgen.validate import catalog_entries


def catalog_list(paths: Sequence[Path] | None, unconfirmed: bool = False, vendors: Sequence[str] = (),
                 kinds: Sequence[str] = ()) -> tuple[str, int]:
    """One line per part or facility, of `vendors` and `kinds` when given (with unconfirmed figures when asked)."""
    lines = []
    for entry in catalog_entries(load_specs(paths), list(vendors), list(kinds), unconfirmed):
        fields = entry.unconfirmed_fields() if isinstance(entry, Part) else []
        flag = f"  unconfirmed: {', '.join(fields)}" if fields else ""
        vendor = getattr(entry, "vendor", "") or "-"
        lines.append(f"{entry.kind:12} {entry.id:28} {vendor:10} {entry.name}{flag}")
    return "".join(f"{line}\n" for line in lines), 0


def catalog_show(part_id: str, paths: Sequence[Path] | None) -> tuple[str, int]:
    """The file a part comes from and the part as JSON."""
    specs = load_specs(paths)
    part = specs.get(part_id)
    if part is None:
        raise UsageError(f"no part '{part_id}'{did_you_mean(part_id, specs.items, lead='; ')}")
    data = json_text(part.model_dump(mode="json", by_alias=True, exclude_defaults=True), indent=2)
    return f"# {specs.locate(part_id)}\n{data}\n", 0
