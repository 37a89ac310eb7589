"""NVIDIA NeMo's long-sequence table, Llama 3 8B FP8 on DGX B200 from 8K to 1024K tokens (issue 20 part 8; the file
tests/perf/data/nemo-long-sequence.yaml gives the source and every assumption). Held out: it enters no band."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.perf.hw.arch import Arch, megatron_flops
from archgen.scoring.cases import read_cases
from archgen.scoring.scores import score_file
from archgen.scoring.unstated import RECOMPUTE_MODES, recompute_span, unstated_span
from tests.conftest import docs_script

FILE = Path(__file__).resolve().parent / "data" / "nemo-long-sequence.yaml"
#: The table's with-CP TFLOPS / GPU by sequence length in K (NVIDIA/NeMo docs/source/performance/
#: performance_long_sequence.md at 9421f21, lines 33-128).
TABLE = {8: 1671, 16: 1717, 32: 1624, 64: 1600, 128: 1588, 256: 1590, 512: 1619, 1024: 1608}


@pytest.fixture(scope="module")
def cases():
    return read_cases(FILE)[0]


def test_each_row_is_the_tables_with_its_source(cases):
    """One case per row, the measured TFLOPS / GPU the table's, and each source names repo, commit, path and lines."""
    assert {c.training.seq_len // 1024: c.measured[0].value for c in cases} == TABLE
    for c in cases:
        assert re.match(r"NVIDIA/NeMo docs/source/performance/performance_long_sequence\.md at 9421f21, lines \d+-\d+:",
                        c.source), c.source
        assert f"{c.measured[0].value:,.0f} TFLOPS/GPU" in c.source
        t = c.training
        assert c.system.count == t.tp * t.pp * t.dp * t.cp and f"TP{t.tp} PP{t.pp} DP{t.dp} CP{t.cp}" in c.source
        assert c.flop_counting == "nemo_llama3" and "recompute" not in t.model_fields_set


def test_nemo_llama3_counts_as_nemos_formula():
    """NeMo's llama3 formula (nemo/utils/flops_formulas.py at 9421f21, lines 88-105) for one 8,192-token Llama 3 8B
    sequence: s l h^2 (12 + 12 g/a + 18 f/h + 12 s/h + 6 V/(l h)), with g/a = 8/32, f = 14,336, V = 128,256;
    the GEMM terms (76.5) exceed model_72's 72 by the GQA and gated-FFN terms, the attention and logit terms agree."""
    arch = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)
    s, h = 8192, 4096
    want = s * 32 * h * h * (12 + 12 * 8 / 32 + 18 * 14336 / h + 12 * s / h + 6 * 128256 / (32 * h))
    assert megatron_flops(arch, 1, s, "nemo_llama3") == pytest.approx(want, rel=1e-12)
    gap = megatron_flops(arch, 1, s, "nemo_llama3") - megatron_flops(arch, 1, s, "model_72")
    assert gap == pytest.approx(s * 32 * h * h * (12 + 12 * 8 / 32 + 18 * 14336 / h - 72), rel=1e-12)


def test_the_rows_score_and_recompute_spans_the_range(cases):
    """Scored without recomputation (the format's default), the model is fast on every row, +13.4 % to +24.5 %
    (step time -11.8 % to -19.7 %): median 18.7 %. A drift guard set after the run; the file's header gives the
    numbers. The recomputation the table leaves out spans the range, and reaches below the measurement."""
    errors = {r.id: r.error for r in score_file(FILE)}
    assert len(errors) == 8 and all(0.10 < e < 0.30 for e in errors.values()), errors
    for c in cases:
        (low, high), = recompute_span(c)[0].values()
        assert low < c.measured[0].value * 1e12 < high
        rng, words = unstated_span(c)
        assert "recompute " + "/".join(RECOMPUTE_MODES) in words and rng["tflops_per_gpu"][0] <= low


def test_a_stated_recompute_has_no_range(cases):
    c = cases[0]
    stated = c.model_copy(update={"training": c.training.model_copy(update={"recompute": "none"})})
    stated.training.model_fields_set.add("recompute")
    assert recompute_span(stated) == ({}, ())


def test_the_range_names_only_the_modes_that_fit(cases):
    """At 16K with two sequences per micro-batch only full recomputation fits by the memory model (none and
    selective exceed HBM): the words name the one mode spanned, not all three."""
    c = cases[1]
    assert c.training.seq_len == 16384
    two = c.model_copy(update={"training": c.training.model_copy(update={"micro_batch": 2})})
    got, modes = recompute_span(two)
    assert modes == ("full",)
    (low, high), = got.values()
    _, words = unstated_span(two)
    assert low == high and "recompute full (" in words and "none/selective" not in words


def test_held_out_enters_no_band():
    """docs/gen_bands.py reads the scored and independent files only: the rows join no band (they would join dense
    training: range -38.1 % to +10.6 % unchanged, median |error| 8.8 % -> 10.0 %, 87 -> 95 measurements, longest
    context 8,192 -> 1,048,576 tokens, by docs/gen_bands.py run with the file among INDEPENDENT)."""
    assert FILE in docs_script("gen_accuracy").HELD_OUT.values()
    assert FILE not in docs_script("gen_bands").CASE_FILES
