"""A NIC's declared network latency (`NIC.transport`) reaches the performance model through the compute fabric.

NCCL adds the latency its network transport declares to every step across the network (`latencyInter`): 0 for its
own InfiniBand/RoCE transport (NVIDIA/nccl `src/transport/net_ib/init.cc`), 35 us for aws-ofi-nccl on P5en/P6-B200/
P6-B300 (aws-ofi-nccl `src/platform-aws.cpp` at 2daf7d303aa1), which the catalog's `efa-v4` states.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.pipeline import run
from archgen.scoring.cases import case_hardware, read_cases

ROOT = Path(__file__).resolve().parents[2]
P6 = (ROOT / "tests" / "data" / "efa" / "p6-b200.yaml").read_text(encoding="utf-8")
MODERN = ROOT / "tests" / "data" / "validation-modern.yaml"
NICS = ROOT / "specs" / "catalog" / "nics"


def _case_busbw(accelerators, latency: float, nvls: bool) -> float:
    """The 4 x P6-B200 256 MiB all-reduce of validation-modern.yaml at a given latency (as test_unstated does)."""
    cases, _ = read_cases(MODERN)
    case = next(c for c in cases if c.id == "mlengbook-allreduce-4xp6b200-efa-256mib")
    hw = dataclasses.replace(case_hardware(case, accelerators, nvls=nvls), scale_out_latency=latency)
    size, n = float(case.collective.size.to("B").magnitude), case.system.count
    return float(bus_bandwidth("all_reduce", size, collective_time(hw, "all_reduce", size, n, algorithm="auto"), n))


def test_efa_latency_from_the_catalog_reaches_the_collective_estimate(spec_tree, accelerators):
    """The 4 x P6-B200 cluster built from the catalog's efa-v4 estimates the 256 MiB all-reduce at the 35 us that
    aws-ofi-nccl declares: the same busbw as the validation case at 35 us, not its 0-latency value."""
    result = run([spec_tree({"p6.yaml": P6})])
    r = result.workloads["workload/allreduce-256mib"]
    path = result.clusters["cluster/p6"].scale_out
    assert path.latency.m_as("us") == pytest.approx(35.0) and path.transport == "aws-ofi-nccl on NIC 'efa-v4'"
    nvls = bool(accelerators["b200-sxm-180gb"].scale_up.in_network_reduction)   # as the cluster takes it
    got = r.estimate.metrics["busbw"].m_as("B/s")
    assert got == pytest.approx(_case_busbw(accelerators, 35e-6, nvls), rel=1e-12)
    assert got < _case_busbw(accelerators, 0.0, nvls) * 0.9      # the latency costs a 256 MiB message > 10 %
    assert "network latency 35 us per step across scale-up domains, as aws-ofi-nccl on NIC 'efa-v4' declares" \
        in r.estimate.notes
    sizes, bus = r.curve    # the cluster document's nccl-tests curve runs on the same hardware
    assert bus[sizes.index(256 * 2**20)] == pytest.approx(got, rel=1e-12)


def _with_transport(nic: str, latency: str) -> str:
    return (NICS / f"{nic}.yaml").read_text(encoding="utf-8") + f"transport: {{plugin: test, latency: {latency}}}\n"


def test_fabric_hands_its_nics_latency_and_others_say_nothing(spec_tree):
    """On a fat tree the latency of the NICs of the fabric's role is handed on (NCCL's default 0 without one, said
    in the notes); a transport on a storage NIC, which no compute fabric uses, changes nothing."""
    from tests.data.clusters.small import files

    workload = "kind: Workload\nid: all\ncluster: c\ncollective: {op: all_reduce, size: 256 MiB, algorithm: ring}\n"
    base = {**files(over="1:1", rail=False), "workloads/w.yaml": workload}
    plain = run([spec_tree(base)])
    storage = run([spec_tree({**base, "nics/cx7dual.yaml": _with_transport("connectx-7-dual", "75 us")})])
    compute = run([spec_tree({**base, "nics/cx7.yaml": _with_transport("connectx-7", "75 us")})])
    busbw = {k: r.workloads["workload/all"].estimate.metrics["busbw"].m_as("B/s")
             for k, r in (("plain", plain), ("storage", storage), ("compute", compute))}
    assert plain.clusters["cluster/c"].scale_out.latency is None
    assert storage.clusters["cluster/c"].scale_out.latency is None and busbw["storage"] == busbw["plain"]
    assert compute.clusters["cluster/c"].scale_out.latency.m_as("us") == pytest.approx(75.0)
    assert busbw["compute"] < busbw["plain"]
    notes = plain.workloads["workload/all"].estimate.notes
    assert any(n.startswith("no network latency added per step across scale-up domains: NCCL's own InfiniBand/RoCE "
                            "transport declares none") and n.endswith("not modelled beyond that") for n in notes)
    assert "as test on NIC 'connectx-7' declares" in compute.workloads["workload/all"].estimate.notes[-1]


def test_no_note_inside_one_domain(spec_tree):
    """A group inside one scale-up domain never crosses the network: no latency note."""
    one = P6.replace("id: allreduce-256mib\ncluster: p6\n", "id: allreduce-256mib\ncluster: p6\naccelerators: 8\n")
    notes = run([spec_tree({"p6.yaml": one})]).workloads["workload/allreduce-256mib"].estimate.notes
    assert not any(n.startswith("network latency") for n in notes)


@pytest.mark.parametrize(("latency", "expected"), [("-35 us", "expected a time of at least 0 s, got '-35 us'"),
                                                   ("35 GB", "expected a time such as '0 us', got '35 GB'")])
def test_bad_transport_latency_is_a_located_error(spec_tree, cli, latency, expected):
    specs = spec_tree({"nics/efa.yaml": _with_transport("connectx-7", latency)})
    out = cli("validate", str(specs))
    assert out.code == 1 and "Traceback" not in out.err + out.out
    line = len(_with_transport("connectx-7", latency).splitlines())    # the transport is the file's last line
    assert f"efa.yaml:{line}:" in out.err and f"error: transport.latency: {expected}" in out.err


def test_estimate_names_the_transport_and_a_what_if(cli):
    """`archgen estimate` on the EFA cluster prints whose latency it took; a `latency` what-if says it set it."""
    path = str(ROOT / "tests" / "data" / "efa")
    plain = cli("estimate", "--workload", "allreduce-256mib", "--path", path)
    assert plain.code == 0 and ("note: network latency 35 us per step across scale-up domains, as aws-ofi-nccl on "
                                "NIC 'efa-v4' declares\n") in plain.out
    doubled = cli("estimate", "--workload", "allreduce-256mib", "--path", path, "--what-if", "latency=2")
    assert "note: network latency 70 us per step across scale-up domains, as the what-if sets it\n" in doubled.out


def test_estimate_lists_the_latency_it_ran_on_with_the_other_hardware(cli):
    """The "hardware per accelerator" block (and the JSON `hardware`) lists the network latency beside the scale-out
    bandwidth: 35 us on the EFA cluster, 70 us under a `latency` what-if, none on a cluster of NCCL's IB transport."""
    path = str(ROOT / "tests" / "data" / "efa")
    plain = cli("estimate", "--workload", "allreduce-256mib", "--path", path)
    block = plain.out[plain.out.index("hardware per accelerator:\n"):plain.out.index("metrics:\n")]
    assert "  scale_out_latency            35 us\n" in block
    doc = json.loads(cli("estimate", "--workload", "allreduce-256mib", "--path", path, "--format", "json").out)
    assert doc["hardware"]["scale_out_latency"] == {"value": pytest.approx(35e-6, rel=1e-12), "unit": "s"}
    doubled = cli("estimate", "--workload", "allreduce-256mib", "--path", path, "--what-if", "latency=2")
    assert "  scale_out_latency            70 us\n" in doubled.out
    infiniband = cli("estimate", "--workload", "nccl-allreduce-gb200-su")    # the shipped SU: ConnectX, no transport
    assert ("  scale_out_latency            none added: the network transport declares none; not modelled beyond "
            "that\n") in infiniband.out  # what it is, not a "0 us" that reads like a measurement


