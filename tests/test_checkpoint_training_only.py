"""A checkpoint on a workload that is not training is refused at its line (newuser52).

A serving fleet's `checkpoint: {interval: 10 min, tokens: 1e12, goodput_target: 0.95}` was accepted and read by
nothing: `estimate` and `check` gave the same figures with no note, finding or goodput (`archgen.analyse.
operations_stage` and `perf.train.goodput` read it for training jobs only). Unused keys are refused, not ignored.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from archgen.pipeline import run
from tests.conftest import SPECS

CHECKPOINTED = ("kind: Workload\nid: w\nname: w\n{model}cluster: dgx-b200-superpod\naccelerators: 16\n"
                "checkpoint: {{interval: 10 min, goodput_target: 0.95}}\n{job}\n")


@pytest.mark.parametrize(("kind", "model", "job"), [
    ("inference", "model: llama3-70b\n", "inference: {tp: 8, input_len: 1024, output_len: 128}"),
    ("collective", "", "collective: {op: all_reduce, size: 1 GiB}"),
])
def test_a_checkpoint_on_a_job_that_reads_none_is_refused(spec_tree, kind, model, job):
    """Only a training job has checkpoints, a restart and goodput; anywhere else the key is refused, located."""
    root = spec_tree({"w.yaml": CHECKPOINTED.format(model=model, job=job)})
    with pytest.raises(ValidateError) as err:
        run([root, SPECS / "clusters", SPECS / "racks"])
    text = str(err.value)
    line = 7 if model else 6
    assert f"w.yaml:{line}:1: error: checkpoint: " in text
    assert f"applies to a training job; this {kind} workload would leave it unused: remove checkpoint" in text
