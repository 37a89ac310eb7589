"""Reading validation-case files: the shipped file as it is, and bad input with exact located messages."""

from __future__ import annotations

import shutil

import pytest

from archgen.errors import SpecError
from archgen.scoring.cases import read_cases
from archgen.scoring.scores import score_file
from tests.conftest import REPO

from .conftest import CASES

#: The way out the uneven split's error names (`pipeline_split.uneven_hint`).
UNEVEN_83 = (
    "; place them unevenly with pipeline_layout (Megatron-core's layout string, a stage per '|', e.g. "
    "'Et*5|(t*6|)*6(t*5|)*16t*5L' for these 126 layers on pp 8 x v 3), or with first_stage_layers 18 and last_stage_layers 18")

GOOD = """\
schema: archgen-validation/1
cases:
- id: one
  source: "test"
  status: confirmed
  system: &s {accelerator: h100-sxm5-80gb, count: 8, scale_up: {domain: 8, bandwidth: "450 GB/s"}}
  collective: {op: all_reduce, size: "1 GiB", algorithm: ring}
  measured: [{metric: busbw, value: 360, unit: "GB/s"}]
"""


def write(tmp_path, text):
    p = tmp_path / "cases.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def messages(tmp_path, text):
    with pytest.raises(SpecError) as err:
        score_file(write(tmp_path, text))
    return str(err.value).replace(str(tmp_path) + "/", "")


def test_reads_the_shared_file_with_merge_keys():
    cases, _ = read_cases(CASES)
    by_id = {c.id: c for c in cases}
    # `system: {<<: *selene, count: 64}` keeps the anchor's accelerator and overrides the count
    assert by_id["megatron-sc21-t1-3.6b"].system.count == 64
    assert by_id["megatron-sc21-t1-3.6b"].system.accelerator == "a100-sxm4-80gb"
    assert by_id["vidur-dgx-h100-allreduce-4x-64mib"].system.count == 4


def test_good_file_scores(tmp_path):
    (r,) = score_file(write(tmp_path, GOOD))
    assert r.metric == "busbw" and r.unit == "B/s" and abs(r.error) < 0.05


def test_wrong_schema(tmp_path):
    assert messages(tmp_path, GOOD.replace("archgen-validation/1", "v2")) == (
        "cases.yaml:1:9: error: schema: expected 'archgen-validation/1', got 'v2'")


def test_cases_not_a_list(tmp_path):
    assert messages(tmp_path, "schema: archgen-validation/1\ncases: {a: 1}\n") == (
        "cases.yaml:2:1: error: cases: expected a list of at least one case, got {'a': 1}")


def test_unknown_accelerator(tmp_path):
    assert messages(tmp_path, GOOD.replace("h100-sxm5-80gb", "h100-pcie")) == (
        "cases.yaml:6:28: error: one.system.accelerator: unknown accelerator 'h100-pcie': expected one of: "
        "a100-sxm4-80gb, b200-sxm-180gb, b300-sxm-288gb, gaudi3, gb200, gb300, h100-sxm5-80gb, h200-sxm-141gb, "
        "h800-sxm5-80gb, l40s, mi300x, mi325x, mi350x, mi355x, tpu-v4, tpu-v5p, trainium2")
    # every catalog part is offered (the list above failed from the trainium2 merge on, review25)
    catalog = sorted(p.stem for p in (REPO / "specs" / "catalog" / "accelerators").glob("*.yaml"))
    assert messages(tmp_path, GOOD.replace("h100-sxm5-80gb", "h100-pcie")).endswith(", ".join(catalog))


def test_zero_dimension(tmp_path):
    assert messages(tmp_path, GOOD.replace("count: 8", "count: 0")) == (
        "cases.yaml:6:51: error: cases.0.system.count: expected a number greater than 0, got 0")


def test_collective_on_one_accelerator(tmp_path):
    assert messages(tmp_path, GOOD.replace("count: 8", "count: 1")) == (
        "cases.yaml:6:51: error: cases.0.system.count: a collective needs at least 2 accelerators, got 1")


def test_metric_the_case_kind_has_not_is_located(tmp_path):
    """A collective measured as TTFT was an internal error (KeyError in scoring), not a located one."""
    assert messages(tmp_path, GOOD.replace("metric: busbw", "metric: ttft").replace('unit: "GB/s"', "unit: ms")) == (
        "cases.yaml:8:23: error: cases.0.measured.0.metric: a collective case cannot measure ttft: the model "
        "predicts time, busbw")


