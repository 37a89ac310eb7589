"""Context parallelism runs on Transformer Engine's attention only (perf/train/refused.py `CP_NEEDS_TE_ATTENTION`).

Megatron-core's own attention (`attention: materialized`) asserts "Context parallelism is only supported by
TEDotProductAttention!" (megatron/core/transformer/dot_product_attention.py at d98e8a6, line 59). archgen estimated
Llama 3.1 70B at tp 8 x cp 2 with it (4.515 s a step), and the plan search with `attention: materialized` kept took
cp 8 at 32k tokens (4.752 s, 21 % under the estimate it was offered against).
"""

from __future__ import annotations

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import layout_problems
from archgen.perf.train.refused import CP_NEEDS_TE_ATTENTION
from tests.conftest import SPECS

WORKLOAD = """\
kind: Workload
id: cp-mat
model: llama3-70b
cluster: gb200-nvl72-su
accelerators: 512
training:
  seq_len: {seq}
  global_batch: {batch}
  precision: bf16
{extra}  parallelism: {{tp: 8{more}}}
"""

LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)


def run(cli, tmp_path, extra: str, more: str, *args: str, seq: int = 8192, batch: int = 512):
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(extra=extra, more=more, seq=seq, batch=batch), encoding="utf-8")
    return cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "cp-mat", *args)


def test_cp_with_attention_stated_materialized_is_an_error_at_cp(cli, tmp_path):
    r = run(cli, tmp_path, "  attention: materialized\n", ", cp: 2")
    assert r.code == 1  # was estimated: 4.515 s a step
    out = r.out + r.err
    assert "w.yaml:11:" in out
    assert "training.parallelism.cp: cp 2 needs Transformer Engine's attention, and attention is stated materialized" \
        in out


def test_cp_under_a_profile_of_materialized_attention_is_refused(cli, tmp_path):
    """The 2021 Megatron-LM profile has no flash attention: cp 2 on it is refused by the layout rules."""
    r = run(cli, tmp_path, "  stack: megatron-lm-2021\n", ", cp: 2, pp: 1, dp: 32, micro_batch: 1")
    assert r.code == 2  # the workload cannot be estimated (was: estimated)
    assert CP_NEEDS_TE_ATTENTION in r.out + r.err


@pytest.mark.parametrize(("attention", "refused"), [("materialized", True), ("flash", False)])
def test_layout_problems(attention, refused):
    job = Job(LLAMA70, 8192, 512, attention=attention)
    problems = layout_problems(LLAMA70, job, 512, tp=8, pp=1, dp=32, cp=2, micro_batch=1)
    assert [(p.field, str(p)) for p in problems] == ([("cp", CP_NEEDS_TE_ATTENTION)] if refused else [])
    assert not layout_problems(LLAMA70, job, 512, tp=8, pp=1, dp=64, cp=1, micro_batch=1)


def test_the_plan_search_keeps_cp_1_under_materialized_attention(cli, tmp_path):
    r = run(cli, tmp_path, "  stack: nemo-2025\n  attention: materialized\n", "", "--search-plan", seq=32768,
            batch=64)
    assert r.code == 0, r.err
    assert "held at one value: cp 1" in r.out
    best = next(line for line in r.out.splitlines() if line.strip().startswith("best:"))
    assert " cp=1 " in best  # was cp=8
