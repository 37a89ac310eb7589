"""`archgen check specs/ --format json` metrics stay as captured (issue 12's bar: a refactor changes no number).

`tests/data/check-metrics.json` was captured from main before the house-keeping refactor; a change that moves a
metric on purpose regenerates it with `make golden` and says so in its commit message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import REPO, run_cli

BASELINE = Path(__file__).resolve().parent / "data" / "check-metrics.json"


def current_metrics() -> dict:
    """The metrics of the shipped specs as `archgen check specs/ --format json` prints them (from the repo root)."""
    old = Path.cwd()
    os.chdir(REPO)
    try:
        r = run_cli("check", "specs", "--format", "json")
    finally:
        os.chdir(old)
    assert r.code == 0, r.err
    return json.loads(r.out)["metrics"]


def write_baseline() -> Path:
    """Regenerate the baseline (`make golden`)."""
    BASELINE.write_text(json.dumps(current_metrics(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return BASELINE


def test_check_metrics_equal_the_baseline():
    expected = json.loads(BASELINE.read_text(encoding="utf-8"))
    got = current_metrics()
    assert sorted(got) == sorted(expected), "objects with metrics changed"
    changed = [f"{obj}.{name}: {expected[obj].get(name)} -> {got[obj].get(name)}"
               for obj in sorted(expected) for name in sorted(set(expected[obj]) | set(got[obj]))
               if expected[obj].get(name) != got[obj].get(name)]
    assert not changed, "\n".join(changed)
