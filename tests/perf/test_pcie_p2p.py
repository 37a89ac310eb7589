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

import pytest

from archgen.errors import BuildError
from archgen.model.accelerator import Accelerator
from archgen.model.pcie import PCIE_COPY_RANGE, PCIE_P2P_LATENCY, pcie_rate
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.efficiency_range import unmeasured
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
    assert "PCIe peer-to-peer" in notes and "NCCL's PCI ring LL128 step 2.5 us" in notes
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
