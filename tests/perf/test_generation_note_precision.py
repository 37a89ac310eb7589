"""An assumed generation's note names only the rules a job in its precision reads (newuser63).

A Rubin part with an unconfirmed compute capability (10.7, assumed) said of a BF16 or an NVFP4 training job that the
model took "FP8 tensors quantised once (Transformer Engine's rule from 10.0)" and "the MXFP8 recipe allowed" from
it: rules of FP8 training only (`perf.hw.quant`: the one-copy rule is tensor-wise FP8's; MXFP8 and NVFP4 write both
copies on any generation), which such a job never reads. NCCL's tables, NVLS and the TP-overlap streams apply to
every training job and stay named.
"""

from __future__ import annotations

from archgen.perf.workload.unconfirmed_note import unconfirmed_note

FIGURES = ("peak.bf16", "peak.fp8", "peak.fp4", "compute_capability")


def _keyed(precision: str) -> str:
    notes = unconfirmed_note("rubin", FIGURES, precision, compute_capability=10.7, training=True)
    [keyed] = [n for n in notes if "assumed generation" in n]
    return keyed


def test_an_fp8_job_names_the_fp8_rules():
    keyed = _keyed("fp8")
    assert "FP8 tensors quantised once (Transformer Engine's rule from 10.0)" in keyed
    assert "the MXFP8 recipe allowed" in keyed and "TP-overlap GEMM chunks on several streams" in keyed


def test_a_bf16_or_fp4_job_names_no_fp8_rule():
    for precision in ("bf16", "fp4"):
        keyed = _keyed(precision)
        assert "FP8" not in keyed, (precision, keyed)
        assert "NCCL's Blackwell's (NCCL's newest) tuning constants" in keyed
        assert "TP-overlap GEMM chunks on several streams" in keyed and "the HybridEP dispatcher allowed" in keyed
