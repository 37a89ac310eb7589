"""Serving-under-load latency bands are conditioned on the run's load, its served rate over its replica's capacity.

servefix (issue 20 part 7): every scored under-load TTFT p99 was taken at MLPerf's operating point, where an open loop
magnifies the model's per-iteration error (the B200 Llama 2 70B Server row's +342 %), yet that band (-97.8 % to
+342 %) was applied to a run at any load, so every TTFT SLA read 'at risk'. Now each latency band is its load bin's
(`perf.workload.band_families.load_bin`), and a bin of fewer than `MIN_BIN` measurements says it is unmeasured at this load.
"""

from __future__ import annotations

import json
import math

import pytest

from archgen.model.at_risk import UNBANDED
from archgen.model.requirements import Status
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.serve.scheduler import estimate_serving, simulate
from archgen.perf.workload.band_families import LIGHT, NEAR_CAPACITY, load_bin
from archgen.perf.workload.band_source import compute_table
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import MIN_BIN, band
from archgen.units import Q_
from tests.conftest import SPECS, run_cli


def test_bin_edges_are_where_a_queue_magnifies_an_error_2x_and_about_6_7x():
    """M/M/1: latency = service / (1 - load), so d ln latency / d ln service = 1 / (1 - load) (Kleinrock 1975)."""
    assert 1 / (1 - LIGHT) == pytest.approx(2.0)
    assert 1 / (1 - NEAR_CAPACITY) == pytest.approx(6.667, abs=1e-3)
    assert [load_bin(x) for x in (0.0, 0.4999, 0.5, 0.8499, 0.85, 1.2)] == \
        ["light", "light", "moderate", "moderate", "near-capacity", "near-capacity"]


def test_latency_errors_are_kept_per_load_bin_and_throughput_is_not():
    scored = [("serving-under-load", "ttft", e, load) for e, load in ((-0.1, 0.2), (0.2, 0.3), (0.1, 0.9),
                                                                      (3.0, 0.95), (-0.5, 0.9))]
    scored += [("serving-under-load", "tokens_per_second", 0.05, 0.9), ("serving-under-load", "tokens_per_second",
                                                                        -0.02, 0.2)]
    table = compute_table(scored)["serving-under-load"]
    assert table["ttft@light@poisson"] == (2, -0.1, 0.2, pytest.approx(0.15))   # no arrival given: Poisson
    assert table["ttft@near-capacity@poisson"] == (3, -0.5, 3.0, 0.5)
    assert "ttft" not in table and "ttft@moderate@poisson" not in table
    assert table["tokens_per_second"] == (2, -0.02, 0.05, pytest.approx(0.035))


def test_a_thin_bin_is_unmeasured_at_this_load_and_borrows_nothing():
    table = compute_table([("serving-under-load", "ttft_p99", e, 0.9) for e in (-0.6, 0.4, 3.4)]
                          + [("serving-under-load", "ttft_p99", -0.3, 0.3)])
    near = band("serving-under-load", "ttft_p99", table, load=0.9)
    assert near is not None and near.measured and (near.low, near.high) == (-0.6, 3.4)
    assert "taken near capacity (load >= 0.85) under Poisson arrivals at a rate, as this run is (load 0.90" in \
        near.describe()
    light = band("serving-under-load", "ttft_p99", table, load=0.2)
    assert light is not None and light.count == 1 < MIN_BIN and not light.measured
    assert math.isnan(light.low) and light.values(1.0) is None  # type: ignore[arg-type]
    text = light.describe()
    assert text.startswith("no band: unmeasured at this load; the run's load is 0.20 of its replica's capacity")
    assert "where 1 published serving under load measurement of ttft_p99 under Poisson arrivals at a rate was " \
           "taken, fewer than the 3" in text and "no other load's or arrival's band is borrowed" in text
    moderate = band("serving-under-load", "ttft_p99", table, load=0.6)
    assert moderate is not None and moderate.count == 0 and "where no published" in moderate.describe()
    # offline serving and training carry no load bin
    off = band("offline-serving", "tokens_per_second", load=0.2)
    assert off is not None and off.bin == ""


LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.fixture(scope="module")
def h100(accelerators):
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


def test_load_is_the_served_rate_over_a_closed_loop_at_the_admission_cap(h100):
    """An open loop at rate r per replica: load = r x output_len / (tokens/s of the closed loop holding the cap)."""
    hw, tp = h100, 2
    job = ServeJob(LLAMA70, 2048, 128, "fp8", scenario="server")
    kv = int(float(estimate_inference(hw, job, tp, None).max_batch))
    full = simulate(hw, job, tp, max_batch=kv, concurrency=kv)
    capacity = full.tokens_per_second / job.output_len
    _, run = estimate_serving(hw, job, tp, None, 0.3 * capacity)
    assert run is not None and run.load == pytest.approx(0.3, rel=1e-9)
    # a closed loop's load: its completions over the same closed loop at the KV cache's capacity
    closed = ServeJob(LLAMA70, 2048, 128, "fp8", scenario="concurrency")
    _, c = estimate_serving(hw, closed, tp, 4)
    assert c is not None and c.load == pytest.approx(c.tokens_per_second / full.tokens_per_second, rel=1e-9)
    _, at_kv = estimate_serving(hw, closed, tp, kv)
    assert at_kv is not None and at_kv.load == pytest.approx(1.0)


