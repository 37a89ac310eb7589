"""newuser68's MLPerf Server sizing specs (tests/data/mlperf-server/, quoted in docs/perf-model.md) stay loadable
and keep up their rate as the formulas say: an open loop that keeps up delivers what arrives, so its output tokens/s
are the arrival rate times the output length (50 requests/s x 655 tokens = 32,750 tokens/s), and the replicas that
keep it up are the rate over one replica's capacity, rounded up."""

from __future__ import annotations

import json
import math

from ruamel.yaml import YAML

from tests.conftest import REPO, run_cli

DATA = REPO / "tests" / "data" / "mlperf-server"


def test_the_gb200_sizing_workload_keeps_up_its_rate() -> None:
    spec = YAML(typ="safe").load((DATA / "serve-405b-gb200.yaml").read_text(encoding="utf-8"))
    rate = float(spec["inference"]["arrival_rate"].split()[0])
    r = run_cli("estimate", str(REPO / "specs"), str(DATA / "serve-405b-gb200.yaml"), "--workload", spec["id"],
                "--format", "json")
    assert r.code == 0, r.err
    m = json.loads(r.out)["metrics"]
    assert m["tokens_per_second"]["value"] == round(rate * spec["inference"]["output_len"], 6) == 32750
    capacity = m["replica_capacity"]["value"]
    assert m["replicas_to_keep_up"]["value"] == math.ceil(rate / capacity)
