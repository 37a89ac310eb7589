"""`estimate --cases` on every case file, as one JSON document: `python -m tests.cases_snapshot OUT.json`.

Issue 19's bar for a restructuring is that `estimate --cases` says the same before and after each step. Run this in
both checkouts (each with its own `.venv`, from the repository root) and compare the two files byte for byte
(`cmp`): every file of tests/data/validation-*.yaml (the shared validation files' copies) and tests/perf/data/*.yaml,
in text and `--format json`, each with and without `--explain`, with its exit code; a file that is not a case file
gives the error `estimate --cases` raises for it.
It scores every file four times in one process (about 25 CPU-s).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from archgen.commands.estimate import estimate_cases
from archgen.errors import ArchgenError

#: The case files: the shared validation files' copies, then the test data.
FILES = sorted(Path("tests/data").glob("validation-*.yaml")) + sorted(Path("tests/perf/data").glob("*.yaml"))


def snapshot() -> dict[str, dict[str, object]]:
    """Each (file, format, explain)'s output and exit code, or its error, by 'file format explain=…'."""
    out: dict[str, dict[str, object]] = {}
    for path in FILES:
        for fmt in ("text", "json"):
            for explain in (False, True):
                try:
                    text, rc = estimate_cases(path, fmt, explain)
                    got: dict[str, object] = {"rc": rc, "out": text}
                except ArchgenError as err:   # not a case file: what the command says of it
                    got = {"error": f"{type(err).__name__}: {err}"}
                out[f"{path} {fmt} explain={explain}"] = got
    return out


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(snapshot(), indent=1, sort_keys=True), encoding="utf-8")