def test_a_percentile_needs_a_simulated_run(tmp_path):
    """ttft_p99 comes from the scheduler's run: an offline case has none to take it from."""
    text = GOOD.replace("  collective: {op: all_reduce, size: \"1 GiB\", algorithm: ring}\n",
                        "  model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn: 28672, vocab: 128256}\n"
                        "  inference: {precision: fp8, tp: 8, batch: 64, input_len: 128, output_len: 128}\n")
    assert messages(tmp_path, text.replace("metric: busbw", "metric: ttft_p99").replace('unit: "GB/s"', "unit: ms")) \
        == ("cases.yaml:9:23: error: cases.0.measured.0.metric: ttft_p99 is a percentile of a simulated run: it "
            "needs scenario: concurrency, or server with an arrival_rate")


def test_misspelt_key_gets_a_suggestion(tmp_path):
    assert messages(tmp_path, GOOD.replace("collective: {op:", "collective: {opp:")) == "\n".join([
        "cases.yaml:7:3: error: cases.0.collective.op: missing required key 'op'",
        "cases.yaml:7:21: error: cases.0.collective.opp: unknown key 'opp'",
        "  hint: did you mean 'op'?",
    ])


def test_layout_that_does_not_divide(tmp_path):
    text = GOOD.replace("  collective: {op: all_reduce, size: \"1 GiB\", algorithm: ring}\n", """\
  model: {layers: 4, hidden: 1024, heads: 16, ffn: 4096, vocab: 32000}
  training: {seq_len: 2048, global_batch: 64, precision: bf16, tp: 3, pp: 8, dp: 1}
""")
    text = text.replace('{metric: busbw, value: 360, unit: "GB/s"}', "{metric: step_time, value: 1, unit: s}")
    assert messages(tmp_path, text) == "\n".join([  # the rules of workloads and the search (layout_rules.layout_problems)
        "cases.yaml:8:3: error: one.training: 4 layers cannot fill pp x interleave = 8 stages",
        "cases.yaml:8:3: error: one.training: tp (3) and the 16 key/value heads do not divide one another",
        "cases.yaml:8:3: error: one.training: tp (3) does not divide the 16 attention heads",
        "cases.yaml:8:3: error: one.training: tp (3) does not divide the FFN of 4096, which the dense layers' linears "
        "split that many ways (Transformer Engine's Linear asserts it: transformer_engine/pytorch/module/linear.py at "
        "d0067d0, line 1625); expected a size that divides 4096: 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, ...",
        "cases.yaml:8:3: error: one.training: tp x pp x dp x cp = 3 x 8 x 1 x 1 = 24 does not equal the 8 "
        "accelerators",
    ])


def test_wrong_unit_for_metric(tmp_path):
    assert messages(tmp_path, GOOD.replace('unit: "GB/s"', "unit: s")) == (
        "cases.yaml:8:48: error: one.measured: expected a unit convertible to B/s, got 's'")


def test_not_yaml(tmp_path):
    msg = messages(tmp_path, "schema: [unclosed\n")
    assert msg.startswith("cases.yaml:2:1: error: YAML syntax error")


@pytest.mark.parametrize("batch", ["0", "lots", "true"])
def test_inference_batch_is_a_positive_count_or_max(tmp_path, batch):
    text = GOOD.replace("  collective: {op: all_reduce, size: \"1 GiB\", algorithm: ring}\n", f"""\
  model: {{layers: 4, hidden: 1024, heads: 16, ffn: 4096, vocab: 32000}}
  inference: {{precision: fp8, tp: 1, batch: {batch}, input_len: 10, output_len: 10}}
""").replace('{metric: busbw, value: 360, unit: "GB/s"}', '{metric: tokens_per_second, value: 1, unit: "1/s"}')
    shown = {"0": "0", "lots": "'lots'", "true": "True"}[batch]
    assert messages(tmp_path, text) == (f"cases.yaml:8:45: error: cases.0.inference.batch: expected a whole number of "
                                        f"sequences above 0, or 'max', got {shown}")
    (r,) = score_file(write(tmp_path, text.replace(f"batch: {batch}", "batch: max")))
    assert r.predicted > 0