def test_the_shipped_table_has_no_light_load_percentile():
    """The light-load rows are NIM 1.8.0's closed loops at concurrency 1 and 5 (means only): no percentile, and
    none of a Poisson run."""
    rows = TABLE["serving-under-load"]
    assert not any("@light@" in k and "_p" in k for k in rows)
    assert rows["ttft@light@closed"][0] >= MIN_BIN and "ttft@light@poisson" not in rows


LIGHT_SERVER = """kind: Workload
id: light-server
model: llama3-70b
cluster: gb200-nvl72-su
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 128, scenario: server, arrival_rate: 3 1/s}
requirements:
  - {id: REQ-T-1, statement: TTFT p99, metric: ttft_p99, target: "<= 500 ms"}
"""


def test_estimate_states_the_load_bin_and_an_unmeasured_band(spec_tree):
    specs = spec_tree({"workloads/light.yaml": LIGHT_SERVER})
    args = ("estimate", "--workload", "light-server", "--path", str(SPECS), "--path", str(specs))
    doc = json.loads(run_cli(*args, "--format", "json").out)
    p99 = doc["bands"]["ttft_p99"]
    assert p99["load"]["bin"] == "light" and p99["load"]["load"] < LIGHT and p99["error"] is None
    # the light-load TTFT rows are closed loops (NIM): a Poisson run there has no TTFT band either (by arrival)
    assert doc["bands"]["ttft"]["load"] == {"load": p99["load"]["load"], "bin": "light", "arrival": "poisson",
                                            "reach": pytest.approx(p99["load"]["load"] * (1 + 0.4622))}  # 0.4243
    # before kvpeak37 held the engines' profiling peak (the offline band's high end, MI300X's vLLM row, moved); 0.4197
    # before kvcfg38 stated that row's gpu_memory_utilization, 0.99; 0.4296 while vLLM's budget held the CUDA context
    # its memory snapshot leaves out (review57); 0.4297 before lengths40 took the capacity's band (the reach's) from
    # the offline rows scored at one length, as the capacity is simulated (that row's output_len_cv 0.79 dropped)
    assert doc["bands"]["ttft"]["error"] is None
    assert doc["bands"]["tokens_per_second"]["load"] is None
    text = run_cli(*args).out
    req = next(line for line in text.splitlines() if line.startswith("REQ-T-1"))
    # met at the estimate, but no run bounds its error at this load: at risk, saying why (issue 20 part 7); 500 ms,
    # not 2 s since light39: 71.3 ms at the worst TTFT error measured at light load (-88.9 %) is 643 ms, within it
    # (after the assumed inputs the estimate rests on, where it rests on any: nu99fix, as check says)
    assert req.startswith(f"REQ-T-1: ttft_p99 <= 500 ms: {Status.AT_RISK.value} (")
    assert f"({UNBANDED}: no band: unmeasured at this load" in req


def test_req004_names_the_load_bin_its_band_comes_from(spec_tree):
    """Near capacity the band is the near-capacity bin's, and REQ004 names that bin. Since nu68fix an open loop is
    binned at its system's measured capacity where its file measures one (`band_source.measured_loads`): the
    Poisson near-capacity bin holds 10 MLPerf Server runs (TTFT p99 -97.9 % to +64.4 %, median 55.9 % with loadgen's
    p99; 8, -97.9 % to -23.2 %, before serve37 moved the 405B B200 and GB200 rows there, at the model's 0.86 and
    0.87), Llama 3.1 8B's among them
    (999.47 / 1,060.23 = 0.94 of its Offline log's samples/s), and the run's load at the capacity band's low end is
    named beside the model's (0.92 x 1.424 = 1.30, past capacity; 0.91 and 1.29 before serve37 left a closed loop's
    drain out of the replica's capacity, `measure.closed_measured`; 1.421 before decode36 counted output_len - 1
    decode steps a request offline; 1.424 before kvpeak37, 1.420 since; 1.30 at 1.420 before kvcfg38 stated MI300X's
    vLLM Offline row's gpu_memory_utilization 0.99, 1.31 at 1.430 since; 1.34 at 1.462 since lengths40 took the
    capacity's band from the offline rows scored at one length, as the capacity is simulated)."""
    near = LIGHT_SERVER.replace("arrival_rate: 3 1/s", "arrival_rate: 28 1/s").replace('"<= 500 ms"', '"<= 1 s"')
    specs = spec_tree({"workloads/light.yaml": near})
    out = run_cli("check", str(SPECS), str(specs), "--select", "REQ004").out
    line = next(ln for ln in out.splitlines() if "REQ-T-1" in ln)
    assert "model error -97.9% to +64.4%, median |error| 55.9%, on 10 serving under load measurements taken near " \
        "capacity (load >= 0.85) under Poisson arrivals at a rate, as this run is (load 0.92 of its replica's " \
        "capacity; up to 1.34 at the low end of the capacity's band, which the model over-predicted by up to +46.2% " \
        "on offline serving runs, each scored as a simulated run is, every request of one length (a run's stated " \
        "spread of outputs dropped), past capacity, where the queue grows without bound)" in line
