"""Faster checkpoint storage is not free, but archgen has no price or power for it (storage2 item 2).

newuser23: in `archgen diff` (and a sweep), a faster `storage:` raised goodput and lowered cost per token with no
cost and no power beside it, and nothing said so. Where the storage block states no price or draw (as the shipped
ones), the model cannot cost it; the diff says the change is costed at 0 and powered at 0 (docs/reliability.md,
"Cost"). Where it states both, the change is costed (tests/analyse/test_storage_cost.py).
"""

from __future__ import annotations

import json
import shutil

from archgen.analyse.storage_cost import NOT_COSTED
from tests.conftest import SPECS, run_cli

CLUSTER = "clusters/dgx-b200-superpod.yaml"
STORAGE = "write_bandwidth: 200 GB/s"   # the shipped SuperPOD's assumed checkpoint storage


def _specs(dest, write: str):
    shutil.copytree(SPECS, dest, ignore=shutil.ignore_patterns("catalog"))
    path = dest / CLUSTER
    text = path.read_text(encoding="utf-8")
    assert STORAGE in text
    path.write_text(text.replace(STORAGE, f"write_bandwidth: {write}", 1), encoding="utf-8")
    return dest


def test_a_diff_of_faster_storage_says_it_is_costed_at_zero(tmp_path):
    """200 -> 400 GB/s of write bandwidth: the checkpoint writes in half the time, goodput rises, and before the
    diff showed that with no capex or power beside it and no word why. Now a "Not costed" section says so."""
    base, head = _specs(tmp_path / "base", "200 GB/s"), _specs(tmp_path / "head", "400 GB/s")
    r = run_cli("diff", base, head, "--format", "json")
    doc = json.loads(r.out)
    want = f"cluster/dgx-b200-superpod checkpoint storage changed: write bandwidth 200 GB/s → 400 GB/s; {NOT_COSTED}"
    assert doc["not_costed"] == [want]
    times = [m for m in doc["metrics"] if m["metric"] == "checkpoint_write_time"
             and m["object"] == "workload/llama3-70b-pretrain-b200"]
    assert times and times[0]["head"]["value"] < times[0]["base"]["value"]   # faster storage did change goodput
    assert not [m for m in doc["metrics"] if m["metric"] == "capex"]          # and nothing cost it
    md = run_cli("diff", base, head).out
    assert "### Not costed" in md and "costed at 0 and powered at 0" in md
    same = run_cli("diff", base, base, "--format", "json")
    assert json.loads(same.out)["not_costed"] == []


def test_a_sweep_document_says_storage_is_costed_at_zero(tmp_path):
    """The shipped training sweep on two priced clusters with checkpoint storage: each cluster's goodput paragraph
    now says that cost per token leaves the storage out (before: nothing said it)."""
    r = run_cli("sweep", SPECS / "sweeps" / "llama3-70b.yaml", "--path", SPECS, "--out", tmp_path / "o")
    assert r.code in (0, 1), r.err
    docs = sorted((tmp_path / "o").rglob("*.md"))
    text = " ".join(" ".join(d.read_text(encoding="utf-8").split()) for d in docs)
    assert text.count(NOT_COSTED.replace("the change", "a faster storage")) >= 1
