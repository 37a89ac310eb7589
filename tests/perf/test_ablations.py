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


#: Why the column-parallel backward's two collectives hide with sequence parallelism: Megatron-LM of the paper
#: (NVIDIA/Megatron-LM at cfd2e21, 2022-04-28, megatron/mpu/layers.py lines 243-310) gathers the input with
#: async_op=True before the dgrad GEMM and reduce-scatters the dgrad with async_op=True before the wgrad GEMM.
_HIDDEN = ("since the column-parallel input's re-gather and dgrad reduce-scatter hide behind their GEMMs "
           "(Megatron-LM at cfd2e21, megatron/mpu/layers.py lines 243-310, async_op=True; `tp_comm`)")
#: Rows the model misses by more than 5 %, each with why; one the model brings back in fails the test until removed.
MISSES = {"korthikanti-t5-22b-seqsel": f"-5.4 % {_HIDDEN}; -2.4 % while the model charged them exposed"}


def test_korthikanti_table5_rows_within_5_percent(table5):
    """Both sides of the ablation on 8 to 512 A100: -4.0 % to +3.9 % when this test was written (a drift guard);
    -5.4 % to +4.8 % with the sequence-parallel backward's async pairs (`MISSES`)."""
    assert len(table5) == 8
    assert all(abs(e) <= 0.05 for k, e in table5.items() if k not in MISSES), table5
    assert all(abs(table5[k]) > 0.05 for k in MISSES), table5


@pytest.mark.parametrize("model", [pytest.param(m, marks=pytest.mark.xfail(
    strict=True, raises=AssertionError, reason=f"measured -22.5 %, the model -29.5 % {_HIDDEN} (-27.2 % before): "
    "the 22B's step is the shortest, so the hidden collectives take the largest share off it"))
    if m == "22b" else m for m in sorted(TABLE5)])


def test_sequence_parallel_with_selective_recompute_moves_the_step_as_measured(table5, model):
    """The switch pair (`sequence_parallel` on, `recompute` full -> selective) shortens the step by 22.5 % (22B),
    24.2 % (175B), 22.9 % (530B) and 24.3 % (1T) in Table 5; the model moves it by 27.2 %, 26.5 %, 24.7 % and
    24.4 %: within 5 points of each measured move (the 22B, whose TP 8 layers of h 6144 spend the largest share on
    the element-wise traffic sequence parallelism splits, is the farthest, 4.7 points). Since the sequence-parallel
    backward hides its column-parallel input gather and dgrad reduce-scatter behind their GEMMs (`tp_comm`): 29.5 %,
    28.1 %, 25.8 % and 25.3 %, the 22B 7.0 points off (strict xfail)."""
    full, seqsel = TABLE5[model]
    measured = seqsel / full - 1.0
    on, off = (table5[f"korthikanti-t5-{model}-{side}"] for side in ("seqsel", "full"))
    predicted = seqsel * (1 + on) / (full * (1 + off)) - 1.0
    assert predicted == pytest.approx(measured, abs=0.05), (predicted, measured)
