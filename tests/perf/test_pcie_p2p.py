"""Cards with no scale-up link reach each other over PCIe; NVLink bridge groups are domains smaller than a server.

newuser73's trial (a university's 208 V air-cooled room, four-card L40S servers): an accelerator with no `scale_up`
could not be estimated on more than one card of a server ("has no scale-up link; give the scale-up bandwidth"), and
writing its PCIe link as a `scale_up` took NVLink's 1.9 us step and the NVLink parts' efficiency range (0.61 to 0.824)
unsaid. Now the part's `host_interface` gives the PCIe rate (PCI-SIG: 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s
per direction for Gen4 x16), NCCL's PCI ring LL128 step (2.5 us, tuning.cc `hwLat`) and the measured PCIe copy
efficiency range (0.81 to 0.834, nvbandwidth). H200 NVL cards in 2- or 4-way NVLink bridge groups, a mesh smaller
than their 8-card server, were refused (NET010 "holds 8 accelerators, not 4").
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from archgen.errors import BuildError
from archgen.model.accelerator import Accelerator
from archgen.model.pcie import PCIE_COPY_RANGE, PCIE_P2P_LATENCY, pcie_rate
from archgen.perf.comm.algorithms import labelled
from archgen.perf.comm.collectives import collective_time
from archgen.perf.comm.group import Topo
from archgen.perf.comm.nccl import ll128_inside
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.efficiency_range import unmeasured
from archgen.scoring.curves import choice
from tests.conftest import REPO

PCIE = REPO / "tests" / "data" / "pcie"
GEN4_X16 = 16e9 * 128 / 130 * 16 / 8   # 31.51 GB/s per direction


def _part(**extra) -> Accelerator:
    return Accelerator.model_validate({"kind": "Accelerator", "id": "card", "vendor": "NVIDIA", "source": "s",
                                       "memory": "48 GiB", "memory_bandwidth": "864 GB/s",
                                       "peak": {"bf16": "362.05 TFLOPS"}, "tdp": "350 W",
                                       "compute_capability": 8.9, **extra})


def test_pcie_rates_per_direction():
    assert pcie_rate("PCIe Gen4 x16") == pytest.approx(GEN4_X16)
    assert pcie_rate("PCIe Gen5 x16") == pytest.approx(63.0e9, rel=1e-3)
    assert pcie_rate("on-board") is None


def test_a_card_without_scale_up_is_a_pcie_domain():
    hw = hardware_for(_part(host_interface="PCIe Gen4 x16"), scale_up_size=4)
    assert hw.scale_up_bandwidth == pytest.approx(GEN4_X16)
    assert hw.scale_up_latency == PCIE_P2P_LATENCY == 2.5e-6
    assert (hw.scale_up_efficiency, hw.scale_up_efficiency_range) == (0.81, PCIE_COPY_RANGE) == (0.81, (0.81, 0.834))
    assert "pcie_p2p" in hw.unstated and "latency" not in hw.unstated
    assert ("scale-up link efficiency (not measured: the part states none; assumed point 0.81, range 0.81 (H100, "
            "PCIe Gen5 x16) to 0.834 (A100, PCIe Gen4 x16), nvbandwidth's host-device copies") in unmeasured(hw, ["bf16"])


def test_without_a_host_interface_the_error_names_it():
    with pytest.raises(BuildError, match="states no `host_interface`"):
        hardware_for(_part(), scale_up_size=4)
    assert hardware_for(_part(), scale_up_size=1).scale_up_size == 1   # one card needs no link


def test_a_host_interface_archgen_cannot_read_is_refused():
    with pytest.raises(Exception, match="expected 'PCIe GenN xW'"):
        _part(host_interface="PCIe 4.0 x16")


def test_the_l40s_estimate_says_pcie_and_not_nvlink(cli):
    out = json.loads(cli("estimate", str(PCIE), "--workload", "l40s-serve-70b", "--format", "json").out)
    notes = " ".join(out["notes"])
    assert "PCIe peer-to-peer" in notes and "NCCL's PCI step latencies (ring LL128 step 2.5 us" in notes
    assert "no LL128 inside a node" in notes
    assert "scale-up link efficiency (catalog point 0.81, range 0.81 to 0.834)" in notes   # l40s.yaml states it
    assert "over NVLink" not in notes and "0.61 (a100-sxm4-80gb)" not in notes   # no NVLink step or range


def _bridged(tmp_path, topology: str) -> str:
    """The PCIe design with 8-card servers of a bridged card, as 4-way NVLink groups (`topology`)."""
    for f in PCIE.iterdir():
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    parts = (tmp_path / "parts.yaml").read_text(encoding="utf-8")
    (tmp_path / "parts.yaml").write_text(parts.replace("accelerator: l40s", "accelerator: bridged").replace(
        "accelerators: 4\n", "accelerators: 8\n") + """---
