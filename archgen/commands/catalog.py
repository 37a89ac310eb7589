"""`archgen catalog`: the parts and facilities of the shipped catalog and the user's specs, or one part in full."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from archgen.commands.common import load_specs
from archgen.errors import UsageError, did_you_mean
from archgen.load import shown
from archgen.model.rack import unconfirmed_figures
from archgen.quantity_json import json_text
from archgen.validate import catalog_entries


def catalog_list(paths: Sequence[Path] | None, unconfirmed: bool = False, vendors: Sequence[str] = (),
                 kinds: Sequence[str] = (), asics: Sequence[str] = ()) -> tuple[str, int]:
    """One line per part, facility, model, rack or rate set of `vendors`, `kinds` and `asics` (unconfirmed if asked)."""
    lines = []
    for entry in catalog_entries(load_specs(paths), list(vendors), list(kinds), unconfirmed, list(asics)):
        fields = unconfirmed_figures(entry)
        flag = f"  unconfirmed: {', '.join(fields)}" if fields else ""
        vendor = getattr(entry, "vendor", "") or "-"
        lines.append(f"{entry.kind:12} {entry.id:28} {vendor:10} {entry.name}{flag}")
    return "".join(f"{line}\n" for line in lines), 0


#: Formats of `archgen catalog show`.
SHOW_FORMATS = ("json", "yaml")


def catalog_show(part_id: str, paths: Sequence[Path] | None, fmt: str = "json") -> tuple[str, int]:
    """The file an entry (part, facility, model or rack) comes from and the entry as JSON or YAML.

    The YAML is a spec file a user can fork: the entry's `kind` and `id` first, only the keys that differ from the
    defaults, quantities as the strings a spec writes ("10.2 kW"); it validates as it is.
    """
    if fmt not in SHOW_FORMATS:
        raise UsageError(f"--format: unknown format '{fmt}'{did_you_mean(fmt, SHOW_FORMATS, lead='; ')}; "
                         f"one of: {', '.join(SHOW_FORMATS)}")
    specs = load_specs(paths)
    entry, source = specs.get(part_id), specs.sources.get(part_id)
    if entry is None and part_id in specs.shelf:
        entry, source = specs.shelf[part_id]
    if entry is None or source is None:
        known = [*specs.items, *specs.shelf]
        raise UsageError(f"no part '{part_id}'{did_you_mean(part_id, known, lead='; ')}")
    data = entry.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data = {"kind": entry.kind, "id": entry.id, **{k: v for k, v in data.items() if k not in ("kind", "id")}}
    if fmt == "yaml":
        return f"# {shown(source.locate())}\n{yaml_text(data)}", 0
    return f"# {shown(source.locate())}\n{json_text(data, indent=2)}\n", 0


def yaml_text(data: dict) -> str:
    """`data` as block-style YAML 1.2 (keys in their order; long strings folded by the emitter, not cut)."""
    from ruamel.yaml import YAML
    out = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.width = 100
    yaml.dump(data, out)
    return out.getvalue()
