"""Data-, context- and expert-parallel groups inside one rack of a multi-rack domain take no second switch hop (hopfix).

fin7 took the stated second hop's average (`perf.workload.racks_note.second_hop`) off a TP group inside one rack
(`perf.comm.racks`); every other group still paid it. Megatron-core numbers ranks tp fastest, then cp, ep, dp, pp
(parallel_state.py `initialize_model_parallel(order="tp-cp-ep-dp-pp")`, `RankGenerator`; the expert groups' generator
takes tp = etp, cp = 1), so a group's members are base + i·stride:

* CP: cp ranks tp apart; DP (with CP, the gradient reduction's group): dp·cp ranks tp apart;
* EP: ep ranks etp apart (the alltoall dispatcher; the flex dispatchers' tp_ep group: etp·ep consecutive ranks);
  the expert DP group: edp ranks etp·ep apart;
* PP: pp ranks tp·cp·dp apart, a span of the whole job, which never lies in one rack where the job's share of a
  domain crosses racks (its first stage's ranks are in the first rack, its last stage's in the last): p2p keeps it.

A group lies inside one rack where its block of stride·n ranks divides the rack (`racks.in_one_rack`). The pod is
tests/test_scale_up_fabric_latency.py's: 64 MI355X over two racks of 32 of a UALink domain whose test switch states
250 ns (the UALink Consortium's under-250 ns target at 100T), so each step of the job's collectives takes
250 ns x 1 / 63 more on average; a group that fits in a rack now takes the one-rack step, as if no switch stated a
latency (the figure the base run gives: no hop added at all).
"""

from __future__ import annotations

from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs, sweep_problems_of
from tests.test_scale_up_cages import RACK
from tests.test_scale_up_fabric_latency import JOB

#: The gradient reduction and the weight gather exposed whole: no overlap, no sharding (dp_comm is their time).
EXPOSED = "overlap_grad_reduce: false, overlap_param_gather: false, distributed_optimizer: false"


def _pod(latency: str) -> str:
    parts = PARTS.split("---\nkind: Rack")[0]
    if latency:
        parts = parts.replace("power: {max: 3 kW}", f"latency: {latency}\npower: {{max: 3 kW}}", 1)
    return parts + RACK


def _job(training: str, model: str = "llama3-8b") -> str:
    return JOB.replace("GPUS", "64").replace("parallelism: {tp: 8, pp: 1}", training).replace("llama3-8b", model)


def _breakdowns(tmp_path, training: str, model: str = "llama3-8b") -> tuple[dict, dict]:
    """(without a stated hop, with 250 ns) breakdowns (s) of the job on the pod."""
    out = []
    for name, latency in (("base", ""), ("hop", "250 ns")):
        run = run_specs(tmp_path / name, {"c.yaml": _pod(latency) + _job(training, model)})
        out.append({k: v.m for k, v in run.workloads["workload/w"].estimate.breakdown.items()})
    return out[0], out[1]


def test_a_dp_group_inside_one_rack_takes_no_second_hop(tmp_path) -> None:
    """tp 8, pp 2, dp 4: each gradient all-reduce's group is 4 ranks 8 apart, a block of 32, one rack's. Before, it
    took the hop's average on every step (its exposed all-reduce, and the norm's over dp·cp, were longer)."""
    base, hop = _breakdowns(tmp_path, "parallelism: {tp: 8, pp: 2}, " + EXPOSED)
    assert base["dp_comm"] > 0 and hop["dp_comm"] == base["dp_comm"]
    assert hop["pp_comm"] > base["pp_comm"]   # the pipeline's sends cross racks (module docstring)


def test_a_dp_group_across_racks_keeps_the_second_hop(tmp_path) -> None:
    """tp 8, pp 1, dp 8: the group's block is 64 ranks, both racks: its steps take the average."""
    base, hop = _breakdowns(tmp_path, "parallelism: {tp: 8, pp: 1}, " + EXPOSED)
    assert hop["dp_comm"] > base["dp_comm"] > 0


def test_a_cp_group_inside_one_rack_takes_no_second_hop(tmp_path) -> None:
    """tp 4, cp 4, allgather: each CP group is 4 ranks 4 apart (a block of 16, inside a rack of 32); the
    all-gather and reduce-scatter of K and V take the one-rack step. Before, they took the average."""
    base, hop = _breakdowns(tmp_path, "parallelism: {tp: 4, cp: 4, pp: 1}, cp_comm_type: allgather")
    assert base["cp_comm"] > 0 and hop["cp_comm"] == base["cp_comm"]


def test_an_ep_group_inside_one_rack_takes_no_second_hop(tmp_path) -> None:
    """Qwen3-30B-A3B at tp 1, ep 8, pp 2: each EP group is 8 consecutive ranks, its dispatch and combine all-to-alls
    inside one rack; before, they took the average."""
    base, hop = _breakdowns(tmp_path, "parallelism: {tp: 1, ep: 8, pp: 2}", "qwen3-30b-a3b")
    assert base["ep_comm"] > 0 and hop["ep_comm"] == base["ep_comm"]


def test_which_groups_lie_in_one_rack_of_an_nvl36x2() -> None:
    """GB200 NVL36x2 (two racks of 36), the hop stated as 250 ns: a DP group of 9 ranks 4 apart (tp 4) fills one
    rack, 9 ranks 8 apart span both; the model-parallel group is the TP group at pp 1 and spans the job beyond."""
    from archgen.perf.comm.racks import in_one_rack
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.perf.train.training import model_parallel_in_rack
    from archgen.perf.workload.racks_note import second_hop
    from archgen.scoring.catalog import load_accelerators

    one = hardware_for(load_accelerators()["gb200"], scale_up_size=72)
    two = second_hop(one, one, 2, 250e-9)
    assert in_one_rack(two, 9, 4) and not in_one_rack(two, 9, 8) and not in_one_rack(one, 9, 4)
    assert model_parallel_in_rack(two, 4, 1, 18, 1) and not model_parallel_in_rack(two, 4, 1, 9, 2)


SWEEP = """---
kind: Sweep
id: s
workload: w
axes:
  tp: [4, 8]
  latency: [1, 2]
objectives:
  - {metric: tokens_per_second}
"""


def test_the_batched_sweep_takes_the_hop_off_as_the_point_path_does(tmp_path) -> None:
    """pp 2 on the pod with the 250 ns switch, layouts searched: the batched path's DP timer (`vectorised_bounds
    ._timer`) and the point path's `dp_exposed` take the hop off the same groups, every row equal to the bit."""
    from archgen.perf.explore import points, vectorised
    from tests.perf.test_batch import same

    path = tmp_path / "c.yaml"
    path.write_text(_pod("250 ns") + _job("parallelism: {tp: 8, pp: 2}, " + EXPOSED) + SWEEP, encoding="utf-8")
    problem = sweep_problems_of(path, [path.parent])[0]
    want, got = (f(problem, 0, problem.size) for f in (points.evaluate, vectorised.evaluate))
    assert [r.status for r in want] == ["ok"] * 4
    for a, b in zip(want, got, strict=True):
        same(b, a)

