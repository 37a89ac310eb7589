"""The hardware description the performance model reads: plain SI floats, built once from the specs.

`Hardware` is deliberately small and flat so that the model can evaluate thousands of configurations quickly and
so that any layer can build it: `hardware_for` (`perf.hw.from_spec`) takes the figures a cluster spec or a
validation case provides (accelerator, scale-up domain size and bandwidth, scale-out bandwidth and oversubscription).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from archgen.errors import AnalyseError
from archgen.model.accelerator import VECTOR_EFFICIENCY
from archgen.model.system import HOST_LINK_EFFICIENCY
from archgen.perf.hw import assumed_efficiency
from archgen.perf.hw.assumed_gemm import assumed_point
from archgen.perf.hw.generation import fp4_format
from archgen.perf.hw.given import positive_factor
from archgen.perf.hw.peak_needed import missing_peak
from archgen.units import Q_, Q

#: Parameters `sensitivity` may scale, with what each means.
PARAMETERS: dict[str, str] = {
    "peak": "tensor peak FLOP/s of the workload's data type",
    "hbm_bandwidth": "HBM bandwidth",
    "hbm_capacity": "HBM capacity",
    "scale_up_bandwidth": "scale-up bandwidth per accelerator",
    "scale_out_bandwidth": "scale-out bandwidth per accelerator",
    "latency": "scale-up and scale-out link latencies",
}

#: Further parameters `Hardware.scaled` accepts for what-if studies (not in the default sensitivity set).
EXTRA_PARAMETERS = ("vector_peak", "l2_capacity", "l2_bandwidth")

#: Fields of `Hardware` that describe the accelerator itself; the others describe its place in the fabric.
CHIP_FIELDS = ("accelerator", "compute_capability", "multiprocessors", "peak", "gemm_efficiency", "vector_efficiency",
               "gemm_efficiency_range", "gemm_stream_efficiency", "gemm_stream_range", "gemm_half_size", "vector_peak",
               "gemm_k_fixed_steps", "gemm_k_fixed_steps_range", "gemm_floor", "hbm_capacity", "hbm_bandwidth",
               "hbm_efficiency", "hbm_efficiency_range", "flash_efficiency", "flash_efficiency_range", "l2_capacity",
               "l2_bandwidth", "unstated", "vendor", "memory_type")


@dataclass(frozen=True)
class Hardware:
    """One accelerator and its place in the fabric, in SI units.

    Attributes:
        accelerator: Catalog id of the accelerator.
        peak: Dense tensor peak per data type (FLOP/s).
        gemm_efficiency: Best dense-GEMM fraction of peak per data type the part states; another data type takes
            an assumed point (`perf.hw.assumed_gemm`).
        gemm_efficiency_range: Lowest and highest `gemm_efficiency` the sources support, per data type the part
            has no measurement of (`perf.workload.efficiency_range`); for a data type it states no efficiency for,
            the catalog's measured range (`perf.hw.assumed_gemm`).
        gemm_half_size: GEMM dimension that alone halves the efficiency (size ramp).
        gemm_k_fixed_steps: A GEMM tile's K-loop steps outside its K loop (`kernels.k_loop_efficiency`); 0 when
            not measured, and the size ramp applies to K.
        gemm_k_fixed_steps_range: Lowest and highest `gemm_k_fixed_steps` the part's measurements imply, where they
            disagree (`perf.workload.efficiency_range`); empty when one figure stands.
        gemm_floor: Shortest time of one GEMM kernel beyond `kernels.KERNEL_OVERHEAD` (s), measured; 0 when not
            measured: no floor (`gemm_floor.floored`).
        vector_peak: Non-tensor peak (FLOP/s); 0 when unknown.
        vector_efficiency: Sustained fraction of `vector_peak`.
        hbm_capacity: HBM capacity (B).
        hbm_bandwidth: HBM peak bandwidth (B/s).
        hbm_efficiency: Sustained fraction of `hbm_bandwidth`.
        hbm_efficiency_range: Lowest and highest `hbm_efficiency` the sources support (unmeasured); empty if measured.
        flash_efficiency: Flash-attention forward rate over the best dense-GEMM rate (`perf.hw.kernels`).
        flash_efficiency_range: Lowest and highest `flash_efficiency` the sources support (unmeasured), or empty.
        gemm_stream_efficiency: Fraction of `hbm_bandwidth` a bandwidth-bound GEMM streams at, per data type whose
            kernels stay below `hbm_efficiency` (NVFP4 at decode shapes); others take `hbm_efficiency`.
        gemm_stream_range: Lowest and highest `gemm_stream_efficiency` the sources support, per data type unmeasured.
        l2_capacity: Last-level cache (B); 0 when unknown.
        l2_bandwidth: Last-level cache bandwidth (B/s); 0 when unknown.
        scale_up_size: Accelerators per scale-up domain.
        scale_up_bandwidth: Scale-up bandwidth per accelerator per direction (B/s).
        scale_up_efficiency: nccl-tests ring busbw over `scale_up_bandwidth`.
        scale_up_efficiency_range: Lowest and highest `scale_up_efficiency` the sources support where the part has
            no measurement of its own (`perf.workload.efficiency_range`); empty when measured.
        assumed_efficiencies: Which of 'hbm', 'flash' and 'scale_up' the part states neither as a figure nor as a
            range: each then has an assumed point and the catalog's measured range (`perf.hw.assumed_efficiency`).
        unstated: Which of 'vector', 'gemm_half_size', 'nvls' and 'latency' the part leaves to the model's default
            (an estimate's note names each, `perf.workload.defaults_note`; `assumed_efficiency.unstated_defaults`),
            and 'scale_up_latency' where it states a step latency it marks unconfirmed (`defaults_note.latency_note`).
        host_link_default: Whether `host_link_efficiency` is the model's default (the system states none).
        scale_up_latency: Latency per ring step in the scale-up domain (s).
        torus: Chips along each dimension of a chip-to-chip torus: the whole cluster (TPU ICI) or each scale-up
            domain (Trn2's 4x4); groups inside it take `perf.comm.torus` collectives. Empty for switched domains.
        torus_link_bandwidth: Bandwidth of one torus link per direction (B/s): the fastest dimension's where
            `torus_dim_factor` sets the dimensions apart.
        torus_dim_factor: Each dimension's link bandwidth over `torus_link_bandwidth` (a Trn2 UltraServer's third
            dimension 0.5: 256 of its 1,280 GB/sec per chip on 2 links, 1,024 on 4); empty: every link alike.
        torus_wraparound: Whether the torus closes each ring.
        in_network_reduction: Whether the scale-up switches reduce in the network (NVLS).
        scale_up_mesh: Whether the scale-up domain is a direct full mesh (AMD Infinity Fabric): each accelerator's
            `scale_up_bandwidth` is split over links to its `scale_up_size` - 1 peers, so a group of k of them in
            one domain reaches (k - 1) / (size - 1) of it (`perf.comm.group.mesh_share`).
        scale_up_pcie: Whether the scale-up domain is PCIe peer-to-peer (a part with no scale-up link, `model.pcie`):
            NCCL then takes its PCI step latencies and leaves LL128 off inside it (`perf.comm.nccl.ll128_inside`).
        nvls_efficiency: The part's NVLS efficiency; 0 takes NCCL's for its generation (src/graph/tuning.cc).
        compute_capability: CUDA compute capability (9.0 Hopper, 10.0 Blackwell); 0 for a non-NVIDIA part, which
            then gets NCCL's Simple protocol only (an AMD part: RCCL's table inside a domain, `perf.comm.rccl`).
        multiprocessors: Streaming multiprocessors; 0 when unknown (overlapped communication then slows no
            compute, `perf.train.exposure`).
        all_to_all_efficiency: nccl-tests all-to-all busbw over the scale-up link; 0 takes `scale_up_efficiency`.
        scale_out_bandwidth: Scale-out bandwidth per accelerator per direction (B/s); 0 for a single domain.
        scale_out_efficiency: Achievable fraction of `scale_out_bandwidth`.
        scale_out_efficiency_range: Its stated ends where no measurement backs it (RCCL: `rccl_net`), or empty.
        scale_out_latency: Latency the network adds to each step across it, on top of NCCL's own network
            latencies (s): NCCL's `latencyInter`, which the network plugin declares (0 for NCCL's InfiniBand and
            RoCE transport; aws-ofi-nccl declares 35 us on AWS P5en/P6 EFA).
        scale_out_reduction: Whether the scale-out switches reduce in the network (SHARP).
        oversubscription: Taper above `pod` accelerators (1 = non-blocking).
        pod: Accelerators below the oversubscribed tier; a group whose scale-up domains hold more meets the taper;
            0 means the taper applies to every cross-domain flow.
        host_capacity: Host (CPU) memory per accelerator (B), where training may offload; 0 when the system
            states none (no offload).
        host_link_bandwidth: The accelerator's link to host memory per direction (B/s): PCIe, NVLink-C2C.
        host_link_efficiency: Achieved fraction of `host_link_bandwidth` for large copies.
        host_memory_bandwidth: CPU memory bandwidth per accelerator (B/s), the rate of a CPU optimizer step.
        fit_waste: The share of the caching allocator's reserved memory a fit holds back as waste: 0, a layout fits
            at the model's figure; `reserve.ALLOCATOR_WASTE_HIGH`, at its range's high end (`reserve.fit_memory`),
            what a layout search within a workload's memory requirement takes first (`memory_limit.searched_within`).
    """

    accelerator: str
    peak: dict[str, float]
    gemm_efficiency: dict[str, float]
    hbm_capacity: float
    hbm_bandwidth: float
    scale_up_size: int
    scale_up_bandwidth: float
    gemm_half_size: float = 128.0
    gemm_k_fixed_steps: float = 0.0
    gemm_k_fixed_steps_range: tuple[float, ...] = ()
    gemm_floor: float = 0.0
    vector_peak: float = 0.0
    vector_efficiency: float = VECTOR_EFFICIENCY
    hbm_efficiency: float = 0.85
    l2_capacity: float = 0.0
    l2_bandwidth: float = 0.0
    scale_up_efficiency: float = 0.8
    scale_up_efficiency_range: tuple[float, ...] = ()
    scale_up_latency: float = 1.9e-6
    torus: tuple[int, ...] = ()
    torus_link_bandwidth: float = 0.0
    torus_dim_factor: tuple[float, ...] = ()
    torus_wraparound: bool = True
    in_network_reduction: bool = False
    scale_up_mesh: bool = False
    scale_up_pcie: bool = False
    nvls_efficiency: float = 0.0
    compute_capability: float = 0.0
    multiprocessors: float = 0.0
    all_to_all_efficiency: float = 0.0
    scale_out_bandwidth: float = 0.0
    scale_out_efficiency: float = 0.9
    scale_out_efficiency_range: tuple[float, ...] = ()
    scale_out_latency: float = 0.0
    gemm_stream_efficiency: dict[str, float] = field(default_factory=dict)
    gemm_stream_range: dict[str, tuple[float, float]] = field(default_factory=dict)
    gemm_efficiency_range: dict[str, tuple[float, float]] = field(default_factory=dict)
    hbm_efficiency_range: tuple[float, ...] = ()
    flash_efficiency: float = 0.787
    flash_efficiency_range: tuple[float, ...] = ()
    assumed_efficiencies: tuple[str, ...] = ()
    unstated: tuple[str, ...] = ()
    host_link_default: bool = False
    oversubscription: float = 1.0
    pod: int = 0
    scale_out_reduction: bool = False
    host_capacity: float = 0.0
    host_link_bandwidth: float = 0.0
    host_link_efficiency: float = HOST_LINK_EFFICIENCY
    host_memory_bandwidth: float = 0.0
    job_domain: int = 0  # accelerators of each domain the job's ranks fill in order, 0: all (`comm.placement`)
    rack_size: int = 0  # accelerators in each rack of a domain the job's share spans over racks, else 0
    rack_hop: float = 0.0  # the second switch hop's average in `scale_up_latency` (s; `racks_note.second_hop`)
    rack_cross: float = 0.0  # the whole second hop (s): what one send between racks takes (`racks.group_times`)
    vendor: str = ""  # the maker: a training job's stack where it states none (`stack_profiles.vendor_stack`)
    memory_type: str = "HBM"  # what the `hbm_*` figures' memory is (`Accelerator.memory_word`): 'GDDR6' on an L40S
    fit_waste: float = 0.0

    def peak_for(self, dtype: str) -> float:
        """Dense peak FLOP/s for `dtype`; else an error at the part's `peak`, why and what to state (`missing_peak`)."""
        if dtype not in self.peak:
            raise AnalyseError(missing_peak(self.accelerator, dtype, self.peak), subject=(self.accelerator, ("peak",)))
        return self.peak[dtype]

    def gemm_rate(self, dtype: str) -> float:
        """Best achievable dense-GEMM FLOP/s for `dtype` (peak x measured efficiency).

        Kept per dtype where it is a number (one estimate asks about ten times, issue 25; the fields never change).
        """
        got = self._gemm_rates.get(dtype)
        if got is None:
            eff = self.gemm_efficiency.get(dtype)
            got = self.peak_for(dtype) * (assumed_point(dtype, self.gemm_efficiency) if eff is None else eff)
            if isinstance(got, float):
                self._gemm_rates[dtype] = got
        return got

    @functools.cached_property
    def fp4(self) -> str:
        """The part's FP4 block-scale format (`generation.fp4_format`), once per part: every GEMM reads it."""
        return fp4_format(self.vendor, self.compute_capability)

    @functools.cached_property
    def _gemm_rates(self) -> dict[str, float]:
        """`gemm_rate` of each dtype asked for, where it is a number."""
        return {}

    def gemm_figures(self, dtype: str) -> tuple:
        """(`gemm_rate`, the HBM bandwidth a GEMM streams its operands at) for `dtype`: what `kernels.gemm_time` reads.

        `kernels.gemm_time` keeps them per dtype in `gemm_kept` where both are numbers: an estimate times about twenty
        GEMMs, and a lookup there costs less than the calls that work them out (issue 25).
        """
        return self.gemm_rate(dtype), self.hbm_bandwidth * self.gemm_stream_efficiency.get(dtype, self.hbm_efficiency)

    @functools.cached_property
    def gemm_kept(self) -> dict[str, tuple[float, float, float, float]]:
        """`kernels.gemm_time`'s figures of each dtype asked for (`gemm_figures` and bytes), where they are numbers."""
        return {}

    def summary(self, dtype: str | None) -> dict[str, Q]:
        """The figures an estimate ran on, as quantities (the tensor peak of `dtype` when given)."""
        out = {"peak": Q_(self.peak_for(dtype), "FLOPS").to("TFLOPS")} if dtype else {}
        out.update({
            "hbm_capacity": Q_(self.hbm_capacity, "B").to("GiB"),
            "hbm_bandwidth": Q_(self.hbm_bandwidth, "B/s").to("TB/s"),
            "scale_up_size": Q_(self.scale_up_size, ""),
            "scale_up_bandwidth": Q_(self.scale_up_bandwidth, "B/s").to("GB/s"),
            "scale_out_bandwidth": Q_(self.scale_out_bandwidth, "B/s").to("Gbit/s"),
            "scale_out_latency": Q_(self.scale_out_latency, "s").to("us"),
            "oversubscription": Q_(self.oversubscription, ""),
        })
        if self.oversubscription != 1.0:
            out["non_blocking_pod"] = Q_(self.pod, "")
        if self.host_capacity:
            out["host_memory"] = Q_(self.host_capacity, "B").to("GB")
            out["host_link_bandwidth"] = Q_(self.host_link_bandwidth, "B/s").to("GB/s")
        return out

    def scaled(self, parameter: str, factor: float, dtype: str = "bf16") -> Hardware:
        """A copy with one parameter of `PARAMETERS` multiplied by `factor` (for what-if and sensitivity)."""
        factor = positive_factor(parameter, factor)   # 0 divided by zero in the model; -1 ran backwards
        if parameter == "peak":
            return dataclasses.replace(self, peak={**self.peak, dtype: self.peak_for(dtype) * factor})
        if parameter == "latency":
            return dataclasses.replace(self, scale_up_latency=self.scale_up_latency * factor,
                                       rack_hop=self.rack_hop * factor, rack_cross=self.rack_cross * factor,
                                       scale_out_latency=self.scale_out_latency * factor)
        if parameter not in PARAMETERS and parameter not in EXTRA_PARAMETERS:
            known = ", ".join((*PARAMETERS, *EXTRA_PARAMETERS))
            raise AnalyseError(f"unknown hardware parameter '{parameter}' (known: {known})")
        return _replaced(self, {parameter: getattr(self, parameter) * factor})

    def every_peak_scaled(self, factor: float) -> Hardware:
        """A copy with every data type's tensor peak multiplied by `factor` (`scaled('peak')` takes the job's alone).

        The chip's matrix units scaled together, as an architect's "twice the FLOP/s" reads (`workload.peak_scope`).
        """
        factor = positive_factor("peak", factor)
        return dataclasses.replace(self, peak={k: v * factor for k, v in self.peak.items()})

    @functools.cached_property
    def _numbers(self) -> bool:
        """Whether every field (and peak) is a number, not an array: `with_axis` is then the hardware itself."""
        return not any(isinstance(getattr(self, f.name), np.ndarray) for f in dataclasses.fields(self)) and not any(
            isinstance(v, np.ndarray) for v in self.peak.values())

    def with_axis(self) -> Hardware:
        """This hardware with a trailing length-1 axis on each array field; itself when every field is a number.

        The model takes hardware fields as numpy arrays too (one hardware per layout, or per sweep point,
        `perf.explore.vectorised`); a computation that adds a trailing axis to the layout arrays (the pipeline rank
        classes) takes the hardware through this so that it broadcasts against that axis.
        """
        if self._numbers:
            return self
        change: dict[str, object] = {f.name: v[..., None] for f in dataclasses.fields(self)
                                     if isinstance(v := getattr(self, f.name), np.ndarray)}
        if any(isinstance(v, np.ndarray) for v in self.peak.values()):
            # a batch holds arrays where `peak` is annotated float (the vectorised model's convention)
            change["peak"] = {k: np.asarray(v)[..., None] if isinstance(v, np.ndarray) else v
                              for k, v in self.peak.items()}
        return _replaced(self, change) if change else self

    def with_chip(self, other: Hardware) -> Hardware:
        """This fabric (scale-up domain and links, scale-out) with `other`'s accelerator (`CHIP_FIELDS`)."""
        assumed = tuple(n for n in assumed_efficiency.NAMES if n in (
            self.assumed_efficiencies if n == "scale_up" else other.assumed_efficiencies))
        return dataclasses.replace(self, assumed_efficiencies=assumed, **{f: getattr(other, f) for f in CHIP_FIELDS})

    def with_value(self, parameter: str, value: float, dtype: str = "bf16") -> Hardware:
        """A copy with one parameter set to `value` in SI units (B/s, B, FLOP/s); `peak` is that of `dtype`.

        `latency` stands for two figures and is only scaled (`scaled`).
        """
        if parameter == "peak":
            self.peak_for(dtype)
            return dataclasses.replace(self, peak={**self.peak, dtype: value})
        if parameter == "latency" or parameter not in (*PARAMETERS, *EXTRA_PARAMETERS):
            known = ", ".join(p for p in (*PARAMETERS, *EXTRA_PARAMETERS) if p != "latency")
            raise AnalyseError(f"hardware parameter '{parameter}' cannot be set to a value (known: {known})")
        return _replaced(self, {parameter: value})


def _replaced(hw: Hardware, changes: dict[str, object]) -> Hardware:
    """`dataclasses.replace` on fields named at run time (a parameter, every array field).

    The dataclass plugin checks each keyword of a call that names it; names held in a string reach the generic
    `replace(obj, **changes)` of typeshed instead, and an unknown name is still a TypeError from the constructor.
    """
    generic: Callable[..., Hardware] = dataclasses.replace
    if hw.torus and "torus_link_bandwidth" not in changes and isinstance(  # and its links, unless given with it
            up := changes.get("scale_up_bandwidth"), float | int | np.ndarray):
        changes = {**changes, "torus_link_bandwidth": hw.torus_link_bandwidth * up / hw.scale_up_bandwidth}
    return generic(hw, **changes)
