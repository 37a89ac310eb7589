"""A sweep's training point longer than its model's context is refused as `estimate` refuses it (newuser40).

The batched path (`perf.explore.vectorised`) never asked `estimate`'s context check: a `seq_len` axis past Llama 3.1
70B's 131,072-token `context_length` (its config.json's max_position_embeddings, catalog/models/llama3-70b.yaml)
read "ok", with a step time and tokens per second, where `archgen check` of the same job is PERF003 "cannot be
estimated" (and the per-point path, which the batched one must equal, says "invalid" with that reason).
"""

from __future__ import annotations

from archgen.commands import sweep as sw
from archgen.commands import sweep_problems, workers
from archgen.model.workload import Model
from archgen.perf.explore.points import evaluate_point
from tests.conftest import SPECS


def test_a_seq_len_past_the_models_context_is_invalid_on_the_batched_path(tmp_path):
    """Two points beyond the context (one token past it, and twice it) are invalid with `estimate`'s reason, and the
    one within it runs: each row equal to the per-point path's."""
    specs, _, _ = sw.load(SPECS / "sweeps" / "llama3-70b.yaml", [SPECS])
    context = next(m for m in specs.of(Model) if m.id == "llama3-70b").context_length
    assert context is not None
    path = tmp_path / "sweep.yaml"
    path.write_text(f"""kind: Sweep
id: context
workload: llama3-70b-pretrain-b200
axes:
  seq_len: [{context}, {context + 8}, {2 * context}]
  global_batch: [64]
  cp: [8]
objectives: [{{metric: tokens_per_second}}]
""", encoding="utf-8")
    (problem,) = sweep_problems.problems(*sw.load(path, [SPECS]))
    rows = workers.evaluate_all(problem, None).rows
    assert [r.status for r in rows] == ["ok", "invalid", "invalid"]
    for row, tokens in zip(rows[1:], (context + 8, 2 * context), strict=True):
        assert row.reason == (f"seq_len = {tokens:,} tokens exceed model 'llama3-70b''s context_length of "
                              f"{context:,} tokens")
    assert [evaluate_point(problem, i).status for i in range(3)] == [r.status for r in rows]
