"""The note of an MoE training estimate whose all-to-all is exposed by the stack's default (perf/workload/
ep_exposed_note.py; newuser89: DeepSeek-V3 on 2,048 H800 read 869 tokens/s per GPU against the published 1,543, half
its step the exposed all-to-all under nemo-2025's `overlap_ep_comm false`, and nothing tied the figure to the switch).

Qwen3-30B-A3B on 64 GB200 at ep 32: interleaved and selectively recomputed, Megatron-core runs the overlap on the
layout, so the note re-times the step with it on (the same figure as the job stating it); uninterleaved at pp 2, it
refuses it, and the note gives Megatron-core's reason, as a job stating it meets it.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import SPECS
from tests.data.workloads import qwen3_training

LAYOUT = "{tp: 1, pp: 2, dp: 32, ep: 32, micro_batch: 1, interleave: %d}"


def estimate(cli, tmp_path, interleave: int, **training):
    (tmp_path / "w.yaml").write_text(qwen3_training("q", LAYOUT % interleave, recompute="selective",
                                                    stack="nemo-2025", **training), encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "q", "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def exposed(est) -> list[str]:
    return [n for n in est["notes"] if n.startswith("MoE all-to-all exposed")]


def test_the_note_re_times_the_step_with_the_overlap_where_megatron_runs_it(cli, tmp_path):
    est = estimate(cli, tmp_path, 2)
    (note,) = exposed(est)
    step = est["metrics"]["step_time"]["value"]
    ep = est["breakdown"]["ep_comm"]["value"]
    assert f"{ep:.4g} s of the {step:.4g} s step ({ep / step:.1%})" in note
    assert "overlap_ep_comm false, stack nemo-2025's default, not stated" in note
    on = float(re.search(r"the step takes ([0-9.]+) s", note).group(1))
    stated = estimate(cli, tmp_path, 2, overlap_ep_comm=True)
    assert on == pytest.approx(stated["metrics"]["step_time"]["value"], rel=5e-4)   # 4 significant figures
    assert not exposed(stated)
    assert on < step   # the overlap hides some of the all-to-all


def test_a_stated_switch_gets_no_note(cli, tmp_path):
    assert not exposed(estimate(cli, tmp_path, 2, overlap_ep_comm=False))


def test_where_megatron_refuses_the_overlap_the_note_says_why(cli, tmp_path):
    (note,) = exposed(estimate(cli, tmp_path, 1))
    assert "Stated true, Megatron-core's overlap refuses this layout (interleave: the EP all-to-all overlap" in note
    assert "the step takes" not in note
