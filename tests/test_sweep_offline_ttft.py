"""A sweep's TTFT requirement on an offline serving job says why it is not provided, as `check` does (newuser107).

An offline run queues every request at once, so its TTFT column is one request's prefill on an idle replica and a
target on it is not judged (`serving_estimate.OFFLINE_TTFT`, REQ002 in `check`). A sweep over the shipped
`llama3-70b-serve-b200` with `ttft <= 100 ms` at SHALL found every point not feasible, each reason reading "REQ-T
(SHALL) not provided: target <= 100 ms does not have the dimension of ttft": a time target, refused as if it were
not one, and no word of the offline run. A requirement on a figure the estimate names as not judgeable
(`Estimate.unjudged`) now gives that reason, whoever states it; the point stays infeasible, as `check` fails it. The sweep's document names what its TTFT column holds, as
`archgen estimate` does.
"""

from __future__ import annotations

import json
from pathlib import Path

from archgen.perf.explore.points import evaluate
from archgen.perf.workload.serving_estimate import IDLE_TTFT
from tests.conftest import SPECS, sweep_problem_written

SWEEP = """kind: Sweep
id: ttft
workload: llama3-70b-serve-b200
axes:
  tp: [8]
  batch: [16]
objectives:
  - {metric: tokens_per_second_per_gpu}
requirements:
  - {id: REQ-T, statement: TTFT, metric: ttft, target: "<= 100 ms"}
"""


def test_an_offline_ttft_requirement_is_not_provided_for_the_offline_reason(tmp_path):
    (row,) = evaluate(sweep_problem_written(tmp_path, SWEEP), 0, 1)
    assert row.status == "ok" and not row.feasible and row.met["REQ-T"] is None
    assert row.metrics["ttft"] > 0   # the figure is shown: one prefill on an idle replica
    assert row.reason.startswith("REQ-T (SHALL) not provided: an offline run has no TTFT to hold a target to: "
                                 "every request is queued at once"), row.reason
    assert "the decodes run 16 in flight" in row.reason
    assert "does not have the dimension" not in row.reason


CLOSED = """kind: Workload
id: closed
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256, scenario: concurrency, batch: 16}
"""


def _document(cli, tmp_path, sweep: str, *more: Path) -> str:
    (tmp_path / "sweep.yaml").write_text(sweep, encoding="utf-8")
    r = cli("sweep", str(tmp_path / "sweep.yaml"), "--path", str(SPECS), *(a for p in more for a in ("--path", str(p))),
            "--out", str(tmp_path / "out"), "--formats", "md")
    assert r.code in (0, 1), r.err
    (md,) = (tmp_path / "out").glob("*/*.md")
    return md.read_text(encoding="utf-8")


def test_an_offline_sweeps_document_says_what_its_ttft_column_holds(cli, tmp_path):
    """The serving sweep's TTFT column read 116.9 ms at every batch of tp 1, 1 to 256 in flight, with no word that it is
    one prefill on an idle replica, where `archgen estimate` of each point says so (its `ttft` convention)."""
    md = _document(cli, tmp_path, SWEEP.split("requirements:")[0])
    assert f"ttft: {IDLE_TTFT}." in md and "| TTFT (ms) |" in md
    closed = tmp_path / "closed"
    closed.mkdir()
    (closed / "w.yaml").write_text(CLOSED, encoding="utf-8")
    md = _document(cli, closed, SWEEP.split("requirements:")[0].replace("llama3-70b-serve-b200", "closed")
                   .replace("batch: [16]", "batch: [8]"), closed)
    assert "| TTFT (ms) |" in md and IDLE_TTFT not in md   # a simulated run's TTFT: a request's, with its queue


def test_an_offline_sweeps_json_says_what_its_ttft_column_holds(cli, tmp_path):
    """The document's conventions said what an offline point's TTFT is; the JSON of the same sweep said nothing
    (newuser107, item 7). `conventions` carries the same words (one source, `sweep_notes.conventions`)."""
    (tmp_path / "sweep.yaml").write_text(SWEEP.split("requirements:")[0], encoding="utf-8")
    r = cli("sweep", str(tmp_path / "sweep.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"),
            "--formats", "md", "--format", "json")
    assert r.code == 0, r.err
    (sweep,) = json.loads(r.out)["sweeps"]
    assert sweep["conventions"]["ttft"] == IDLE_TTFT and "prefill_decode" in sweep["conventions"]
    (md,) = (tmp_path / "out").glob("*/*.md")
    text = md.read_text(encoding="utf-8")
    escaped = {key.replace("_", "\\_"): words for key, words in sweep["conventions"].items()}   # Markdown's key
    assert all(f"{key}: {words}." in text for key, words in escaped.items())
