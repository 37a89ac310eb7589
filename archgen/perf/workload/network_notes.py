"""What an estimate says of the network between scale-up domains: its efficiency, an assumed fabric, planes, latency.

Each note is "" where the job stays inside one scale-up domain or the cluster has no scale-out; `estimate_on_cluster`
(`perf.workload.cluster`) adds those that apply to the estimate's notes. Split from `perf.workload.cluster`, which
derives the model's hardware from a cluster spec and estimates a workload on it.
"""

from __future__ import annotations

from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.machine import Machine
from archgen.units import Q_


def scale_out_efficiency_note(on: Machine, hw: Hardware, gpus: int) -> str:
    """What the estimate took as the share of the NICs' bandwidth a collective reaches, where no NCCL figure backs it.

    `Hardware.scale_out_efficiency` (0.9) is an assumption checked against NCCL only: 46 to 48 GB/s ring all-reduce
    busbw per 400 Gb/s NDR InfiniBand NIC (NVIDIA/nccl-tests issue 290), 0.92 to 0.96, and 0.955 on EFA
    (docs/perf-model.md, Collectives). Where the job crosses scale-up domains and the accelerator's collective
    library is another (RCCL on Pollara/RoCE), no measurement stands behind it, and the estimate says so; on RCCL it
    also spans the stated range (`hw.scale_out_efficiency_range`, `perf.comm.rccl_net`), which the note names.
    """
    if on.library == "NCCL" or gpus <= hw.scale_up_size or hw.scale_out_bandwidth <= 0:
        return ""
    rng = hw.scale_out_efficiency_range
    spans = (f"; the estimate spans {rng[0]:g} to {rng[1]:g}, what AMD expects {on.library}'s 2-node all-reduce "
             "and send/recv to reach over 400 GbE RoCE (ROCm/cvs rccl_config.json: pass thresholds, not "
             "measurements; `perf.comm.rccl_net`)" if len(rng) == 2 else "")
    return (f"scale-out efficiency {hw.scale_out_efficiency:g} (the share of the NICs' bandwidth a collective "
            f"reaches) is an assumption checked against NCCL only (NDR InfiniBand, EFA: 0.92 to 0.96 measured); no "
            f"measurement with {on.library} backs it{spans}")


def assumed_fabric_note(on: Machine, hw: Hardware, gpus: int) -> str:
    """What the estimate took for traffic between scale-up domains on a cluster with no compute fabric ("" if not).

    Without one the network analysis takes the compute NICs' line rate per accelerator, non-blocking
    (`analyse.network.nic_path`): a figure of no fabric that anyone sized, which `check`'s NET023 warns of and the
    estimate says beside its figures, wherever the job crosses scale-up domains.
    """
    if not on.assumed_scale_out or gpus <= hw.scale_up_size or hw.scale_out_bandwidth <= 0:
        return ""
    rate = Q_(hw.scale_out_bandwidth, "B/s").m_as("Gbit/s")
    return (f"cluster '{on.cluster}' declares no compute fabric: traffic between scale-up domains is taken at the "
            f"compute NICs' line rate, {rate:.4g} Gb/s per accelerator, non-blocking (no switch, taper or tier is "
            "modelled); declare the fabric (`fabrics`, role compute) to size it")


def planes_note(on: Machine, hw: Hardware, gpus: int) -> str:
    """What the estimate took of a multi-plane fabric's bandwidth, where the job crosses scale-up domains ("" if not).

    The scale-out bandwidth sums the planes a NIC port is split over (a SuperNIC 2 x 400G over two planes: 800 Gb/s),
    so every flow is taken to use them all (planes of whole NICs, as mi355x-th5's, need no such note: a GPU's own
    NIC is on one plane). NCCL does so where it merges the ports of one NIC: ports of one PCI device (functions
    merged) with one GUID become one device of their summed speed (NCCL_IB_MERGE_NICS, default 1), and each send is
    split over its devices' QPs (NVIDIA/nccl at 5067397c, src/transport/net_ib/init.cc:29, :69 and :225;
    src/transport/net_ib/p2p.cc:116; 2.20.5 merged up to 2 ports, net plugin v12 up to 8). That a SuperNIC's plane
    functions are merged so is assumed, not read in a source; a flow held to one plane would see 1/P of it.
    """
    if on.planes <= 1 or gpus <= hw.scale_up_size or hw.scale_out_bandwidth <= 0:
        return ""
    rate = Q_(hw.scale_out_bandwidth, "B/s").m_as("Gbit/s")
    return (f"scale-out bandwidth {rate:.4g} Gb/s per accelerator sums {on.planes} planes, each NIC port split over "
            "them: every "
            f"collective and p2p flow is assumed to use them all, as {on.library} does with the ports of one NIC it "
            "merges (NCCL_IB_MERGE_NICS, on by default: one device of their summed speed, each send split over them; "
            "NVIDIA/nccl src/transport/net_ib/init.cc, p2p.cc); that the NIC's plane functions merge so is not "
            f"confirmed, and a flow held to one plane would see {rate / on.planes:.4g} Gb/s")


def network_latency_note(hw: Hardware, gpus: int, source: str, library: str = "NCCL", unset: str = "") -> str:
    """What the estimate took as the network's latency per step, where `gpus` cross scale-up domains ("" if not).

    `source` says where it comes from ("as aws-ofi-nccl on NIC 'efa-v4' declares", from `ScaleOutPath.transport`);
    without one it is the `library`'s own InfiniBand/RoCE transport: NCCL's declares 0 (`src/transport/net_ib/init.cc`),
    and the estimate adds none for another library's either. A declared 0 reads as none added, not as "0 us"; a
    transport that leaves it unset (`unset`, "amd-anp on NIC 'pollara-400'") makes it not provided.
    """
    if gpus <= hw.scale_up_size or hw.scale_out_bandwidth <= 0:
        return ""
    if unset:
        return (f"network latency per step across scale-up domains not provided: {unset} leaves it unset "
                "(`NIC.transport.latency`), so none is added; not modelled beyond that")
    us = f"{hw.scale_out_latency * 1e6:.4g} us"
    if source and hw.scale_out_latency == 0:
        return f"no network latency added per step across scale-up domains (0, {source}); not modelled beyond that"
    if source:
        return f"network latency {us} per step across scale-up domains, {source}"
    own = (f"{library}'s own InfiniBand/RoCE transport declares none, and no compute NIC states another" if
           library == "NCCL" else f"no compute NIC states its transport's latency (`NIC.transport`), and none is "
           f"assumed for {library}'s own InfiniBand/RoCE transport")
    if hw.scale_out_latency == 0:   # none declared: a "0 us" read like a measured figure
        return (f"no network latency added per step across scale-up domains: {own}"
                f"{' (`NIC.transport`)' if library == 'NCCL' else ''}; not modelled beyond that")
    if library == "NCCL":
        return (f"network latency {us} per step across scale-up domains: NCCL's own InfiniBand/RoCE transport "
                "declares 0, and no compute NIC states another (`NIC.transport`)")
    return f"network latency {us} per step across scale-up domains (not the transport's: {own})"
