"""Collectives inside a torus scale-up domain (a Trn2 instance's 4x4 NeuronLink-v3 torus) against their closed forms.

tests/data/trn2-torus: 16 Trainium2 per domain in a 4x4 torus at 1,024 GB/sec per chip both ways (AWS, Amazon EC2
Trn2 Architecture), so 512 GB/s per direction over 4 neighbour links, B = 128 GB/s per link and direction, times
the scale-up efficiency trainium2 is assumed at (0.8: it states none). With n ranks, S bytes and α per hop:

* 4 ranks on one dimension of 4 close its ring, a bidirectional ring at 2B: t = 2·(3/4)·S/(2B) + 6α, so the
  nccl-tests bus bandwidth 2(n − 1)/n·S/t tends to 2B = 204.8 GB/s;
* 16 ranks, the whole 4x4: the bucket algorithm (E. Chan et al., "Collective communication: theory, practice, and
  experience", Concurrency and Computation 19, 2007; one rotated copy per dimension) carries 2·(S/2)·(3/4 + 3/16)
  = 15/16·S on each dimension at 2B: t = 15/16·S/(2B) + 12α, the injection bound over the chip's 4 links, so busbw
  tends to 4B = 409.6 GB/s, the whole per-direction 512 GB/s x 0.8;
* a group that leaves its domain (k < n) crosses EFA and is timed as on a switched domain.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.workload.cluster import cluster_hardware
from tests.conftest import REPO, run_specs

TRN2 = REPO / "tests" / "data" / "trn2"
B = 128e9 * 0.8          # one NeuronLink-v3 link per direction x the assumed scale-up efficiency
GROUPS = "".join(f"""---
kind: Workload
id: ar{k}
cluster: trn2-torus-pod
accelerators: {k}
collective: {{op: all_reduce, size: 1 GiB}}
""" for k in (4, 16, 32))


@pytest.fixture(scope="module")
def pod(tmp_path_factory):
    files = {f"parts/{p}.yaml": (TRN2 / f"{p}.yaml").read_text(encoding="utf-8")
             for p in ("trn2-48xlarge", "rack", "efa-v3-trn2")}
    cluster = (REPO / "tests" / "data" / "trn2-torus" / "cluster.yaml").read_text(encoding="utf-8")
    return run_specs(tmp_path_factory.mktemp("trn2"), files | {"clusters/trn2-torus.yaml": cluster + GROUPS})


def _hw(pod):
    """The pod's hardware, as its workloads are estimated on it."""
    scale_out = pod.clusters["cluster/trn2-torus-pod"].scale_out
    return cluster_hardware(pod.specs.get("trn2-torus-pod"), pod.specs.items, scale_out)[0]


def test_the_domain_hardware_is_its_torus(pod) -> None:
    """The estimate runs on the domain's dims and one link's share: 1,024 GB/s / 2 / 4 links = 128 GB/s."""
    hw = _hw(pod)
    assert (hw.torus, hw.scale_up_size) == ((4, 4), 16)
    assert hw.torus_link_bandwidth == pytest.approx(128e9)
    assert hw.scale_up_bandwidth == pytest.approx(512e9)


@pytest.mark.parametrize(("k", "busbw"), [(4, 2 * B), (16, 4 * B)])
def test_all_reduce_inside_the_torus(pod, k: int, busbw: float) -> None:
    """busbw of a 1 GiB all-reduce of k chips of one instance, within 2 % (the hop latency)."""
    got = pod.metrics[f"workload/ar{k}"]["busbw"].m_as("B/s")
    assert got == pytest.approx(busbw, rel=0.02)
    assert got < busbw


def test_times_by_hand(pod) -> None:
    """The two closed forms above, to 1e-12, on the pod's own hardware."""
    hw, size = _hw(pod), 1e9
    alpha = hw.scale_up_latency
    assert collective_time(hw, "all_reduce", size, 16) == pytest.approx(15 / 16 * size / (2 * B) + 12 * alpha,
                                                                        rel=1e-12)
    assert collective_time(hw, "all_reduce", size, 4) == pytest.approx(2 * 3 / 4 * size / (2 * B) + 6 * alpha,
                                                                       rel=1e-12)


def test_a_group_across_domains_takes_the_switched_model(pod) -> None:
    """32 ranks, 16 per domain: the torus does not reach the other instance; EFA does, as on a switched domain."""
    hw = _hw(pod)
    switched = replace(hw, torus=())
    for op in ("all_reduce", "all_gather", "p2p"):
        assert collective_time(hw, op, 1e9, 32, 16) == collective_time(switched, op, 1e9, 32, 16)
    assert pod.metrics["workload/ar32"]["busbw"].m_as("B/s") < pod.metrics["workload/ar16"]["busbw"].m_as("B/s")


