"""docs/adding-a-part.md names only fields the schema has (newuser37: no page said how to add a part).

Every backticked dotted name in the page (`compute_capability`, `scale_up.bandwidth`, `efficiency.gemm_range`,
`peak.bf16`, `cooling.liquid_fraction`) must be a field, or a key of a field's mapping, of an Accelerator, a System, a Rack or
a Cluster: a field renamed or removed fails here, not in a reader's spec.
"""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path

from pydantic import BaseModel

from archgen.model import Accelerator, Cluster, Rack, System

PAGE = Path(__file__).resolve().parent.parent / "docs" / "adding-a-part.md"
#: A field path as the page writes it; file names (`checks.md`) are links, not fields.
NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")
#: Backticked words that are values, not fields.
VALUES = {"true"}
KINDS = (Accelerator, System, Rack, Cluster)   # Rack: its liquid loop's marks (racksrc)


def _resolves(annotation: object, parts: list[str]) -> bool:
    """Whether `parts` is a path into a value of type `annotation` (models, mappings with Literal keys, unions)."""
    if not parts:
        return True
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _resolves(args[0], parts)
    if origin in (typing.Union, types.UnionType):
        return any(_resolves(a, parts) for a in args)
    if origin is dict:
        key, value = args
        keys = typing.get_args(typing.get_args(key)[0]) if typing.get_origin(key) is typing.Annotated else \
            typing.get_args(key)
        return parts[0] in keys and _resolves(value, parts[1:])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(parts[0])
        return field is not None and _resolves(field.annotation, parts[1:])
    return False


def _field(name: str) -> bool:
    return any(_resolves(kind, name.split(".")) for kind in KINDS)


def names_in_page() -> list[str]:
    """The backticked field names of the page."""
    found = re.findall(r"`([^`\n]+)`", PAGE.read_text(encoding="utf-8"))
    return sorted({n for n in found if NAME.match(n) and not n.endswith((".md", ".py")) and n not in VALUES})


def test_every_field_the_page_names_is_in_the_schema():
    names = names_in_page()
    assert {"compute_capability", "multiprocessors", "scale_up.bandwidth", "scale_up.latency", "efficiency.gemm_range",
            "efficiency.scale_up_range", "peak.bf16", "unconfirmed", "cooling.liquid_fraction"} <= set(names)
    assert [n for n in names if not _field(n)] == []


def test_a_misspelt_or_unknown_field_is_caught():
    assert not _field("scale_up.bandwith") and not _field("peak.bf32") and not _field("efficiency.gemm.bf16.x")
    assert _field("efficiency.gemm.fp8") and _field("scale_up.technology")


def test_the_page_says_an_accelerator_is_a_package():
    """newuser46: no page said how to count an "NVL144" (NVIDIA's die count: 72 Rubin packages of 2 dies each), so a
    planner wrote `scale_up.size: 144` on a 72-package rack and met NET010 ("holds 72 accelerators, not 144")."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## One accelerator is one package", 1)[1].split("\n## ", 1)[0]
    assert "72 Rubin packages of 2 dies each (144 dies)" in section
    assert "`scale_up.size` is 72" in section and "NET010" in section
