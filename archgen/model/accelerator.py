"""The `Accelerator` kind: a GPU or other AI accelerator, with the figures the performance model needs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Part, Spec
from archgen.units import Bandwidth, ComputeRate, Information, Power

Dtype = Literal["fp64", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4", "int8"]


class ScaleUp(Spec):
    """The accelerator's scale-up link (NVLink, Infinity Fabric)."""

    technology: str = Field(description="e.g. 'NVLink 5'.")
    bandwidth: Bandwidth = Field(description="Bandwidth per accelerator per direction, e.g. '900 GB/s'.")
    links: int = Field(0, ge=0, description="Number of links per accelerator.")


class Accelerator(Part):
    """A GPU or AI accelerator package (one logical device)."""

    kind: Literal["Accelerator"] = "Accelerator"
    memory: Information = Field(description="HBM capacity, e.g. '141 GB'.")
    memory_bandwidth: Bandwidth = Field(description="HBM bandwidth, e.g. '4.8 TB/s'.")
    peak: dict[Dtype, ComputeRate] = Field(
        description="Dense (not sparse) tensor-core peak per data type, e.g. {bf16: '989 TFLOPS'}.")
    vector_peak: ComputeRate | None = Field(None, description="Non-tensor (vector) FP32 peak.")
    l2_cache: Information | None = Field(None, description="On-chip last-level cache (L2 / Infinity Cache).")
    tdp: Power = Field(description="Maximum (configurable) board power, e.g. '700 W'.")
    scale_up: ScaleUp | None = Field(None, description="Scale-up interconnect per accelerator.")
    efficiency: dict[str, float] = Field(
        default_factory=dict,
        description="Achievable fractions of peak from microbenchmarks, e.g. {gemm_bf16: 0.75, hbm: 0.9}.")
