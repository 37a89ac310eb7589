"""An MoE training estimate says what the published runs show beyond the model: a fixed cost per MoE layer pass.

Issue 20's worst row (nemo2604-h100-qwen3-30b-a3b-fp8-ep16, +31.5 %) and the held-out Qwen3-30B-A3B rows (+17 % to
+165 %) miss a fixed time per MoE layer and micro-batch that no public source sizes (docs/perf-model.md, Limitations,
"A fixed cost per MoE layer pass"). `moe_pass_note.PUBLISHED` holds that miss over every confirmed NVIDIA Megatron-core
MoE training run in the project's case files, by precision and whole-iteration CUDA graphs; this test recomputes it
from those files with the model as it stands (measured step less modelled step, over global_batch / (dp x
micro_batch) x moe_layers / pp passes a rank), so the note cannot drift from the runs it cites.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.train.stacks import resolve, stated_knobs
from archgen.perf.workload.moe_pass_note import PUBLISHED, SIXTEEN_BIT
from archgen.scoring.cases import case_hardware, read_cases, training_estimate
from tests.conftest import SPECS

DATA = Path(__file__).parent / "data"
#: The case files that hold NVIDIA's published Megatron-core MoE training runs (the AWS EFA dispatcher study,
#: aws-dispatcher-efa.yaml, ran on another fabric and is left out, as docs/perf-model.md says).
FILES = (Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml",
         *(DATA / name for name in ("nemo-25.11-moe.yaml", "bridge-26.04-qwen3-30b.yaml", "bridge-26.04.01.yaml",
                                    "bridge-26.04.yaml", "bridge-card-qwen3-30b.yaml",
                                    "bridge-26.02-qwen3-30b-h100-ep8.yaml")))


def _misses(accelerators) -> dict[tuple[bool, bool], list[float]]:
    """Seconds per MoE layer and micro-batch by which each confirmed MoE training run exceeds the model, by group."""
    groups: dict[tuple[bool, bool], list[float]] = {}
    for path in FILES:
        cases, _ = read_cases(path)
        for case in cases:
            t = case.training
            if t is None or case.model.moe is None or case.status != "confirmed":
                continue
            knobs = resolve(t.stack, stated_knobs(t), t.precision)
            est = training_estimate(case, case_hardware(case, accelerators))
            measured = case.measured[0]
            value = float(measured.value)
            step = t.global_batch * t.seq_len / value if measured.metric == "tokens_per_second" else value
            passes = t.global_batch / (t.dp * t.micro_batch) * Arch.from_model(case.model).moe_layers / t.pp
            key = (t.precision not in SIXTEEN_BIT, knobs.cuda_graphs == "full_iteration")
            groups.setdefault(key, []).append((step - float(est.step_time)) / passes)
    return groups


def test_the_published_misses_are_the_runs(accelerators):
    groups = _misses(accelerators)
    assert set(groups) == set(PUBLISHED)
    for key, misses in groups.items():
        held = PUBLISHED[key]
        assert held.runs == len(misses), key
        for name, value in (("median", statistics.median(misses)), ("low", min(misses)), ("high", max(misses))):
            assert getattr(held, name) == pytest.approx(value, abs=0.006e-3), (key, name)


def test_each_group_names_the_parts_its_runs_ran_on():
    """review30: the note said "H100 to GB300" for every group; the graphed group ran on GB200 and GB300 alone."""
    parts: dict[tuple[bool, bool], set[str]] = {}
    for path in FILES:
        for case in read_cases(path)[0]:
            t = case.training
            if t is None or case.model.moe is None or case.status != "confirmed":
                continue
            key = (t.precision not in SIXTEEN_BIT, resolve(t.stack, stated_knobs(t), t.precision).cuda_graphs ==
                   "full_iteration")
            parts.setdefault(key, set()).add(case.system.accelerator.split("-")[0].upper())
    for key, held in PUBLISHED.items():
        assert set(re.findall(r"\b(?:GB|B|H)\d{3}\b", held.span)) == parts[key], (key, held.span)


def test_the_miss_is_larger_without_whole_iteration_graphs_and_in_eight_bits():
    """What the groups say, in order: whole-iteration graphs (sync-free MoE, fused grouped MLP) leave the least."""
    assert PUBLISHED[(True, True)].high < PUBLISHED[(False, False)].median < PUBLISHED[(True, False)].median


JOB = """\
kind: Workload
id: q30
name: Qwen3-30B-A3B pre-training
model: {model}
cluster: gb200-nvl72-su
training:
  seq_len: 4096
  global_batch: 4608
  precision: {precision}
  parallelism: {{tp: 1, pp: 1, ep: {ep}, micro_batch: 4}}
"""


def _estimate(cli, tmp_path, model: str = "qwen3-30b-a3b", precision: str = "fp8", ep: int = 8) -> dict:
    (tmp_path / "job.yaml").write_text(JOB.format(model=model, precision=precision, ep=ep), encoding="utf-8")
    return json.loads(cli("estimate", str(SPECS), str(tmp_path), "--workload", "q30", "--format", "json").out)


def test_an_moe_estimate_carries_the_note_and_its_step(cli, tmp_path):
    out = _estimate(cli, tmp_path)
    [note] = [n for n in out["notes"] if n.startswith("MoE layers:")]
    miss = PUBLISHED[(True, False)]
    assert f"the {miss.runs} published Megatron-core MoE training runs in 8-bit without whole-iteration" in note
    assert f"CUDA graphs ({miss.span}) took" in note, note
    step = out["metrics"]["step_time"]["value"]
    passes = 4608 / (out["layout"]["dp"] * 4) * 48  # every Qwen3-30B-A3B layer is MoE; pp 1
    assert f"this job's {passes:.4g} MoE layer passes" in note
    assert f"would take {step + miss.median * passes:.4g} s" in note, note
    # review30: the median is read from the runs it is then shown against; the customer's note says so, not only
    # docs/perf-model.md ("In-sample by construction")
    assert "the figures are read from those runs, not a prediction checked on other runs" in note, note
    # and it is the whole step's miss spread over the passes (as `_misses` computes it), not a per-layer timing
    assert "each run's whole-step miss over its MoE layer passes, not a time measured per layer" in note, note


def test_sixteen_bits_take_their_own_group(cli, tmp_path):
    [note] = [n for n in _estimate(cli, tmp_path, precision="bf16")["notes"] if n.startswith("MoE layers:")]
    assert f"the {PUBLISHED[(False, False)].runs} published Megatron-core MoE training runs in 16-bit" in note


def test_a_dense_model_gets_no_note(cli, tmp_path):
    out = _estimate(cli, tmp_path, model="llama3-8b", ep=1)
    assert not [n for n in out["notes"] if n.startswith("MoE layers:")]


def test_fp4_takes_the_eight_bit_runs_and_says_so(cli, tmp_path):
    [note] = [n for n in _estimate(cli, tmp_path, precision="fp4")["notes"] if n.startswith("MoE layers:")]
    assert "runs in 8-bit without whole-iteration CUDA graphs (none published in FP4: the 8-bit runs)" in note
