"""Collectives: nccl-tests bus bandwidth definitions and the α-β model."""

from __future__ import annotations

import pytest

from archgen.errors import UsageError
from archgen.perf.collectives import BASE_LATENCY, bus_bandwidth, busbw_factor, collective_time


def test_busbw_factors_follow_nccl_tests():
    # NVIDIA/nccl-tests doc/PERFORMANCE.md
    assert busbw_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert busbw_factor("all_gather", 8) == pytest.approx(7 / 8)
    assert busbw_factor("reduce_scatter", 4) == pytest.approx(3 / 4)
    assert busbw_factor("p2p", 2) == 1.0
    assert bus_bandwidth("all_reduce", 1e9, 1e-2, 8) == pytest.approx(1e11 * 1.75)


def test_ring_all_reduce_closed_form(h100):
    size, n = 2 ** 30, 8
    t = collective_time(h100, "all_reduce", size, n, algorithm="ring")
    expected = BASE_LATENCY + 2 * (n - 1) * 1.9e-6 + 2 * (n - 1) / n * size / (450e9 * 0.824)
    assert t == pytest.approx(expected)
    # large messages: busbw tends to the achievable link bandwidth
    assert bus_bandwidth("all_reduce", size, t, n) == pytest.approx(450e9 * 0.824, rel=0.01)


def test_nvls_all_reduce_beats_the_link_rate(accelerators):
    from archgen.perf.hardware import hardware_for
    hw = hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=8)
    size = 16 * 2 ** 30
    bus = bus_bandwidth("all_reduce", size, collective_time(hw, "all_reduce", size, 8, algorithm="nvls"), 8)
    # each rank moves size (1 + 1/n): busbw = 2(n-1)/(n+1) x achievable
    assert bus == pytest.approx(2 * 7 / 9 * 450e9 * 0.824 * 0.8, rel=0.01)
    assert bus > 450e9


def test_crossing_domains_uses_the_nic(h100):
    inside = collective_time(h100, "all_reduce", 2 ** 28, 8)
    across = collective_time(h100, "all_reduce", 2 ** 28, 64)
    flat = collective_time(h100, "all_reduce", 2 ** 28, 64, algorithm="ring")
    assert across > 1.5 * inside
    # a flat ring runs every byte over the 50 GB/s NIC; hierarchical sends 1/8 of it across domains
    assert flat == pytest.approx(collective_time(h100, "all_reduce", 2 ** 28, 64, algorithm="ring"))
    assert flat > 2 * across


def test_oversubscription_slows_large_groups(accelerators):
    from archgen.perf.hardware import hardware_for
    from archgen.units import Q_
    flat = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    taper = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"),
                         oversubscription=4, pod=256)
    assert collective_time(taper, "all_gather", 2 ** 30, 128) == collective_time(flat, "all_gather", 2 ** 30, 128)
    assert collective_time(taper, "all_gather", 2 ** 30, 1024, algorithm="ring") > \
        collective_time(flat, "all_gather", 2 ** 30, 1024, algorithm="ring")
    # the pod is counted in accelerators of the domains a group spans, whatever its ranks per domain: a
    # hierarchical all-reduce over 1,024 GPUs runs its outer ring on 128 ranks, one per domain, yet crosses the
    # taper; 32 domains x 8 = 256 accelerators stay under it
    for n, tapered in ((1024, True), (256, False)):
        slow = collective_time(taper, "all_reduce", 2 ** 30, n, algorithm="hierarchical")
        fast = collective_time(flat, "all_reduce", 2 ** 30, n, algorithm="hierarchical")
        assert (slow > 1.5 * fast) is tapered and (slow == fast) is not tapered
    # a DP group of 64 ranks, one per domain (k = 1), spans 64 domains = 512 accelerators: tapered
    assert collective_time(taper, "all_reduce", 2 ** 30, 64, 1, algorithm="ring") > \
        collective_time(flat, "all_reduce", 2 ** 30, 64, 1, algorithm="ring")


def test_one_rank_costs_nothing(h100):
    assert collective_time(h100, "all_reduce", 1e9, 1) == 0.0


def test_bad_op_and_algorithm(h100):
    with pytest.raises(UsageError, match="unknown collective 'broadcast' \\(expected one of: all_reduce, all_gather, "
                                         "reduce_scatter, all_to_all, p2p\\)"):
        collective_time(h100, "broadcast", 1, 8)
    with pytest.raises(UsageError, match="accelerator 'h100-sxm5-80gb' has no in-network reduction"):
        collective_time(h100, "all_reduce", 1, 8, algorithm="nvls")
