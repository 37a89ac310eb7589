"""A torus scale-up domain whose dimensions differ in bandwidth: a Trn2 UltraServer's 4x4x4 (`scale_up.dim_bandwidth`).

AWS, Amazon EC2 Trn2 Architecture (tests/data/trn2-ultraserver): a chip has 1,024 GB/sec inside its instance's 4x4
torus and 256 GB/sec to the chips of the same coordinates in the other three instances, a ring of 4. Taken as both
directions (as the chip's 1.28 TB/s is), that is 512 GB/s per direction over 4 links in X and Y, B = 128 GB/s a link,
and 128 GB/s over 2 links in Z, Bz = 64 GB/s a link, each times the assumed scale-up efficiency 0.8. One bandwidth for
every link (the model before `dim_bandwidth`) gave every link 1,280 / 2 / 6 = 106.7 GB/s.

The bucket algorithm (E. Chan et al., "Collective communication: theory, practice, and experience", Concurrency and
Computation 19, 2007, section 6): a reduce-scatter and an all-gather along each dimension in turn. With one rotated
copy of S/3 per dimension, each dimension carries 2·(S/3)·(3/4 + 3/16 + 3/64) = 21/32·S, at 2B in X and Y and 2Bz in
Z (each ring of 4 closes), so Z ends last: t = 21/32·S/(2Bz) + 18α, and the nccl-tests bus bandwidth 2·63/64·S/t
tends to 6·Bz = 307.2 GB/s, the injection bound at Z's links. With the dimensions in sequence (the unrotated form),
t = Σ_i 2·S·(t_i − 1)/Π_{j ≤ i} t_j / (2B_i), the fastest order: slower here (33/32·S/B against 21/32·S/B), faster
where one dimension is much slower (below).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.cluster import cluster_hardware
from tests.conftest import REPO, run_specs, write_tree

DATA = REPO / "tests" / "data"
B, BZ = 128e9 * 0.8, 64e9 * 0.8
S = 2**30


@pytest.fixture(scope="module")
def pods(tmp_path_factory):
    """The UltraServers as AWS gives them, and the same with one bandwidth for every link (no `dim_bandwidth`)."""
    nic = (DATA / "trn2" / "efa-v3-trn2.yaml").read_text(encoding="utf-8")
    cluster = (DATA / "trn2-ultraserver" / "cluster.yaml").read_text(encoding="utf-8")
    even = "\n".join(line for line in cluster.splitlines() if "dim_bandwidth" not in line) + "\n"
    return {name: run_specs(tmp_path_factory.mktemp(name), {"parts/nic.yaml": nic, "clusters/us.yaml": text})
            for name, text in (("aws", cluster), ("even", even))}


def _hw(run) -> Hardware:
    return cluster_hardware(run.specs.get("trn2-ultraservers"), run.specs.items,
                            run.clusters["cluster/trn2-ultraservers"].scale_out)[0]


def test_the_domain_hardware_gives_each_dimension_its_links(pods) -> None:
    hw = _hw(pods["aws"])
    assert (hw.torus, hw.torus_dim_factor) == ((4, 4, 4), (1.0, 1.0, 0.5))
    assert hw.torus_link_bandwidth == pytest.approx(128e9)
    even = _hw(pods["even"])
    assert (even.torus_dim_factor, even.torus_link_bandwidth) == ((), pytest.approx(1280e9 / 2 / 6))


def test_all_reduce_over_the_ultraserver_by_hand(pods) -> None:
    hw = _hw(pods["aws"])
    assert collective_time(hw, "all_reduce", S, 64) == pytest.approx(21 / 32 * S / (2 * BZ) + 18 * hw.scale_up_latency,
                                                                     rel=1e-12)
    busbw = pods["aws"].metrics["workload/allreduce-trn2-ultraserver"]["busbw"].m_as("B/s")
    assert busbw == pytest.approx(6 * BZ, rel=0.01) and busbw < 6 * BZ
    even = pods["even"].metrics["workload/allreduce-trn2-ultraserver"]["busbw"].m_as("B/s")
    assert even == pytest.approx(6 * 1280e9 / 12 * 0.8, rel=0.01)    # every link at 106.7 GB/s: 1.67x too fast


def test_a_group_inside_one_instance_keeps_its_own_links(pods) -> None:
    """16 ranks fill one instance's 4x4 (X and Y): the Z links are not used, so the figure is the 4x4 torus'."""
    hw = _hw(pods["aws"])
    assert collective_time(hw, "all_reduce", S, 16) == pytest.approx(15 / 16 * S / (2 * B) + 12 * hw.scale_up_latency,
                                                                     rel=1e-12)


def test_the_dimensions_in_sequence_where_one_is_much_slower() -> None:
    """4x4 with Y's links at a tenth of X's: X then Y, 2·S·(3/4/(2B) + 3/16/(0.2B)) = 2.625·S/B, beats the rotated
    copies (Y's 15/16·S at 0.2B: 4.6875·S/B) and the ring (2·15/16·S/(0.2B))."""
    b, alpha = 100e9, 1e-6
    hw = Hardware("t", {"bf16": 1e15}, {}, 2**36, 1e12, 16, 4 * b, scale_up_efficiency=1.0, scale_up_latency=alpha,
                  torus=(4, 4), torus_link_bandwidth=b, torus_dim_factor=(1.0, 0.1))
    assert collective_time(hw, "all_reduce", S, 16) == pytest.approx(2.625 * S / b + 12 * alpha, rel=1e-12)
    assert collective_time(hw, "p2p", S, 2) == pytest.approx(S / (0.1 * b) + alpha, rel=1e-12)   # the slowest link


@pytest.mark.parametrize("op", ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p"])
def test_equal_factors_change_nothing(pods, op: str) -> None:
    """A torus whose dimensions are alike (every TPU torus) times every collective as before."""
    hw = _hw(pods["even"])
    same = replace(hw, torus_dim_factor=(1.0, 1.0, 1.0))
    for n in (2, 4, 16, 64):
        assert collective_time(same, op, S, n) == collective_time(hw, op, S, n)


SCALE_UP = "domain: rack, size: 64, technology: neuronlink, topology: torus, dims: [4, 4, 4], bandwidth: 1.28 TB/s"


@pytest.mark.parametrize(("scale_up", "message"), [
    (SCALE_UP + ", dim_bandwidth: [512 GB/s, 512 GB/s, 512 GB/s]",
     "scale_up.dim_bandwidth: dim_bandwidth adds up to 1536 GB/s, the domain's bandwidth is 1280 GB/s: expected "
     "figures that sum to `bandwidth` (each dimension's share of it, both directions)"),
    (SCALE_UP + ", dim_bandwidth: [1024 GB/s, 256 GB/s]",
     "scale_up.dim_bandwidth: dim_bandwidth gives 2 figures for a 4x4x4 torus: expected one per dimension of dims (3)"),
    ("domain: node, size: 16, topology: switched, bandwidth: 1.024 TB/s, dim_bandwidth: [512 GB/s, 512 GB/s]",
     "scale_up.dim_bandwidth: dim_bandwidth splits a torus' bandwidth over its dims; a switched domain has none: "
     "leave dim_bandwidth out, or set topology: torus"),
])
def test_a_split_that_cannot_be_is_refused_where_written(tmp_path, cli, scale_up: str, message: str) -> None:
    cluster = ("kind: Cluster\nid: t\nlayout: [{rack: trn2u-rack, count: 1}]\n"
               "floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}\n"
               f"scale_up: {{{scale_up}}}\n")
    parts = (DATA / "trn2-ultraserver" / "cluster.yaml").read_text(encoding="utf-8").split("---\nkind: Cluster")[0]
    root = write_tree(tmp_path / "specs", {"parts.yaml": parts, "nic.yaml": (DATA / "trn2" / "efa-v3-trn2.yaml")
                                           .read_text(encoding="utf-8"), "t.yaml": cluster})
    r = cli("check", root)
    assert r.code == 1 and "t.yaml:5:" in r.err and f"error: {message}" in r.err, r.err