kind: Accelerator
id: bridged
vendor: NVIDIA
source: test part
memory: 141 GiB
memory_bandwidth: 4.8 TB/s
peak: {bf16: 835 TFLOPS}
tdp: 600 W
compute_capability: 9.0
scale_up: {technology: NVLink 4, bandwidth: 450 GB/s, links: 18}
""", encoding="utf-8")
    cluster = (tmp_path / "cluster.yaml").read_text(encoding="utf-8")
    mesh = ", links_per_peer: 6" if topology == "mesh" else ""
    (tmp_path / "cluster.yaml").write_text(cluster.replace("floor:", "scale_up: {domain: node, size: 4, topology: "
                                                           f"{topology}{mesh}, bandwidth: 900 GB/s}}\nfloor:", 1),
                                           encoding="utf-8")
    return str(tmp_path)


def test_nvlink_bridge_groups_are_domains_smaller_than_the_server(cli, tmp_path):
    path = _bridged(tmp_path, "mesh")
    found = json.loads(cli("check", path, "--format", "json", "--select", "NET010").out)["findings"]
    assert not found
    out = json.loads(cli("estimate", path, "--workload", "l40s-ft-8b", "--format", "json").out)
    [note] = [n for n in out["notes"] if "NVLink bridge group" in n]
    assert "2 to a node of 8" in note and "not PCIe's" in note


def test_a_switched_node_domain_still_holds_the_whole_server(cli, tmp_path):
    found = json.loads(cli("check", _bridged(tmp_path, "switched"), "--format", "json", "--select", "NET010").out)
    assert any("holds 8 accelerators, not 4: NVLink bridge groups smaller than the system are a `topology: mesh`"
               in f["message"] for f in found["findings"])


def test_a_bridge_group_that_does_not_divide_the_server_names_the_sizes_that_do(cli, tmp_path):
    """8 cards hold no whole groups of 3: refused (NET010), and the message names 2 and 4 (before: only "not 3")."""
    path = _bridged(tmp_path, "mesh")
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace("size: 4,", "size: 3,"), encoding="utf-8")
    found = json.loads(cli("check", path, "--format", "json", "--select", "NET010").out)["findings"]
    assert any("holds 8 accelerators, not 3: NVLink bridge groups of 3 do not divide a system of 8; a group size "
               "that does is 2 or 4" in f["message"] for f in found)


def test_a_scale_up_written_for_a_card_without_one_is_refused(cli, tmp_path):
    """A `scale_up` on L40S servers was taken as NVLink (1.9 us steps, NVLink's range) with no finding: now NET010."""
    for f in PCIE.iterdir():
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace(
        "floor:", "scale_up: {domain: node, size: 4, bandwidth: 64 GB/s}\nfloor:", 1), encoding="utf-8")
    found = json.loads(cli("check", str(tmp_path), "--format", "json", "--select", "NET010").out)["findings"]
    assert [f["severity"] for f in found] == ["error"]
    assert "l40s has no scale-up link of its own" in found[0]["message"] and "expected no `scale_up`" in \
        found[0]["message"]
    assert not json.loads(cli("check", str(PCIE), "--format", "json", "--select", "NET010").out)["findings"]


# NCCL enables LL128 only where the path inside a node is NVLink (NVIDIA/nccl src/graph/tuning.cc at 5067397c2676,
# 531: `pEnable &= (graphs[a]->typeIntra <= PATH_NVB)`) and takes its PCI latencies where it is not (284-285;
# `hwLatencies` PCI row 164-168: ring LL 1.0, LL128 2.5, Simple 5.7 us; base 6.6, 14.0, 8.4, 149-155).
PCIE_BUS = GEN4_X16 * 0.81   # the ring's Simple bus bandwidth: PCI-SIG rate x the measured copy efficiency's low end


def test_ll128_follows_the_path_not_the_compute_capability():
    assert ll128_inside(False, 8) is True   # NVLink (or NVB) inside the node
    assert ll128_inside(True, 4) is False   # PCIe peer-to-peer: PIX to SYS
    assert ll128_inside(True, 1) is True    # one rank per node: PATH_LOC (search.cc 1088, 1102)
    assert list(ll128_inside(True, np.array([1.0, 4.0]))) == [True, False]


def test_a_pcie_all_reduce_takes_no_ll128_and_nccls_pci_steps():
    hw = hardware_for(_part(host_interface="PCIe Gen4 x16"), scale_up_size=4)
    names = [name for name, _ in labelled(hw, Topo(hw, 4.0, 4.0), "all_reduce")]
    assert "Ring/LL128" not in names and "Tree/LL128" not in names and "Ring/Simple" in names
    mib, kib8 = float(2 ** 20), 8192.0
    # 1 MiB: was Ring/LL128 (14.0 + 6 x 2.5 us + 1.5 MiB / (0.92 x bus)) = 96.0 us; now Ring/Simple
    assert choice(hw, "all_reduce", mib, 4) == "Ring/Simple"
    assert collective_time(hw, "all_reduce", mib, 4) == pytest.approx((8.4 + 6 * 5.7) * 1e-6 + 1.5 * mib / PCIE_BUS)
    assert collective_time(hw, "all_reduce", mib, 4) == pytest.approx(104.23e-6, abs=0.01e-6)
    # 8 KiB: Ring/LL, six PCI steps of 1.0 us (was 0.6 x 2.5 / 1.9 = 0.79 us each, 12.3 us in all), LL at half the bus
    assert choice(hw, "all_reduce", kib8, 4) == "Ring/LL"
    assert collective_time(hw, "all_reduce", kib8, 4) == pytest.approx(
        (6.6 + 6 * 1.0) * 1e-6 + 1.5 * kib8 / (0.5 * PCIE_BUS))


def test_the_same_card_with_nvlink_keeps_ll128():
    hw = hardware_for(_part(scale_up={"technology": "NVLink 4", "bandwidth": "450 GB/s", "links": 18}),
                      scale_up_size=4)
    assert not hw.scale_up_pcie
    assert choice(hw, "all_reduce", float(2 ** 22), 4) == "Ring/LL128"   # 4 MiB


def test_one_card_per_node_keeps_ll128_across_nodes():
    hw = hardware_for(_part(host_interface="PCIe Gen4 x16"), scale_up_size=4, scale_out_bandwidth="100 Gb/s")
    assert "Ring/LL128" in [name for name, _ in labelled(hw, Topo(hw, 2.0, 1.0), "all_reduce")]
