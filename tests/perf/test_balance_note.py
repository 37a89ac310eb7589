"""The note of an MoE training estimate at ep > 1 that takes the routing as balanced (perf/workload/balance_note.py).

The training model spreads each MoE pass's routed tokens evenly over the EP ranks (docs/perf-model.md, Limitations);
the note says so, in the customer's words: with the stack forcing the balance (nemo-2025: Megatron-Bridge's
`moe_router_force_load_balancing = True`) that is close to what the benchmark ran; stated off, the busiest rank's
slowdown is not bounded (the one published imbalance is a serving measurement). Dense training and serving get none.
"""

from __future__ import annotations

import json

from archgen.render.edition_text import leftovers
from tests.conftest import SPECS
from tests.data.workloads import qwen3_training, training_workload

LAYOUT = "{tp: 1, pp: 2, dp: 32, ep: 32, micro_batch: 1, interleave: 2}"
SERVING = """kind: Workload
id: q
model: qwen3-30b-a3b
cluster: gb200-nvl72-su
accelerators: 8
inference: {precision: bf16, tp: 8, ep: 8, input_len: 1000, output_len: 100}
"""


def notes(cli, tmp_path, text: str) -> list[str]:
    (tmp_path / "w.yaml").write_text(text, encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "q", "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)["notes"]


def balanced(found: list[str]) -> list[str]:
    return [n for n in found if n.startswith("MoE routing assumed balanced")]


def test_forced_balance_says_the_benchmark_balanced_it(cli, tmp_path):
    (note,) = balanced(notes(cli, tmp_path, qwen3_training("q", LAYOUT, stack="nemo-2025")))
    assert "spread evenly over the 32 EP ranks" in note
    assert "forced balancing this stack runs" in note and "not bounded" not in note
    assert leftovers(note) == []


def test_an_unforced_router_leaves_the_skew_unbounded(cli, tmp_path):
    (note,) = balanced(notes(cli, tmp_path, qwen3_training("q", LAYOUT, stack="nemo-2025", moe_force_balance=False)))
    assert "a real router's skew makes the busiest rank slower by its imbalance, which the estimate does not bound" \
        in note
    assert "no published measurement of training routing imbalance" in note
    assert leftovers(note) == []


def test_dense_training_and_serving_get_none(cli, tmp_path):
    dense = training_workload("q", "llama3-70b", 64, "{tp: 8, pp: 1, dp: 8}", seq_len=4096, global_batch=64,
                              precision="bf16")
    assert not balanced(notes(cli, tmp_path, dense))
    served = notes(cli, tmp_path, SERVING)
    assert any(n.startswith("MoE routing:") for n in served)   # serving's own routing note
    assert not balanced(served)
