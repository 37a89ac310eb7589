"""cp > 1 needs the sequence in 2·cp equal chunks; a cp that leaves a rank an odd count of tokens is refused (nu53fix).

Megatron-core's data loader cuts each sequence into 2·cp chunks and gives rank r chunks r and 2cp−1−r
(`get_batch_on_this_cp_rank`, megatron/core/utils.py at d98e8a6, lines 2549-2554: a `view` of 2·cp chunks of
seq // (2·cp) tokens), and Transformer Engine's CP attention asserts "Sequence length per GPU needs to be divisible by
2!" (transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py at d0067d0, line 1571). Before,
only cp | seq_len was checked: Llama 3 8B at 8,200 tokens on cp 8 (1,025 tokens a rank) was timed (0.8495 s a step,
newuser53's `odd-chunk`), and the plan search offered every divisor of the sequence as cp.
"""

from __future__ import annotations

import re

from archgen.perf.explore.plan import search_plan
from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import layout_problems
from archgen.perf.train.layouts import enumerate_layouts
from tests.conftest import SPECS
from tests.data.workloads import training_workload

LLAMA3_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


def test_a_stated_cp_that_leaves_a_rank_an_odd_count_is_refused_at_its_line(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-8b", 64, "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1}", seq_len=8200, global_batch=64,
        precision="bf16"), encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w")
    assert r.code != 0 and "Traceback" not in r.err
    # 8,200 / 8 = 1,025 tokens a rank, odd; the nearest lengths that split into 2 x 8 = 16 chunks: 8,192 and 8,208
    assert re.search(r"w\.yaml:\d+:\d+: error: workload 'w': cp \(8\) leaves each rank 1,025 of the 8,200 tokens, an "
                     r"odd count: cp > 1 needs the sequence length to be a multiple of 2 x cp = 16 ", r.err), r.err
    assert "megatron/core/utils.py at d98e8a6" in r.err and "context_parallel.py at d0067d0, line 1571" in r.err
    assert "expected seq_len 8,192 or 8,208" in r.err


def test_the_rule_is_2cp_not_cp():
    """seq 8,200 = 2^3 x 1,025: cp 2 and 4 split it into 2·cp chunks (4, 8 | 8,200), cp 8 does not (16 ∤ 8,200)."""
    job = Job(LLAMA3_8B, 8200, 64)

    def cp_problems(cp: int) -> list[str]:
        return [p for p in layout_problems(LLAMA3_8B, job, 64, tp=1, pp=1, dp=64 // cp, cp=cp) if p.field == "cp"]

    assert cp_problems(1) == cp_problems(2) == cp_problems(4) == []
    assert len(cp_problems(8)) == 1 and "an odd count" in cp_problems(8)[0]
    assert cp_problems(3) == ["cp (3) does not divide the sequence length 8200"]  # 8,200 % 3 = 1: named as before


def test_the_searches_offer_no_cp_that_leaves_an_odd_count(h100):
    job = Job(LLAMA3_8B, 8200, 64)
    assert len(enumerate_layouts(LLAMA3_8B, job, 64, h100, {"cp": 8})["tp"]) == 0
    assert len(enumerate_layouts(LLAMA3_8B, job, 64, h100, {"cp": 4})["tp"]) > 0
    plan = search_plan(h100, job, 64, "nemo-2025", {})
    # divisors of 8,200 that divide 64: 1, 2, 4, 8; 8 leaves 1,025 tokens a rank
    assert plan.searched["cp"] == (1, 2, 4)
