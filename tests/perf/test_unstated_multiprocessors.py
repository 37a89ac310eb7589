"""A training estimate on a part that states no `multiprocessors` says its overlaps cost the compute nothing.

Overlapped communication holds compute units while it runs (`perf.train.exposure.sm_kept`: NCCL's 16 CTAs,
Transformer Engine's 16 userbuffers SMs), and the model takes them from the part's `multiprocessors`; a part that
states none is charged nothing, the most favourable reading. Before (newuser58) no note said so: a hypothetical
accelerator's Llama 3.1 405B FP8 step read 3.39 s where an H100's 132 SMs give 3.585 s, with the band silent.
The test checks the note on the MI355X forked without its 256 CUs (stated since newuser74) against the same part
forked with 132 SMs (the H100 SXM5's, NVIDIA's H100 whitepaper table 3), which must give the step time the note
prints, and no note.
"""

from __future__ import annotations

import json
import re

from archgen.perf.workload.sm_note import SCALE_UNITS
from tests.conftest import SPECS

JOB = """\
kind: Workload
id: tp8-mi355x
name: Llama 3.1 70B BF16 pre-training on MI355X at tp 8
model: llama3-70b
cluster: mi355x-th5
accelerators: 64
training: {seq_len: 8192, global_batch: 128, precision: bf16, parallelism: {tp: 8, pp: 1, micro_batch: 1}}
"""
NOTE = "mi355x states no `multiprocessors`"


def _estimate(cli, *paths) -> dict:
    out = cli("estimate", str(SPECS), *map(str, paths), "--workload", "tp8-mi355x", "--format", "json").out
    return json.loads(out)


def _fork(tmp_path, units: str):
    """The job, and mi355x with `multiprocessors` as `units` ('' leaves it out), in a folder of their own."""
    part = (SPECS / "catalog" / "accelerators" / "mi355x.yaml").read_text(encoding="utf-8")
    stated = re.compile(r"^multiprocessors: .*\n", re.M)
    assert stated.search(part)   # the shipped part states its 256 CUs
    forked = tmp_path / f"fork{units}"
    forked.mkdir()
    (forked / "mi355x.yaml").write_text(stated.sub(f"multiprocessors: {units}\n" if units else "", part),
                                        encoding="utf-8")
    (forked / "job.yaml").write_text(JOB, encoding="utf-8")
    return forked


def test_unstated_units_are_named_with_the_step_at_an_h100s(cli, tmp_path):
    est = _estimate(cli, _fork(tmp_path, ""))
    [note] = [n for n in est["notes"] if n.startswith(NOTE)]
    assert "most favourable reading" in note and "the sequence-parallel TP collectives" in note, note
    said, base = map(float, re.search(r"would take ([\d.]+) s, not ([\d.]+) s", note).groups())
    assert base == float(f"{est['metrics']['step_time']['value']:.4g}")
    assert said > base
    # the same part with 132 SMs stated: the step time the note gave, and no note
    with_units = _estimate(cli, _fork(tmp_path, f"{SCALE_UNITS:.0f}"))
    assert not [n for n in with_units["notes"] if "`multiprocessors`" in n]
    assert float(f"{with_units['metrics']['step_time']['value']:.4g}") == said


def test_the_mi355x_states_its_compute_units(cli, tmp_path):
    """newuser74: its source gave 256 CUs (ROCm gpu-specs) and the part none; stated, its overlaps take 16 of 256
    units, less than of an H100's 132 and more than of none, and no note asks for the figure."""
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    shipped = _estimate(cli, tmp_path)
    assert not [n for n in shipped["notes"] if "`multiprocessors`" in n]
    step = shipped["metrics"]["step_time"]["value"]
    none = _estimate(cli, _fork(tmp_path, ""))["metrics"]["step_time"]["value"]
    h100 = _estimate(cli, _fork(tmp_path, f"{SCALE_UNITS:.0f}"))["metrics"]["step_time"]["value"]
    assert none < step < h100


def test_a_part_that_states_its_units_gets_no_note(cli):
    est = json.loads(cli("estimate", str(SPECS), "--workload", "llama3-70b-pretrain-b200", "--format", "json").out)
    assert not [n for n in est["notes"] if "`multiprocessors`" in n]
