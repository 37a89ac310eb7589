"""A closed loop at its engine's stated cap is a capacity run: its throughput takes the offline family's band (nu60fix).

newuser60 ran TensorRT-LLM's B200 DeepSeek-R1-0528 FP4 max-throughput run (FP8 KV cache, tp 8 / ep 8 with attention
DP, max_batch_size 896 per rank, concurrency 7,168: 5,393.2755 tokens/s per GPU, NVIDIA/TensorRT-LLM docs/source/
blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md at 01c4ece9) as `scenario: concurrency, batch: 7168` and
read 9,496 tokens/s per GPU with no band: MoE serving under load keeps no throughput band. 7,168 = 896 x 8 ranks is
the engine's cap, so the replica runs full the whole run, as an offline run does; its tokens/s now carries MoE
offline serving's band, its latencies their own. The page's three max-throughput runs are held out
(tests/perf/data/heldout-trtllm-r1.yaml): they lay inside that band until margin43, and now have none, their prompts
(1,024 and 1,042 tokens) past the MoE runs' longest (804) by more than the 10 % margin
(`band_families.CONTEXT_MARGIN`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen.model.inference import Inference
from archgen.output.heldout import checked
from archgen.perf.workload.band_families import at_engine_cap, quantity_family
from tests.conftest import SPECS, docs_script

HELD = Path(__file__).resolve().parent / "data" / "heldout-trtllm-r1.yaml"
R1 = dict(precision="fp4", tp=8, ep=8, attention_dp=True, max_num_tokens=2048, input_len=1024, output_len=2048)


@pytest.mark.parametrize(("job", "capacity"), [
    (dict(R1, scenario="concurrency", batch=7168, max_batch_size=896), True),        # 896 x 8 ranks
    (dict(R1, scenario="concurrency", batch=7167, max_batch_size=896), False),       # one below the cap
    (dict(R1, scenario="concurrency", batch=7168), False),                           # no stated cap
    (dict(R1, scenario="concurrency", batch=4096, max_batch_size=896, max_num_tokens=512), True),  # 512 x 8 tokens
    (dict(R1, scenario="offline", max_batch_size=896), False),
    (dict(R1, scenario="concurrency", batch=896, max_batch_size=896, attention_dp=False, ep=1), True),  # one rank
])
def test_a_closed_loop_at_its_stated_cap_is_a_capacity_run(job, capacity):
    assert at_engine_cap(Inference(**job)) is capacity


def test_only_its_throughput_takes_the_offline_family():
    for metric in ("tokens_per_second", "tokens_per_second_per_gpu", "cost_per_million_tokens"):
        assert quantity_family("moe-serving-under-load", metric, True) == "moe-offline-serving"
        assert quantity_family("serving-under-load", metric, True) == "offline-serving"
        assert quantity_family("moe-serving-under-load", metric, False) == "moe-serving-under-load"
    for metric in ("ttft", "tpot", "tpot_p99", "tokens_per_second_per_user"):
        assert quantity_family("moe-serving-under-load", metric, True) == "moe-serving-under-load"


def test_the_max_throughput_runs_are_held_out_and_past_the_moe_runs_prompts():
    gen = docs_script("gen_accuracy")
    assert HELD in gen.HELD_OUT.values() and HELD not in gen.INDEPENDENT.values()
    rows = checked(HELD)
    # the page's Total Output Throughput: per GPU x 8 (5,393.2755, 4,548.0105, 1,436.1584 tokens/s per GPU)
    assert [c.result.measured for c in rows] == pytest.approx([5393.2755 * 8, 4548.0105 * 8, 1436.1584 * 8],
                                                              rel=1e-5)
    for c in rows:
        assert c.family == "moe-offline-serving" and not c.banded, (c.result.id, c.result.error)
        assert c.band.measure == "prompt" and c.band.tokens in (1_024, 1_042) and c.band.longest == 804


def test_the_estimate_of_the_run_carries_the_band_and_says_why(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: w\nname: w\nmodel: deepseek-v3\ncluster: dgx-b200-superpod\naccelerators: 8\n"
        "inference: {precision: fp4, kv_precision: fp8, quantised_attention: none, tp: 8, ep: 8, attention_dp: true,"
        " max_batch_size: 896, max_num_tokens: 2048, input_len: 804, output_len: 2048, scenario: concurrency,"
        " batch: 7168}\n", encoding="utf-8")
    r = cli("estimate", str(SPECS), str(tmp_path), "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    est = json.loads(r.out)
    tput, ttft = est["bands"]["tokens_per_second_per_gpu"], est["bands"].get("ttft")
    assert tput["family"] == "moe-offline-serving" and tput["measurements"] > 0
    assert ttft is None or ttft["family"] == "moe-serving-under-load"
    assert any("runs at that cap the whole run" in n for n in est["notes"])
