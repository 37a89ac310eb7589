"""Each disaggregated pool is timed from passes of its own, not from a hybrid batch split by tokens (pd2).

review40: a simulated run's pools split each hybrid iteration's time by its tokens (`ServingRun.prompt_share`), so a
decode pool paid a token's share of every pass's weight reads, where a decode-only pool reads every weight (and its
sequences' KV cache) each step. Now the prefill pool is the offline form's prefill-only passes and the decode pool
decode-only steps of the replica's sequences in flight, whatever the scenario: batch / step / tp.
The workload is newuser79's trial of SGLang's GB200 NVL72 decode (lmsys.org/blog/2025-09-25-gb200-part-2: 13,386
output tokens/s a GPU at 2,000-token prompts; no decode batch stated, 256 a rank assumed).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import REPO, SPECS, run_cli

TRIAL = """kind: Workload
id: {id}
name: DeepSeek-R1 wide-EP decode pool, 32 GPUs, NVFP4, FP8 KV
model: deepseek-v3
cluster: gb200-nvl72-su
accelerators: 32
inference: {{precision: fp4, kv_precision: fp8, tp: 32, ep: 32, attention_dp: true, input_len: 2000,
             output_len: 100, scenario: {scenario}, batch: 8192}}
"""
#: GB200: memory_bandwidth 8 TB/s a GPU (specs/catalog/accelerators/gb200.yaml, from NVIDIA's GB200 NVL72 datasheet).
HBM = 8e12


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("pools")
    out = {}
    for scenario in ("concurrency", "offline"):
        wid = f"r1-decode-{scenario}"
        (folder / f"{wid}.yaml").write_text(TRIAL.format(id=wid, scenario=scenario), encoding="utf-8")
        r = run_cli("estimate", str(SPECS), str(folder), "--workload", wid, "-f", "json")
        assert r.code == 0, r.err
        out[scenario] = json.loads(r.out)
    return out


def _m(run: dict, name: str) -> float:
    return float(run["metrics"][name]["value"])


def test_the_decode_pool_is_decode_only_steps_at_the_replicas_concurrency(runs) -> None:
    closed, offline = runs["concurrency"], runs["offline"]
    # the offline form's decode step is one decode-only step of `batch` sequences: the pool makes 8,192 tokens a step
    step = _m(offline, "decode_step_time")
    assert _m(closed, "decode_tokens_per_second_per_gpu") == pytest.approx(8192 / step / 32, rel=1e-9)
    # and the prefill pool the offline form's prefill-only passes, whichever scenario the replica runs
    pre = offline["breakdown"]["prefill_per_request"]["value"]
    assert _m(closed, "prefill_tokens_per_second_per_gpu") == pytest.approx(2000 / pre / 32, rel=1e-9)
    # a request's 99 decode steps (tokens 2 to 100; the prefill makes the first, decode36)
    assert _m(closed, "prefill_decode_ratio") == pytest.approx(pre / (99 * step / 8192), rel=1e-9)
    assert "decode-only steps of 8,192 sequences (the replica's concurrency" in closed["conventions"][
        "prefill_decode"]


def test_every_decode_step_reads_every_weight(runs) -> None:
    """Roofline: a step cannot beat its rank's weights over HBM, so the pool makes at most batch / that / tp."""
    closed = runs["concurrency"]
    weights = closed["memory"]["weights"]["value"]
    assert _m(closed, "decode_tokens_per_second_per_gpu") < 8192 / (weights / HBM) / 32


