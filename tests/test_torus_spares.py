"""Hot spares of a torus joined through OCSes come in whole cubes (newuser11 finding 1).

A TPU v4 pod re-forms its torus slice cube by cube: a failed tray's 4x4x4 cube leaves the slice and the OCSes join
an idle cube in its place (Jouppi et al., ISCA 2023, section 2; Zu et al., NSDI 2024). One idle tray of another
cube cannot stand in for it, since the chips inside a cube are wired to each other, not through the OCSes. Before,
the goodput model took any idle tray as a spare: a 3,840-chip job on the shipped pod with `storage:` needed 3 hot
spare trays (3.6 kW), though a spare must be a whole cube of 16 trays.
"""

from __future__ import annotations

from archgen.analyse.goodput_range import spare_domain_nodes
from tests.conftest import SPECS, run_specs

STORAGE = ("storage: {capacity: 20 PB, write_bandwidth: 1 TB/s, read_bandwidth: 2 TB/s, basis: assumed, "
           "source: design assumption, external_network: the site's storage network outside this design}\n")
JOBS = """---
kind: Workload
id: l70-3840
model: llama3-70b
cluster: tpu-v4-pod
accelerators: 3840
training: {seq_len: 8192, global_batch: 960, precision: bf16}
---
kind: Workload
id: l70-pod
model: llama3-70b
cluster: tpu-v4-pod
accelerators: 4096
training: {seq_len: 8192, global_batch: 1024, precision: bf16}
"""


def _pod(tmp_path):
    cluster = (SPECS / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8")
    cluster = cluster.replace("expect: {", STORAGE + "expect: {", 1) + JOBS
    racks = (SPECS / "racks" / "tpu-v4-cube.yaml").read_text(encoding="utf-8")
    return run_specs(tmp_path, {"clusters/pod.yaml": cluster, "racks/cube.yaml": racks})


def test_a_torus_spare_is_a_whole_idle_cube(tmp_path) -> None:
    """60 of the pod's 64 cubes run the job; its spares are counted in cubes of 16 trays (3 cubes, 48 trays), and
    they draw 48 x 1.2 kW; the whole pod has no idle cube, so REL003 asks for the same 48 trays."""
    result = _pod(tmp_path)
    job = result.metrics["workload/l70-3840"]
    assert job["spares"].m == 48 and job["spares"].m % 16 == 0      # was 3 trays
    assert job["spare_power"].m_as("kW") == 48 * 1.2
    (rel003,) = [f for f in result.findings if f.id == "REL003" and f.object == "workload/l70-pod"]
    assert "takes 48 hot spare node(s)" in rel003.message        # was 3
    # a job of whole cubes keeps no idle tray inside its cubes, so no spare tray is counted there
    assert result.metrics["workload/l70-pod"]["spares"].m == 48
    assert spare_domain_nodes(result.clusters["cluster/tpu-v4-pod"], 4) == 16   # 4x4x4 chips / 4 chips per tray


def test_a_torus_node_failure_removes_its_cube(tmp_path) -> None:
    """The failure-domain table's node row follows the spares' rule (tpuamd finding 1): through OCSes a failed tray's
    whole 4x4x4 cube leaves the slice, 64 chips, not the tray's 4."""
    result = _pod(tmp_path)
    rel = result.operations.reliability["cluster/tpu-v4-pod"]
    (node,) = [d for d in rel.domains if d.name == "node"]
    assert node.accelerators == 64                                   # was 4
    assert "cube of 16 trays" in node.note


FIXED_JOB = """---
kind: Workload
id: l70-fixed
model: llama3-70b
cluster: tpu-v4-pod
accelerators: 128
training: {seq_len: 8192, global_batch: 128, precision: bf16}
"""


def _fixed_torus(tmp_path):
    """Four cube racks wired as one 8x8x4 torus without OCSes (256 chips), with storage, and a 128-chip job (8x8x2).

    192 chips (8x8x3) form no sub-torus of 8x8x4: PERF003 (`perf.workload.slices.slice_problem`)."""
    cluster = (SPECS / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8")
    cluster = (cluster.replace("racks: [{rack: tpu-v4-cube, count: 16}]", "racks: [{rack: tpu-v4-cube, count: 4}]")
               .replace("  - {unit: row, count: 4}\n  - {rack: tpu-v4-ocs, count: 4, new_row: true}\n",
                        "  - {unit: row, count: 1}\n")
               .replace("dims: [16, 16, 16]", "dims: [8, 8, 4]")
               .replace("    ocs: {switch: palomar-ocs, cube: [4, 4, 4], rack: tpu-v4-ocs}\n", "")
               .replace("      ocs: [{a: ici-v4-optical, b: ocs-fibre-port}]\n", "")
               .replace("expect: {accelerators: 4096, nodes: 1024, racks: 68}", "expect: {accelerators: 256}")
               .replace("expect: {", STORAGE + "expect: {", 1))
    cluster = cluster[:cluster.index("\n---")] + "\n" + FIXED_JOB
    racks = (SPECS / "racks" / "tpu-v4-cube.yaml").read_text(encoding="utf-8")
    return run_specs(tmp_path, {"clusters/pod.yaml": cluster, "racks/cube.yaml": racks})


def test_a_torus_without_ocs_takes_no_spare(tmp_path) -> None:
    """Fixed wiring cannot swap an idle tray into a failed one's place (tpuamd finding 3): the 128-chip job's 32 idle
    trays are no spares; every hardware failure waits for its repair, and `spares` is not provided, with why."""
    result = _fixed_torus(tmp_path)
    assert result.metrics["cluster/tpu-v4-pod"]["accelerators"].m == 256
    g = result.operations.goodput["workload/l70-fixed"]
    assert g.fixed_wiring and g.spares_available == 0 and g.spares_needed is None     # was 16 trays available (a 192-chip job)
    assert "spares" not in result.metrics["workload/l70-fixed"]
    assert "a torus wired without OCSes takes no hot spare" in result.operations.withheld["workload/l70-fixed"]["spares"]
    assert g.wait > 0                                     # every hardware failure waits for its repair
    assert not [f for f in result.findings if f.id == "REL003" and "no number of hot spares" in f.message]
