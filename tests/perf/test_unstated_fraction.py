"""The KV cache fraction a serving case leaves unstated, reported over its engine's documented range (frac39, issue 20).

TensorRT-LLM's performance overview runs `--kv_cache_free_gpu_mem_fraction 0.95` "in many cases" and falls back to
"0.90 or lower" (NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md at 00f37686aa), without saying which
rows: a row that states no fraction is scored at the engine's default 0.9 and reported over 0.90 and 0.95
(`scoring.unstated.open_fraction`, `model.kv_memory.KvRule.documented`); the ends are the model's predictions of the
row re-run at each, never a figure written here. vLLM's 0.9 is a default, not a range: no vLLM row gets one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.model.kv_memory import KV_RULES
from archgen.scoring.cases import predict, read_cases
from archgen.scoring.unstated import describe, open_fraction, open_knobs, serving_range, unstated_span

DATA = Path(__file__).resolve().parent / "data"
#: The knob an unstated TensorRT-LLM fraction opens (`unstated.open_knobs`).
KNOB = "TensorRT-LLM KV cache fraction"


@pytest.fixture(scope="module")
def overview():
    return {c.id: c for c in read_cases(DATA / "trtllm-perf-overview.yaml")[0]}


def _stated(case, **keys):
    """`case` with these `inference` keys stated."""
    return case.model_copy(update={"inference": case.inference.model_copy(update=keys)})


def test_only_tensorrt_llm_documents_a_range():
    """TensorRT-LLM's documented ends are 0.90 and 0.95, its default 0.9 the low one (the point); its source says
    that lower is allowed. vLLM documents a default (0.9), not a range; SGLang's fraction is stated or refused."""
    trt = KV_RULES["tensorrt-llm"]
    assert trt.documented == (0.90, 0.95) and trt.spanned == (0.90, 0.95) and trt.default == trt.documented[0]
    assert "0.90 or lower" in trt.documented_source and "00f37686aa" in trt.documented_source
    assert KV_RULES["vllm"].documented is None and KV_RULES["vllm"].spanned == ()
    assert KV_RULES["sglang"].documented is None
    words = describe((KNOB,))
    assert words.startswith("TensorRT-LLM's KV cache fraction 0.90/0.95 (its free_gpu_memory_fraction")
    assert words.endswith("a lower one is not spanned)")


@pytest.mark.parametrize("cid", ["trtllm-h100-llama31-8b-fp8-tp1-1000-1000", "trtllm-h200-llama3-70b-fp8-tp1-128-2048",
                                 "trtllm-h100-llama31-405b-fp8-tp8-5000-500"])
def test_an_unstated_fraction_ranges_over_the_documented_ends(overview, accelerators, cid):
    """A perf-overview row with its KV-cache precision stated (FP8, as it is scored), on a part whose efficiencies are
    measured, leaves the fraction the one knob open: its range's ends are the row predicted at 0.90 and at 0.95, and
    its point, at TensorRT-LLM's default 0.9, is the 0.90 end. A larger cache holds more sequences, so the offline
    rate at 0.95 is higher (were the fraction not read, the two would be equal and this fails)."""
    case = _stated(overview[cid], kv_precision="fp8")
    assert open_fraction(case, accelerators) is KV_RULES["tensorrt-llm"]
    assert open_knobs(case, accelerators) == (KNOB,)
    at = {f: predict(_stated(case, free_gpu_memory_fraction=f), accelerators)["tokens_per_second"] for f in (0.90, 0.95)}
    assert at[0.90] == predict(case, accelerators)["tokens_per_second"]
    assert at[0.90] < at[0.95]
    assert serving_range(case, accelerators) == {"tokens_per_second": (at[0.90], at[0.95])}
    assert unstated_span(case, accelerators) == ({"tokens_per_second": (at[0.90], at[0.95])}, describe((KNOB,)))


def test_a_stated_fraction_opens_no_range(overview, accelerators):
    """A row that states its fraction (the MLPerf v5.1 rows state what their harness set, kvcfg38) gets no range from
    it, whatever the engine; a perf-overview row given 0.95 and its KV cache has no range at all. A vLLM row that
    states none gets none either: vLLM's documentation gives a default, not a range."""
    cases = read_cases(DATA / "mlperf-inference-v5.yaml")[0]
    stated = [c for c in cases if c.inference is not None and any(v is not None for v in c.inference.fractions().values())]
    assert len(stated) >= 10
    assert [c.id for c in stated if open_fraction(c, accelerators) is not None or KNOB in open_knobs(c, accelerators)] == []
    row = _stated(overview["trtllm-h100-llama31-8b-fp8-tp1-1000-1000"], kv_precision="fp8",
                  free_gpu_memory_fraction=0.95)
    assert open_knobs(row, accelerators) == () and serving_range(row, accelerators) == {}
    vllm = next(c for c in cases if c.id == "mlperf51-llama2-70b-offline-8xmi325x-vllm-tp1-fp8")
    unstated = _stated(vllm, gpu_memory_utilization=None)
    assert open_fraction(unstated, accelerators) is None and KNOB not in open_knobs(unstated, accelerators)


def test_estimate_cases_names_the_fraction_range(cli):
    """`archgen estimate --cases` gives each perf-overview row its range over the fraction, in the words of
    `describe`, with the rest of what the row leaves open."""
    text = cli("estimate", "--cases", str(DATA / "trtllm-perf-overview.yaml")).out
    rows = [line for line in text.splitlines() if line.startswith("  trtllm-") and " over " in line]
    assert len(rows) == 40
    assert all(describe((KNOB,)) in line for line in rows)
