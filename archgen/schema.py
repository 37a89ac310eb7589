"""JSON Schema per spec kind, generated from the pydantic models (for yaml-language-server and partners)."""

from __future__ import annotations

import json

from pydantic.json_schema import GenerateJsonSchema

from archgen.migrate import REQUIRES
from archgen.model import KINDS
from archgen.pint_import import pint
from archgen.units import format_quantity


class _Generator(GenerateJsonSchema):
    """Writes quantity defaults the way a spec author would (``"2 m"``)."""

    def encode_default(self, dft: object) -> object:
        if isinstance(dft, pint.Quantity):
            return format_quantity(dft)
        return super().encode_default(dft)


def schemas(as_text: bool = False) -> dict:
    """One JSON Schema per kind, keyed by kind name; `as_text` gives deterministic JSON text instead."""
    out = {kind: cls.model_json_schema(by_alias=True, schema_generator=_Generator)
           for kind, cls in sorted(KINDS.items())}
    for schema in out.values():   # taken off before validation (`migrate.required`), so no model declares it
        schema["properties"][REQUIRES] = {
            "type": "string", "pattern": r"^>=\s*\d+\.\d+\.\d+$", "title": "Requires archgen",
            "description": "The oldest archgen this document is written for, as '>=X.Y.Z'; an older archgen refuses "
                           "it at this line (docs/upgrading.md, A version key)."}
    if as_text:
        return {k: json.dumps(v, indent=2, sort_keys=True) + "\n" for k, v in out.items()}
    return out
