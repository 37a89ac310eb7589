"""Collectives: nccl-tests bus bandwidth definitions and NCCL's tuning model on the real topology."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from archgen.errors import AnalyseError
from archgen.perf.comm import nccl
from archgen.perf.comm.collectives import bus_bandwidth, busbw_factor, collective_time, require
from archgen.perf.hw.from_spec import hardware_for
from archgen.units import Q_

CURVES = yaml.safe_load((Path(__file__).parent / "data" / "allreduce-curves.yaml").read_text(encoding="utf-8"))
GiB = 2 ** 30


def busbw(hw, op, size, n, k=None, algorithm="auto"):
    return bus_bandwidth(op, size, collective_time(hw, op, size, n, k, algorithm), n)


def test_busbw_factors_follow_nccl_tests():
    # NVIDIA/nccl-tests doc/PERFORMANCE.md
    assert busbw_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert busbw_factor("all_gather", 8) == pytest.approx(7 / 8)
    assert busbw_factor("reduce_scatter", 4) == pytest.approx(3 / 4)
    assert busbw_factor("p2p", 2) == 1.0
    assert bus_bandwidth("all_reduce", 1e9, 1e-2, 8) == pytest.approx(1e11 * 1.75)


def test_ring_simple_is_nccls_latency_plus_the_link(h100):
    """tuning.cc: ring Simple latency = base 8.4 us + 2(n-1) NVLink steps of 3.4 us; busbw -> link x efficiency."""
    size, n = 2 ** 30, 8
    t = collective_time(h100, "all_reduce", size, n, algorithm="ring")
    expected = (8.4 + 2 * (n - 1) * 3.4) * 1e-6 + 2 * (n - 1) / n * size / (450e9 * 0.824)
    assert t == pytest.approx(expected)
    assert busbw(h100, "all_reduce", 16 * GiB, n, algorithm="ring") == pytest.approx(450e9 * 0.824, rel=0.01)


def test_small_messages_take_the_low_latency_protocol(h100):
    """LL: 6.6 us + 14 x 0.6 us, at half the bandwidth capped at 141 GB/s (Hopper, one node) - tuning.cc."""
    size = 4096
    ll = (6.6 + 14 * 0.6) * 1e-6 + 1.75 * size / 141e9
    assert collective_time(h100, "all_reduce", size, 8, algorithm="ring") == pytest.approx(ll)
    assert collective_time(h100, "all_reduce", 8, 8) < 20e-6


def test_nvls_follows_nccls_formula(accelerators):
    """NVLS busbw = 2 x nvlsEfficiency x (heads - 1) x the per-channel speed (up / (heads + 1), rounded down to
    search.cc's speeds): 8 x H200: 2 x 0.85 x 7 x 40 GB/s = 476 GB/s."""
    hw = hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=8)
    assert busbw(hw, "all_reduce", 16 * GiB, 8, algorithm="nvls") == pytest.approx(476e9, rel=0.002)
    assert busbw(hw, "all_reduce", 16 * GiB, 8, algorithm="nvls") > 450e9   # above the link rate, as measured


@pytest.mark.parametrize("acc", ["h200-sxm-141gb", "b200-sxm-180gb"])
def test_nvls_ramp_with_the_group_size(accelerators, acc):
    """The measured ramp from 4 to 8 GPUs (ml-engineering SHARP sweeps, 8 GiB) within 12 % at every size, and
    NCCL's choice: ring at 4 GPUs (no NVLS gain), NVLS at 7 and 8."""
    hw = hardware_for(accelerators[acc], scale_up_size=8)
    for n, measured in CURVES["nvls-sweep"][acc].items():
        assert busbw(hw, "all_reduce", 8 * GiB, n) == pytest.approx(measured * 1e9, rel=0.12), n
    ring4 = busbw(hw, "all_reduce", 8 * GiB, 4, algorithm="ring")
    assert busbw(hw, "all_reduce", 8 * GiB, 4) == pytest.approx(ring4)
    for n in (7, 8):
        assert busbw(hw, "all_reduce", 8 * GiB, n) == pytest.approx(busbw(hw, "all_reduce", 8 * GiB, n, algorithm="nvls"))


