"""A pipeline's sends across racks of a multi-rack scale-up domain take the second switch hop whole (hops2).

Megatron-core numbers ranks tp fastest and pp last (parallel_state.py `initialize_model_parallel(order=
"tp-cp-ep-dp-pp")`), so stage s of a pipeline holds ranks s·span to (s + 1)·span - 1, span = tp·cp·dp, and the send
from rank r to r + span crosses racks where a rack boundary falls in (r, r + span] (`racks.stages_across`). Every rank
sends at once and each waits for its peer, so the slowest send sets the pipeline's pace (`training.pipeline_comm`:
the exposed sends are each one p2p time): where some send crosses racks the p2p takes the whole stated hop, not its
average over the job's ring steps, hop x (R - 1) / (n - 1), which NCCL's count of a ring's inter-node steps gives a
collective (`racks_note.second_hop`). A CP ring's step is timed the same way (`exposure.cp_ring`: its slowest pair).

Figures: gb200 `scale_up.latency` 1.9 us (specs/catalog/accelerators/gb200.yaml); the stated hop 250 ns, the UALink
Consortium's under-250 ns target at 100T (docs/perf-model.md, Scale-up domains over several racks). An NVL36x2 is
two racks of 36 of a 72-GPU domain (NVIDIA's Multi-Node NVLink Tuning Guide); the MI355X pod of
tests/test_scale_up_fabric_latency.py two racks of 32 of a 64-GPU UALink domain.
"""

from __future__ import annotations

import pytest

from archgen.perf.comm.collectives import collective_times
from archgen.perf.comm.racks import group_times, in_one_rack, stages_across
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train.exposure import cp_ring
from archgen.perf.workload.racks_note import second_hop
from archgen.scoring.catalog import load_accelerators
from tests.test_rack_groups import EXPOSED, _breakdowns, _job, _pod

HOP = 250e-9
#: The pod's hop with its trunk's flight: 250 ns + 2.1 m of DAC x 4.5 ns/m (nu83fix, tests/test_trunk_flight.py).
POD_HOP = HOP + 2.1 * 4.5e-9


def _nvl36x2():
    """(one rack's domain of 72, the same with the 250 ns hop over two racks of 36)."""
    one = hardware_for(load_accelerators()["gb200"], scale_up_size=72)
    return one, second_hop(one, one, 2, HOP)


def test_which_stage_boundaries_cross_the_racks_of_an_nvl36x2() -> None:
    """72 ranks, racks of 36. tp 4, dp 9, pp 2 (span 36): stage 0 is rack 0, stage 1 rack 1; pp 4 (span 18): only 1 -> 2
    crosses; span 24, pp 3: stage 1 (ranks 24-47) straddles rank 36, so 0 -> 1 and 1 -> 2 both cross; span 8, pp 9:
    stage 4 (32-39) straddles, 3 -> 4 (24-31 to 32-39: 32-35 to 40-43 stay, 28-31 to 36-39 cross) and 4 -> 5. A job of
    144 (span 36, pp 4) leaves the domain: its sends cross domains, over scale-out, none named here."""
    one, two = _nvl36x2()
    assert stages_across(two, 36, 2) == (0,)
    assert stages_across(two, 18, 4) == (1,)
    assert stages_across(two, 24, 3) == (0, 1)
    assert stages_across(two, 8, 9) == (3, 4)
    assert stages_across(two, 36, 4) == () and stages_across(one, 36, 2) == ()


def test_a_send_across_racks_takes_the_whole_hop_not_the_average() -> None:
    """A p2p of 1 MB between stages in different racks: 1.9 us + 250 ns of latency, where the average a collective's
    ring step takes is 250 ns x (2 - 1) / (72 - 1) = 3.52 ns (the time before, for the pipeline's sends)."""
    one, two = _nvl36x2()
    request = (("p2p", 1e6),)
    (base,) = collective_times(one, request, 2, 2.0)
    crossing = in_one_rack(two, 2, 36)   # the pipeline of 2 stages 36 apart: not inside one rack
    assert not crossing
    (whole,) = group_times(two, request, 2, 2.0, inside=crossing, whole=True)
    (average,) = group_times(two, request, 2, 2.0, inside=crossing)
    assert whole - base == pytest.approx(HOP, rel=1e-9)
    assert average - base == pytest.approx(HOP / 71, rel=1e-6)
    (inside,) = group_times(two, request, 2, 2.0, inside=True, whole=True)   # a pipeline inside one rack: none
    assert inside == pytest.approx(base, rel=1e-12)


