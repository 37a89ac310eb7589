"""README's quick start prints what `archgen check specs/` prints (quickstart21: a new user compares the two).

The README's console block states the summary line of `archgen check specs/` and the GB200 NVL72 rack's IT power
that `--format json` gives; both are read from README.md here, so a change that moves either fails until the README
says the new figure.
"""

from __future__ import annotations

import json
import re

from tests.conftest import REPO, SPECS, run_cli


def _quick_start() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]


def test_readme_check_summary_is_the_check_output():
    lines = _quick_start().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("$ archgen check specs/ "))
    claimed = lines[at + 1].split("#", 1)[0].strip()
    r = run_cli("check", SPECS)
    assert r.code == 0, r.out + r.err
    assert r.out.splitlines()[-1] == claimed, (r.out.splitlines()[-1], claimed)


def test_readme_it_power_is_the_json_metric():
    match = re.search(r'\{"value":([0-9.]+),"unit":"(\w+)"\}', _quick_start())
    assert match, "README quick start states no jq output"
    r = run_cli("check", SPECS, "--format", "json")
    it_power = json.loads(r.out)["metrics"]["rack/gb200-nvl72"]["it_power"]
    assert (it_power["value"], it_power["unit"]) == (float(match.group(1)), match.group(2))
