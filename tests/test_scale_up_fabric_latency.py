"""The estimate's scale-up step latency on a domain of another fabric, and a stated second switch hop (nu59fix).

A UALink domain over two racks of 32 MI355X (`tests.test_scale_up_cages`' pod, its UALink switch and cable test
inputs). The MI355X's `scale_up.latency` is 1.9 us, NCCL's NVLink LL128 ring step, which its catalog file marks
unconfirmed (specs/catalog/accelerators/mi355x.yaml); the cluster's domain runs on UALink, whose collective step
latency nobody publishes, so the estimate says the figure is borrowed (before: the part's own note only). The UALink
Consortium's switch port-to-port latency, under 250 ns at 100T (webinar Q&A, as docs/perf-model.md quotes it), is
stated on the test switch as `latency: 250 ns`: a job of 64 across both racks takes it on 1 of every 63 ring steps (as
NCCL counts a ring's steps between nodes, `perf.comm.nccl.ring_latency`), 1.9 us + 250 ns x 1 / 63 = 1.90397 us per
step on average (`perf.workload.racks_note.second_hop`).
"""

from __future__ import annotations

import pytest

from tests.analyse.test_scale_up_racks import _text
from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs
from tests.test_scale_up_cages import RACK

JOB = """---
kind: Workload
id: w
model: llama3-8b
cluster: ualpod
accelerators: GPUS
training: {seq_len: 8192, global_batch: 64, precision: bf16, parallelism: {tp: 8, pp: 1}}
"""


def _estimate(tmp_path, gpus: int = 64, switch_latency: str = "", technology: str = "ualink"):
    parts = PARTS.split("---\nkind: Rack")[0]
    if switch_latency:
        parts = parts.replace("power: {max: 3 kW}", f"latency: {switch_latency}\npower: {{max: 3 kW}}", 1)
    rack = RACK.replace("technology: ualink, ", f"technology: {technology}, " if technology else "")
    run = run_specs(tmp_path, {"c.yaml": parts + rack + JOB.replace("GPUS", str(gpus))})
    return run.workloads["workload/w"].estimate


def test_a_ualink_domain_says_the_mi355x_latency_is_borrowed(tmp_path) -> None:
    (note,) = [n for n in _estimate(tmp_path).notes if "`scale_up.technology`" in n]
    assert note.startswith("scale-up latency 1.9 us per collective step is mi355x's `scale_up.latency`, stated for "
                           "its own link (Infinity Fabric (4th gen)), but the cluster's domain runs on UALink")
    assert "no collective step latency of UALink is published" in note


def test_a_domain_stating_no_technology_has_no_such_note(tmp_path) -> None:
    """`technology` left out takes the default (nvlink), which is not the architect's statement: nothing told."""
    assert not [n for n in _estimate(tmp_path, technology="").notes if "`scale_up.technology`" in n]


def test_a_domain_on_the_parts_own_link_has_no_such_note(tmp_path) -> None:
    """GB200 (NVLink 5) in an NVLink domain stated as such (the NVL36x2 fixture): its own link, nothing borrowed."""
    text = _text().replace("scale_up: {domain: rack,", "scale_up: {domain: rack, technology: nvlink,")
    job = JOB.replace("ualpod", "pod").replace("global_batch: 64", "global_batch: 72").replace("GPUS", "72")
    run = run_specs(tmp_path, {"c.yaml": text + job})
    notes = run.workloads["workload/w"].estimate.notes
    assert [n for n in notes if "(`scale_up.racks`)" in n] and not [n for n in notes if "`scale_up.technology`" in n]


def test_a_stated_switch_latency_is_added_on_the_steps_that_cross_racks(tmp_path) -> None:
    base = _estimate(tmp_path / "a")
    hop = _estimate(tmp_path / "b", switch_latency="250 ns")
    (note,) = [n for n in hop.notes if "(`scale_up.racks`)" in n]
    assert f"{(1.9e-6 + 250e-9 * 1 / 63) * 1e6:.4g} us per collective step" in note   # 1.904
    assert f"{(1.9e-6 + (250e-9 + 2.1 * 4.5e-9) / 63) * 1e6:.4g} us per collective step" in note   # still 1.904
    assert ("(250 ns, ual-switch's `latency`, and 9.45 ns of flight over the longest trunk run, 2.1 m of dac at up to "
            "4.5 ns/m), on 1 of every 63 ring steps") in note   # nu83fix: the trunk's flight (tests/test_trunk_flight.py)
    (without,) = [n for n in base.notes if "(`scale_up.racks`)" in n]
    assert "ual-switch states no `latency`" in without
    assert hop.metrics["step_time"] > base.metrics["step_time"]


