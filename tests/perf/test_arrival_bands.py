"""Serving-under-load latency bands are keyed by arrival: Poisson rate or closed-loop concurrency (issue 20 part 7).

newuser33's finding 4: MoE serving's latency bands come only from MLPerf v5.1 DeepSeek-R1 Server rows
(tests/perf/data/mlperf-inference-v5-deepseek.yaml; loadgen's Server scenario issues queries at Poisson arrivals,
mlcommons/inference loadgen/README.md), yet applied to closed loops at a fixed concurrency in the same load bin:
DeepSeek-R1 at TP32 on an NVL72, concurrency 2,048, read TTFT 555 ms with a band of 9.4-17.6 s. A Poisson run's
TTFT holds its bursts' queueing, which a closed loop, admitting a request only when one leaves, has not.
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.workload.band_families import arrival_of, one_bin
from archgen.perf.workload.band_source import compute_table
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import band
from tests.conftest import SPECS, run_cli
from tests.perf.test_mlperf_v5_deepseek import DSR1_B200_SERVER

CLOSED = DSR1_B200_SERVER.replace("scenario: server,\n            arrival_rate: 5.02 1/s",
                                  "scenario: concurrency, batch: 64")


def test_the_table_keeps_each_arrival_apart():
    """The same bin's errors of a Poisson and a closed-loop run land in two rows, never one."""
    table = compute_table([("serving-under-load", "ttft", 0.1, 0.2, "poisson"),
                           ("serving-under-load", "ttft", -0.3, 0.2, "closed")])
    rows = table["serving-under-load"]
    assert {k: v for k, v in rows.items() if one_bin(k)} == {"ttft@light@poisson": (1, 0.1, 0.1, 0.1),
                                                                "ttft@light@closed": (1, -0.3, -0.3, 0.3)}
    # and each run of bins holding the light bin keeps them apart too (`band_families.table_keys`)
    assert rows["ttft@light..moderate@poisson"] == (1, 0.1, 0.1, 0.1)
    assert rows["ttft@light..near-capacity@closed"] == (1, -0.3, -0.3, 0.3)
    assert (arrival_of("server"), arrival_of("concurrency")) == ("poisson", "closed")


def test_moe_latency_bands_are_poissons_only():
    """Every MoE serving-under-load latency row is of the three DeepSeek-R1 Server runs (Poisson): a closed loop at
    the same light load has no band, where a Poisson run there keeps its three measurements.

    nu68fix: two of the three ran at 0.56 and 0.58 of their system's measured Offline capacity (moderate), the GB300
    one (no Offline twin) at the model's 0.31; a Poisson run at 0.3 reaches 0.3 x (1 + 1.593) = 0.78 at the MoE
    capacity band's low end, the offline rows scored at one length as the capacity is simulated (lengths40; 0.65 at
    the tokens/s band's 1.151 before, 1.152 before mla35's MLA prefill core, 1.1514 before decode36 charged out - 1
    decode steps offline), so its band is the light and moderate bins', all three.
    """
    keys = [k for k in TABLE["moe-serving-under-load"] if "@" in k]
    assert keys and all(k.endswith("@poisson") for k in keys)
    poisson = band("moe-serving-under-load", "ttft_p99", load=0.3, arrival="poisson")
    closed = band("moe-serving-under-load", "ttft_p99", load=0.3, arrival="closed")
    assert poisson is not None and poisson.bin == "light..moderate" and poisson.reach == pytest.approx(0.3 * 2.5928)
    assert poisson is not None and poisson.measured and poisson.count == 3
    assert closed is not None and not closed.measured and closed.count == 0
    assert "at a fixed concurrency (a closed loop)" in closed.describe()


def test_a_closed_loop_deepseek_job_takes_no_poisson_band(spec_tree):
    """DeepSeek-R1 on a DGX B200 at concurrency 64: no latency band (before: the Poisson light-load rows' -98 %),
    so MLPerf's limits, met at the estimate, are at risk for want of a band (part 7's first item)."""
    specs = spec_tree({"workloads/dsr1.yaml": CLOSED})
    doc = json.loads(run_cli("estimate", "--workload", "dsr1-mlperf-server", "--format", "json", "--path",
                             str(SPECS), "--path", str(specs)).out)
    for metric in ("ttft", "ttft_p99", "tpot_p99"):
        b = doc["bands"][metric]
        assert b["load"]["arrival"] == "closed" and b["error"] is None, metric
    assert {r["status"] for r in doc["requirements"]} <= {"at risk", "not met"}
