"""A transport that leaves its latency 'Not set' gives a latency not provided, not a declared 0 (newuser22 finding 5).

ROCm/amd-anp (src/net_ib.cc, `anpNetGetPhysProperties`) writes `props->latency = 0` with the comment 'Not set'. The
catalog's pollara-400 stated `latency: 0 us`, and the estimate read "no network latency added per step across
scale-up domains (0, as amd-anp on NIC 'pollara-400' declares)", a figure the source does not give. Now the part
leaves `transport.latency` out and the estimate says the latency is not provided.
"""

from __future__ import annotations

import pytest

from archgen.perf.workload.network_notes import network_latency_note
from archgen.units import Q_


def test_the_pollara_transport_states_no_latency(shipped) -> None:
    nic = shipped.specs.get("pollara-400")
    assert nic.transport.plugin == "amd-anp" and nic.transport.latency is None
    path = shipped.clusters["cluster/mi355x-th5"].scale_out
    assert path.latency is None and path.transport == "amd-anp on NIC 'pollara-400'"


def test_the_estimate_says_not_provided(shipped) -> None:
    notes = shipped.workloads["workload/allreduce-mi355x-th5"].estimate.notes
    [note] = [n for n in notes if "network latency" in n]
    assert note.startswith("network latency per step across scale-up domains not provided: amd-anp on NIC "
                           "'pollara-400' leaves it unset")
    assert "(0," not in note and "declares" not in note


@pytest.mark.parametrize("unset", ["", "amd-anp on NIC 'pollara-400'"])
def test_a_declared_zero_and_an_unset_latency_read_differently(accelerators, unset) -> None:
    from archgen.perf.hw.from_spec import hardware_for

    hw = hardware_for(accelerators["mi355x"], scale_up_size=8, scale_out_bandwidth=Q_(50, "GB/s"),
                      scale_out_latency=Q_(0, "s"))
    note = network_latency_note(hw, 64, "as amd-anp on NIC 'pollara-400' declares", "RCCL", unset=unset)
    assert ("not provided" in note) == bool(unset)
