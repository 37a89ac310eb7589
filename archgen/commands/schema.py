"""`archgen schema`: the JSON Schema of every spec kind, printed or written one file per kind."""

from __future__ import annotations

import json
from pathlib import Path

from archgen.commands.common import check_out_dir
from archgen.render.files import write_atomic
from archgen.schema import schemas


def schema(out: Path | None) -> tuple[str, int]:
    """Every schema as one JSON document, or, with `out`, the files written there."""
    if out is None:
        return json.dumps(schemas(), indent=2, sort_keys=True) + "\n", 0
    check_out_dir(out)
    written = [write_atomic(out / f"{name}.schema.json", text.encode())
               for name, text in schemas(as_text=True).items()]
    return "".join(f"{p}\n" for p in written), 0