def test_a_missing_batch_says_max_is_taken(tmp_path):
    """servetidy42: a case without `batch` read only "missing required key 'batch'", not that `max` is taken."""
    text = GOOD.replace("  collective: {op: all_reduce, size: \"1 GiB\", algorithm: ring}\n", """\
  model: {layers: 4, hidden: 1024, heads: 16, ffn: 4096, vocab: 32000}
  inference: {precision: fp8, tp: 1, input_len: 10, output_len: 10}
""").replace('{metric: busbw, value: 360, unit: "GB/s"}', '{metric: tokens_per_second, value: 1, unit: "1/s"}')
    assert messages(tmp_path, text) == (
        "cases.yaml:8:3: error: cases.0.inference.batch: missing required key 'batch'\n"
        "  hint: 'batch' is sequences in flight per replica: a number, or 'max' (as many as the KV cache holds at the "
        "run's lengths).")

MFU = GOOD.replace("""  collective: {op: all_reduce, size: "1 GiB", algorithm: ring}
  measured: [{metric: busbw, value: 360, unit: "GB/s"}]""", """  model: {layers: 24, hidden: 2304, heads: 24, ffn: 9216, vocab: 51200}
  training: {seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 1, dp: 8, recompute: full}
  flop_counting: megatron_96
  measured: [{metric: mfu, value: VALUE, unit: UNIT}]""")


@pytest.mark.parametrize(("value", "unit"), [("44", '"%"'), ("0.44", '""'), ("0.44", "dimensionless")])
def test_mfu_in_percent_or_as_a_plain_number(tmp_path, value, unit):
    (r,) = score_file(write(tmp_path, MFU.replace("VALUE", value).replace("UNIT", unit)))
    assert r.measured == pytest.approx(0.44)


def test_precision_the_accelerator_lacks(tmp_path):
    text = MFU.replace("VALUE", "0.44").replace("UNIT", '""').replace("h100-sxm5-80gb", "a100-sxm4-80gb")
    assert messages(tmp_path, text.replace("precision: bf16", "precision: fp4")) == (
        "cases.yaml:8:58: error: one.training.precision: a100-sxm4-80gb has no fp4 peak: expected one of: bf16, "
        "fp16, fp64, int8, tf32")


def test_mxfp8_on_hopper_is_refused(tmp_path):
    """Transformer Engine refuses MXFP8 below compute capability 10.0 (fp8.py, `check_mxfp8_support`); it was
    accepted on H100 and estimated with block-scaled FP8 costs."""
    text = MFU.replace("VALUE", "0.44").replace("UNIT", '""').replace(
        "precision: bf16", "precision: fp8, fp8_recipe: mxfp8")
    assert "fp8_recipe 'mxfp8' needs compute capability 10.0 or higher" in messages(tmp_path, text)
    assert "accelerator 'h100-sxm5-80gb' is 9" in messages(tmp_path, text)
    (r,) = score_file(write(tmp_path, text.replace("h100-sxm5-80gb", "b200-sxm-180gb")))  # Blackwell runs it
    assert r.predicted > 0


def test_mxfp8_on_hopper_is_refused_in_a_spec(tmp_path, cli):
    """The same refusal for a workload spec: `estimate` reports it at the workload (exit 1 with a message)."""
    data = REPO / "tests" / "data" / "reliability"
    shutil.copytree(data / "llama3", tmp_path / "llama3")
    shutil.copy(REPO / "specs" / "racks" / "dgx-h100-4.yaml", tmp_path / "llama3" / "rack.yaml")
    spec = tmp_path / "llama3" / "cluster.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("precision: bf16", "precision: fp8\n  fp8_recipe: mxfp8"), encoding="utf-8")
    r = cli("estimate", "--workload", "llama3-405b-16k", "--path", str(tmp_path / "llama3"))
    assert r.code != 0 and "fp8_recipe 'mxfp8' needs compute capability 10.0" in r.err, (r.out, r.err)


def test_empty_case_list_and_empty_file(tmp_path):
    assert messages(tmp_path, "schema: archgen-validation/1\ncases: []\n") == (
        "cases.yaml:2:1: error: cases: expected a list of at least one case, got []")
    assert messages(tmp_path, "# nothing\n") == (
        "cases.yaml:1:1: error: file is empty: expected one or more YAML documents with 'schema' and 'cases'")


def _training(training: str) -> str:
    text = GOOD.replace("  collective: {op: all_reduce, size: \"1 GiB\", algorithm: ring}\n", f"""\
  model: {{layers: 126, hidden: 1024, heads: 16, ffn: 4096, vocab: 32000}}
  training: {training}
""")
    return text.replace('{metric: busbw, value: 360, unit: "GB/s"}', "{metric: step_time, value: 1, unit: s}")