SWEEP = """---
kind: Workload
id: tp16
model: llama3-70b
cluster: trn2-torus-pod
accelerators: 32
training:
  seq_len: 8192
  global_batch: 64
  precision: bf16
  parallelism: {tp: 16, pp: 1, dp: 2, micro_batch: 1}
---
kind: Sweep
id: s
workload: tp16
axes:
  scale_up_bandwidth: [0.5, 1.0, 2.0]
objectives:
  - {metric: step_time, goal: min}
"""


def _loaded(tmp_path, sweep: str):
    """The trial's Trn2 parts, the pod on its torus and `sweep`, loaded as `archgen sweep` loads them."""
    from archgen.commands import sweep as sw

    for p in ("trn2-48xlarge", "rack", "efa-v3-trn2"):
        (tmp_path / f"{p}.yaml").write_text((TRN2 / f"{p}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    cluster = (REPO / "tests" / "data" / "trn2-torus" / "cluster.yaml").read_text(encoding="utf-8")
    path = tmp_path / "sweep.yaml"
    path.write_text(cluster + sweep, encoding="utf-8")
    return sw.load(path, [tmp_path])


def test_a_sweep_of_the_domain_bandwidth_moves_the_torus(tmp_path) -> None:
    """Scaling `scale_up_bandwidth` scales the torus' links with it (`Hardware._replaced`): TP 16 on the 4x4 takes
    longer at half the bandwidth and less at twice. The batch path, whose hardware arrays the torus collectives do
    not take, hands such a sweep to the point-by-point one (`vectorised._vectorisable`): the same numbers."""
    from archgen.commands import sweep_problems
    from archgen.perf.explore import points, vectorised

    specs, clusters, sweeps = _loaded(tmp_path, SWEEP)
    problem = sweep_problems.problems(specs, clusters, sweeps)[0]
    one = [r.metrics["step_time"] for r in points.evaluate(problem, 0, problem.size)]
    batch = [r.metrics["step_time"] for r in vectorised.evaluate(problem, 0, problem.size)]
    assert one[0] > one[1] > one[2]
    assert batch == pytest.approx(one, rel=1e-9)


def test_a_sweep_of_the_domain_size_on_a_torus_is_invalid(tmp_path) -> None:
    """A torus' size is its dims: 32 accelerators per domain on the 4x4 would be timed on a torus of 16, so the point
    is invalid and says why; 16, the torus' own size, runs."""
    from archgen.commands import sweep_problems
    from archgen.perf.explore import points

    specs, clusters, sweeps = _loaded(
        tmp_path, SWEEP.replace("scale_up_bandwidth: [0.5, 1.0, 2.0]", "scale_up_size: [16, 32]"))
    problem = sweep_problems.problems(specs, clusters, sweeps)[0]
    ok, bad = points.evaluate(problem, 0, problem.size)
    assert ok.status == "ok"
    assert bad.status == "invalid" and "scale_up_size 32 on a 4x4 torus of 16" in bad.reason


def test_a_sweep_on_a_cluster_without_it_power_gives_no_power_and_refuses_a_power_objective(tmp_path) -> None:
    """The pod's fabric names no link media (CAB003), so its IT power is not provided (buyer2): its points carry no
    `power` or `energy_per_token` (not NaN, not 0 W), and a sweep objective on one is refused at its line with the
    reason. Before, building the sweep raised KeyError 'it_power'."""
    from archgen.commands import sweep as sw
    from archgen.commands import sweep_problems
    from archgen.errors import BuildError
    from archgen.perf.explore import points

    specs, clusters, sweeps = _loaded(tmp_path, SWEEP)
    assert "it_power" not in clusters["cluster/trn2-torus-pod"].metrics
    problem = sweep_problems.problems(specs, clusters, sweeps)[0]
    row = points.evaluate(problem, 0, 1)[0]
    assert row.status == "ok" and not {"power", "energy_per_token"} & set(row.metrics)
    # `archgen sweep` builds its problems before the checks withhold the figure (`sweep.evaluate_sweeps`): the
    # cluster still holds the IT power without those links' optics, which its points must not take either
    analysed, mine = sw.analyse(tmp_path / "sweep.yaml", [tmp_path])
    assert "it_power" in analysed.clusters["cluster/trn2-torus-pod"].metrics
    [rows] = [r.rows for r in sw.evaluate_sweeps(tmp_path / "sweep.yaml", [tmp_path])[1]]
    assert rows and not any({"power", "energy_per_token"} & set(r.metrics) for r in rows)
    specs, clusters, sweeps = _loaded(
        tmp_path, SWEEP.replace("{metric: step_time, goal: min}", "{metric: energy_per_token, goal: min}"))
    with pytest.raises(BuildError, match="needs the cluster's IT power, and trn2-torus-pod's IT power rests on links "
                                         "without link media"):
        sweep_problems.problems(specs, clusters, sweeps)
