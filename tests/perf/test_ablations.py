"""Switches against published ablations: a source that measured the same job with a switch on and off.

A switch that moves a validation case by more than 5 points needs a test from a source (issue 20). The overlap
mechanisms' own breakdowns are in test_overlap_cost.py (TP overlap's cost on NeMo 25.11 H100 rows, the SMs NCCL
takes on MLPerf GPT-3, `ep_dedup` at DeepEP's measured RDMA rate) and test_tp_overlap.py (Llama 3 405B, Table 4);
the mechanisms themselves, derived by hand, in test_effects.py. This file holds the ablations measured end to end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.scoring.scores import score_file

DATA = Path(__file__).parent / "data"

#: Korthikanti et al. (arXiv 2205.05198) Table 5, seconds per iteration: (full recompute, SP + selective recompute).
TABLE5 = {"22b": (1.42, 1.10), "175b": (18.13, 13.75), "530b": (49.05, 37.83), "1t": (94.42, 71.49)}


@pytest.fixture(scope="module")
def table5():
    """Errors of the eight Table 5 rows (tests/perf/data/korthikanti-table5.yaml), by id."""
    return {r.id: r.error for r in score_file(DATA / "korthikanti-table5.yaml")}


def test_korthikanti_table5_rows_within_5_percent(table5):
    """Both sides of the ablation on 8 to 512 A100: -4.0 % to +3.9 % when this test was written (a drift guard)."""
    assert len(table5) == 8
    assert all(abs(e) <= 0.05 for e in table5.values()), table5


@pytest.mark.parametrize("model", sorted(TABLE5))
def test_sequence_parallel_with_selective_recompute_moves_the_step_as_measured(table5, model):
    """The switch pair (`sequence_parallel` on, `recompute` full -> selective) shortens the step by 22.5 % (22B),
    24.2 % (175B), 22.9 % (530B) and 24.3 % (1T) in Table 5; the model moves it by 27.2 %, 26.5 %, 24.7 % and
    24.4 %: within 5 points of each measured move (the 22B, whose TP 8 layers of h 6144 spend the largest share on
    the element-wise traffic sequence parallelism splits, is the farthest, 4.7 points)."""
    full, seqsel = TABLE5[model]
    measured = seqsel / full - 1.0
    on, off = (table5[f"korthikanti-t5-{model}-{side}"] for side in ("seqsel", "full"))
    predicted = seqsel * (1 + on) / (full * (1 + off)) - 1.0
    assert predicted == pytest.approx(measured, abs=0.05), (predicted, measured)