def test_nvls_saturates_at_ncclss_arity(accelerators):
    """At most 32 NVLS heads (device.h), so an NVL72 all-reduce over 72 GPUs has the busbw of one over 32."""
    hw = hardware_for(accelerators["gb200"], scale_up_size=72)
    assert busbw(hw, "all_reduce", 8 * GiB, 72) == pytest.approx(busbw(hw, "all_reduce", 8 * GiB, 32), rel=0.01)


def test_a_ring_across_nodes_uses_every_rail_nic(accelerators):
    """4 x 8 B200 with 400 Gb/s per GPU: the ring leaves each node on its 8 rail NICs (8 x 50 GB/s x 0.9), not one
    accelerator's NIC; measured 381.8 GB/s at 16 GiB (ml-engineering)."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    ring = busbw(hw, "all_reduce", 16 * GiB, 32, algorithm="ring")
    assert ring == pytest.approx(8 * 50e9 * 0.9, rel=0.01)
    assert ring == pytest.approx(381.8e9, rel=0.1)
    one_per_node = busbw(hw, "all_reduce", 16 * GiB, 4, 1, algorithm="ring")   # k = 1: one NIC per node
    assert one_per_node == pytest.approx(50e9 * 0.9, rel=0.01)


@pytest.mark.parametrize("name, smallest", [("b200-1-node", 256 * 2 ** 20), ("b200-4-nodes-efa", 64 * 2 ** 20),
                                            ("h200-1-node-nvls", 128 * 2 ** 20)])
def test_published_curves_from_mid_size_up(accelerators, name, smallest):
    """Each published curve within 25 % from `smallest` up (drift guard; below it see test_below_mid_size)."""
    c = CURVES[name]
    hw = hardware_for(accelerators[c["accelerator"]], scale_up_size=8,
                      scale_out_bandwidth=Q_(c["scale_out"]) if "scale_out" in c else None,
                      scale_out_latency=Q_(c.get("network_latency_us", 0), "us"))
    for size, measured in c["busbw"].items():
        if size >= smallest:
            assert busbw(hw, "all_reduce", size, c["ranks"]) == pytest.approx(measured * 1e9, rel=0.25), size


def test_declared_efa_latency_moves_nccls_choices_to_the_p6_tuners(accelerators):
    """On 4 x 8 B200 over EFA, AWS's tuner plugin (aws-ofi-nccl, P6 regions; `tuner` in the curve file) leaves Tree
    for Ring/LL128 at 17.5 MiB. NCCL's own model with the 35 us the same plugin declares leaves Tree between 16 and
    32 MiB and agrees with the tuner at 12 of the 20 sizes; with no network latency it leaves Tree by 8 MiB, for
    NVLSTree, and agrees at 9."""
    from archgen.scoring.curves import curve_points
    c = CURVES["b200-4-nodes-efa"]
    declared = {int(p.size): p.choice for p in curve_points(c, accelerators)}
    none = {int(p.size): p.choice for p in curve_points({**c, "network_latency_us": 0}, accelerators)}
    assert declared[16 * 2 ** 20].startswith("Tree/") and not declared[32 * 2 ** 20].startswith("Tree/")
    assert none[8 * 2 ** 20] == "NVLSTree/Simple"
    assert sum(declared[s] == t for s, t in c["tuner"].items()) == 12
    assert sum(none[s] == t for s, t in c["tuner"].items()) == 9


def test_below_mid_size_the_model_is_optimistic(accelerators):
    """Below ~100 MiB NCCL's tuning model is faster than the torch-based measurements (docs/perf-model.md,
    Limitations): pinned so that a change that closes the gap is noticed."""
    c = CURVES["h200-1-node-nvls"]
    hw = hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=8)
    for size in (2 ** 20, 16 * 2 ** 20):
        assert busbw(hw, "all_reduce", size, 8) > 1.4 * c["busbw"][size] * 1e9


def test_tree_wins_on_latency_across_many_nodes(h100):
    """A 1 MiB all-reduce over 128 domains (one rank each): log2 tree steps beat 254 ring steps."""
    tree = collective_time(h100, "all_reduce", 2 ** 20, 128, 1, algorithm="tree")
    ring = collective_time(h100, "all_reduce", 2 ** 20, 128, 1, algorithm="ring")
    assert tree < ring
    assert collective_time(h100, "all_reduce", 2 ** 20, 128, 1) == pytest.approx(min(tree, ring))


def test_pipelined_hierarchical_overlaps_its_phases(h100):
    """Hierarchical time = latencies + the slower of NVLink and NIC traffic, below the sum of the phases."""
    size, n = 4 * GiB, 32
    t = collective_time(h100, "all_reduce", size, n, algorithm="hierarchical")
    nvlink = 2 * 7 / 8 * size / (450e9 * 0.824)
    nic = 2 * 3 / 4 * size / 8 / (50e9 * 0.9)
    assert max(nvlink, nic) < t < max(nvlink, nic) + 1e-3
    assert t < nvlink + nic


def test_sharp_halves_the_network_traffic(accelerators):
    """SHARP (CollNet) sends each shard up and down once: 2x the NIC rate as busbw, x 0.85 on Hopper (tuning.cc)."""
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(100, "Gbit/s"),
                      scale_out_reduction=True)
    n = 64
    sharp = busbw(hw, "all_reduce", 16 * GiB, n, algorithm="sharp")
    assert sharp == pytest.approx(2 * 8 * 12.5e9 * 0.9 * (n - 1) / n * 0.85, rel=0.01)
    assert sharp > 1.5 * busbw(hw, "all_reduce", 16 * GiB, n, algorithm="ring")


def test_all_to_all_has_its_own_efficiency(accelerators):
    """8 x H100 all-to-all: 450 GB/s x 0.744 (NVIDIA/nccl#2169); across nodes one NIC per rank (nccl-tests#267)."""
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    assert busbw(hw, "all_to_all", 16 * GiB, 8) == pytest.approx(450e9 * 0.744, rel=0.01)
    across = busbw(hw, "all_to_all", 16 * GiB, 64)
    assert across == pytest.approx(50e9 * 0.9 * (63 / 64) / (56 / 64), rel=0.01)


def test_oversubscription_slows_large_groups(accelerators):
    flat = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    taper = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"),
                         oversubscription=4, pod=256)
    assert collective_time(taper, "all_gather", 2 ** 30, 128) == collective_time(flat, "all_gather", 2 ** 30, 128)
    assert collective_time(taper, "all_gather", 2 ** 30, 1024, algorithm="ring") > \
        collective_time(flat, "all_gather", 2 ** 30, 1024, algorithm="ring")
    # a DP group of 64 ranks, one per domain (k = 1), spans 64 domains = 512 accelerators: tapered
    assert collective_time(taper, "all_reduce", 2 ** 30, 64, 1, algorithm="ring") > \
        collective_time(flat, "all_reduce", 2 ** 30, 64, 1, algorithm="ring")


