"""An AMD cluster is described in AMD's terms, not NVIDIA's (tpuamd finding 4, from newuser11's MI355X cluster).

Before: an estimate on Pollara 400 NICs said "NCCL's own InfiniBand/RoCE transport declares none" (AMD runs RCCL,
and its AI NICs through the ANP net plugin, github.com/ROCm/amd-anp, whose `anpNetGetPhysProperties` declares
latency 0), and the AMD 8-GPU platforms' BMC port was `onboard-1gbe-bmc`, vendor NVIDIA, "the BMC port of a DGX".
"""

from __future__ import annotations

from archgen.perf.workload.network_notes import network_latency_note
from archgen.units import Q_


def test_pollara_notes_name_amds_plugin_not_nccl(shipped) -> None:
    notes = shipped.workloads["workload/allreduce-mi355x-th5"].estimate.notes
    assert "network latency per step across scale-up domains not provided: amd-anp on NIC 'pollara-400' leaves " \
           "it unset (`NIC.transport.latency`), so none is added; not modelled beyond that" in notes
    # the transport is AMD's; "NCCL's" appears only where the estimate says it took NCCL's latency constants in
    # place of RCCL's (`perf.comm.rccl_net`, tests/perf/test_rccl_net.py)
    assert not any("NCCL's" in n and "take NCCL's latencies" not in n for n in notes), notes
    assert shipped.clusters["cluster/mi355x-th5"].scale_out.transport == "amd-anp on NIC 'pollara-400'"


def test_amd_platforms_have_no_nvidia_bmc(shipped) -> None:
    for system in ("amd-mi355x-platform", "amd-mi325x-platform", "amd-mi300x-platform"):
        part = shipped.specs.get(system)
        (bmc,) = [shipped.specs.get(n.part) for n in part.nics if n.role == "management"]
        assert bmc.vendor != "NVIDIA" and "DGX" not in bmc.description, (system, bmc.id)


def test_the_fallback_names_the_vendors_library(accelerators) -> None:
    """Without a NIC that states its transport, the note names the library by the accelerator's vendor."""
    from archgen.perf.hw.from_spec import hardware_for

    hw = hardware_for(accelerators["mi355x"], scale_up_size=8, scale_out_bandwidth=Q_(50, "GB/s"),
                      scale_out_latency=Q_(0, "s"))
    rccl = network_latency_note(hw, 64, "", "RCCL")
    assert "RCCL's own InfiniBand/RoCE transport" in rccl and "NCCL" not in rccl
    assert "NCCL's own InfiniBand/RoCE transport declares none" in network_latency_note(hw, 64, "", "NCCL")
