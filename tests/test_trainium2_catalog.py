"""The shipped trainium2 states AWS's published figures, and nothing AWS leaves unsaid as if it were said.

AWS Neuron documentation, Trainium2 Architecture (aws-neuron/aws-neuron-sdk at 7c165a3e,
about-neuron/arch/neuron-hardware/trainium2.rst): 1,299 FP8 TFLOPS; 667 BF16/FP16/TF32 TFLOPS (dense: the
sparse 2,563 is a line of its own); 181 FP32 TFLOPS; 96 GiB at 2.9 TB/sec; NeuronLink-v3 1.28 TB/sec per chip,
direction not stated. Amazon EC2 Trn2 Architecture: 1,024 GB/sec/chip inside an instance, 256 between the instances
of an UltraServer (their sum is the chip's 1,280). AWS publishes no chip power: tdp is unconfirmed.
"""

from __future__ import annotations

import pytest

from archgen.model import Accelerator
from archgen.units import Q_
from tests.conftest import SPECS


@pytest.fixture(scope="module")
def trn2() -> Accelerator:
    import yaml

    path = SPECS / "catalog" / "accelerators" / "trainium2.yaml"
    return Accelerator.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def test_published_peaks_memory_and_link(trn2: Accelerator) -> None:
    assert {k: v.m_as("TFLOPS") for k, v in trn2.peak.items()} == {"fp8": 1299, "bf16": 667, "fp16": 667,
                                                                  "tf32": 667}
    assert set(trn2.peak_basis.values()) == {"dense"}
    # not the chip table's 181 FP32 TFLOPS, which the Tensor Engine runs (NeuronCore-v3 page, aws-neuron-sdk
    # 2086a70a): the non-tensor engines of its 8 cores, 1 (Vector) + 1.2 (Scalar) TFLOPS of FP32 each, unconfirmed
    assert trn2.vector_peak is not None and trn2.vector_peak.m_as("TFLOPS") == pytest.approx(8 * (1 + 1.2))
    assert "vector_peak" in trn2.unconfirmed_fields()
    assert trn2.memory == Q_(96, "GiB") and trn2.memory_bandwidth == Q_(2.9, "TB/s")
    assert trn2.scale_up is not None
    both = trn2.scale_up.bandwidth * 2                 # the catalog is per direction; AWS's 1.28 TB/s taken as both
    assert both.m_as("GB/s") == pytest.approx(1024 + 256)
    assert trn2.vendor == "AWS" and trn2.compute_capability is None


def test_what_aws_does_not_publish_is_unconfirmed_or_left_out(trn2: Accelerator) -> None:
    """No chip power from AWS; the link's direction is not stated; no link count fits both AWS topologies."""
    assert {"tdp", "scale_up.bandwidth"} <= set(trn2.unconfirmed_fields())
    assert trn2.scale_up is not None and trn2.scale_up.links == 0     # not stated (4 in the NKI guide, 6 neighbours)



def test_no_efficiency_is_a_measurement_of_it(trn2: Accelerator) -> None:
    """AWS publishes none: each is the model's assumed point inside the catalog's measured range, as a part that
    states none would take them (`perf.hw.assumed_gemm`, `perf.hw.assumed_efficiency`), so no figure moves."""
    from archgen.perf.hw import assumed_efficiency, assumed_gemm

    eff = trn2.efficiency
    for dtype in trn2.peak:
        assert eff.gemm[dtype] == assumed_gemm.assumed_point(dtype, {})
        assert tuple(eff.gemm_range[dtype]) == assumed_gemm.measured_range(dtype)
    for name, stated in (("hbm", eff.hbm_range), ("flash", eff.flash_range), ("scale_up", eff.scale_up_range)):
        assert stated is not None and tuple(stated) == assumed_efficiency.MEASURED_RANGE[name]
    assert eff.hbm == 0.85 and "flash" not in eff.model_fields_set and "scale_up" not in eff.model_fields_set
