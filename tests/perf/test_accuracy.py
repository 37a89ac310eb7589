"""The accuracy gate: the model against published measurements (tests/data/validation-cases.yaml, and the training
cases of tests/data/validation-modern.yaml, whose serving cases tests/perf/test_serving.py holds).

Bars from the issue: median |error| <= 10 %, every case within 25 %. The three MT-NLG cases leave the micro-batch
unstated and ran on DeepSpeed's pipeline engine: they are scored at the documented default in the median, shown
with their range over micro-batch sizes, and left out of the worst-case bar (`accuracy.OUTSIDE_WORST_BAR`).
"""

from __future__ import annotations

import pytest

from archgen.output.accuracy import MEDIAN_TARGET, OUTSIDE_WORST_BAR, WORST_TARGET, worst_bar
from archgen.scoring.scores import score_file, summary
from tests.conftest import docs_script

from .conftest import CASES

#: The way out the uneven split's error names (`pipeline_split.uneven_hint`).
UNEVEN_83 = (
    "; place them unevenly with pipeline_layout (Megatron-core's layout string, a stage per '|', e.g. "
    "'Et*5|(t*6|)*6(t*5|)*16t*5L' for these 126 layers on pp 8 x v 3), or with first_stage_layers 18 and last_stage_layers 18")


@pytest.fixture(scope="module")
def results():
    return score_file(CASES)


def test_every_case_is_scored(results):
    ids = {r.id for r in results}
    assert len(ids) == 31 and len(results) == 35


def test_median_error_within_10_percent(results):
    assert summary(results)["median"] <= MEDIAN_TARGET


def test_every_judged_case_within_25_percent(results):
    assert summary(worst_bar(results))["worst"] <= WORST_TARGET
    assert {r.id for r in results} - {r.id for r in worst_bar(results)} == set(OUTSIDE_WORST_BAR)


def test_cases_outside_the_worst_bar_show_their_micro_batch_range():
    """Over the micro-batch sizes that divide MT-NLG's batch the prediction goes from fast to slow: the unstated
    choice spans the measurement."""
    from archgen.scoring.cases import read_cases
    from archgen.scoring.scores import micro_batch_sensitivity
    cases, _ = read_cases(CASES)
    rows = micro_batch_sensitivity(cases, set(OUTSIDE_WORST_BAR))
    assert {s.id for s in rows} == set(OUTSIDE_WORST_BAR)
    for case_id in OUTSIDE_WORST_BAR:
        errors = {s.micro_batch: s.results[-1].error for s in rows if s.id == case_id}
        assert sorted(errors) == [1, 2, 4, 8] and min(errors.values()) < 0 < max(errors.values())


# megatron-sc21 0.07 -> 0.075: NCCL's protocol model on the A100 TP all-reduces (LL128 channel caps) moves the 18.4B row
# to -7.1 % (it was -5.5 % at b7d7924, before both this change and the pipeline model); the bars are drift guards.
# 0.075 -> 0.09: the A100's HBM efficiency is now its measured BabelStream Copy, 0.790 (was the unsourced default
# 0.85; issue 20 part 3, docs/efficiencies.md): the memory-bound ops slow and the 18.4B row goes -7.3 -> -8.5 %.
# 0.09 -> 0.095: training charges every kernel's fixed 1.3 us (`KERNEL_OVERHEAD`, as serving does; 28 kernels a layer
# and micro-batch in these dense layers): the 18.4B row goes -8.5 -> -9.1 %.
@pytest.mark.parametrize("family, bar", [("megatron-sc21", 0.095), ("nccl-", 0.11), ("vidur-", 0.18),
                                         ("allreduce-8xmi300x", 0.08), ("mlperf-inf", 0.10), ("bloom", 0.25)])
def test_families(results, family, bar):
    errs = [abs(r.error) for r in results if r.id.startswith(family)]
    assert errs and max(errs) <= bar


