"""FP4 bytes on AMD's parts are OCP MXFP4's, not NVFP4's (small27).

Before, an FP4 weight, GEMM operand or serving cast took NVFP4's 0.5 B of E2M1 data plus one E4M3 scale byte per 16
values, 0.5625 B, on every part. AMD's CDNA 4 (MI350X, MI355X) computes OCP MXFP4: E2M1 data with one E8M0 scale
byte per 32 values (OCP Microscaling Formats (MX) Specification v1.0, MXFP4: k = 32, scale E8M0), 0.5 + 1/32 =
0.53125 B per value. An NVIDIA part keeps NVFP4; another vendor's part, whose format the model does not know, too
(and its note says so, tests/perf/test_fp4_format_note.py).
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.generation import fp4_format
from archgen.perf.serve.inference import weights_per_gpu
from tests.conftest import SPECS
from tests.perf.test_fp4_format_note import JOBS

MXFP4 = 0.5 + 1.0 / 32.0  # 4 bits of E2M1 plus one 8-bit E8M0 scale per 32 values (OCP MX v1.0)
NVFP4 = 0.5 + 1.0 / 16.0  # 4 bits of E2M1 plus one 8-bit E4M3 scale per 16 values (NVIDIA NVFP4)
LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
EMBED = 2 * 128256 * 8192  # the embedding and the output layer, kept in BF16


def test_the_format_follows_the_vendor():
    assert fp4_format("AMD", None) == fp4_format("amd ", 0.0) == "mxfp4"
    assert fp4_format("NVIDIA", 10.0) == fp4_format("NVIDIA", 0.0) == "nvfp4"
    assert fp4_format("AWS", None) == "nvfp4"  # not known to the model: NVFP4, said in the note
    assert K.element_bytes("fp4", "mxfp4") == MXFP4 == 0.53125
    assert K.element_bytes("fp4") == NVFP4 and K.element_bytes("fp8", "mxfp4") == 1.0


def test_weights_gemm_bytes_and_casts_in_mxfp4():
    assert weights_per_gpu(LLAMA70, "fp4", 8, fp4="mxfp4") == pytest.approx(
        ((LLAMA70.params() - EMBED) * MXFP4 + EMBED * 2) / 8)
    m, n, k = 64.0, 8192.0, 28672.0
    assert K.gemm_bytes("fp4", m, n, k, fp4="mxfp4") == pytest.approx((m * k + k * n) * MXFP4 + m * n * 0.5)
    assert Q.serving_bytes("fp4", "mxfp4") == MXFP4 and Q.serving_bytes("fp4") == NVFP4
    nv, mx = Q.serving_casts(LLAMA70, "fp4", 1)[0], Q.serving_casts(LLAMA70, "fp4", 1, fp4="mxfp4")[0]
    assert nv - mx == pytest.approx(nv / (K.ACT_BYTES + NVFP4) * (NVFP4 - MXFP4))


def test_an_mi355x_estimate_holds_mxfp4_weights(cli, tmp_path):
    """Llama 3.1 70B at TP 8: 5.338 GB of weights per GPU in NVFP4 before, the MXFP4 figure now."""
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")   # its fp4-serve-mi355x
    out = json.loads(cli("estimate", str(SPECS), str(tmp_path), "--workload", "fp4-serve-mi355x",
                         "--format", "json").out)
    params = LLAMA70.params()  # the catalog's llama3-70b
    assert out["memory"]["weights"]["value"] == pytest.approx(((params - EMBED) * MXFP4 + EMBED * 2) / 8)
