"""Optimizer offload runs on the distributed optimizer (perf/train/refused.py `optimizer_offload_refused`).

Megatron-LM refuses `--optimizer-cpu-offload` without `--use-precision-aware-optimizer` (megatron/training/
arguments.py at d98e8a6, line 1885), and that without the distributed optimizer (megatron/core/optimizer/
__init__.py, line 1057). Once `distributed_optimizer: false` held the search to ZeRO 0, the search's offload retry
took `zero 0, offload optimizer` for Llama 3.1 405B at tp 4 x pp 8 x cp 2 on 8,192 GB200 (5.88 s a step, "fits"):
a layout Megatron does not run. Nothing else fits: the answer is that no layout fits.
"""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from archgen.perf.explore import vectorised as batch
from archgen.perf.explore.points import evaluate_point
from archgen.perf.train.refused import optimizer_offload_refused, without_refused_offloads
from tests.conftest import SPECS, sweep_problems_of
from tests.data.workloads import training_workload


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    """The shipped specs with the GB200 SuperPOD grown to 16 scalable units (9,216 GB200), as the trial's.

    Its compute fabric takes a third tier: two tiers of 64-port spines reach 1,728 ports a plane (NET003), and a job
    whose traffic crosses an infeasible fabric is refused (infeasraw42).
    """
    root = tmp_path_factory.mktemp("specs") / "specs"
    shutil.copytree(SPECS, root)
    path = root / "clusters" / "gb200-nvl72-su.yaml"
    text = path.read_text(encoding="utf-8").replace("- {unit: su, count: 1}", "- {unit: su, count: 16}")
    assert text.count("switch: qm9700\n    tiers: 2\n") == 1
    text = text.replace("switch: qm9700\n    tiers: 2\n", "switch: qm9700\n    tiers: 3\n")
    path.write_text("\n".join(line for line in text.splitlines() if not line.startswith("expect:")) + "\n",
                    encoding="utf-8")
    return root


def estimate(cli, specs, tmp_path, extra: dict | None = None, more: str = ""):
    """Llama 3.1 405B on 8,192 GB200 at the trial's layout, `more` in its parallelism, `extra` training keys."""
    workload = training_workload("l405-ddp", "llama3-405b", 8192,
                                 f"{{tp: 4, pp: 8, cp: 2, interleave: 8, micro_batch: 1, dp: 128{more}}}",
                                 name="Llama 3.1 405B on 8192 GB200 without the distributed optimizer", seq_len=8192,
                                 global_batch=2048, precision="bf16", **(extra or {}))
    (tmp_path / "w.yaml").write_text(workload, encoding="utf-8")
    return cli("estimate", "--path", specs, "--path", tmp_path, "--workload", "l405-ddp", "--format", "json")


def test_without_the_distributed_optimizer_no_layout_fits(cli, specs, tmp_path):
    r = estimate(cli, specs, tmp_path, {"distributed_optimizer": False})
    assert r.code == 1, r.err  # a job that does not fit
    est = json.loads(r.out)
    assert est["layout"] == {}  # was zero 0, offload optimizer: 5.88 s a step
    assert not est["fits"]
    assert est["searched"] == {"evaluated": 6, "fitting": 0}  # 3 recomputes, again with activations offloaded
    (note,) = [n for n in est["notes"] if n.startswith("none of the 6 valid layouts of 8192 x gb200 fits in HBM")]
    # newuser89: the note names the layout nearest to fitting and its memory, which stated whole is estimated
    # with the same figure ("does not fit: needs ..."), so a person sees how far the job misses
    least = re.search(r"the nearest to fitting, (.*), needs ([0-9.]+) GB per accelerator", note)
    assert least, note
    fields = dict(f.split(" ") for f in least.group(1).split(", "))
    assert fields["zero"] == "0" and fields["tp"] == "4" and fields["pp"] == "8"
    assert fields["offload"] == "activations"  # the search's retry: nothing fits without an offload either
    whole = estimate(cli, specs, tmp_path, {"distributed_optimizer": False, "recompute": fields["recompute"]},
                     ", zero: 0, offload: activations")
    assert whole.code == 1, whole.err
    again = json.loads(whole.out)
    assert not again["fits"] and again["layout"]["recompute"] == fields["recompute"]
    assert f"{again['memory']['total']['value'] / 1e9:.1f}" == least.group(2)


def test_with_the_distributed_optimizer_the_offload_keeps_a_sharded_stage(cli, specs, tmp_path):
    r = estimate(cli, specs, tmp_path, more=", offload: optimizer")
    assert r.code == 0, r.err
    assert json.loads(r.out)["layout"]["zero"] >= 1


@pytest.mark.parametrize(("extra", "more", "why"), [({}, ", zero: 0", "zero 0"),
                                                    ({"distributed_optimizer": False}, "",
                                                     "distributed_optimizer false")])
def test_optimizer_offload_stated_without_the_distributed_optimizer_is_an_error(cli, specs, tmp_path, extra, more,
                                                                                 why):
    r = estimate(cli, specs, tmp_path, extra, more + ", offload: optimizer")
    assert r.code == 1
    out = r.out + r.err
    assert (f"training.parallelism.offload: offload optimizer needs the distributed optimizer, and {why} is stated"
            in out)
    assert f"w.yaml:{11 + bool(extra)}:" in out


def test_the_rule_and_the_retry_rows():
    assert optimizer_offload_refused(np.array([0, 1, 2, 3, 6]), np.zeros(5)).tolist() == [False, False, True, True,
                                                                                           True]
    assert not optimizer_offload_refused(2, 1)
    lay = {"dp": np.array([1.0, 1.0, 4.0, 4.0]), "zero": np.zeros(4), "offload": np.array([1.0, 2.0, 2.0, 1.0])}
    kept = without_refused_offloads(lay, (0, 1, 2, 3))
    # dp 1 takes the distributed optimizer over one rank; dp 4 at stage 0 offloads only activations
    assert kept["dp"].tolist() == [1, 1, 4] and kept["zero"].tolist() == [0, 1, 0]
    assert kept["offload"].tolist() == [1, 2, 1]
    assert len(without_refused_offloads(lay, (0,))["dp"]) == 2  # no sharded stage: no optimizer offload at all


SWEEP = """kind: Sweep
id: ddp-offload
workload: l70-ddp
axes:
  hbm_capacity: [1, 0.8, 0.6]
  global_batch: [256, 512]
objectives:
  - {metric: tokens_per_second}
"""

L70 = training_workload("l70-ddp", "llama3-70b", 512, "{tp: 8, pp: 1}",
                        name="Llama 3.1 70B on 512 GB200 without the distributed optimizer", seq_len=8192,
                        global_batch=512, precision="bf16", distributed_optimizer=False)


def test_a_sweep_batched_keeps_to_the_rule_and_to_the_per_point_rows(tmp_path):
    (tmp_path / "w.yaml").write_text(L70, encoding="utf-8")
    (tmp_path / "sweep.yaml").write_text(SWEEP, encoding="utf-8")
    (p,) = sweep_problems_of(tmp_path / "sweep.yaml", [SPECS, tmp_path])
    fast = batch.evaluate(p, 0, p.size)
    for row in fast:
        ref = evaluate_point(p, row.index)
        assert (row.status, row.reason, row.layout) == (ref.status, ref.reason, ref.layout)
        if row.layout:
            assert row.layout["zero"] == 0 and row.layout.get("offload") not in ("optimizer", "both")
    assert {r.status for r in fast} == {"ok", "does not fit"}
