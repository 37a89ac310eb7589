"""The nccl-tests curve of a collective workload is drawn on the hardware its estimate ran on (words38).

`estimate_on_cluster` times a job on `estimate_hardware`: its share of each domain, then a hop between racks or a
pod's flight to the switch rack (`racks_note.second_hop`). The curve, with the estimate's point marked on it
(`render.performance.busbw_curve`), was drawn on the cluster's own `on.hardware`: on a UALink pod a domain over
two racks whose switch states its hop, the point sat off its curve (planhw38 flagged it). The domain: `tests.test_scale_up_fabric_latency`'s UALink domain over two racks
of 32 MI355X, its test switch stating 250 ns a hop (the UALink Consortium's under-250 ns target, as
docs/perf-model.md quotes it): an all-reduce of all 64 takes it on 1 of every 63 ring steps (`second_hop`).
"""

from __future__ import annotations

import pytest

from archgen.perf.comm.collectives import busbw_curve
from archgen.perf.workload.cluster import estimate_hardware, machine
from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs
from tests.test_scale_up_cages import RACK

SIZE = 2 ** 20   # 1 MiB, a curve size where a step's latency moves busbw (`CURVE_SIZES`: powers of 2)
JOB = f"""---
kind: Workload
id: ar
cluster: ualpod
accelerators: 64
collective: {{op: all_reduce, size: {SIZE} B}}
"""


def test_the_point_lies_on_its_curve_where_the_job_hardware_is_not_the_cluster_s(tmp_path) -> None:
    parts = PARTS.split("---\nkind: Rack")[0].replace("power: {max: 3 kW}", "latency: 250 ns\npower: {max: 3 kW}", 1)
    run = run_specs(tmp_path, {"c.yaml": parts + RACK + JOB})
    r = run.workloads["workload/ar"]
    cluster = run.specs.get("ualpod")
    on = machine(cluster, run.specs.items, run.clusters["cluster/ualpod"].scale_out)
    job = estimate_hardware(r.workload, on)
    assert job.scale_up_latency > on.hardware.scale_up_latency   # the precondition: the hop is added
    sizes, bus = r.curve
    got = r.estimate.metrics["busbw"].m_as("B/s")
    assert bus[sizes.index(SIZE)] == pytest.approx(got, rel=1e-12)
    # the cluster's own hardware draws another curve: the test would fail on it
    own = busbw_curve(on.hardware, "all_reduce", 64)[1][sizes.index(SIZE)]
    assert own != pytest.approx(got, rel=1e-4)


def test_the_job_hardware_is_computed_once_for_the_estimate_and_its_curve(tmp_path, monkeypatch) -> None:
    """`estimate_workloads` passes the job's hardware to the estimate and the curve; before, it was computed twice."""
    from archgen.perf.workload import cluster

    calls = []

    def counted(*args, **kwargs):
        calls.append(args[0].id)
        return estimate_hardware(*args, **kwargs)

    # `results` imports it from `cluster` when it estimates (checkspeed40), so cluster's name is the one called
    monkeypatch.setattr(cluster, "estimate_hardware", counted)
    parts = PARTS.split("---\nkind: Rack")[0]
    run = run_specs(tmp_path, {"c.yaml": parts + RACK + JOB})
    assert run.workloads["workload/ar"].curve is not None
    assert calls == ["ar"]
