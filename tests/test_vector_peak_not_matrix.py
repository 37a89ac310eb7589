"""`vector_peak` is a part's non-tensor FP32 rate, never its matrix engine's FP32 (review25).

The model times the softmax of flash attention on it (`perf.hw.kernels.vector_time`). Two shipped parts stated the
FP32 line of their vendor's table, which is the matrix engine's:
- trainium2 stated 181 TFLOPS, the chip table's FP32 line; AWS's NeuronCore-v3 page (aws-neuron/aws-neuron-sdk at
  2086a70a, general/arch/neuron-hardware/neuron-core-v3.rst) gives each core's Tensor Engine FP32 inputs, its Vector
  Engines "a total of 1 TFLOPS of FP32" and its Scalar Engines 1.2, eight cores a chip: 17.6.
- gaudi3 stated 229 TFLOPS, ml-engineering's fp32 column, whose note says "These numbers are for MME (Matrix)
  compute" (stas00/ml-engineering at 744d01e1, compute/accelerator/README.md, line 297); Intel gives the TPCs 28.7
  BF16 vector TFLOPS (Kaplan's Gaudi 3 slides, August 2024) and a TPC's SIMD holds 64 floats a cycle where it holds
  128 16-bit values (Gaudi TPC User Guide): 14.35.
Neither vendor states a chip-level non-tensor FP32 figure, so both are unconfirmed.
"""

from __future__ import annotations

import pytest
import yaml

from archgen.model import Accelerator
from tests.conftest import SPECS


def _part(name: str) -> Accelerator:
    path = SPECS / "catalog" / "accelerators" / f"{name}.yaml"
    return Accelerator.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(("name", "tflops", "matrix_fp32"), [
    ("trainium2", 8 * (1.0 + 1.2), 181.0),
    ("gaudi3", 28.7 / 2, 229.0),
])
def test_vector_peak_is_the_non_tensor_engines_and_unconfirmed(name: str, tflops: float, matrix_fp32: float) -> None:
    part = _part(name)
    assert part.vector_peak is not None
    assert part.vector_peak.m_as("TFLOPS") == pytest.approx(tflops)
    assert part.vector_peak.m_as("TFLOPS") < matrix_fp32 / 10       # an order below the matrix engine's FP32
    assert "vector_peak" in part.unconfirmed_fields()