def test_vectorised_equals_scalar(h100):
    sizes = np.array([8.0, 2 ** 20, 2 ** 28, 2 ** 34])
    ns = np.array([8.0, 16.0, 64.0, 512.0])
    many = collective_time(h100, "all_reduce", sizes, ns)
    one = [collective_time(h100, "all_reduce", float(s), float(n)) for s, n in zip(sizes, ns, strict=True)]
    assert many == pytest.approx(one)


def test_one_rank_costs_nothing(h100):
    assert collective_time(h100, "all_reduce", 1e9, 1) == 0.0


def test_ncclss_constants_are_transcribed():
    assert nccl.NVLS_EFFICIENCY == (0.0, 0.0, 0.85, 0.74)
    assert nccl.generation(9.0) == 2 and nccl.generation(10.3) == 3 and nccl.generation(0.0) is None
    assert nccl.speed_floor(2, 41.2e9) == 40e9 and nccl.speed_floor(3, 82.4e9) == 80e9


def test_bad_op_and_algorithm(h100):
    with pytest.raises(AnalyseError, match="unknown collective 'broadcast' \\(expected one of: all_reduce, all_gather, "
                                         "reduce_scatter, all_to_all, p2p\\)"):
        collective_time(h100, "broadcast", 1, 8)
    with pytest.raises(AnalyseError, match="algorithm 'nvls' needs NVLink SHARP \\(NVLS\\) in the scale-up switches"):
        collective_time(h100, "all_reduce", 1, 8, algorithm="nvls")
    with pytest.raises(AnalyseError, match="this fabric's switches do not have it"):
        collective_time(h100, "all_reduce", 1, 64, algorithm="sharp")
    assert require(h100, "ring", 64, 8) is None
