"""A closed loop's percentiles say what they are (newuser104).

Llama 3.1 70B FP4 at tp 4 on four GB200, 1,000 + 1,000 tokens at concurrency 64: the simulated requests keep in step
(each finished one replaced at once by one of the same length), so TTFT p50 and p99 read 137.2 and 137.3 ms and TPOT
p50 = p99, a spread no measured run has. The estimate now says so beside the request lengths.
"""

from __future__ import annotations

import json

from tests.conftest import REPO, run_cli

WORKLOAD = """\
kind: Workload
id: l70-closed-64
name: Llama 3.1 70B FP4 at concurrency 64
model: llama3-70b
cluster: gb200-nvl72-su
accelerators: 4
inference: {precision: fp4, tp: 4, input_len: 1000, output_len: 1000, scenario: concurrency, batch: 64}
"""


def test_a_closed_loop_says_its_percentiles_are_the_schedulers_spread(tmp_path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD, encoding="utf-8")
    r = run_cli("estimate", str(REPO / "specs"), str(path), "--workload", "l70-closed-64", "--format", "json")
    assert r.code == 0, r.err
    got = json.loads(r.out)
    m = got["metrics"]
    # the case the words are for: p99 within 1 % of p50 at this concurrency
    assert m["ttft_p99"]["value"] < 1.01 * m["ttft_p50"]["value"]
    assert m["tpot_p99"]["value"] < 1.01 * m["tpot_p50"]["value"]
    words = got["conventions"]["request_lengths"]
    assert words.startswith("every simulated request has 1,000 + 1,000 tokens")
    assert "keep in step" in words and "not a measured run's" in words
