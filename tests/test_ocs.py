"""Optical circuit switches of a torus: count and ports stated or derived, a pod cut into slices, rate agnostic.

Sources: N. P. Jouppi et al., "TPU v4: An Optically Reconfigurable Supercomputer for Machine Learning with Hardware
Support for Embeddings", ISCA 2023 (4,096 chips in 64 cubes of 4x4x4, 48 OCSes, 6,144 optical links); Google Cloud
TPU v5p documentation, https://cloud.google.com/tpu/docs/v5p (8,960 chips per pod; cubes of 4x4x4 = 64 chips; the
largest slice is 16x16x24, 6,144 chips in 96 cubes; 4,800 Gb/s of ICI per chip); Palomar OCS, 136 ports (Urata et
al., arXiv 2208.10041).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.analyse.topologies import ocs_figures
from archgen.pipeline import run
from archgen.render.cluster_fabrics import bisection_text

ROOT = Path(__file__).resolve().parents[1]


def test_pod_larger_than_one_ocs_takes_more_ocses_per_face_position() -> None:
    """136-port OCSes join at most 68 cubes per face position; TPU v5p's 140-cube pod takes 3 per position.

    Fibres: every face position of every cube, 2 x 48 x 140 = 13,440; 48 x 3 = 144 OCSes of 94 ports each.
    """
    v4 = ocs_figures([16, 16, 16], [4, 4, 4], radix=136)
    assert (v4["ocs"], v4["ocs_ports"], v4["fibres"], v4["slices"]) == (48, 128, 6144, 1)
    v5p = ocs_figures([16, 16, 24], [4, 4, 4], pod=140, radix=136)
    assert (v5p["cubes"], v5p["pod_cubes"], v5p["ocs"], v5p["ocs_ports"], v5p["fibres"]) == (96, 140, 144, 94, 13440)
    assert ocs_figures([16, 16, 24], [4, 4, 4], pod=140, radix=136, count=96)["ocs_ports"] == 140
    assert ocs_figures([8, 8, 8], [4, 4, 4], pod=64, radix=136)["slices"] == 8   # 8 slices of 8 cubes at once


def _cluster(tmp_path: Path, **ici):
    """The shipped TPU v4 pod with its ICI fabric changed, as a spec tree (cube racks from specs/racks)."""
    yaml = YAML()
    docs = list(yaml.load_all((ROOT / "specs" / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8")))
    cluster = docs[0]
    cluster.pop("expect", None)
    cluster.pop("waivers", None)
    if ici.pop("cubes_in_pod", None):
        cluster["units"] = [{"id": "row", "racks": [{"rack": "tpu-v4-cube", "count": 14}]}]
        cluster["layout"] = [{"unit": "row", "count": 10}, {"rack": "tpu-v4-ocs", "count": 4, "new_row": True}]
    for key, value in ici.items():
        cluster["fabrics"][0][key] = value
    path = tmp_path / "specs" / "clusters" / "pod.yaml"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(cluster, out)
    if ici.get("speed") == "800 Gb/s":   # TPU v5p's ICI: 4,800 Gb/s per chip over six links (module docstring)
        chip = yaml.load((ROOT / "specs" / "catalog" / "accelerators" / "tpu-v4.yaml").read_text(encoding="utf-8"))
        chip["scale_up"]["bandwidth"] = "600 GB/s"   # shadows the catalog part: 800 Gb/s per link and direction
        with (tmp_path / "specs" / "chip.yaml").open("w", encoding="utf-8") as out:
            yaml.dump(chip, out)
    return run([tmp_path / "specs", ROOT / "specs" / "racks" / "tpu-v4-cube.yaml"])


def _net(result, *ids: str) -> list[str]:
    return [f"{f.id} {f.message}" for f in result.findings if f.id in ids and not f.waived]


def test_ocs_ports_count_at_any_line_rate(tmp_path: Path) -> None:
    """The Palomar part's port speed (400G, the TPU v4 ICI rate) is not a limit: at 800G all 136 ports serve.

    Before, a torus at 800 Gb/s read it as a switch data rate: 'palomar-ocs has 0 ports' (NET001).
    """
    assert not _net(_cluster(tmp_path, speed="800 Gb/s"), "NET001", "NET016", "NET020")


def test_torus_faster_than_its_chips_links(tmp_path: Path) -> None:
    """A torus' `speed` above its chips' own link rate is NET016 at `speed`, not bandwidth the estimates run on.

    TPU v4: 300 GB/s per direction over 6 ICI links is 400 Gb/s a link (catalog tpu-v4). Before, `speed: 800 Gb/s`
    on the shipped pod passed: injection 600 GB/s per chip, bisection 51.2 TB/s (Google: 24 TB/s), and the pod's
    1 GiB all-reduce ran at twice the busbw (470.5 GB/s, not 237.6).
    """
    yaml = YAML()
    cluster = next(iter(yaml.load_all((ROOT / "specs" / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8"))))
    cluster["fabrics"][0]["speed"] = "800 Gb/s"
    path = tmp_path / "specs" / "pod.yaml"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(cluster, out)
    result = run([tmp_path / "specs", ROOT / "specs" / "racks" / "tpu-v4-cube.yaml"])
    assert _net(result, "NET016") == [
        "NET016 the torus runs 800 Gb/s per link and direction; tpu-v4's 6 links carry 300 GB/s per direction (its "
        "`scale_up.bandwidth`), 400 Gb/s each: expected a `speed` of at most 400 Gb/s"]
    found = next(f for f in result.findings if f.id == "NET016")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert found.severity == "error" and lines[found.location.line - 1].strip().startswith("speed: 800")
    assert not _net(_cluster(tmp_path / "v4", speed="400 Gb/s"), "NET016")
    assert not _net(_cluster(tmp_path / "slower", speed="200 Gb/s"), "NET016")   # links run below their rate


def test_v5p_largest_slice_of_a_140_cube_pod(tmp_path: Path) -> None:
    """TPU v5p: 8,960 chips (140 cubes) cut into slices; the largest, 16x16x24 (96 cubes), is no longer refused.

    Before, the OCSes were one per face position, fixed: 96 cubes need 192 ports of a 136-port OCS (NET001).
    """
    ocs = {"switch": "palomar-ocs", "cube": [4, 4, 4], "rack": "tpu-v4-ocs", "cubes": 140}
    result = _cluster(tmp_path, cubes_in_pod=True, dims=[16, 16, 24], speed="800 Gb/s", ocs=ocs)
    assert not _net(result, "NET001", "NET020")
    assert result.metrics["cluster/tpu-v4-pod"]["accelerators"].m == 8960
    m = {k: v.m for k, v in result.metrics["cluster/tpu-v4-pod/fabric/ici"].items()}
    assert (m["torus.cubes"], m["torus.pod_cubes"], m["torus.ocs"], m["torus.ocs_ports_used"]) == (96, 140, 144, 94)
    # 144 links inside each cube, 64 of them on the 16 trays' boards (tpu-v4-tray's 2x2x1 torus_block): 80 cables
    assert (m["links.ocs"], m["links.neighbour"], m["torus.board_links"]) == (13440, 140 * 80, 140 * 64)
    too_few = _cluster(tmp_path / "few", cubes_in_pod=True, dims=[16, 16, 24], ocs={**ocs, "count": 96})
    assert _net(too_few, "NET001") == ["NET001 each of 96 OCSes takes 140 fibres (13440 from 140 cubes); "
                                       "palomar-ocs has 136 ports: expected at least 99 OCSes"]
    too_big = _cluster(tmp_path / "big", cubes_in_pod=True, dims=[16, 24, 24], ocs=ocs)
    assert "a 16x24x24 slice joins 9216 chips; the pod's 140 cubes hold 8960" in " ".join(_net(too_big, "NET020"))


def test_slice_figures_per_accelerator_are_over_the_slice(tmp_path: Path) -> None:
    """A slice's injection and bisection per accelerator are over its own chips, not over the pod's.

    TPU v5p (module docstring): 4,800 Gb/s of ICI per chip = 6 links x 800 Gb/s, whatever the slice. The 16x16x24
    slice's bisection cuts its largest dimension: 2 x 6,144 / 24 = 512 links x 800 Gb/s, over its 6,144 chips.
    Before, both were divided by the pod's 8,960 chips: 3,291 Gb/s injection per chip (6,144 x 4,800 / 8,960).
    """
    ocs = {"switch": "palomar-ocs", "cube": [4, 4, 4], "rack": "tpu-v4-ocs", "cubes": 140}
    result = _cluster(tmp_path, cubes_in_pod=True, dims=[16, 16, 24], speed="800 Gb/s", ocs=ocs)
    m = result.metrics["cluster/tpu-v4-pod/fabric/ici"]
    assert m["injection_per_accelerator"].m_as("Gbit/s") == 4800
    assert m["bisection_per_accelerator"].m_as("Gbit/s") == 2 * 6144 / 24 * 800 / 6144
    assert "(one direction, over the slice's 6,144 accelerators;" in bisection_text(
        result.clusters["cluster/tpu-v4-pod"].fabrics[0])   # the document says which accelerators
    whole = _cluster(tmp_path / "v4")   # a whole pod: over all its chips
    assert whole.metrics["cluster/tpu-v4-pod/fabric/ici"]["injection_per_accelerator"].m_as("Gbit/s") == 6 * 400
    assert "over all accelerators" in bisection_text(whole.clusters["cluster/tpu-v4-pod"].fabrics[0])


def test_a_job_larger_than_its_slice_is_refused(tmp_path: Path) -> None:
    """A job over more chips than the slice's torus joins is PERF003, not ICI links between slices that do not exist.

    TPU v5p: the 16x16x24 slice joins 6,144 of the pod's 8,960 chips (module docstring); slices meet only over the
    data-centre network (Google Cloud TPU Multislice), which this cluster does not model. Before, a 1 GiB all-reduce
    over all 8,960 ran on a 16x16x24 torus with a fourth, invented dimension of the rest at ICI speed, and a 6,144-chip
    job is still estimated.
    """
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "jobs.yaml").write_text(
        "kind: Workload\nid: all-chips\ncluster: tpu-v4-pod\ncollective: {op: all_reduce, size: 1 GiB}\n---\n"
        "kind: Workload\nid: one-slice\ncluster: tpu-v4-pod\naccelerators: 6144\n"
        "collective: {op: all_reduce, size: 1 GiB}\n", encoding="utf-8")
    ocs = {"switch": "palomar-ocs", "cube": [4, 4, 4], "rack": "tpu-v4-ocs", "cubes": 140}
    result = _cluster(tmp_path, cubes_in_pod=True, dims=[16, 16, 24], speed="800 Gb/s", ocs=ocs)
    assert _net(result, "PERF003") == [
        "PERF003 all-chips cannot be estimated: asks for 8960 accelerators; the 16x16x24 torus of cluster "
        "'tpu-v4-pod' joins 6144 of its 8960, and nothing the model times joins it to the others (slices of an OCS "
        "pod meet only over the data-centre network; multislice is not modelled): expected at most 6144 (the workload "
        "gives no accelerator count, so it takes all 8,960 of cluster 'tpu-v4-pod')"]   # as `estimate` says (infeastail42)
    assert "time" in result.metrics["workload/one-slice"]


def test_a_job_of_whole_cubes_closes_its_rings_through_the_ocses(tmp_path: Path) -> None:
    """A 1,024-chip job on the 16x16x16 pod is a 16x16x4 slice whose third dimension wraps through the OCSes.

    Jouppi et al. (ISCA 2023) rewire a job's cubes into a torus of its own (perf.workload.slices.job_slice). Bucket all-reduce of S = 1 GiB on 16x16x4, every
    dimension a closed ring at 2B, B = 50 GB/s x 0.8 (tpu-v4: 400 Gb/s links, default link efficiency), alpha 1 us:
    the busiest dimension carries 2 (S/3)(15/16 + 15/64 + 15/1024) (perf.comm.torus), plus 2 (15 + 15 + 3) hops.
    Before, the same job on the pod ran its dimension of 4 as an open line at B: 14.38 ms, not 10.68 ms.
    """
    jobs = "kind: Workload\nid: quarter\ncluster: tpu-v4-pod\naccelerators: 1024\ncollective: {op: all_reduce, size: 1 GiB}\n"
    size, b = 2.0**30, 50e9 * 0.8
    want = 2 * size / 3 * (15 / 16 + 15 / 64 + 15 / 1024) / (2 * b) + 2 * 33 * 1e-6
    times = []
    for name, ici in (("pod", {}), ("slice", {"dims": [16, 16, 4], "ocs": {
            "switch": "palomar-ocs", "cube": [4, 4, 4], "rack": "tpu-v4-ocs", "cubes": 64}})):
        (tmp_path / name / "specs").mkdir(parents=True)
        (tmp_path / name / "specs" / "jobs.yaml").write_text(jobs, encoding="utf-8")
        times.append(_cluster(tmp_path / name, **ici).metrics["workload/quarter"]["time"].m_as("s"))
    assert times[0] == times[1] == pytest.approx(want, rel=1e-9)


def test_a_job_that_forms_no_slice_is_refused(tmp_path: Path) -> None:
    """1,000 chips of the 16x16x16 pod form no slice: PERF003 at the workload's `accelerators`, with the nearest.

    Cloud TPU v4 slices are AxBxC with A, B, C all at most 4 or all multiples of 4
    (https://cloud.google.com/tpu/docs/types-topologies): above one 4x4x4 cube, whole cubes. 1,000 is 15.6 cubes; the
    nearest are 15 cubes, 960 chips (1x3x5 cubes, the shape closest to a cube: 4x12x20) and 16, 1,024 (16x16x4, the
    pod's sub-torus). Before, 1,000 ran as 8 chips along the first dimension and an invented line of 125 at ICI
    speed: a 1 GiB all-reduce in 28.81 ms (1,024: 10.68 ms).
    """
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "jobs.yaml").write_text(
        "kind: Workload\nid: thousand\ncluster: tpu-v4-pod\naccelerators: 1000\n"
        "collective: {op: all_reduce, size: 1 GiB}\n", encoding="utf-8")
    result = _cluster(tmp_path)
    assert _net(result, "PERF003") == [
        "PERF003 thousand cannot be estimated: asks for 1000 accelerators, which form no slice of the 16x16x16 torus "
        "of cluster 'tpu-v4-pod' (a job runs on a sub-torus of one cube or on whole cubes joined through the OCSes; "
        "Cloud TPU runs jobs on slice shapes only): expected 960 (4x12x20) or 1024 (16x16x4)"]
    found = next(f for f in result.findings if f.id == "PERF003")
    assert found.location.line == 4 and found.location.file.endswith("jobs.yaml")   # `accelerators: 1000`


def test_ocses_their_racks_cannot_hold_are_net012_as_switches_are(tmp_path: Path) -> None:
    """144 OCSes (TPU v5p's 140-cube pod, module docstring) in 4 racks of 12 (tpu-v4-ocs): NET012 at `ocs.rack`.

    A switch tier whose racks hold too few is NET012 (analyse.placement.place_switches); an OCS is a switch part of
    the torus' `ocs` tier. Before, only COST007 and PWR012's "96 in no rack" said so. The shipped v4 pod's 48 fit.
    """
    ocs = {"switch": "palomar-ocs", "cube": [4, 4, 4], "rack": "tpu-v4-ocs", "cubes": 140}
    result = _cluster(tmp_path, cubes_in_pod=True, dims=[16, 16, 24], speed="800 Gb/s", ocs=ocs)
    assert _net(result, "NET012") == ["NET012 cluster/tpu-v4-pod/fabric/ici: ocs needs 144 x palomar-ocs; the "
                                      "'tpu-v4-ocs' racks hold 48"]
    found = next(f for f in result.findings if f.id == "NET012")
    line = (tmp_path / "specs" / "clusters" / "pod.yaml").read_text(encoding="utf-8").splitlines()[found.location.line - 1]
    assert found.severity == "warning" and line.strip().startswith("rack: tpu-v4-ocs"), line
    assert not _net(_cluster(tmp_path / "v4"), "NET012")


def test_estimate_on_a_pod_with_no_scale_out_says_what_is_not_modelled(cli) -> None:
    """A TPU pod's slices meet over the hosts' data-centre network (Cloud TPU Multislice), which is not modelled.

    Before, the "hardware per accelerator" block read "scale_out_bandwidth 0 Gb/s", like a figure of a fabric.
    """
    out = cli("estimate", "--workload", "allreduce-tpu-v4-pod").out
    assert ("  scale_out_bandwidth          none: no scale-out fabric is modelled (a TPU pod's data-centre network "
            "and multislice are not)\n") in out


def refused_pod(tmp_path: Path) -> list[Path]:
    """Spec paths of the shipped tpu-v4 pod at 800 Gb/s per link, which NET016 refuses, and an all-reduce job 'ar'."""
    yaml = YAML()
    cluster = next(iter(yaml.load_all((ROOT / "specs" / "clusters" / "tpu-v4-pod.yaml").read_text(encoding="utf-8"))))
    cluster["fabrics"][0]["speed"] = "800 Gb/s"
    (tmp_path / "specs").mkdir()
    with (tmp_path / "specs" / "pod.yaml").open("w", encoding="utf-8") as out:
        yaml.dump(cluster, out)
    (tmp_path / "specs" / "jobs.yaml").write_text(
        "kind: Workload\nid: ar\ncluster: tpu-v4-pod\ncollective: {op: all_reduce, size: 1 GiB}\n", encoding="utf-8")
    return [tmp_path / "specs", ROOT / "specs" / "racks"]


def test_estimate_on_a_design_check_refuses_says_so(tmp_path: Path, cli) -> None:
    """`estimate` on a cluster whose network `check` refuses (NET016: 800 Gb/s links on tpu-v4's 400 Gb/s) says so.

    Before, it printed the all-reduce at the doubled rate (470.5 GB/s busbw) with no word of the error. The shipped
    pod, whose only network finding (NET024) is waived, has no such note.
    """
    out = cli("estimate", "--workload", "ar", *map(str, refused_pod(tmp_path))).out
    assert ("note: cluster 'tpu-v4-pod' fails `archgen check` (1 error(s) in what this estimate reads, NET016; first: "
            "NET016 the torus runs 800 Gb/s per link and direction;") in out
    assert "): the estimate runs on the design as stated\n" in out
    assert "fails `archgen check`" not in cli("estimate", "--workload", "allreduce-tpu-v4-pod").out


def test_a_job_of_whole_cubes_takes_the_shape_closest_to_a_cube(tmp_path: Path) -> None:
    """512 chips of the 16x16x16 pod run on an 8x8x8 slice of 8 cubes, every ring closed through the OCSes.

    Cloud TPU's default topology for a chip count is the one most similar to a cube
    (https://cloud.google.com/tpu/docs/types-topologies). Bucket all-reduce of S = 1 GiB on 8x8x8 (perf.comm.torus),
    B = 50 GB/s x 0.8 as above: each dimension carries 2 (S/3)(7/8 + 7/64 + 7/512) at 2B, plus 2 (7 + 7 + 7) hops.
    Before, the job ran on a 16x16x2 patch of the pod with its dimension of 2 open: 12.91 ms, not 8.97 ms.
    """
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "jobs.yaml").write_text("kind: Workload\nid: eighth\ncluster: tpu-v4-pod\naccelerators: 512\n"
                                                  "collective: {op: all_reduce, size: 1 GiB}\n", encoding="utf-8")
    size, b = 2.0**30, 50e9 * 0.8
    want = 2 * size / 3 * (7 / 8 + 7 / 64 + 7 / 512) / (2 * b) + 2 * 21 * 1e-6
    got = _cluster(tmp_path).metrics["workload/eighth"]["time"].m_as("s")
    assert got == pytest.approx(want, rel=1e-9)
