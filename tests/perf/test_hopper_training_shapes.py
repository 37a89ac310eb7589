"""Hopper GEMMs at training shapes: what the one published Hopper layer measurement settles (issue 20, hopper34).

Transformer Engine's GEMM profiling guide times a layer's 12 GEMMs at training shapes on an H200 NVL
(tests/perf/data/te-gemm-profiling-h200nvl.yaml), the same shapes as its B300 run, from which the Blackwell points
at training shapes come (test_quant.py). Held out: nothing in the catalog is derived from it. It settles the ratio
of the FP8 rate to the BF16 rate at training shapes on this die (a ratio on one part, whatever its power and clocks),
and it brackets but does not settle the FP8 rate an SXM part reaches there (docs/perf-model.md, Limitations,
"Hopper's FP8 point is MAMF").
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.from_spec import hardware_for
from archgen.scoring.cases import case_hardware, read_cases, training_estimate

MODERN = Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml"
GUIDE = yaml.safe_load((Path(__file__).parent / "data" / "te-gemm-profiling-h200nvl.yaml").read_text(encoding="utf-8"))
#: Dense tensor peaks of the H200 SXM (the catalog's h200-sxm-141gb), FLOP/s.
SXM_PEAK = {"bf16": 989e12, "fp8": 1979e12}
#: The pre-quantised column each data type's GEMMs are read from (FP8: current, i.e. tensor-wise, scaling).
COLUMN = {"bf16": "bf16", "fp8": "tensorwise"}
#: B300's FP8 rate at training shapes over its MAMF (te-gemm-profiling-b300.yaml; docs/perf-model.md, "Blackwell
#: GEMMs at training shapes"), the ratio the h100dense33 prototype applied to Hopper's FP8 MAMF alone.
B300_FP8_RATIO = 0.882


def _shapes():
    """The guide's 12 GEMMs (M, K, N), as benchmark_gemm.py's `compute_gemm_shapes` derives them."""
    h, i, m = GUIDE["hidden"], GUIDE["ffn"], GUIDE["tokens"]
    fprop = [(m, h, 3 * h), (m, h, h), (m, h, i), (m, i, h)]
    return fprop + [(m, n, k) for m, k, n in fprop] + [(k, m, n) for m, k, n in fprop]


def _flops() -> float:
    return sum(2.0 * m * k * n for m, k, n in _shapes())


def _measured_s(dtype: str) -> float:
    return GUIDE["per_layer_ms"]["pre_quantized"][COLUMN[dtype]] * 1e-3


@pytest.fixture(scope="module")
def h200(accelerators):
    return hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=8)


def _model_s(hw, dtype: str) -> float:
    return sum(float(K.gemm_time(hw, dtype, m, n, k)) for m, k, n in _shapes())


def test_the_guides_h200_nvl_layer_rates():
    """19.17 TFLOP per layer (2 M K N over the 12 GEMMs): 599.7 TFLOP/s in BF16 and 1,142.3 in FP8 (current
    scaling, pre-quantised), 0.718 and 0.684 of the NVL's dense peaks (835.5 and 1,670.5 TFLOP/s)."""
    assert _flops() == pytest.approx(19.1727e12, rel=1e-4)
    rate = {dt: _flops() / _measured_s(dt) for dt in COLUMN}
    assert rate["bf16"] == pytest.approx(599.75e12, rel=1e-3)
    assert rate["fp8"] == pytest.approx(1142.3e12, rel=1e-3)
    assert rate["bf16"] / (GUIDE["dense_peak_tflops"]["bf16"] * 1e12) == pytest.approx(0.718, abs=5e-4)
    assert rate["fp8"] / (GUIDE["dense_peak_tflops"]["fp8"] * 1e12) == pytest.approx(0.684, abs=5e-4)


def test_fp8_runs_1_9_times_bf16_at_training_shapes(h200):
    """Measured, FP8 is 1.905x BF16 over the layer (31.968 / 16.785 ms). The catalog (both at MAMF, 0.734 and
    0.803, with the size ramp) gives 1.778x, 7 % under; FP8 alone at B300's training-shape ratio (0.734 x 0.882 =
    0.647, the h100dense33 prototype, BF16 left at MAMF) would give 1.568x, 18 % under. A ratio on one part does
    not depend on how the NVL's power and clocks map onto an SXM's, so a Hopper FP8 point at training shapes
    needs BF16's with it (B300's BF16 ratio 0.869 with FP8's 0.882 gives 1.80x)."""
    measured = _measured_s("bf16") / _measured_s("fp8")
    assert measured == pytest.approx(1.905, abs=5e-4)
    model = _model_s(h200, "bf16") / _model_s(h200, "fp8")
    assert model == pytest.approx(1.778, abs=5e-3)
    # at these shapes every GEMM is compute-bound, so its time scales as 1 / efficiency
    assert model * B300_FP8_RATIO == pytest.approx(1.568, abs=5e-3)
    assert model * B300_FP8_RATIO < 0.85 * measured < model


