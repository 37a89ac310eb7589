"""A stated switch that changes nothing is listed as not used (perf/train/stacks.py `moot`).

`param_gather_dtype: fp8` in a BF16 job and the DP overlaps at dp = 1 were listed by `--explain` as "stated" and
"used" though the step was the same either way (Llama 3.1 70B on 512 GB200: 2.973 s both ways): each now says why it
is not used, and flipping it still moves no number.
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.train.moot import moot
from tests.conftest import SPECS

WORKLOAD = """\
kind: Workload
id: moot
model: llama3-70b
cluster: gb200-nvl72-su
accelerators: {gpus}
training:
  seq_len: 8192
  global_batch: 64
  precision: bf16
  recompute: full
  stack: nemo-2025
{extra}  parallelism: {{tp: 8, pp: {pp}, dp: {dp}, micro_batch: 1{more}}}
"""


def explain(cli, tmp_path, extra: str = "", more: str = "", gpus: int = 512, pp: int = 1, dp: int = 64):
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(extra=extra, more=more, gpus=gpus, pp=pp, dp=dp),
                                     encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "moot", "--explain", "--format", "json")
    assert r.code == 0, r.err
    est = json.loads(r.out)
    return est["metrics"]["step_time"]["value"], {u["name"]: u for u in est["switches"]}


def test_an_fp8_parameter_gather_in_a_bf16_job_is_not_used(cli, tmp_path):
    step, used = explain(cli, tmp_path, "  param_gather_dtype: fp8\n")
    plain, _ = explain(cli, tmp_path)
    assert step == plain
    assert used["param_gather_dtype"] == {"name": "param_gather_dtype", "value": "fp8", "origin": "stated",
                                          "profile": None, "source": "not used: bf16 training has no FP8 parameters",
                                          "used": False}  # was used: true


@pytest.mark.parametrize("name", ["overlap_grad_reduce", "overlap_param_gather"])
def test_the_dp_overlaps_at_dp_1_are_not_used(cli, tmp_path, name):
    on, used = explain(cli, tmp_path, f"  {name}: true\n", gpus=64, pp=8, dp=1)
    off, _ = explain(cli, tmp_path, f"  {name}: false\n", gpus=64, pp=8, dp=1)
    assert on == off
    assert used[name]["origin"] == "stated"
    assert (used[name]["used"], used[name]["source"]) == (False, "not used: dp x cp = 1 has no data-parallel "
                                                                 "collectives")  # was used: true


def test_the_parameter_gather_overlap_at_zero_0_is_not_used(cli, tmp_path):
    on, used = explain(cli, tmp_path, "  overlap_param_gather: true\n", more=", zero: 0")
    off, _ = explain(cli, tmp_path, "  overlap_param_gather: false\n", more=", zero: 0")
    assert on == off
    assert used["overlap_param_gather"]["used"] is False
    assert used["overlap_grad_reduce"]["used"] is True  # dp 64 all-reduces its gradients


def test_moot():
    dense = {"tp": 8, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "interleave": 1}
    assert moot("overlap_grad_reduce", dense, False)
    assert not moot("overlap_grad_reduce", dense | {"cp": 2}, False)  # the DP group is dp x cp ranks
    assert not moot("overlap_grad_reduce", dense | {"ep": 4, "etp": 1}, True)  # expert DP of 8 / (1 x 4) = 2
    assert moot("overlap_grad_reduce", dense | {"ep": 8, "etp": 1}, True)
    assert not moot("overlap_grad_reduce", {"tp": 8}, None)  # dp not given: not judged
    assert moot("param_gather_dtype", {}, None, "fp4") == "not used: fp4 training has no FP8 parameters"
    assert not moot("param_gather_dtype", {}, None, "fp8")
    assert moot("fp8_recipe", {}, None, "bf16") == "not used: bf16 training has no FP8 recipe"
