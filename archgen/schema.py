"""JSON Schema per spec kind, generated from the pydantic models (for yaml-language-server and partners)."""

from __future__ import annotations

import json

from archgen.model import KINDS


def schemas(as_text: bool = False) -> dict:
    """One JSON Schema per kind, keyed by kind name; `as_text` gives deterministic JSON text instead."""
    out = {kind: cls.model_json_schema(by_alias=True) for kind, cls in sorted(KINDS.items())}
    if as_text:
        return {k: json.dumps(v, indent=2, sort_keys=True) + "\n" for k, v in out.items()}
    return out
