"""The model's `Hardware` built from an accelerator spec and the figures of its fabric (`hardware_for`).

`hardware_for` is the seam any layer builds `Hardware` through: a cluster spec (`perf.workload.cluster`), a
validation case or curve (`archgen.scoring`), a library caller (`archgen.perf.api`). It takes the figures a cluster
spec or a validation case provides (accelerator, scale-up domain size and bandwidth, scale-out bandwidth and
oversubscription), checks them as the specs check a field (`given`) and converts them to SI floats.
"""

from __future__ import annotations

from archgen.errors import BuildError
from archgen.model.accelerator import Accelerator
from archgen.model.pcie import PCIE_COPY_RANGE, PCIE_P2P_LATENCY, pcie_rate
from archgen.perf.hw import assumed_efficiency
from archgen.perf.hw.assumed_gemm import measured_range
from archgen.perf.hw.given import arguments, si
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.host_share import HostShare
from archgen.units import Q_, Q

#: Latency the network adds per step when the caller gives none (`Hardware.scale_out_latency`): none, as NCCL's own
#: InfiniBand/RoCE transport declares.
DEFAULT_SCALE_OUT_LATENCY = Q_(0.0, "us")


def hardware_for(accelerator: Accelerator, *, scale_up_size: int, scale_up_bandwidth: Q | str | None = None,
                 scale_out_bandwidth: Q | str | None = None, oversubscription: float = 1.0, pod: int = 0,
                 scale_out_latency: Q | str = DEFAULT_SCALE_OUT_LATENCY,
                 in_network_reduction: bool | None = None, scale_out_reduction: bool = False,
                 host: HostShare | None = None, scale_up_mesh: bool = False) -> Hardware:
    """Build the model's `Hardware` from an accelerator spec and the fabric figures of a system or cluster.

    Args:
        accelerator: The catalog accelerator.
        scale_up_size: Accelerators per scale-up domain (8 for HGX, 72 for NVL72).
        scale_up_bandwidth: Per accelerator per direction ('900 GB/s' or a quantity); defaults to the part's own.
        scale_out_bandwidth: Per accelerator per direction ('400 Gb/s' or a quantity); None for a single domain.
        oversubscription: Taper of the scale-out fabric above `pod` accelerators (1 = non-blocking).
        pod: Accelerators under the non-blocking part of the fabric (0: taper applies to all cross-domain traffic).
        scale_out_latency: Latency the network adds to each step across it (NCCL's `latencyInter`; '5 us').
        in_network_reduction: Override whether NVLS is enabled; defaults to the accelerator's capability.
        scale_out_reduction: Whether the scale-out switches reduce in the network (SHARP).
        host: Host memory per accelerator and its link (None: no host memory, so no offload).
        scale_up_mesh: The scale-up domain is a direct full mesh (a cluster's `scale_up.topology: mesh`).

    Returns:
        The flat SI description the model evaluates; a wrong argument is a `BuildError` naming it (`given`).
    """
    scale_up_bandwidth, scale_out_bandwidth, latency = arguments(
        accelerator, scale_up_size, scale_up_bandwidth, scale_out_bandwidth, scale_out_latency, oversubscription, pod)
    su = accelerator.scale_up
    eff = accelerator.efficiency
    bw_up = scale_up_bandwidth if scale_up_bandwidth is not None else (su.bandwidth if su else None)
    pcie = scale_up_size > 1 and bw_up is None and (rate := pcie_rate(accelerator.host_interface)) is not None
    if pcie:
        bw_up = Q_(rate, "B/s")
    elif scale_up_size > 1 and bw_up is None:
        raise BuildError(f"accelerator '{accelerator.id}' has no scale-up link and states no `host_interface` "
                         "(e.g. 'PCIe Gen4 x16') for its accelerators to reach each other over (PCIe peer-to-peer); "
                         "state it, or a `scale_up` link", subject=(accelerator.id, ("scale_up",)))
    nvls = (su.in_network_reduction if su else False) if in_network_reduction is None else in_network_reduction
    up_point, up_range = (assumed_efficiency.point(eff, "scale_up"),
                          assumed_efficiency.effective_range(eff, "scale_up") or ())
    if pcie and "scale_up" in assumed_efficiency.unstated(eff):   # no NVLink figure: the measured PCIe copies
        up_point, up_range = PCIE_COPY_RANGE[0], PCIE_COPY_RANGE
    return Hardware(
        accelerator=accelerator.id, vendor=accelerator.vendor,
        peak={k: si(v, "FLOPS") for k, v in accelerator.peak.items()},
        gemm_efficiency={k: v for k, v in eff.gemm.items()},
        gemm_stream_efficiency={k: v for k, v in eff.gemm_stream.items()},
        gemm_stream_range={k: (float(lo), float(hi)) for k, (lo, hi) in eff.gemm_stream_range.items()},
        gemm_efficiency_range={**{k: measured_range(k) for k in accelerator.peak if k not in eff.gemm},
                               **{k: (float(lo), float(hi)) for k, (lo, hi) in eff.gemm_range.items()}},
        gemm_half_size=float(eff.gemm_half_size),
        gemm_k_fixed_steps=float(eff.gemm_k_fixed_steps or 0.0),
        gemm_k_fixed_steps_range=tuple(map(float, eff.gemm_k_fixed_steps_range or ())),
        gemm_floor=si(eff.gemm_floor, "s"),
        vector_peak=si(accelerator.vector_peak, "FLOPS"), vector_efficiency=eff.vector,
        memory_type=accelerator.memory_word,
        hbm_capacity=si(accelerator.memory, "B"), hbm_bandwidth=si(accelerator.memory_bandwidth, "B/s"),
        hbm_efficiency=assumed_efficiency.point(eff, "hbm"),
        hbm_efficiency_range=assumed_efficiency.effective_range(eff, "hbm") or (),
        flash_efficiency=assumed_efficiency.point(eff, "flash"),
        flash_efficiency_range=assumed_efficiency.effective_range(eff, "flash") or (),
        assumed_efficiencies=assumed_efficiency.unstated(eff),
        unstated=(*assumed_efficiency.unstated_defaults(accelerator, bool(nvls), scale_up_size),
                  *(("pcie_p2p",) if pcie else ())),
        l2_capacity=si(accelerator.l2_cache, "B"), l2_bandwidth=si(accelerator.l2_bandwidth, "B/s"),
        scale_up_size=int(scale_up_size),
        scale_up_bandwidth=si(bw_up, "B/s"),
        scale_up_efficiency=up_point,
        scale_up_efficiency_range=up_range,
        scale_up_latency=si(su.latency, "s") if su else (PCIE_P2P_LATENCY if pcie else 1.9e-6),
        in_network_reduction=bool(nvls),
        scale_up_mesh=bool(scale_up_mesh),
        scale_up_pcie=pcie,
        nvls_efficiency=eff.in_network_reduction or 0.0,
        compute_capability=float(accelerator.compute_capability or 0.0),
        multiprocessors=float(accelerator.multiprocessors or 0),
        all_to_all_efficiency=float(eff.all_to_all or 0.0),
        scale_out_bandwidth=si(scale_out_bandwidth, "B/s"),
        scale_out_latency=si(latency, "s"),
        oversubscription=float(oversubscription), pod=int(pod),
        scale_out_reduction=bool(scale_out_reduction),
        **(host.fields() if host is not None else {}),
    )