def test_the_token_split_read_the_decode_pool_high(runs) -> None:
    """The replica's own breakdown still splits its time by tokens; the decode pool read from it was higher.

    Before pd2: 13,790 output tokens/s a GPU (+3.0 % on SGLang's 13,386); now 12,109 (-9.5 %). Held out, no band.
    The split itself read 13,675 after serve29 (the prompts' attention on the busiest rank, `chunks.busiest_rank`) and
    reads 17,321 since serve30, where each rank computes its own sequences' logits (`iteration.Pass._ranks_logits`:
    the 8,192 decodes' logits had run on one rank, about 6 ms of each step), and 15,198 since serve37: the split
    divides output_len / the run's tokens/s, and a closed loop's tokens/s is its steady rounds' now (its last round,
    run while the replica drains, finished sooner and read the capacity high). This trial's tokens/s fell 14.7 %
    (43,481 -> 37,098), more than the 4-10 % of serve37's MLPerf replicas (why the drain weighed more in this
    8,192-sequence, 100-token loop was not measured).
    """
    closed = runs["concurrency"]
    split = 100 / closed["breakdown"]["decode_per_request"]["value"] / 32
    pool = _m(closed, "decode_tokens_per_second_per_gpu")
    assert split == pytest.approx(15_198, rel=1e-3)
    assert pool == pytest.approx(12_109, rel=1e-3)
    assert pool < split


def test_the_page_s_sglang_reading_is_the_estimate(runs) -> None:
    """docs/perf-model.md (Serving, disaggregation) quotes this trial's pools against SGLang's 26,156 input and 13,386
    output tokens/s a GPU; decode36 found it reading 25,272 input tokens/s after the model had moved to 25,005."""
    page = " ".join((REPO / "docs" / "perf-model.md").read_text(encoding="utf-8").split())
    said = re.search(r"concurrency 8,192 \(256 a rank; the blog states no decode batch\) reads ([\d,]+) input tokens/s "
                     r"\(([+-]\d+\.\d) %\) and ([\d,]+) output tokens/s \(([+-]\d+\.\d) %\) per accelerator, a P:D ratio "
                     r"of ([\d.]+)", page.replace("−", "-"))
    assert said, "the page's SGLang reading"
    closed = runs["concurrency"]
    pre, dec = _m(closed, "prefill_tokens_per_second_per_gpu"), _m(closed, "decode_tokens_per_second_per_gpu")
    assert f"{pre:,.0f}" == said[1] and f"{(pre / 26_156 - 1) * 100:+.1f}" == said[2], (said[0], pre)
    assert f"{dec:,.0f}" == said[3] and f"{(dec / 13_386 - 1) * 100:+.1f}" == said[4], (said[0], dec)
    assert f"{_m(closed, 'prefill_decode_ratio'):.2f}" == said[5], said[0]


LIGHT = """kind: Workload
id: l70-light
name: Llama 3.1 70B at a light Poisson load
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256, scenario: server, arrival_rate: 0.05 1/s}
"""


def test_a_light_open_loops_decode_pool_steps_one_sequence(tmp_path) -> None:
    """review42: at 0.05 requests/s the one replica holds 0.075 sequences on average (Little's law), and the reading
    said "decode-only steps of 0 sequences", timing the step at 0.075 of a sequence's KV reads. A decode step carries at least one:
    the pool's rate is then one sequence's, 1 / step / tp, with the offline form's step at batch 1."""
    (tmp_path / "light.yaml").write_text(LIGHT, encoding="utf-8")
    (tmp_path / "one.yaml").write_text(LIGHT.replace("l70-light", "l70-one").replace(
        "scenario: server, arrival_rate: 0.05 1/s", "batch: 1"), encoding="utf-8")
    got = {}
    for wid in ("l70-light", "l70-one"):
        r = run_cli("estimate", str(SPECS), str(tmp_path), "--workload", wid, "-f", "json")
        assert r.code == 0, r.err
        got[wid] = json.loads(r.out)
    light, one = got["l70-light"], got["l70-one"]
    words = light["conventions"]["prefill_decode"]
    assert "decode-only steps of 1 sequence (one: the replica's mean in flight under its arrivals is 0.075;" in words
    assert _m(light, "decode_tokens_per_second_per_gpu") == pytest.approx(1 / _m(one, "decode_step_time") / 8, rel=1e-9)