def test_a_job_inside_one_rack_adds_no_hop(tmp_path) -> None:
    """32 GPUs, one rack's share: no step crosses racks, nothing added, no note."""
    est = _estimate(tmp_path, gpus=32, switch_latency="250 ns")
    assert not [n for n in est.notes if "(`scale_up.racks`)" in n]


def test_the_scale_up_table_says_what_the_second_hop_adds(tmp_path) -> None:
    """The cluster document's hops row said "not modelled" whatever the switch stated."""
    from archgen.render import scale_up
    from tests.test_scale_up_cages import RACK as POD

    parts = PARTS.split("---\nkind: Rack")[0].replace("power: {max: 3 kW}", "latency: 250 ns\npower: {max: 3 kW}", 1)
    rows = dict(scale_up.rows(run_specs(tmp_path, {"c.yaml": parts + POD}).clusters["cluster/ualpod"]))
    assert rows["Switch hops between accelerators"] == (
        "1 in one rack, 2 between racks; the second hop's 259.5 ns (250 ns, ual-switch's `latency`, and 9.45 ns of "
        "flight over the longest trunk run, 2.1 m of dac at up to 4.5 ns/m) is added on the ring steps that cross racks "
        "(docs/perf-model.md)")   # nu83fix: with the trunk's flight, as the estimate adds it


def test_a_tp_group_inside_one_rack_takes_no_second_hop(tmp_path) -> None:
    """tp 8 of 64 MI355X over two racks of 32: each TP group is 8 consecutive ranks inside one rack, so none of its
    steps crosses the second switch. Before (fin7), every collective of the job took the hop's average over the job's
    63 ring steps, TP's too: TP communication 0.911150 -> 0.911167 s a step with the 250 ns switch."""
    base = _estimate(tmp_path / "a")
    hop = _estimate(tmp_path / "b", switch_latency="250 ns")
    assert hop.breakdown["tp_comm"] == base.breakdown["tp_comm"]
    assert hop.breakdown["optimizer"] > base.breakdown["optimizer"]  # the gradient norm's dp group crosses racks


def test_a_tp_group_across_racks_keeps_the_second_hop() -> None:
    """A rack of 36 (an NVL36x2's) cuts tp 8's groups at ranks 32 to 39: that group crosses, and the groups run in
    lockstep (`members_per_domain`), so TP keeps the averaged hop; tp 4 divides the rack and takes none."""
    from archgen.perf.comm.racks import in_one_rack
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.perf.train.tp_comm import tp_times
    from archgen.perf.workload.racks_note import second_hop
    from archgen.scoring.catalog import load_accelerators

    one = hardware_for(load_accelerators()["gb200"], scale_up_size=72)
    two = second_hop(one, one, 2, 250e-9)
    assert two.rack_size == 36 and two.rack_hop == pytest.approx(250e-9 / 71)
    assert not in_one_rack(two, 8) and in_one_rack(two, 4)
    assert tp_times(two, None, 8192, 4096, 8) > tp_times(one, None, 8192, 4096, 8)
    assert tp_times(two, None, 8192, 4096, 4) == tp_times(one, None, 8192, 4096, 4)


def test_a_serving_replica_inside_one_rack_takes_no_second_hop(tmp_path) -> None:
    """64 MI355X serving Llama 3 8B in replicas of tp 8: each replica lies inside one rack of 32, so its all-reduces
    cross no second switch and the 250 ns hop moves no serving figure (before fin7 every one took its average)."""
    serve = JOB.replace("training: {seq_len: 8192, global_batch: 64, precision: bf16, parallelism: {tp: 8, pp: 1}}",
                        "inference: {precision: bf16, tp: 8, input_len: 2048, output_len: 256}")

    def metrics(path, latency: str) -> dict:
        parts = PARTS.split("---\nkind: Rack")[0]
        if latency:
            parts = parts.replace("power: {max: 3 kW}", f"latency: {latency}\npower: {{max: 3 kW}}", 1)
        run = run_specs(path, {"c.yaml": parts + RACK + serve.replace("GPUS", "64")})
        return {k: v.m for k, v in run.workloads["workload/w"].estimate.metrics.items()}

    base, hop = metrics(tmp_path / "a", ""), metrics(tmp_path / "b", "250 ns")
    assert hop == base and "tpot" in base
