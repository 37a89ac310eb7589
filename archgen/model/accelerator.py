"""The `Accelerator` kind: a GPU or other AI accelerator, with the figures the performance model needs.

Peak figures are the datasheet's dense (no 2:4 sparsity) numbers. What the silicon really sustains is kept apart, in
`Efficiency`: fractions of peak taken from published microbenchmarks (best dense GEMM, HBM copy, nccl-tests bus
bandwidth), each with its own source. The performance model multiplies the two; it never fits per-workload factors.
"""

import re
from typing import Literal, Self, cast

from pydantic import Field, field_validator, model_validator

from archgen.model.base import Part
from archgen.model.field_types import Fraction, PositiveFraction
from archgen.model.pcie import pcie_rate
from archgen.model.spec import FieldError, Spec, raise_each
from archgen.units import Bandwidth, ComputeRate, Duration, Information, Power

Dtype = Literal["fp64", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4", "int8"]


#: Sustained fraction of the vector (non-tensor FP32) peak where a part states none (`Efficiency.vector`): OpenCL-
#: Benchmark's FP32 FMA loop on a B200, 69.464 TFLOP/s (ProjectPhysX/OpenCL-Benchmark README.md at c551207, "NVIDIA
#: B200", 148 compute units at 1965 MHz) over the catalog's 75 TFLOPS: 0.926. The same benchmark on a GH200's H100
#: (132 SMs at 1980 MHz, the H100 SXM's 67 TFLOPS) measures 62.961 (mredenti/PowerCapping configuration/
#: OpenCL_benchmark.md at f57c11c): 0.940. It was 0.7, which no source states. It only sets the softmax floor of
#: flash attention (`kernels.vector_time`), which binds in no scored or shipped estimate at 0.7 or above.
VECTOR_EFFICIENCY = 0.926


#: The `vendor` of NVIDIA's and AMD's parts: the model keys NVIDIA's generation (`perf.hw.generation`), the collective
#: library (`perf.workload.cluster.COLLECTIVE_LIBRARY`, `perf.comm.rccl.uses_rccl`) and the default stack
#: (`model.stack_profiles.VENDOR_STACKS`) on them. An accelerator's `vendor` is read as one of them whatever its case
#: (`vendor_name`), so that every one of those rules takes 'Nvidia' or 'amd' for the same vendor.
NVIDIA = "NVIDIA"
AMD = "AMD"


def vendor_name(vendor: str) -> str:
    """`vendor` as the model keys it: NVIDIA or AMD whatever the case and surrounding spaces, else as stated."""
    key = vendor.strip().casefold()
    return next((v for v in (NVIDIA, AMD) if v.casefold() == key), vendor)


def is_nvidia(vendor: str) -> bool:
    """Whether a part's `vendor` is NVIDIA (case and surrounding spaces aside)."""
    return vendor_name(vendor) == NVIDIA


#: What a part's memory is called where it states no `memory_type` (every catalog part but the L40S).
HBM = "HBM"
#: An `Accelerator.memory_type`: a DRAM family as datasheets name it, and its generation ('GDDR6', 'HBM3e', 'LPDDR5X').
MEMORY_TYPE = r"(HBM|GDDR|LPDDR|DDR)[0-9A-Za-z]*"


def is_hbm(memory_type: str) -> bool:
    """Whether a memory type (`Accelerator.memory_word`) is HBM, by its family."""
    return memory_type.upper().startswith(HBM)


class ScaleUp(Spec):
    """The accelerator's scale-up link (NVLink, Infinity Fabric)."""

    technology: str = Field(description="e.g. 'NVLink 5'.")
    bandwidth: Bandwidth = Field(description="Bandwidth per accelerator per direction, e.g. '900 GB/s'.")
    links: int = Field(0, ge=0, le=1024, description="Number of links per accelerator.")
    latency: Duration = Field(  # a string default, parsed by `validate_default` (Field's typing does not model that)
        cast(Duration, "1.9 us"),
        description="Latency of one step of a ring collective over this link (NCCL's tuning model uses 1.9 us per "
                    "NVLink hop for the LL128 protocol).")
    in_network_reduction: bool = Field(
        False, description="Whether the scale-up switches can reduce in the network (NVLink SHARP / NVLS). The model "
                           "uses it only on a part whose `compute_capability` is 9.0 or above, as NCCL runs NVLS "
                           "from Hopper; elsewhere it is flagged (CAT009) and estimates say it is not used.")


class Efficiency(Spec):
    """Achievable fractions of peak, each from a published microbenchmark."""

    gemm: dict[Dtype, PositiveFraction] = Field(
        default_factory=dict,
        description="Best measured dense-GEMM throughput over peak, per data type, e.g. {bf16: 0.80} (MAMF). A data "
                    "type left out takes an assumed point (0.7, or the lowest figure given) inside the catalog's "
                    "measured range for it, and estimates state that range and say the figure is not measured.")
    gemm_range: dict[Dtype, tuple[Fraction, Fraction]] = Field(
        default_factory=dict,
        description="Lowest and highest `gemm` figure the sources support for a data type this part has no "
                    "measurement of (derived from a sibling part's) or whose measurements disagree, e.g. "
                    "{fp4: [0.405, 0.675]}; `gemm` holds the point used. Estimates on it state the range their "
                    "metrics span.")
    gemm_half_size: int = Field(
        128, gt=0, description="GEMM dimension at which that dimension alone halves efficiency (tile/wave ramp): "
                               "efficiency = gemm x prod(d / (d + gemm_half_size)) over M, N and, unless "
                               "gemm_k_fixed_steps is given, K. Left out, 128 (one tensor-core tile): an "
                               "assumption, not a measurement (docs/efficiencies.md gives its effect).")
    gemm_k_fixed_steps: float | None = Field(
        None, gt=0, description="K-loop steps (128 bytes of K each) a GEMM tile spends outside its K loop (its "
                                "epilogue, and any load its kernel does not overlap), read from the measured rates "
                                "of the part's GEMM kernels at short K: K's efficiency is then (n / (n + c)) over "
                                "its value at the best-GEMM measurement's K (112 steps), at most 1, for n steps. "
                                "Left out: the size ramp applies to K.")
    gemm_k_fixed_steps_range: tuple[float, float] | None = Field(
        None, description="Lowest and highest `gemm_k_fixed_steps` the part's measurements imply where they "
                          "disagree (each measured shape read through the model gives its own), e.g. [1.33, 5.98]; "
                          "`gemm_k_fixed_steps` holds the point used. Estimates on it state the range their metrics "
                          "span.")
    gemm_floor: Duration | None = Field(
        None, description="Shortest time one GEMM kernel takes on the part however small the GEMM, beyond the "
                          "fixed cost every kernel pays (`perf.hw.kernels.KERNEL_OVERHEAD`), measured on its GEMM "
                          "kernels, e.g. '3.3 us' (Hopper: the shortest cuBLAS GEMM an H200 ran inside a CUDA graph, "
                          "4.40 us, less a tiny elementwise kernel's 1.10 us in the same graph). Training charges it "
                          "per GEMM kernel (`perf.hw.gemm_floor`). Left out: no floor (the roofline alone).")
    hbm: PositiveFraction = Field(
        0.85,
        description="Sustained HBM bandwidth over peak (stream-like copy). Left out (with no `hbm_range`), 0.85: an "
                    "assumed point inside the catalog's measured copy fractions, which estimates state as its range "
                    "(`perf.hw.assumed_efficiency`).")
    hbm_range: tuple[Fraction, Fraction] | None = Field(
        None, description="Lowest and highest `hbm` figure the sources support where this part has no copy "
                          "measurement (the catalog's measured parts) or its measurements disagree, e.g. [0.783, "
                          "0.866]; `hbm` holds the point used. Estimates on it state the range their metrics span.")
    gemm_stream: dict[Dtype, PositiveFraction] = Field(
        default_factory=dict,
        description="Best measured HBM bandwidth over peak of a bandwidth-bound GEMM (decode shapes, M of 1 to a "
                    "few dozen) in that data type, where its kernels stream their operands below `hbm`, e.g. "
                    "{fp4: 0.405}; a data type left out streams at `hbm`.")
    gemm_stream_range: dict[Dtype, tuple[Fraction, Fraction]] = Field(
        default_factory=dict,
        description="Lowest and highest `gemm_stream` figure the sources support for a data type this part has no "
                    "streaming measurement of (a sibling part's measured figure at one end, `hbm` at the other), "
                    "e.g. {fp4: [0.405, 0.85]}; `gemm_stream` holds the point used. Estimates on it state the range "
                    "their metrics span.")
    flash: PositiveFraction = Field(
        0.787,
        description="Flash-attention forward throughput over the best dense-GEMM rate (`gemm`), head dimension 128, "
                    "long sequences (the model's size ramp applies to shorter ones). Left out, FlashAttention-3 on an "
                    "H100 (0.787, `perf.hw.kernels.FLASH_EFFICIENCY`), not a measurement of this part: estimates "
                    "state the catalog's measured flash fractions as its range (`perf.hw.assumed_efficiency`).")
    flash_range: tuple[Fraction, Fraction] | None = Field(
        None, description="Lowest and highest `flash` figure the sources support where this part has no flash-"
                          "attention measurement, e.g. [0.787, 0.85]; `flash` holds the point used. Estimates on it "
                          "state the range their metrics span.")
    vector: PositiveFraction = Field(
        VECTOR_EFFICIENCY,
        description="Sustained non-tensor (FP32 FMA) throughput over `vector_peak`. Left out, 0.926: a B200's "
                    "OpenCL-Benchmark FP32 FMA rate, 69.464 of 75 TFLOP/s (`VECTOR_EFFICIENCY`).")
    scale_up: PositiveFraction = Field(
        0.8,
        description="nccl-tests ring bus bandwidth over the scale-up link bandwidth, large messages. Left out (with "
                    "no `scale_up_range`), 0.8: an assumed point inside the catalog's measured fractions, which "
                    "estimates state as its range (`perf.hw.assumed_efficiency`).")
    scale_up_range: tuple[Fraction, Fraction] | None = Field(
        None, description="Lowest and highest `scale_up` figure the sources support where this part has no "
                          "measurement of its own (the catalog's measured parts), e.g. [0.61, 0.824]; `scale_up` "
                          "holds the point used. Estimates on it state the range their metrics span.")
    in_network_reduction: PositiveFraction | None = Field(
        None,
        description="NVLS (in-switch reduction) efficiency: NCCL's `nvlsEfficiency` for the generation "
                    "(src/graph/tuning.cc: 0.85 Hopper, 0.74 Blackwell). Left out, NCCL's own figure for the "
                    "generation its `compute_capability` gives (what NCCL itself uses; not a measurement of this "
                    "part), which estimates name.")
    all_to_all: PositiveFraction | None = Field(
        None, description="nccl-tests all-to-all bus bandwidth over the scale-up link bandwidth, large "
                                      "messages; left out, the ring figure `scale_up` is used.")
    source: str | list[str] = Field("", description="Where the efficiency figures come from.")

    @model_validator(mode="after")
    def _range_holds_point(self) -> Self:
        errors = [FieldError(("gemm_range", dt), why) for dt, rng in self.gemm_range.items()
                  if (why := _unheld(f"gemm_range.{dt}", rng, f"gemm.{dt}", self.gemm.get(dt)))]
        errors += [FieldError(("gemm_stream_range", dt), why) for dt, rng in self.gemm_stream_range.items()
                   if (why := _unheld(f"gemm_stream_range.{dt}", rng, f"gemm_stream.{dt}", self.gemm_stream.get(dt)))]
        if (k := self.gemm_k_fixed_steps_range) is not None and (
                why := _unheld("gemm_k_fixed_steps_range", k, "gemm_k_fixed_steps", self.gemm_k_fixed_steps, False)):
            errors.append(FieldError(("gemm_k_fixed_steps_range",), why))
        errors += [FieldError((f"{name}_range",), why) for name in ("hbm", "flash", "scale_up")
                   if (rng := getattr(self, f"{name}_range")) is not None
                   and (why := _unheld(f"{name}_range", rng, name, getattr(self, name)))]
        raise_each(errors, type(self).__name__)
        return self


def _unheld(name: str, rng: tuple[float, float], point_name: str, point: float | None, fraction: bool = True) -> str:
    """Why range `name` does not hold `point_name` ('' where it does): past (0, 1] for a `fraction`, or no point.

    A range stated without its point says which key to set (review63: it read "... hold gemm_k_fixed_steps (None)").
    """
    lo, hi = rng
    bounds = "lie in (0, 1] and " if fraction else "be positive and "
    if point is None:
        return (f"{name} [{lo}, {hi}] is given without {point_name}, the point estimates use: expected {point_name} "
                f"set to a figure inside the range, or no {name}")
    if not 0 < lo <= point <= hi or (fraction and hi > 1):
        return f"{name} [{lo}, {hi}] must {bounds}hold {point_name} ({point})"
    return ""


#: Why a sparse peak is refused: the model's GEMM fractions are of the dense rate, and a "with sparsity" figure is not
#: a fixed multiple of it. 2x where 2:4 structured sparsity doubles the tensor rate (H100 SXM FP8 3,958 sparse, 1,979
#: dense, h100-sxm5-80gb's source), but 18 | 14 PFLOPS (sparse | dense) for a B300's FP4 and 20 | 15 for a GB300's
#: (NVIDIA Blackwell Ultra datasheet, b300-sxm-288gb's source).
SPARSE_REFUSED = ("the model runs on dense rates, and a sparse figure is no fixed multiple of the dense one (2x on an "
                  "H100's FP8, 18 / 14 = 1.29x on a B300's FP4, NVIDIA's datasheets): state the dense figure with "
                  "peak_basis dense, or, where only a sparse one is published, your dense estimate listed under "
                  "`unconfirmed:` with how it was reached in `notes`")


class Accelerator(Part):
    """A GPU or AI accelerator package (one logical device)."""

    kind: Literal["Accelerator"] = "Accelerator"
    memory: Information = Field(description=(
        "Memory capacity (HBM, or the `memory_type` stated), in binary units as HBM and GDDR are built: a vendor's "
        "'141 GB' is '141 GiB' (or the MiB software reports, e.g. '143771 MiB'); a whole number of decimal GB is "
        "flagged (CAT011)."))
    memory_bandwidth: Bandwidth = Field(description="Memory (HBM, or `memory_type`) bandwidth, e.g. '4.8 TB/s'.")
    memory_type: str | None = Field(None, description=(
        "The memory's type in the datasheet's words, e.g. 'GDDR6' (NVIDIA L40S: '48 GB GDDR6 with ECC') or 'HBM3e'; "
        "it starts with HBM, GDDR, LPDDR or DDR. Left out, HBM (every part of the catalog but the L40S). Estimates "
        "name the memory by it: a GDDR card's capacity, bandwidth and copy efficiency are not called HBM, and a copy "
        "range taken from HBM parts says so."))
    peak: dict[Dtype, ComputeRate] = Field(
        description="Dense (not sparse) tensor-core peak per data type, e.g. {bf16: '989 TFLOPS'}.")
    peak_basis: dict[Dtype, Literal["dense", "sparse"]] = Field(
        default_factory=dict, description=(
            "What each `peak` figure counts, as its source says: 'dense', or 'sparse' (a 'with sparsity' figure, "
            "which is refused: the model needs the dense rate, and a sparse figure's ratio to it is no constant). "
            "Vendors announce sparse figures, so a part drafted from announcements states it for every peak it "
            "marks unconfirmed, or `archgen check` flags the peak (CAT010) and its estimates call it not confirmed "
            "dense; left out on a confirmed peak, the figure is read as dense."))
    vector_peak: ComputeRate | None = Field(None, description="Non-tensor (vector) FP32 peak.")
    # AMD's own split of levels: ROCm "AMD GPU specifications" (rocm.docs.amd.com/en/latest/reference/gpu-specs.html),
    # MI325X (CDNA3, gfx942) "L3 Cache (MiB) 256", "L2 Cache (MiB) 32 (4 per XCD)"; MI355X the same 256 and 32.
    l2_cache: Information | None = Field(None, description=(
        "Last-level cache (LLC), which is not always the L2: on NVIDIA parts the L2, on AMD Instinct the Infinity "
        "Cache that AMD lists as L3 (MI325X: 256 MiB L3 over a 32 MiB L2, 4 per XCD; give 256 MiB). The key keeps "
        "its name `l2_cache`; it holds the largest on-chip cache that memory traffic passes through."))
    l2_bandwidth: Bandwidth | None = Field(
        None, description="On-chip last-level cache bandwidth; working sets that fit are served at this rate.")
    tdp: Power = Field(description=(
        "Maximum (configurable) board power, e.g. '700 W'. Required: where the vendor publishes none, state the best "
        "figure you can stand behind (say how it was reached in `notes`) and list `tdp` under `unconfirmed:`; "
        "`archgen check` then names it among the figures a cluster's power rests on (PWR012)."))
    idle: tuple[Power, Power] | None = Field(None, description=(
        "Measured draw powered on with no job running: the lowest and highest reading the sources give, e.g. "
        "[137 W, 148 W] (one reading: both ends the same). A reading depends on clocks, driver persistence and "
        "cooling, so sources that differ give a range, never a mean; cite each in `source`. A system of this part "
        "that states no `power.idle` takes its idle hours at no more than its maximum with each accelerator at the "
        "high end instead of its `tdp` (an upper bound: its host stays at its maximum); not where `tdp` or `idle` is "
        "unconfirmed. CAT015 judges it against `tdp`. Not stated: the system's idle hours draw its average."))
    family: str = Field("", max_length=40, description=(
        "Part family, e.g. 'GPU' or 'TPU': a failure-rate set measured on another family (its `family`) is named as "
        "such where a cluster on this part reads it. Left out: not compared."))
    compute_capability: float | None = Field(
        None, gt=0, description="CUDA compute capability (NVIDIA's CUDA GPUs table), e.g. 9.0 for Hopper; NCCL keys "
                                "its per-generation tuning constants on it, and so does the model: the LL and LL128 "
                                "protocols, NVLS (from 9.0), FP8 quantisation's copies (one from 10.0, two below). "
                                "Left out (non-NVIDIA parts), the collective model uses NCCL's Simple protocol only "
                                "(an AMD part: RCCL's own tuning model inside its scale-up domain), no NVLS, and FP8 "
                                "training is quantised by the Hopper rule; an NVIDIA part that "
                                "leaves it out is flagged (CAT008) and its estimates say so.")
    multiprocessors: int | None = Field(
        None, gt=0, description="Streaming multiprocessors (NVIDIA SMs; an AMD part's compute units, CUs) the "
                                "device exposes; a communication kernel "
                                "that overlaps compute takes some of them (`perf.train.exposure`). Left out, "
                                "overlapped communication is taken to cost the compute nothing.")
    scale_up: ScaleUp | None = Field(None, description="Scale-up interconnect per accelerator.")
    host_interface: str = Field("", description=(
        "The bus the card plugs into, as 'PCIe GenN xW' (Gen3 to Gen6), e.g. 'PCIe Gen4 x16' (NVIDIA L40S). A part "
        "with no `scale_up` link (L40S, RTX PRO 6000: no NVLink) reaches the other accelerators of its node by PCIe "
        "peer-to-peer over it, at its rate per direction, NCCL's PCI step latency and the measured PCIe copy "
        "efficiency (`model.pcie`; docs/perf-model.md, 'PCIe peer-to-peer'); left out there, such a part cannot be "
        "estimated on more than one accelerator of a node."))
    efficiency: Efficiency = Field(
        default_factory=Efficiency,
        description="Achievable fractions of peak from microbenchmarks (GEMM per dtype, HBM, links).")

    @field_validator("vendor")
    @classmethod
    def _vendor_as_keyed(cls, value: str) -> str:
        return vendor_name(value)

    @field_validator("host_interface")
    @classmethod
    def _pcie_interface(cls, value: str) -> str:
        if value.strip() and pcie_rate(value) is None:
            raise ValueError(f"expected 'PCIe GenN xW' with N from 3 to 6, e.g. 'PCIe Gen4 x16', got {value!r}")
        return value

    @field_validator("memory_type")
    @classmethod
    def _memory_family(cls, value: str | None) -> str | None:
        if value is not None and re.fullmatch(MEMORY_TYPE, value.strip()) is None:
            raise ValueError(f"expected a memory type starting with HBM, GDDR, LPDDR or DDR, e.g. 'GDDR6' or "
                             f"'HBM3e', got {value!r}")
        return value if value is None else value.strip()

    @property
    def memory_word(self) -> str:
        """What outputs call the part's memory: its `memory_type`, or 'HBM' where it states none."""
        return self.memory_type or HBM

    @model_validator(mode="after")
    def _idle_ordered(self) -> Self:
        """`idle` gives its lowest reading first."""
        if self.idle is not None and self.idle[0] > self.idle[1]:
            raise FieldError(("idle",), f"the lowest reading, {self.idle[0]:~P}, is above the highest, "
                                        f"{self.idle[1]:~P}: give [lowest, highest]")
        return self

    @model_validator(mode="after")
    def _dense_peaks(self) -> Self:
        """Each `peak_basis` names a stated peak, and none is sparse (`SPARSE_REFUSED`)."""
        errors = [FieldError(("peak_basis", dt), f"peak_basis.{dt} names no `peak` figure: the peaks are "
                                                 f"{', '.join(self.peak) or 'none'}")
                  for dt in self.peak_basis if dt not in self.peak]
        errors += [FieldError(("peak_basis", dt), f"peak.{dt} is a sparse figure: {SPARSE_REFUSED}")
                   for dt, basis in self.peak_basis.items() if basis == "sparse" and dt in self.peak]
        raise_each(errors, type(self).__name__)
        return self

