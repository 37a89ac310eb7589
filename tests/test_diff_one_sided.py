"""`archgen diff` of unlike scopes: a metric one side has and the other does not is listed, with which and why.

The input that showed it: the shipped specs against the same specs with the DGX B200 SuperPOD's checkpoint
`storage:` left out (as the MI355X cluster has none). Goodput, cost per token, spares and the checkpoint times of the
70B job went from figures to nothing, and the comment read "✅ 27 metric(s) changed", each lost figure a row of
"—" cells beside the metrics that moved, nowhere saying that HEAD does not provide it or why.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.conftest import SPECS, run_cli

JOB = "workload/llama3-70b-pretrain-b200"
WHY = "cluster 'dgx-b200-superpod' gives no checkpoint `storage:` (REL006)"


def no_storage(dest: Path) -> Path:
    """The shipped specs (without the catalog) with the DGX B200 SuperPOD's checkpoint storage left out."""
    shutil.copytree(SPECS, dest, ignore=shutil.ignore_patterns("catalog"))
    cluster = dest / "clusters" / "dgx-b200-superpod.yaml"
    text = cluster.read_text(encoding="utf-8")
    cut = re.sub(r"storage: \{capacity.*?\}\n", "", text, flags=re.S)
    assert cut != text
    cluster.write_text(cut, encoding="utf-8")
    return dest


def test_a_metric_head_does_not_provide_is_listed_with_why(tmp_path):
    head = no_storage(tmp_path / "head")
    r = run_cli("diff", SPECS, head)
    assert r.code == 0, r.err   # nothing newly failing: the exit code is unchanged
    lines = r.out.splitlines()
    # 29 and 27 since the cluster's cost per goodput hour carries goodput's range (its _low and _high lost too); 32
    # and 30 since the same per goodput hour of the job's own accelerators is beside it (3 more); 42 and 40 since
    # goodput tokens/s, spares, spare power and space and restart time carry goodput's range (nu41cost: 10 ends)
    assert lines[2].startswith("⚠️ 42 metric(s) changed in 2 object(s), 42 of them on one side only (40 not provided "
                               "in HEAD, 2 only in BASE)"), lines[2]
    section = r.out[r.out.index("### Metrics on one side only"):]
    assert "### Metrics\n" not in r.out   # no metric both sides have moved
    assert ("| `workload/llama3-70b-pretrain-b200` | goodput | 0.9927 | — | not provided in HEAD | cluster "
            "'dgx-b200-superpod' gives no checkpoint \\`storage:\\` (REL006) |") in section
    # a range's end carries its metric's reason; the cost per hour's ends have none (no spares to charge)
    # 0.2535 µUSD before rope40 charged Llama 3.1's rotary embedding; 0.2627 µUSD while the nemo-2025 profile reduced
    # gradients in fp32 (before gradreduce)
    assert "| cost\\_per\\_token\\_high | 0.2542 µUSD (band 0.2287 to 0.4085 µUSD) | — | not provided in HEAD |" in section
    assert "| job\\_cost\\_per\\_hour\\_high | 1,318 USD/h | — | only in BASE | — |" in section
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    order = [("not provided" in line, line) for line in rows]
    assert [o for o, _ in order] == sorted((o for o, _ in order), reverse=True)   # not provided first, then only in


def test_json_says_which_side_and_why_and_the_reverse_is_not_provided_in_base(tmp_path):
    head = no_storage(tmp_path / "head")
    r = run_cli("diff", head, SPECS, "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    got = {(m["object"], m["metric"]): m for m in doc["metrics"]}
    goodput = got[(JOB, "goodput")]
    assert (goodput["presence"], goodput["why"], goodput["base"]) == ("not provided in BASE", WHY, None)
    assert got[(JOB, "job_cost_per_hour_high")]["presence"] == "only in HEAD"
    s = doc["summary"]
    assert (s["metrics_one_sided"], s["metrics_not_provided_in_base"], s["metrics_only_in_head"]) == (42, 40, 2)
    assert all(m["presence"] == "both" or m["presence"] in ("not provided in BASE", "only in HEAD")
               for m in doc["metrics"])
