"""Collective workloads: an nccl-tests-style bus-bandwidth target becomes a PERF check."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from archgen.model.workload import Workload
from archgen.pipeline import run


def test_busbw_follows_the_nccl_tests_definition(shipped):
    r = shipped.workloads["workload/nccl-allreduce-nvl72-rack"]
    e = r.estimate
    n, size = 72, 8 * 2**30
    # NVIDIA/nccl-tests doc/PERFORMANCE.md: algbw = size / time; all_reduce busbw = algbw * 2 (n - 1) / n
    algbw = size / e.metrics["time"].m_as("s")
    assert e.metrics["busbw"].m_as("B/s") == pytest.approx(algbw * 2 * (n - 1) / n)
    assert e.accelerators == n and e.kind == "collective" and r.roofline is None
    assert [o.met for o in e.requirements] == [True]


def test_a_wider_group_has_lower_busbw(shipped):
    rack = shipped.workloads["workload/nccl-allreduce-nvl72-rack"].estimate.metrics["busbw"]
    su = shipped.workloads["workload/nccl-allreduce-gb200-su"].estimate.metrics["busbw"]
    assert su < rack     # the SU's all-reduce crosses the 400 Gb/s scale-out fabric; the rack's stays on NVLink


def test_model_needed_only_for_training_and_inference():
    Workload(id="c", cluster="x", collective={"op": "all_gather", "size": "1 GiB"})
    with pytest.raises(ValidationError, match="a training workload needs 'model'"):
        Workload(id="t", cluster="x", training={"seq_len": 2048, "global_batch": 8})
    with pytest.raises(ValidationError, match="expected an amount of data"):
        Workload(id="c", cluster="x", collective={"op": "all_reduce", "size": "8 GHz"})


def test_collectives_run_on_the_sized_fabric(spec_tree):
    """A 3:1 plain fabric (pod: 6 nodes under a leaf) slows a 16 GiB all-reduce (latency under 2 %) over 16 nodes by
    its fullest leaf's 48:16 taper (review47; was 128:48 over all the uplinks, a ratio no leaf has: the leaves hold
    48 + 48 + 32 ports); a group of 6 nodes stays under one leaf and keeps its bandwidth."""
    from tests.data.clusters.small import files

    workloads = """kind: Workload
id: all
cluster: c
collective: {op: all_reduce, size: 16 GiB, algorithm: ring}
---
kind: Workload
id: leaf
cluster: c
accelerators: 48
collective: {op: all_reduce, size: 16 GiB, algorithm: ring}
"""
    busbw = {}
    for over in ("1:1", "3:1"):
        specs = spec_tree({**files(over=over, rail=False), "workloads/w.yaml": workloads})
        result = run([specs])
        busbw[over] = {w: result.workloads[f"workload/{w}"].estimate.metrics["busbw"].m_as("GB/s")
                       for w in ("all", "leaf")}
    assert busbw["3:1"]["leaf"] == pytest.approx(busbw["1:1"]["leaf"])
    assert busbw["1:1"]["all"] / busbw["3:1"]["all"] == pytest.approx(48 / 16, rel=0.02)


def test_in_network_reduction_on_a_fabric_without_it_is_a_located_error(spec_tree, cli):
    """`sharp` on a compute fabric of switches without SHARP: PERF003 names it, and `estimate` shows the line."""
    from tests.data.clusters.small import files

    workload = "kind: Workload\nid: sharp\ncluster: c\ncollective: {op: all_reduce, size: 1 GiB, algorithm: sharp}\n"
    sharp = run([spec_tree({**files(over="1:1", rail=False), "workloads/w.yaml": workload})])
    assert sharp.workloads["workload/sharp"].estimate is not None   # QM9700 (Quantum-2) reduces in the network
    specs = spec_tree({**files(over="1:1", rail=False, switch="sn5600"), "workloads/w.yaml": workload})
    result = run([specs])
    assert "this fabric's switches do not have it" in result.workloads["workload/sharp"].error
    out = cli("estimate", "--workload", "sharp", "--path", specs)
    err = out.err
    assert out.code == 2 and "w.yaml:4:1: error:" in err and "algorithm 'sharp' reduces across scale-up domains" in err


def test_a_collective_workload_carries_its_nccl_tests_curve(shipped):
    r = shipped.workloads["workload/nccl-allreduce-nvl72-rack"]
    sizes, bus = r.curve
    assert sizes[0] == 8 and sizes[-1] == 16 * 2 ** 30 and len(sizes) == len(bus) == 32
    assert all(a <= b * 1.0001 for a, b in zip(bus, bus[1:], strict=False))   # busbw grows with the size
    at_8gib = bus[sizes.index(8 * 2 ** 30)]
    assert at_8gib == pytest.approx(r.estimate.metrics["busbw"].m_as("B/s"))
