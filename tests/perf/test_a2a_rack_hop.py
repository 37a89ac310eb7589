"""An all-to-all across racks of a scale-up domain pays the second switch hop on its sends to other racks (a2ahop).

An all-to-all is n - 1 sends, one to each peer (NCCL's point-to-point sends, `perf.comm.algorithms.all_to_all`:
BASE_LATENCY + (n - 1) x step / 8 + the bytes' time), so in a domain over several racks (`scale_up.racks`) the
sends to peers in other racks each cross one more switch. Of 64 ranks over two racks of 32, a rank's peers in the
other rack are 32 of 63: with a stated 250 ns hop (the UALink Consortium's < 250 ns target for a 100T switch,
ualinkconsortium.org webinar Q&A) the all-to-all takes 63 / 8 x 250 ns x 32 / 63 = 1 us more than inside one rack.
Before, it took the ring steps' average, 250 ns x 1 / 63 per step: 63 / 8 x 250 / 63 = 31.25 ns more.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from archgen.perf.comm.racks import group_times
from archgen.perf.hw.hardware import Hardware

HOP = 250e-9
BASE = Hardware("x", peak={"bf16": 1e15}, gemm_efficiency={}, hbm_capacity=80e9, hbm_bandwidth=3.35e12,
                scale_up_size=64, scale_up_bandwidth=400e9)
#: The job's share spans two racks of 32: the second hop averaged over 1 of 63 ring steps, as `second_hop` adds it.
SPAN = replace(BASE, scale_up_latency=BASE.scale_up_latency + HOP / 63, rack_hop=HOP / 63, rack_cross=HOP,
               rack_size=32)
SIZE = 64e6


def _a2a(hw: Hardware, n, stride=1):
    return group_times(hw, (("all_to_all", SIZE), ("all_reduce", SIZE)), n, n, stride)


def test_an_all_to_all_over_two_racks_pays_the_hop_on_its_32_peers_in_the_other_rack() -> None:
    own, across = _a2a(BASE, 64)[0], _a2a(SPAN, 64)[0]
    assert across - own == pytest.approx(63 / 8 * HOP * 32 / 63, rel=1e-9)   # 1 us
    assert across - own == pytest.approx(1e-6, rel=1e-9)


def test_the_other_collectives_keep_the_ring_steps_average() -> None:
    """The all-reduce beside it is timed as before: the average over the ring's steps (`second_hop`)."""
    (_, ring), (_, before) = _a2a(SPAN, 64), _a2a(replace(SPAN, rack_size=0), 64)
    assert ring == before


def test_a_group_inside_one_rack_takes_none() -> None:
    """8 consecutive ranks: a block of 8 divides the rack's 32, so no send crosses."""
    assert _a2a(SPAN, 8)[0] == _a2a(BASE, 8)[0]


def test_a_strided_group_counts_its_members_in_one_rack() -> None:
    """8 ranks 8 apart span 64 ranks, two racks: 4 in each, so 4 of a rank's 7 peers are across (4/7 of the hop)."""
    across, own = _a2a(SPAN, 8, 8)[0], _a2a(BASE, 8, 8)[0]
    assert across - own == pytest.approx(7 / 8 * HOP * 4 / 7, rel=1e-9)   # 125 ns


def test_arrays_of_groups_are_timed_each_at_its_share() -> None:
    """The batched search passes arrays of group sizes: each takes its own share of the hop, as one number would."""
    got = _a2a(SPAN, np.array([64.0, 8.0]), np.array([1.0, 8.0]))[0]
    assert got[0] == pytest.approx(_a2a(SPAN, 64)[0], rel=1e-12)
    assert got[1] == pytest.approx(_a2a(SPAN, 8, 8)[0], rel=1e-12)


#: An NVL36x2-shaped share: 72 accelerators over two racks of 36, the second hop averaged over 1 of 71 ring steps.
SPAN36 = replace(BASE, scale_up_size=72, scale_up_latency=BASE.scale_up_latency + HOP / 71, rack_hop=HOP / 71,
                 rack_cross=HOP, rack_size=36)


def test_a_group_cut_by_the_rack_boundary_pays_for_its_fewest_members_in_one_rack() -> None:
    """Groups of 24 in racks of 36: ranks 24-47 are 12 in each rack, so a rank there has 12 of its 23 peers across.

    The groups run in lockstep (module docstring), so every group waits on that one: 23 / 8 x 250 ns x 12 / 23 =
    375 ns more than inside one rack. Before (review43), the group's members in one rack were read as min(24, 36) =
    24, every peer in the rank's own rack, and the all-to-all paid no hop at all though the group crosses.
    """
    across, own = _a2a(SPAN36, 24)[0], _a2a(replace(BASE, scale_up_size=72), 24)[0]
    assert across - own == pytest.approx(23 / 8 * HOP * 12 / 23, rel=1e-9)   # 375 ns


def test_an_expert_group_of_8_on_racks_of_36_pays_for_the_group_across_the_boundary() -> None:
    """EP 8 on an NVL36x2-shaped share: the group of ranks 32-39 holds 4 in each rack, 4 of 7 peers across."""
    across, own = _a2a(SPAN36, 8)[0], _a2a(replace(BASE, scale_up_size=72), 8)[0]
    assert across - own == pytest.approx(7 / 8 * HOP * 4 / 7, rel=1e-9)   # 125 ns
