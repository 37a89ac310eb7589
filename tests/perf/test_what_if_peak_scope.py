"""A `peak` what-if says it scaled the job's data type alone, and gives the job with every tensor peak scaled.

`--what-if peak=F` multiplies the peak of the job's data type (docs/perf-model.md, What-if), while an FP8 job runs
its attention core and output layer at the BF16 peak (docs/adding-a-part.md). Before (newuser58) the what-if said
"peak x2" and nothing more: Llama 3.1 405B FP8 on a hypothetical part read -38.3 % a step, where a part whose
every tensor peak doubled gives -43.9 %. The figure it now gives for every peak scaled is checked against the same
job on the B200 forked with each of its catalog peaks doubled (NVIDIA's datasheet figures, the catalog's entry).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import SPECS

JOB = """\
kind: Workload
id: fp8-train-b200
name: Llama 3.1 70B FP8 pre-training on 64 B200
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 64
training: {seq_len: 8192, global_batch: 128, precision: fp8, parallelism: {tp: 4, pp: 1, micro_batch: 1}}
"""


def _what_if(cli, path, workload="fp8-train-b200", fmt="json"):
    res = cli("estimate", str(SPECS), str(path), "--workload", workload, "--what-if", "peak=2", "--format", fmt)
    return json.loads(res.out) if fmt == "json" else res.out


def test_peak_what_if_names_the_held_peaks_and_every_peak_scaled(cli, tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    (own / "job.yaml").write_text(JOB, encoding="utf-8")
    out = _what_if(cli, own)
    scope = out["peak_scope"]
    assert scope["scaled"] == "fp8" and scope["metric"] == "step_time"
    assert scope["held"]["bf16"]["value"] == pytest.approx(2250e12)  # B200 dense BF16, the catalog's
    assert out["estimate"]["hardware"]["peak"]["value"] == pytest.approx(2 * 4500e12)
    # every peak x2 is the same job on a B200 whose catalog peaks are all doubled
    part = (SPECS / "catalog" / "accelerators" / "b200-sxm-180gb.yaml").read_text(encoding="utf-8")
    line = re.search(r"^peak: \{(.*)\}$", part, re.M)
    doubled = ", ".join(f"{k}: {2 * float(v.split()[0]):g} TFLOPS" for k, v in
                        (item.split(": ") for item in line.group(1).split(", ")))
    fork = tmp_path / "fork"
    fork.mkdir()
    (fork / "b200.yaml").write_text(part.replace(line.group(0), f"peak: {{{doubled}}}"), encoding="utf-8")
    (fork / "job.yaml").write_text(JOB, encoding="utf-8")
    every = json.loads(cli("estimate", str(SPECS), str(fork), "--workload", "fp8-train-b200", "--format", "json").out)
    assert scope["every_peak"]["value"] == pytest.approx(every["metrics"]["step_time"]["value"], rel=1e-12)
    assert scope["every_peak"]["value"] < out["estimate"]["metrics"]["step_time"]["value"]
    text = _what_if(cli, own, fmt="text")
    assert "peak x2 scales the fp8 peak alone" in text and "bf16 2,250 TFLOP/s" in text, text


def test_a_bf16_job_runs_at_one_peak_and_gets_no_scope(cli):
    res = cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(SPECS), "--what-if", "peak=2",
              "--format", "json")
    assert "peak_scope" not in json.loads(res.out)
