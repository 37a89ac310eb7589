"""MLPerf Training v5.1 on AMD Instinct GPUs (tests/perf/data/mlperf-training-v5-amd.yaml): every row parses and
predicts, the rows state what the submissions' configs set, each step time agrees with the logs' own throughput, and
the file header's "What it shows" figures are the model's.

Sources (mlcommons/training_results_v5.1 at 441d65f4): each row's result logs, config_*.sh, src/train.py and system
JSON are named in its `source`; the switches common to the rows are read in the header (train.py:85, :121-124,
:148-166). The bars of the last test were set after the run, as a guard against drift: a model change that moves
them rewrites the header's prose.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from archgen.scoring.cases import case_hardware, read_case_file, training_estimate
from archgen.scoring.scores import score_case_file, summary

AMD = Path(__file__).resolve().parent / "data" / "mlperf-training-v5-amd.yaml"
#: Samples per training block: EVAL_EVERY=12288 in every config_*_1x8x1_8b.sh (the logs' samples_count steps).
BLOCK_SAMPLES = 12288


@pytest.fixture(scope="module")
def cases():
    return {c.id: c for c in read_case_file(AMD).cases}


@pytest.fixture(scope="module")
def results():
    return score_case_file(AMD).results


def test_every_row_parses_and_predicts(cases, results):
    """Three step times, none refused, each read from the logs themselves (`confirmed`), all on AMD parts."""
    assert read_case_file(AMD).refused == [] and len(cases) == 3
    assert all(c.status == "confirmed" and [m.metric for m in c.measured] == ["step_time"] for c in cases.values())
    assert {c.system.accelerator for c in cases.values()} == {"mi355x", "mi350x"}
    assert len(results) == 3 and all(math.isfinite(r.error) for r in results)


def test_rows_state_what_the_configs_set(cases):
    """NeMo 2.5.0rc0 (the stack these runs ran, not Primus); FP8 'hybrid' with an amax history (delayed scaling),
    fp8 parameter gather, bf16 gradient reduction, the distributed optimizer, no DP overlap (DistributedDataParallel-
    Config leaves both False), no TP overlap (TP_COMM_OVERLAP=False); TP=PP=CP=1 on one node of 8, GBS 32 whole
    micro-batches per GPU."""
    for cid, c in cases.items():
        t = c.training
        assert t.stack == "nemo-2025", cid
        assert (t.precision, t.fp8_recipe, t.param_gather_dtype, t.grad_reduce_dtype) == ("fp8", "delayed", "fp8",
                                                                                          "bf16"), cid
        assert t.distributed_optimizer and not t.overlap_grad_reduce and not t.overlap_param_gather, cid
        assert not t.overlap_tp_comm and not t.sequence_parallel and t.cuda_graphs == "none", cid
        assert (t.tp, t.pp, t.cp, t.dp, c.system.count, t.seq_len, t.global_batch) == (1, 1, 1, 8, 8, 8192, 32), cid
        assert t.global_batch % (t.dp * t.micro_batch) == 0, cid
    assert {cid: c.training.micro_batch for cid, c in cases.items()} == {
        "mlperf-t51-llama31-8b-8xmi355x-fp8": 2, "mlperf-t51-llama31-8b-8xmi350x-fp8": 2,
        "mlperf-t51-llama31-8b-8xmi355x-fp8-mbs4": 4}


def test_step_times_agree_with_the_logged_throughput(cases):
    """Each step time (median block time over the block's 384 steps) and the logs' own `tracked_stats` throughput in
    samples/s, both in the row's `source`, agree: GBS / throughput within 0.1 %."""
    for cid, c in cases.items():
        stated = re.search(r"median block step time ([\d.]+) s over (\d+) blocks of (\d+) steps.*?"
                           r"median tracked_stats throughput ([\d.]+) samples/s", c.source)
        assert stated, cid
        step, steps, throughput = float(stated[1]), int(stated[3]), float(stated[4])
        assert steps == BLOCK_SAMPLES // c.training.global_batch, cid
        assert step == float(c.measured[0].value), cid
        assert c.training.global_batch / throughput == pytest.approx(step, rel=1e-3), cid


def test_header_figures_are_the_models(cases, results, accelerators):
    """The header's median and worst are the scored file's, rounded as written; the MI355X row is compute-bound in
    the model (compute over 90 % of the predicted step) and the MI350X row is the furthest off."""
    text = AMD.read_text(encoding="utf-8")
    stated = re.search(r"median \|error\| ([\d.]+) %, worst (-?[\d.]+) %", text)
    assert stated, "the header states the file's median and worst"
    s = summary(results)
    worst = max(results, key=lambda r: abs(r.error))
    assert (float(stated[1]), float(stated[2])) == (round(s["median"] * 100, 1), round(worst.error * 100, 1))
    assert f"fast on {sum(r.error < 0 for r in results)} of {len(results)}" in text
    assert worst.id == "mlperf-t51-llama31-8b-8xmi350x-fp8"
    c = cases["mlperf-t51-llama31-8b-8xmi355x-fp8"]
    est = training_estimate(c, case_hardware(c, accelerators))
    assert float(est.compute) / float(est.step_time) > 0.9


def test_header_states_the_primus_reading(cases, accelerators):
    """The header's information-only figures under primus-2025 (AMD's Primus profile, which these runs did not use)
    are the model's, in row order and rounded as written."""
    errors = []
    for c in cases.values():
        step = float(training_estimate(c, case_hardware(c, accelerators), stack="primus-2025").step_time)
        errors.append(f"{(step / float(c.measured[0].value) - 1) * 100:.1f} %")
    assert f"read {', '.join(errors)}" in " ".join(AMD.read_text(encoding="utf-8").replace("#", " ").split())
