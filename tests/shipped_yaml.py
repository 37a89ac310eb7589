"""The YAML documents of the shipped specs/ and examples/, parsed once a test process.

Three test modules read every one of them at collection, each with PyYAML's pure-Python `safe_load_all`, in each
xdist worker (test_catalog_price_sources, test_catalog_cooling_sources, test_requirement_wording: some 0.5 CPU-s
each a process). Here they are parsed once, by libyaml's `CSafeLoader`: the same YAML 1.1 safe loader (its resolver
and constructors are `SafeLoader`'s; only the scanner and parser are C), so the same documents.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
#: The folders read, in this order; each one's files sorted by path.
FOLDERS = (ROOT / "specs", ROOT / "examples")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.cache
def shipped_documents() -> tuple[tuple[Path, int, Any], ...]:
    """(file, index in the file, document) of every document of every `*.yaml` under `FOLDERS`.

    Shared by every caller in the process: read it, never change it.
    """
    return tuple((f, i, doc) for folder in FOLDERS for f in sorted(folder.rglob("*.yaml"))
                 for i, doc in enumerate(yaml.load_all(f.read_text(encoding="utf-8"), Loader=LOADER)))