#: newuser12's cluster: four DGX H100 racks and no fabric at all (issue 20), and a 16-GPU job across two nodes.
NO_FABRIC = """\
kind: Cluster
id: h100-pod
name: H100 pod
facility: hall-air
units:
  - id: u
    racks:
      - {rack: dgx-h100-4, count: 4}
layout:
  - {unit: u, count: 1}
scale_up: {domain: node, size: 8, bandwidth: 900 GB/s}
floor: {racks_per_row: 12, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 m}
---
kind: Workload
id: across
model: llama3-8b
cluster: h100-pod
accelerators: 16
training: {seq_len: 8192, global_batch: 512, precision: bf16}
---
kind: Workload
id: inside
model: llama3-8b
cluster: h100-pod
accelerators: 8
training: {seq_len: 8192, global_batch: 512, precision: bf16}
"""


def test_a_cluster_without_a_compute_fabric_says_what_scale_out_it_assumed(spec_tree, cli):
    """With no compute fabric the estimate ran on the NICs' 400 Gb/s per GPU, non-blocking, and said nothing (NET023
    warns only in `check`): it now says so where the job crosses scale-up domains, and not inside one."""
    specs = spec_tree({"pod.yaml": NO_FABRIC})
    across = cli("estimate", "--workload", "across", "--path", str(ROOT / "specs"), "--path", str(specs))
    assert across.code == 0 and ("note: cluster 'h100-pod' declares no compute fabric: traffic between scale-up "
                                 "domains is taken at the compute NICs' line rate, 400 Gb/s per accelerator, "
                                 "non-blocking (no switch, taper or tier is modelled)") in across.out
    inside = cli("estimate", "--workload", "inside", "--path", str(ROOT / "specs"), "--path", str(specs))
    assert inside.code == 0 and "declares no compute fabric" not in inside.out
    sized = cli("estimate", "--workload", "nccl-allreduce-gb200-su")    # the shipped SU: a sized compute fat tree
    assert sized.code == 0 and "declares no compute fabric" not in sized.out