def test_unknown_stack_is_located_with_a_suggestion(tmp_path):
    text = _training("{seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 8, dp: 1, stack: nemo-2024}")
    assert messages(tmp_path, text) == (
        "cases.yaml:8:92: error: cases.0.training.stack: expected one of 'megatron-lm-2021', 'megatron-core-2024', "
        "'nemo-2025' or 'primus-2025', got 'nemo-2024'\n  hint: did you mean 'nemo-2025'?")


def test_layout_that_does_not_divide_even_with_the_slots(tmp_path):
    text = _training("{seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 8, dp: 1, interleave: 3}")
    assert messages(tmp_path, text) == (
        "cases.yaml:8:3: error: one.training: 126 layers (126 slots) cannot be split evenly into pp x interleave = "
        "8 x 3 stages, even with the embedding and loss as pipeline slots (128)" + UNEVEN_83)


def test_megatron_core_layouts_are_accepted(tmp_path):
    """126 layers on pp 8 x v 8 (the slots), a layout string, and explicit first/last-stage counts."""
    for training in ("{seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 8, dp: 1, interleave: 8}",
                     "{seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 2, dp: 4, "
                     "pipeline_layout: 'Et*62|t*64L'}",
                     "{seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 8, dp: 1, first_stage_layers: 14,"
                     " last_stage_layers: 16}"):
        text = _training(training)
        (result,) = score_file(write(tmp_path, text))
        assert result.predicted > 0


def test_a_collective_asking_for_in_network_reduction_it_lacks_is_located(tmp_path):
    """SHARP across nodes on a fabric the case does not say reduces: an error at the case's algorithm."""
    text = GOOD.replace('collective: {op: all_reduce, size: "1 GiB", algorithm: ring}',
                        'collective: {op: all_reduce, size: "1 GiB", algorithm: sharp}')
    assert messages(tmp_path, text.replace("count: 8", "count: 16")) == (
        "cases.yaml:7:58: error: one.collective.algorithm: algorithm 'sharp' reduces across scale-up domains, which "
        "needs SHARP in-network reduction in the scale-out switches; this fabric's switches do not have it")


def test_unknown_fp8_recipe(tmp_path):
    text = MFU.replace("VALUE", "0.44").replace("UNIT", '""')
    got = messages(tmp_path, text.replace("precision: bf16", "precision: fp8, fp8_recipe: nvfp8"))
    assert got == ("cases.yaml:8:75: error: cases.0.training.fp8_recipe: expected one of 'delayed', 'tensorwise', "
                   "'mxfp8' or 'blockwise', got 'nvfp8'\n  hint: did you mean 'mxfp8'?")


def test_fp8_recipe_on_a_16_bit_job_is_an_error(tmp_path):
    """A recipe on a BF16 case was silently ignored (the model reads it for FP8 training only): now located."""
    text = MFU.replace("VALUE", "0.44").replace("UNIT", '""')
    assert messages(tmp_path, text.replace("recompute: full}", "recompute: full, fp8_recipe: tensorwise}")) == (
        "cases.yaml:8:114: error: cases.0.training.fp8_recipe: fp8_recipe 'tensorwise' applies to fp8 training; "
        "this job is bf16")
    fp8 = text.replace("precision: bf16", "precision: fp8").replace("recompute: full}",
                                                                    "recompute: full, fp8_recipe: tensorwise}")
    (r,) = score_file(write(tmp_path, fp8))   # the same recipe on an FP8 case is read
    assert r.measured == pytest.approx(0.44)
    fp4 = fp8.replace("precision: fp8", "precision: fp4")   # FP4 follows NVFP4: the recipe would be ignored
    assert messages(tmp_path, fp4).endswith(
        "applies to fp8 training; this job is fp4 (fp4 training follows Transformer Engine's NVFP4 recipe)")


def test_every_mistake_of_a_case_is_located_in_one_run(tmp_path):
    """A collective on one accelerator measured as TTFT and TPOT: three mistakes, three located errors (the first
    stopped the others)."""
    text = GOOD.replace("count: 8", "count: 1").replace(
        'measured: [{metric: busbw, value: 360, unit: "GB/s"}]',
        'measured:\n  - {metric: ttft, value: 360, unit: ms}\n  - {metric: tpot, value: 20, unit: ms}')
    assert messages(tmp_path, text).splitlines() == [
        "cases.yaml:6:51: error: cases.0.system.count: a collective needs at least 2 accelerators, got 1",
        "cases.yaml:9:14: error: cases.0.measured.0.metric: a collective case cannot measure ttft: the model "
        "predicts time, busbw",
        "cases.yaml:10:14: error: cases.0.measured.1.metric: a collective case cannot measure tpot: the model "
        "predicts time, busbw"]
