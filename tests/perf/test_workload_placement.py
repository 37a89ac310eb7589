"""A workload states its ranks per scale-up domain (`placement.per_domain`, a Slurm segment; issue 20 leftover).

Megatron-Bridge's GB200 launcher asks Slurm for `--segment` of 16 4-GPU trays on an NVL72 (scripts/performance/
utils/executors.py `slurm_executor` at 023219e): 64 of each rack's 72 GPUs. The performance model then places groups
on domains of 64 (`perf.comm.placement.members_per_domain`, gcd rule), and goodput counts the 2 idle trays of each
rack as its hot spares; left out, the 512 ranks fill 7 racks and 8 GPUs of an eighth.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.errors import WorkloadError
from archgen.model.workload import Workload
from archgen.perf.comm.placement import job_domain, members_per_domain
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.cluster import placed
from archgen.perf.workload.machine import Machine
from archgen.scoring.catalog import load_accelerators
from tests.conftest import run_specs

CLUSTER = Path("specs/clusters/gb200-nvl72-su.yaml")
JOB = ("kind: Workload\nid: w{name}\nmodel: llama3-405b\ncluster: gb200-nvl72-su\naccelerators: {n}\n{placement}"
       "training: {{seq_len: 8192, global_batch: 1024, precision: bf16, parallelism: {{tp: 8, pp: 4, dp: 16}}}}\n"
       "checkpoint: {{tokens: 15.6e12}}\n")


def _job(name: str, n: int = 512, per_domain: int | None = None) -> str:
    return JOB.format(name=name, n=n, placement=f"placement: {{per_domain: {per_domain}}}\n" if per_domain else "")


def _domain(size: int) -> Hardware:
    return hardware_for(load_accelerators()["gb200"], scale_up_size=size)


def _machine(hw: Hardware) -> Machine:
    return Machine("gb200-nvl72-su", hw, accelerators=576, per_rack=72, per_node=4)


def test_the_one_fact_of_a_jobs_share():
    """Stated below the domain: that; a job smaller than a domain: itself; else 0, whole domains in rank order."""
    assert job_domain(72, 512, 64) == 64
    assert job_domain(72, 512) == 0
    assert job_domain(72, 512, 72) == 0
    assert job_domain(72, 32) == 32


def test_a_stated_segment_places_the_groups_on_64_of_each_72():
    """EP 64 of consecutive ranks (stride 1): gcd(72, 64) = 8 in one rack in rank order, all 64 in a segment; TP 8 is
    whole in either; DP 16 at stride 8 (tp 8, pp 4): gcd(72, 128) / 8 = 1 against gcd(64, 128) / 8 = 8."""
    stated = Workload.model_validate({"id": "w", "accelerators": 512, "cluster": "c", "collective":
                                      {"op": "all_reduce", "size": "1 GiB"}, "placement": {"per_domain": 64}})
    plain = stated.model_copy(update={"placement": None})
    seg, order = placed(stated, _domain(72), 512, _machine(_domain(72))), placed(plain, _domain(72), 512,
                                                                                  _machine(_domain(72)))
    assert (seg.job_domain, order.job_domain) == (64, 0)
    assert (members_per_domain(seg, 64, 1), members_per_domain(order, 64, 1)) == (64, 8)
    assert (members_per_domain(seg, 8, 1), members_per_domain(order, 8, 1)) == (8, 8)
    assert (members_per_domain(seg, 16, 8), members_per_domain(order, 16, 8)) == (8, 1)


@pytest.mark.parametrize(("per_domain", "why"), [
    (80, "exceeds the scale-up domain of 72"), (66, "not whole nodes of 4"),
    (36, "512 accelerators need 15 scale-up domains; cluster 'gb200-nvl72-su' has 8 of 72")])
def test_a_placement_the_model_cannot_honour_is_refused_at_its_field(per_domain, why):
    w = Workload.model_validate({"id": "w", "accelerators": 512, "cluster": "c", "collective":
                                 {"op": "all_reduce", "size": "1 GiB"}, "placement": {"per_domain": per_domain}})
    with pytest.raises(WorkloadError, match=why) as err:
        placed(w, _domain(72), 512, _machine(_domain(72)))
    assert err.value.subject == ("w", ("placement", "per_domain"))


def test_512_of_576_gb200_with_and_without_a_segment(tmp_path):
    """The same layout (tp 8, pp 4, dp 16) in 16-tray segments: each DP group keeps 8 of its 16 in one rack, not 1,
    so its gradient traffic crosses fewer NICs and the step is shorter; a bad value is PERF003 at the workload."""
    r = run_specs(tmp_path, {"c.yaml": CLUSTER.read_text(encoding="utf-8"),
                             "w.yaml": "---\n".join([_job("order"), _job("seg", per_domain=64),
                                                     _job("bad", per_domain=66)])})
    order, seg = (r.workloads[f"workload/w{k}"].estimate.metrics for k in ("order", "seg"))
    assert seg["step_time"] < order["step_time"]
    [bad] = [f.message for f in r.findings if f.id == "PERF003"]
    assert "placement.per_domain 66 is not whole nodes of 4 accelerators" in bad


def test_goodput_counts_the_spares_the_placement_leaves(tmp_path):
    """One fact, two readers: with a segment of 64 the model's groups sit on 64 of each rack and goodput counts the
    2 idle trays of each of the 8 racks as spares (spread); without it the ranks fill 7 racks and 8 GPUs of the
    eighth, and goodput keeps all 16 idle trays in that rack (packed: a tray failure in a full rack waits for its
    repair, no whole rack being idle). The range spans rate sets only; the document says where spares come from."""
    from archgen.analyse.goodput import PACKED_SPARES
    from archgen.render.operations import reliability_section

    target = "requirements:\n  - {id: R-GP, statement: Goodput, metric: goodput, target: '>= 0.95'}\n"
    r = run_specs(tmp_path, {"c.yaml": CLUSTER.read_text(encoding="utf-8"),
                             "w.yaml": "---\n".join([_job("order") + target, _job("seg", per_domain=64)])})
    order, seg = (r.operations.goodput[f"workload/w{k}"] for k in ("order", "seg"))
    assert (order.spares_available, seg.spares_available) == (16, 16)   # 8 racks x 18 trays - 128 nodes
    assert (order.packed, seg.packed) == (True, False)
    assert order.goodput < seg.goodput - 0.1     # a failure in 7 of 8 racks has no spare in rank order
    assert order.band["goodput"][1] < seg.goodput   # no placement end: the range does not reach the spread value
    [unmet] = [f.message for f in r.findings if f.requirement == "R-GP"]   # not met, not "at risk" over placements
    assert unmet == (f"R-GP (Goodput): goodput = {order.goodput:.3f}, target >= 0.95; judged on assumed inputs: "
                     "'field-h100-2024' failure rates (measured on h100-sxm5-80gb; gb200 borrows them)")   # reltidy42
    rel003 = {f.object: f.message for f in r.findings if f.id == "REL003"}
    assert "its ranks fill whole scale-up domains in order" in rel003["workload/worder"]   # 34 spares needed, 16
    assert "workload/wseg" not in rel003                                                   # 16 needed, 16 idle
    section = reliability_section(r, r.clusters["cluster/gb200-nvl72-su"])
    [note] = [b.text for b in section.blocks if b.kind == "para" and b.text.startswith("Range")]
    assert f"hot spares: {PACKED_SPARES}" in note and note.count("hot spares: its ranks") == 1


def test_a_placement_on_a_torus_is_refused():
    """A torus' groups run on its rings (`perf.comm.torus`), not on a share of a domain: no placement there."""
    import dataclasses

    w = Workload.model_validate({"id": "w", "accelerators": 64, "cluster": "c", "collective":
                                 {"op": "all_reduce", "size": "1 GiB"}, "placement": {"per_domain": 16}})
    torus = dataclasses.replace(_domain(64), torus=(4, 4, 4))
    with pytest.raises(WorkloadError, match=r"scale-up domain is a torus \(4x4x4\)"):
        placed(w, torus, 64, _machine(torus))
