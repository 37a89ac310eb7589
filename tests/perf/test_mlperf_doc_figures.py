"""The figures docs/perf-model.md ("MLPerf latency constraints") gives for its Llama 3.1 70B Server example are the
estimate's (newuser93: the page read TTFT p99 "about 0.25 s", TPOT p99 "about 20 ms" at 30 requests/s and "about
0.48 s" at 40, where the estimate gives 0.30 s, 27 ms and 0.60 s; tests/perf/test_mlperf.py's comments had moved
with it, the page had not).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import REPO, SPECS

PAGE = " ".join((REPO / "docs" / "perf-model.md").read_text(encoding="utf-8").split())
WORKLOAD = """kind: Workload
id: w
name: w
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {{precision: fp8, tp: 2, input_len: 2048, output_len: 256, scenario: server, arrival_rate: {rate} 1/s}}
"""


def _p99s(cli, tmp_path, rate: int) -> tuple[float, float]:
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(rate=rate), encoding="utf-8")
    m = json.loads(cli("estimate", SPECS, tmp_path, "--workload", "w", "--format", "json").out)["metrics"]
    return m["ttft_p99"]["value"], m["tpot_p99"]["value"]


@pytest.mark.parametrize(("rate", "pattern"), [
    (30, r"at 30 requests/s(?: \([^)]*\))?: TTFT p99 about ([\d.]+) s, TPOT p99 about ([\d.]+) ms"),
    (40, r"at 40 requests/s TTFT p99 is about ([\d.]+) s"),
])
def test_the_page_s_server_example_reads_the_estimate(cli, tmp_path, rate, pattern):
    said = re.search(pattern, PAGE)
    assert said, pattern
    ttft, tpot = _p99s(cli, tmp_path, rate)
    assert float(said[1]) == pytest.approx(ttft, rel=0.05), (said[0], ttft)
    if said.lastindex == 2:
        assert float(said[2]) / 1000 == pytest.approx(tpot, rel=0.05), (said[0], tpot)
