"""The TP communication overlap runs on sequence parallelism (perf/train/stacks.py `overlap_rules`, `Training`).

Megatron-LM refuses `--tp-comm-overlap` without `--sequence-parallel` (megatron/training/arguments.py at d98e8a6)
and Megatron-Bridge turns it off (training/comm_overlap.py: "Disabling tensor parallel communication overlap due
to sequence_parallel=False"). Under `nemo-2025`, whose profile overlaps, a workload that stated
`sequence_parallel: false` kept the overlap: Llama 3.1 70B at tp 8 on 512 GB200 read 3.338 s a step where the same
job without the overlap takes 3.85 s, 13 % faster than the stack can run it; stated both ways it passed silently.
The job here fills all 576 GPUs of the SU (dp 72, the same 4 micro-batches a rank): on 512 its last 8 ranks sit in
an eighth NVL72, one of each DP group (perf/comm/placement.py), and the DP traffic set both step times alike.
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.train.stacks import explain, resolve
from tests.conftest import SPECS

WORKLOAD = """\
kind: Workload
id: l70-nosp
name: Llama 3.1 70B on 576 GB200 without sequence parallelism
model: llama3-70b
cluster: gb200-nvl72-su
accelerators: 576
training:
  seq_len: 8192
  global_batch: 576
  precision: bf16
  recompute: none
{extra}  parallelism: {{tp: 8, pp: 1, dp: 72, micro_batch: 2, zero: 3{sp}}}
"""


def run(cli, tmp_path, extra: str = "", sp: str = ", sequence_parallel: false"):
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(extra=extra, sp=sp), encoding="utf-8")
    return cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "l70-nosp", "--format", "json",
               "--explain")


def test_sequence_parallelism_off_takes_the_tp_overlap_off(cli, tmp_path):
    left_out = run(cli, tmp_path)
    assert left_out.code == 0, left_out.err
    doc = json.loads(left_out.out)
    stated = json.loads(run(cli, tmp_path, "  overlap_tp_comm: false\n").out)
    assert doc["metrics"]["step_time"] == stated["metrics"]["step_time"]
    assert doc["breakdown"]["tp_comm"] == stated["breakdown"]["tp_comm"]
    # the overlap is what sequence parallelism on still gets
    with_sp = json.loads(run(cli, tmp_path, sp=", sequence_parallel: true").out)
    assert with_sp["metrics"]["step_time"]["value"] < 0.9 * doc["metrics"]["step_time"]["value"]


def test_the_profile_value_says_why_it_is_off():
    assert resolve("nemo-2025", {"sequence_parallel": False}, "bf16").overlap_tp_comm is False
    assert resolve("nemo-2025", {"sequence_parallel": True}, "bf16").overlap_tp_comm is True
    assert resolve("nemo-2025", {}, "bf16").overlap_tp_comm is True
    from archgen.model.workload import Parallelism, Training

    t = Training(seq_len=8192, global_batch=512, parallelism=Parallelism(sequence_parallel=False))
    (row,) = [u for u in explain(t, {"tp": 8}) if u.name == "overlap_tp_comm"]
    assert row.value is False and "off with sequence_parallel false" in row.source


@pytest.mark.parametrize(("extra", "sp", "why"), [
    ("  overlap_tp_comm: true\n", ", sequence_parallel: false", "which is stated false"),
    # ZeRO-1 here: megatron-lm-2021's code has no ZeRO-3 and refuses it first (stack_features, review54)
    ("  stack: megatron-lm-2021\n  overlap_tp_comm: true\n", "", "which is off under stack megatron-lm-2021"),
])
def test_a_stated_tp_overlap_without_sequence_parallelism_is_an_error(cli, tmp_path, extra, sp, why):
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(extra=extra, sp=sp).replace("zero: 3", "zero: 1"),
                                     encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "l70-nosp", "--format", "json")
    assert r.code == 1
    assert f"training.overlap_tp_comm: overlap_tp_comm true needs sequence parallelism, {why}" in r.out + r.err


def test_a_stated_tp_overlap_at_tp_1_is_an_error(cli, tmp_path):
    # Megatron-LM turns sequence parallelism off at tp 1, then asserts (arguments.py at d98e8a6, lines 1433-1442)
    r = run(cli, tmp_path, "  overlap_tp_comm: true\n", ", sequence_parallel: true").out  # tp 8: runs
    assert json.loads(r)["metrics"]["step_time"]
    text = WORKLOAD.format(extra="  overlap_tp_comm: true\n", sp=", sequence_parallel: true").replace(
        "tp: 8, pp: 1, dp: 72", "tp: 1, pp: 8, dp: 72")
    (tmp_path / "w.yaml").write_text(text, encoding="utf-8")
    r2 = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "l70-nosp", "--format", "json")
    assert r2.code == 1
    assert "training.overlap_tp_comm: overlap_tp_comm true cannot run at tp 1" in r2.out + r2.err
