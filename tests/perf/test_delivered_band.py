"""An open loop that keeps up delivers min(offered, replicas x capacity): its throughput band (nu68fix, newuser68).

Before, its tokens/s took the serving-under-load family's errors (-0.0 % to +22.3 %), so newuser68's 405B trial read
REQ-TPUT (>= 32,000 tokens/s) at risk at 26,780 tokens/s (-22 %), though even the replica capacity band's low end,
72 x 0.930 = 67.0 requests/s, exceeds the 50 offered. Now the band is [min(1, r x c_low / rate), min(1, r x c_high /
rate)] of the offered load, c_low and c_high the replica capacity's band (offline serving's errors, -8.4 % to +42.4 %:
c / 1.424 to c / 0.916), and the cost and energy per token made from it take it turned.
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.workload.band_table import TABLE
from tests.conftest import SPECS, run_cli

SERVER = """kind: Workload
id: open-loop
model: llama3-70b
cluster: gb200-nvl72-su
accelerators: 8
inference: {{precision: fp8, tp: 8, input_len: 2048, output_len: 128, scenario: server, arrival_rate: {rate} 1/s}}
requirements:
  - {{id: REQ-T-1, statement: tokens/s, metric: tokens_per_second, target: ">= {target} tokens/s"}}
"""
HIGH = TABLE["offline-serving"]["replica_capacity"][2]   # the offline rows scored at one length (lengths40)


@pytest.mark.parametrize("rate", [3, 28])
def test_the_throughput_band_is_min_offered_and_the_capacity_band(spec_tree, rate):
    offered = rate * 128
    specs = spec_tree({"workloads/open.yaml": SERVER.format(rate=rate, target=int(offered * 0.99))})
    doc = json.loads(run_cli("estimate", "--workload", "open-loop", "--format", "json", "--path", str(SPECS),
                             "--path", str(specs)).out)
    tps = doc["metrics"]["tokens_per_second"]["value"]
    assert tps == pytest.approx(offered, rel=1e-6)   # one replica that keeps up serves what arrives
    load = doc["bands"]["ttft"]["load"]["load"]
    low = doc["bands"]["tokens_per_second"]["low"]["value"]
    # one replica: capacity = rate / load; its band's low end capacity / (1 + HIGH); delivered min(offered, that)
    assert low == pytest.approx(offered * min(1.0, 1 / (load * (1 + HIGH))), rel=1e-4)
    assert doc["bands"]["tokens_per_second"]["high"]["value"] == pytest.approx(offered, rel=1e-6)
    status = doc["requirements"][0]["status"]
    # at 3 requests/s (load ~0.1) even the band's low end keeps up: met; at 28 (load ~0.9) it serves ~0.77 of them
    assert status == ("met" if load * (1 + HIGH) <= 1 else "at risk")
    assert (load * (1 + HIGH) <= 1) == (rate == 3)