@pytest.mark.parametrize(("dtype", "same_fraction", "same_rate"), [("fp8", 0.736, 0.621), ("bf16", 0.751, 0.634)])
def test_the_nvl_brackets_the_sxm_point_without_settling_it(h200, accelerators, dtype, same_fraction, same_rate):
    """The efficiency the H200 SXM would need (with the catalog's size ramp, 0.93 for FP8 and 0.96 for BF16 here)
    to match the NVL run, at its two ends: the same fraction of its own peak (the NVL's lower clocks and 600 W
    scale its rate as its peak) or the same rate (nothing on the NVL held it back). The guide states neither.
    FP8: 0.621 to 0.736; the catalog's MAMF point (0.734) and the prototype's 0.647 both lie inside, so the one
    Hopper layer measurement does not choose between them. BF16: 0.634 to 0.751, both ends under the catalog's
    0.803 (MAMF): at these shapes the H200 NVL's BF16 GEMMs run 6.5 % or more below it."""
    eff = accelerators["h200-sxm-141gb"].efficiency.gemm[dtype]
    modelled_rate = _flops() / _model_s(h200, dtype)
    ramp = modelled_rate / (eff * SXM_PEAK[dtype])
    measured = _flops() / _measured_s(dtype)
    fraction = measured / (GUIDE["dense_peak_tflops"][dtype] * 1e12) / ramp
    rate = measured / SXM_PEAK[dtype] / ramp
    assert fraction == pytest.approx(same_fraction, abs=1e-3)
    assert rate == pytest.approx(same_rate, abs=1e-3)
    if dtype == "fp8":
        assert rate < eff * B300_FP8_RATIO < eff < fraction
    else:
        assert rate < fraction < eff * 0.94


def test_current_scaling_casts_cost_on_hopper_what_the_model_charges(h200):
    """Autocast minus pre-quantised, FP8 current scaling: 20.285 - 16.785 = 3.50 ms a layer, each call casting its
    input and weight (both usages). The model's bytes for it (6 B an element on Hopper: read twice, the FP8 copy and
    its transpose; `quant.tensor_bytes`) at the H200's HBM rate take 3.72 ms, 106 % of it (110 % with each cast's
    four kernels): the model charges Hopper's current-scaling casts in full, so they are not why it is fast on
    the NeMo FP8 rows, which run current scaling (on B300 it charges 81 %, test_quant.py)."""
    per = float(Q.tensor_bytes("tensorwise", h200.compute_capability))
    assert per == 6.0
    model = float(K.memory_time(h200, sum((m * k + k * n) * per for m, k, n in _shapes())))
    ms = GUIDE["per_layer_ms"]
    measured = (ms["autocast"]["tensorwise"] - ms["pre_quantized"]["tensorwise"]) * 1e-3
    assert model / measured == pytest.approx(1.062, abs=2e-3)
    fixed = len(_shapes()) * 2 * Q.KERNELS["tensorwise"][0] * K.KERNEL_OVERHEAD
    assert (model + fixed) / measured == pytest.approx(1.098, abs=2e-3)


def _with_fp8(accelerators, part: str, fp8: float):
    acc = accelerators[part]
    gemm = dict(acc.efficiency.gemm) | {"fp8": fp8}
    return accelerators | {part: acc.model_copy(update={"efficiency": acc.efficiency.model_copy(
        update={"gemm": gemm})})}


def test_no_fp8_gemm_figure_reconciles_gpt3_with_llama_405b(accelerators):
    """The shared modern file's two H100 FP8 rows that a Hopper training-shape point moves apart: MLPerf Training
    v4.1 GPT-3 175B on 256 H100 (18.37 s a step) and NeMo 26.06 Llama 3.1 405B on 1,024 (333,824 tokens/s).
    Compute is 90 % and 86 % of their modelled steps, so any one FP8 GEMM figure scales them alike: modelled over
    measured step time, GPT-3 over Llama is 1.154 at the catalog's MAMF (0.709: GPT-3 +4.0 % slow, 405B 9.9 % fast), 1.156 at
    the training-shape point (0.625) and 1.153 at 0.55 (1.160, 1.162 and 1.158 before stack36 made GPT-3's stack,
    megatron-core-2024, NeMo 24.x's: no dropout, the fused loss, the FP8 parameter gather). The 16 % between them is a difference of the two rows, not
    of the GEMM figure, and no Hopper GEMM point can be right for both."""
    cases = {c.id: c for c in read_cases(MODERN)[0]}
    gpt3, llama = cases["mlperf-t41-gpt3-256xh100"], cases["nemo2606-h100-llama31-405b-fp8-1024gpu"]
    ratios = []
    for fp8 in (0.709, 0.625, 0.55):
        accs = _with_fp8(accelerators, "h100-sxm5-80gb", fp8)
        g = float(training_estimate(gpt3, case_hardware(gpt3, accs)).step_time) / gpt3.measured[0].value
        est = training_estimate(llama, case_hardware(llama, accs))
        tokens = llama.training.global_batch * llama.training.seq_len / float(est.step_time)
        lm = llama.measured[0].value / tokens  # modelled over measured step time
        ratios.append(g / lm)
    assert ratios == pytest.approx([1.154, 1.156, 1.153], abs=2e-3)