def test_a_cp_ring_across_racks_takes_the_whole_hop_each_step() -> None:
    """cp 3 ranks tp 8 apart (a block of 24, inside the domain of 72, cut by the rack boundary at 36): the forward ring's
    cp - 1 = 2 steps each take the whole 250 ns; before, 2 x 250 / 71 ns."""
    one, two = _nvl36x2()
    assert not in_one_rack(two, 3, 8)
    forward = cp_ring(two, 64e6, 3, 8)[0] - cp_ring(one, 64e6, 3, 8)[0]
    assert forward == pytest.approx(2 * HOP, rel=1e-9)


def test_the_pipeline_of_a_job_over_two_racks_pays_the_whole_hop(tmp_path) -> None:
    """Llama 3 8B at tp 8, pp 2, dp 4 on 64 MI355X over two racks of 32 (span 32: stage 0 is rack 0, stage 1 rack
    1). Interleaved 1F1B with its sends overlapped exposes 2 (pp - 1) = 2 of them (`pipeline_comm`), so the 250 ns
    switch adds 2 x 250 ns = 500 ns a step to the pipeline's time; before, 2 x 250 / 63 ns = 7.94 ns
    (pp_comm 0.00045120036 s, now 0.00045169243 s). With the trunk's 9.45 ns of flight (nu83fix) 2 x 259.45 ns."""
    base, hop = _breakdowns(tmp_path, "parallelism: {tp: 8, pp: 2}, " + EXPOSED)
    assert hop["pp_comm"] - base["pp_comm"] == pytest.approx(2 * POD_HOP, rel=1e-6)


def test_the_note_names_the_stage_boundary_and_the_placement_it_assumes(tmp_path) -> None:
    from tests.conftest import run_specs

    run = run_specs(tmp_path, {"c.yaml": _pod("250 ns") + _job("parallelism: {tp: 8, pp: 2}, " + EXPOSED)})
    (note,) = [n for n in run.workloads["workload/w"].estimate.notes if "(`scale_up.racks`)" in n]
    assert "its ranks from the domain's first rack on (assumed: a job placed from another accelerator" in note
    assert ("the pipeline's sends between stages 0 and 1 (of 0 to 1, stage s on ranks s x 32 on) and a CP ring's "
            "steps take the whole 259.5 ns where they cross racks") in note   # 250 ns + the trunk's 9.45 ns


def test_a_job_smaller_than_its_domain_sends_over_the_domain(tmp_path) -> None:
    """64 of an NVL36x2's 72 GPUs (a job smaller than the domain, at its first accelerator), Llama 3 70B at tp 8, pp 2,
    dp 4, micro-batch 1, no interleave: the pipeline (ranks 0-31 and 32-63) lies in the job's share of the domain, so
    its 2 m = 2 x 144 / 4 = 72 sends a step each take one NVLink p2p of 8,192 x 8,192 x 2 B / 8. Before, the rule read
    the domain's 72, not the job's 64 (72 mod 64 != 0), and sent them over the compute fabric: pp_comm 4.48 ms a step
    at the layout searched (micro-batch 6), 0.275 ms now."""
    from tests.analyse.test_scale_up_racks import _text
    from tests.conftest import run_specs
    from tests.test_domain_racks_note import JOB

    job = JOB.replace("GPUS", "64").replace("global_batch: 288", "global_batch: 144").replace(
        "parallelism: {tp: 8, pp: 1}", "parallelism: {tp: 8, pp: 2, micro_batch: 1, interleave: 1}")
    est = run_specs(tmp_path, {"c.yaml": _text() + job}).workloads["workload/w"].estimate
    one, _ = _nvl36x2()
    (p2p,) = collective_times(one, (("p2p", 8192 * 8192 * 2 / 8),), 2, 2.0)
    assert est.layout["dp"] == 4 and est.breakdown["pp_comm"].m == pytest.approx(72 * p2p, rel=1e-9)
