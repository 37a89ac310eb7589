"""A TPU v4 tray wires its 2x2x1 block of chips on its board (tpuamd finding 2, from newuser11's TPU v4 pod).

By hand: a 16x16x16 torus has 3 x 4,096 = 12,288 chip-to-chip links; 3 x 1,024 = 3,072 cross cube faces through the
OCSes (6,144 fibres); the other 9,216 lie inside the 64 cubes (a 4x4x4 mesh: 3 x 16 x 3 = 144 each). A tray's 2x2x1
block holds 4 of them on its board (4,096 over 1,024 trays), so 144 - 16 x 4 = 80 cables join the trays of a cube,
64 x 80 = 5,120 in the pod. Before, all 9,216 were copper cable assemblies and failure units, and the cluster's
`links` added 9,216 logical links to 6,144 fibre runs (15,360).
"""

from __future__ import annotations

from tests.conftest import SPECS, run_specs


def _pod(tmp_path):
    cluster = (SPECS / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8")
    racks = (SPECS / "racks" / "tpu-v4-cube.yaml").read_text(encoding="utf-8")
    return run_specs(tmp_path, {"clusters/pod.yaml": cluster, "racks/cube.yaml": racks})


def test_board_links_are_no_cables(tmp_path) -> None:
    result = _pod(tmp_path)
    ici = result.metrics["cluster/tpu-v4-pod/fabric/ici"]
    assert ici["torus.links"].m == 12_288
    assert ici["torus.board_links"].m == 4_096
    assert ici["links.neighbour"].m == 5_120                        # was 9,216
    assert ici["cables.neighbour"].m == 5_120                       # was 9,216
    assert ici["links.ocs"].m == 6_144
    assert result.metrics["cluster/tpu-v4-pod"]["links"].m == 5_120 + 6_144   # runs, like with like; was 15,360
    rel = result.operations.reliability["cluster/tpu-v4-pod"]
    (cable,) = [c for c in rel.classes if c.name == "cable"]
    assert cable.units == 5_120                                     # was 9,216 failure units


def test_a_block_that_does_not_tile_the_cube_is_an_error(tmp_path) -> None:
    cluster = (SPECS / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8")
    racks = (SPECS / "racks" / "tpu-v4-cube.yaml").read_text(encoding="utf-8")
    tray = (SPECS / "catalog" / "systems" / "tpu-v4-tray.yaml").read_text(encoding="utf-8")
    tray = tray.replace("id: tpu-v4-tray", "id: odd-tray").replace("torus_block: [2, 2, 1]", "torus_block: [3, 1, 1]")
    racks = racks.replace("part: tpu-v4-tray", "part: odd-tray")
    result = run_specs(tmp_path, {"clusters/pod.yaml": cluster, "racks/cube.yaml": racks, "tray.yaml": tray})
    msgs = [f.message for f in result.findings if f.id == "NET020"]
    assert any("torus_block 3x1x1 does not tile the cube 4x4x4" in m for m in msgs), msgs


def test_torus_cables_run_at_the_torus_line_rate(tmp_path) -> None:
    """newuser37: an 800 Gb/s torus (Ironwood's ICI, 1.2 TB/s bidirectional over six links, Hot Chips 2025 as
    reported) cabled with the TPU v4 ICI parts (400 Gb/s, tpu-v4.yaml's source) passed CAB002, which judged fat trees
    only, and the BOM counted 400G cables. The chip-end parts are errors; the OCS end (rate agnostic) is not."""
    assert not [f for f in _pod(tmp_path / "v4").findings if f.id == "CAB002"]   # the shipped 400G pod
    cluster = (SPECS / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8")
    fast = cluster.replace("speed: 400 Gb/s", "speed: 800 Gb/s")
    assert fast != cluster
    racks = (SPECS / "racks" / "tpu-v4-cube.yaml").read_text(encoding="utf-8")
    result = run_specs(tmp_path / "v7", {"clusters/pod.yaml": fast, "racks/cube.yaml": racks})
    msgs = sorted(f.message for f in result.findings if f.id == "CAB002")
    assert msgs == ["ici-v4-copper runs at 400 Gb/s, not the 800 Gb/s of this torus' links or a multiple of it",
                    "ici-v4-optical runs at 400 Gb/s, not the 800 Gb/s of this torus' links or a multiple of it"]
