"""Tensor-parallel communication overlap (`overlap_tp_comm`): it only hides communication, and with it the model
reproduces Llama 3 405B's published H100 throughput (Table 4; see the case file for the assumptions)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from archgen.perf.train.job import Job, Layout
from archgen.perf.train.training import estimate_training
from archgen.scoring.scores import score_file

DATA = Path(__file__).parent / "data"


def test_overlap_hides_tp_communication_only(h100):
    """The switch moves the TP communication (what shows, and the overlap's own GEMM cost, both in `tp_comm`) and
    nothing else. GPT-3 175B at 2,048 tokens, TP 8, BF16: without userbuffers a layer exposes 0.91 ms of its TP
    collectives (the column-parallel backward's two hide behind their GEMMs, `tp_comm.tp_sequence_parallel`); with
    them 0.09 ms shows but the GEMMs' chunks and SM margin cost 0.92 ms (`tp_comm.tp_overlap_cost`), so the overlap
    saves nothing here (tp_comm 3 % higher); under FP8 it saves."""
    from archgen.perf.hw.arch import Arch
    arch = Arch(layers=96, hidden=12288, heads=96, kv_heads=96, head_dim=128, ffn=49152, vocab=51200)
    lay = Layout(8, 8, 16, 1, 1, 1, 1, 0, True)
    plain = estimate_training(h100, Job(arch, 2048, 1536), lay)
    hidden = estimate_training(h100, Job(arch, 2048, 1536, overlap_tp_comm=True), lay)
    assert float(hidden.tp_comm) / float(plain.tp_comm) == pytest.approx(1.03, abs=0.01)
    fp8 = [estimate_training(h100, Job(arch, 2048, 1536, "fp8", overlap_tp_comm=on), lay) for on in (False, True)]
    assert float(fp8[1].tp_comm) < float(fp8[0].tp_comm)
    assert float(hidden.compute) == pytest.approx(float(plain.compute))
    for part in ("dp_comm", "pp_comm", "optimizer"):
        assert float(getattr(hidden, part)) == pytest.approx(float(getattr(plain, part)))
    # the step shrinks by the hidden communication, in the steady state and in the pipeline bubble alike
    m = 1536 / 16
    saved = float(plain.tp_comm - hidden.tp_comm)
    assert float(hidden.step_time) == pytest.approx(float(plain.step_time) - saved * (1 + (8 - 1) / m))
    no_tp = Layout(1, 8, 128, 1, 1, 1, 1, 0, False)
    assert np.isclose(float(estimate_training(h100, Job(arch, 2048, 1536, overlap_tp_comm=True), no_tp).step_time),
                      float(estimate_training(h100, Job(arch, 2048, 1536), no_tp).step_time))


def test_llama3_405b_table4_within_25_percent():
    """Flash attention at its measured rate, TP overlap with its cost: +13.1 % and +10.0 % (a drift guard)."""
    results = score_file(DATA / "llama3-405b-table4.yaml")
    errors = {r.id: r.error for r in results}
    assert set(errors) == {"llama3-405b-8k-8192gpu", "llama3-405b-8k-16384gpu"}
    assert all(abs(e) <= 0.25 for e in errors.values()), errors