@pytest.mark.slow
def test_accuracy_page_is_current():
    """docs/accuracy.md is what `python docs/gen_accuracy.py` prints (its `page()`, here in-process, as test_bands
    reads gen_bands: an interpreter less)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    gen = docs_script("gen_accuracy")
    assert (root / "docs" / "accuracy.md").read_text(encoding="utf-8") == gen.page(), \
        "regenerate: python docs/gen_accuracy.py > docs/accuracy.md"


def test_accuracy_page_lists_every_public_case_file():
    """Every validation-case file of the project's own public cases (tests/perf/data, `archgen-validation/1`) is on
    the accuracy page, so that its cases are listed with their stack and switches and enter the error bands
    (docs/gen_bands.py scores the page's files): a file left off takes its misses out of every band. The AWS EFA
    dispatcher A/B, FlashAttention-2's Table 1 and Korthikanti's Table 5 were left off until 2026-12, and with them
    the worst MoE training miss (-88.1 % step time against -67.8 %)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    gen = docs_script("gen_accuracy")
    listed = {p.name for p in (*gen.INDEPENDENT.values(), *gen.KERNELS.values(), *gen.HELD_OUT.values())}
    case_files = {p.name for p in (root / "tests" / "perf" / "data").glob("*.yaml")
                  if "schema: archgen-validation/1" in p.read_text(encoding="utf-8")}
    assert case_files - listed == set(), "add them to INDEPENDENT (or, kept out of the bands, HELD_OUT) in docs/gen_accuracy.py"


def test_accuracy_page_lists_each_training_case_with_its_stack():
    """Issue 20's last bar: every public training case on docs/accuracy.md is listed with the stack and switches it
    was predicted with, the held-out runs too (before newuser100 their 19 training cases had no such row: the
    DeepSeek-V3 run, scored with the default profile, and the MaxText run on TPU v5p, with a stated stand-in, among
    them). A case the model refuses is listed with its reason instead."""
    from pathlib import Path

    from archgen.model.cases import Case
    from archgen.scoring.cases import read_case_file

    root = Path(__file__).resolve().parents[2]
    gen = docs_script("gen_accuracy")
    page = (root / "docs" / "accuracy.md").read_text(encoding="utf-8")
    rows, table = set(), False
    for line in page.splitlines():
        table = line.startswith("| case | stack |") or (table and line.startswith("|"))
        if table:
            rows.add(line.split("|")[1].strip())
    files = (CASES, *gen.SCORED.values(), *gen.INDEPENDENT.values(), *gen.HELD_OUT.values())
    training = {c.id for f in files for _, c in read_case_file(f).entries
                if isinstance(c, Case) and c.training is not None}
    refused = {r.id for f in files for r in read_case_file(f).refused}
    assert training - refused - rows == set()


def test_shipped_copy_matches_shared_file():
    shared = CASES.parents[2].parent / "shared" / "data" / "validation-cases.yaml"
    if not shared.exists():
        pytest.skip("../shared is not checked out next to the repository")
    assert shared.read_bytes() == CASES.read_bytes()


def test_micro_batch_sensitivity_rescores_only_unstated_fields():
    """MT-NLG leaves micro_batch out: re-predicting at 2 equals scoring the case with micro_batch: 2 stated."""
    from archgen.scoring.cases import read_cases
    from archgen.scoring.scores import micro_batch_sensitivity, score
    cases, _ = read_cases(CASES)
    rows = micro_batch_sensitivity(cases, {"mt-nlg-530b-3360", "bloom-176b"})
    assert {s.id for s in rows} == {"mt-nlg-530b-3360"}  # BLOOM states micro_batch: 2
    assert [s.micro_batch for s in rows] == [1, 2, 4, 8]  # 1920 / dp 12 = 160 sequences per replica
    (case,) = [c for c in cases if c.id == "mt-nlg-530b-3360"]
    stated = case.model_copy(update={"training": case.training.model_copy(update={"micro_batch": 2})})
    assert [r.predicted for r in rows[1].results] == [r.predicted for r in score([stated])]
    assert rows[0].results == tuple(r for r in score([case]))


MODERN = CASES.parent / "validation-modern.yaml"


def test_modern_training_cases_within_the_bars():
    """The training cases of the second scoring file as the shared file states them (each case's stack), read with
    the whole file (nothing refused): median |error| <= 10 %, each but one named case within 25 %, every stated layout fits (NVIDIA's GPT-3 175B FP8 on 256 H100 was refused before
    memory followed the recipe). Llama 3.1 405B's 126 layers on pp 8 x v 8 run as 128 slots, so that case is scored."""
    from archgen.scoring.case_memory import fits
    from archgen.scoring.cases import read_case_file
    from archgen.scoring.scores import score_cases
    cf = read_case_file(MODERN)
    scores = score_cases(cf)
    assert scores.refused == [] and len(scores.results) == 15
    cases = [c for c in cf.cases if c.training is not None]
    assert len(cases) == 6 and "nemo2606-h100-llama31-405b-fp8-1024gpu" in {c.id for c in cases}
    results = [r for r in scores.results if r.id in {c.id for c in cases}]
    assert len(results) == 6
    assert summary(results)["median"] <= MEDIAN_TARGET
    # One case is outside the bar, and the test says which: Qwen3-30B-A3B FP8 on 16 H100 with EP 16 (+74 %, every
    # FP8 Qwen3 row of NeMo's table leaves 3-7 ms per layer and micro-batch unexplained; DeepEP's host wait per
    # dispatch is the suspect, and no sourced figure for it exists, so none is fitted: docs/perf-model.md,
    # Limitations). Issue 20's bar is not met while this set is not empty.
    outside = {r.id for r in results if abs(r.error) > WORST_TARGET}
    assert outside == {"nemo2604-h100-qwen3-30b-a3b-fp8-ep16"}, [(r.id, r.error) for r in results]
    assert summary([r for r in results if r.id not in outside])["worst"] <= WORST_TARGET
    assert all(fits(s.case, s.prediction.footprint) for s in scores.scored if s.case.training is not None)


SECTION = """\
schema: archgen-validation/1
cases:
- id: train
  source: test
  status: confirmed
  system: &s {accelerator: h100-sxm5-80gb, count: 8, scale_up: {domain: 8, bandwidth: "450 GB/s"}}
  model: {layers: 24, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000}
  training: {seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 1, dp: 8}
  measured: [{metric: step_time, value: 1, unit: s}]
- id: serve
  source: test
  status: confirmed
  system: *s
  model: {layers: 24, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000}
  inference: {precision: bf16, tp: 1, batch: 1, input_len: 1000, output_len: 100, scenario: concurrency,
              free_gpu_memory_fraction: 0.9}
  measured: [{metric: tpot, value: 5, unit: ms}]
- id: bad
  source: test
  status: confirmed
  system: *s
  model: {layers: 126, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000}
  training: {seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 8, dp: 1, interleave: 3}
  measured: [{metric: step_time, value: 1, unit: s}]
"""


def test_scored_section_carries_fit_stack_range_kinds_and_refusals(tmp_path):
    """One section per further scoring file: a training row with its fit and its errors at the lowest and highest
    prediction over the stack profiles and the H100's K-loop fixed-step range, a serving row that fits (weights and a sequence) with a dash for its range
    (it states its KV cache fraction: frac39, left out it would be open, as TensorRT-LLM documents 0.90 to 0.95), a
    summary per job kind, and the refused case with its file:line and reason (entering no figure)."""
    from archgen.output.accuracy import scored_section
    from archgen.scoring.cases import read_case_file, stack_range
    from archgen.scoring.scores import score_cases
    from archgen.scoring.unstated import training_efficiency_range
    path = tmp_path / "more.yaml"
    path.write_text(SECTION, encoding="utf-8")
    lines = scored_section(path, "more.yaml")
    cf = read_case_file(path)
    scores = score_cases(cf)
    train, serve = scores.results
    lo, hi = stack_range(cf.cases[0])["step_time"]  # measured 1 s, so the error is the prediction minus one
    assert lo < hi
    k_lo, k_hi = training_efficiency_range(cf.cases[0])["step_time"]  # H100's K-loop fixed steps (kfixed42)
    lo, hi = min(lo, k_lo), max(hi, k_hi)
    row = next(x for x in lines if x.startswith("| train |"))
    assert row.endswith(f"| {train.error:+.1%} | yes | {lo - 1:+.1%} to {hi - 1:+.1%} | confirmed |")
    assert next(x for x in lines if x.startswith("| serve |")).endswith(f"| {serve.error:+.1%} | yes | — | confirmed |")
    assert (f"By kind: training 1 measurement, median {abs(train.error):.1%}, worst {abs(train.error):.1%}; "
            f"serving 1 measurement, median {abs(serve.error):.1%}") in lines[2]
    assert lines[2].startswith("**2 measurements")
    assert "| bad | `more.yaml:23` | bad.training: 126 layers (126 slots) cannot be split evenly into pp x " \
           "interleave = 8 x 3 stages, even with the embedding and loss as pipeline slots (128)" + UNEVEN_83.replace("|", "\\|") + " |" in lines


def test_modern_copy_matches_shared_file():
    shared = CASES.parents[2].parent / "shared" / "data" / "validation-modern.yaml"
    if not shared.exists():
        pytest.skip("../shared is not checked out next to the repository")
    assert shared.read_bytes() == MODERN.read_bytes()
