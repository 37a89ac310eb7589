"""docs/python-api.md runs as written, and its estimate is the one `archgen estimate --format json` prints.

Each `python` block of the page runs in order in one namespace, from the repository root, as a notebook would run
it (newuser43's trial: the Python API had no page, and nothing checked that it gives what the CLI gives).
"""

from __future__ import annotations

import json
import math
import os
import re

from archgen.output.estimate import estimate_json
from tests.conftest import REPO, run_cli

PAGE = REPO / "docs" / "python-api.md"


def _blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_page_runs_and_its_estimate_is_the_clis(monkeypatch):
    monkeypatch.chdir(REPO)
    ns: dict = {}
    blocks = _blocks()
    assert len(blocks) >= 5
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), ns)  # noqa: S102 - the page's own examples
    cli = run_cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--format", "json")
    assert cli.code == 0, cli.err
    printed = json.loads(cli.out)
    printed.pop("archgen")  # the envelope's version key
    assert json.loads(json.dumps(estimate_json(ns["est"]))) == printed
    # the page's floats are the quantities in the units it names
    # (the JSON at 15 significant figures, `quantity_json.JSON_FIGURES`: servetidy42)
    assert math.isclose(ns["step_s"], printed["metrics"]["step_time"]["value"], rel_tol=1e-14)
    assert math.isclose(ns["tflops"] * 1e12, printed["metrics"]["tflops_per_gpu"]["value"])
    low, high = ns["low"], ns["high"]
    assert low.m_as("s") < ns["step_s"] < high.m_as("s") or ns["est"].bands["step_time"].low > 0
    assert len(ns["rows"]) == 6 and all(r[2] is False or r[3] > 0 for r in ns["rows"])
    assert ns["message"].startswith("workload 'llama3-70b-pretrain-b200': tp (3) does not divide")
    assert ns["faster"].accelerator == "b300-sxm-288gb"
    assert ns["refused"] == ("workload 'llama3-70b-pretrain-b200' (made in code): error: accelerators: expected a "
                             "number greater than 0, got -3")
    assert ns["placed"].estimate().requirements and ns["bare"].requirements is None


def test_the_page_is_in_the_readme_documentation_table():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "[`docs/python-api.md`](docs/python-api.md)" in readme
    assert os.path.exists(PAGE)
