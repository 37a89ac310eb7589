"""A serving estimate's breakdown says it is the replica's time per request, not a request's latency (newuser97).

The breakdown of a serving run is the replica's time per request served, generated tokens / the replica's tokens/s
(`perf.serve.run.run_breakdown`, docs/perf-model.md), but `estimate` printed it under a bare "breakdown:" and the
document as "Time breakdown" and "Waterfall of <job>'s time, 140.6 ms", which an inference engineer reads as the
request's latency: Llama 3.1 405B FP4 at 64 requests/s on 72 GB200 read 140.6 ms where each request took about 8.8 s
(TTFT 296 ms + 127 x 66.8 ms TPOT). The words now say what the figure is, in the text, the JSON's conventions, the
table's title, the figure's title and its alt text.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from archgen.render import alt_text
from archgen.units import Q_
from tests.conftest import SPECS


def test_the_shipped_offline_serving_breakdown_is_the_replicas_time_per_request(cli):
    est = json.loads(cli("estimate", str(SPECS), "--workload", "llama3-70b-serve-b200", "--format", "json").out)
    per_replica = est["metrics"]["tokens_per_second"]["value"] / est["layout"]["replicas"]
    total = sum(v["value"] for v in est["breakdown"].values())
    assert total == pytest.approx(256 / per_replica, rel=1e-9)   # output_len / the replica's tokens/s
    tpot = est["metrics"]["tpot"]["value"]
    assert 255 * tpot > 100 * total   # a request's own decode takes far longer than the replica spends on it
    words = est["conventions"]["breakdown"]
    assert words.startswith("the replica's time per request served, 256 generated tokens over its ")
    assert "not a request's latency" in words
    text = cli("estimate", str(SPECS), "--workload", "llama3-70b-serve-b200").out
    assert "breakdown (the replica's time per request, not a request's latency; breakdown, below):" in text
    assert f"\nbreakdown: {words}\n" in text


def test_a_training_breakdown_keeps_its_words():
    e = SimpleNamespace(kind="training", breakdown={"compute": Q_(2.0, "s")})
    assert alt_text.waterfall(e, "job").startswith("Waterfall of job's time, 2 s,")
    e = SimpleNamespace(kind="inference", breakdown={"prefill_per_request": Q_(30.0, "ms")})
    assert alt_text.waterfall(e, "job").startswith(
        "Waterfall of job's replica time per request (not a request's latency), 30 ms,")
