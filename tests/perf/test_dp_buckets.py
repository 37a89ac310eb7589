"""Data-parallel communication bucket by bucket, as Megatron-core issues it (issue 20, part 1).

`_ParamAndGradBucketGroup.start_grad_sync` reduce-scatters each bucket of a group once its gradients are ready and
`start_param_sync` all-gathers it (megatron/core/distributed/param_and_grad_buffer.py at core_v0.14.0): a step's
reduction is as many collectives as buckets, each of a bucket's size, and each pays NCCL's latency.
"""

from __future__ import annotations

import math

import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.train.exposure import BUCKET_PARAMS, BUCKET_PARAMS_PER_RANK, dp_exposed
from archgen.perf.train.job import Job
from tests.perf.test_weight_offload import GPT3


def test_without_overlap_the_step_pays_one_collective_per_bucket(h100):
    """Overlap off: the exposed time is exactly the buckets' reduce-scatters and all-gathers, each at its size."""
    job = Job(GPT3, 2048, 1536, "bf16", "flash", overlap_grad_reduce=False, overlap_param_gather=False)
    params, dp = 8.0e9, 128
    bucket = max(BUCKET_PARAMS, BUCKET_PARAMS_PER_RANK * dp)
    count = math.ceil(params / bucket)
    per = params / count
    want = count * (collective_time(h100, "reduce_scatter", per * job.grad_bytes, dp, 8)
                    + collective_time(h100, "all_gather", per * job.weight_bytes, dp, 8))
    got = dp_exposed(h100, job, params, dp, 8, 1, 0.0, 0.0, 1.0, 1)
    assert float(got) == pytest.approx(want, rel=1e-9)
    one = collective_time(h100, "reduce_scatter", params * job.grad_bytes, dp, 8) + collective_time(
        h100, "all_gather", params * job.weight_bytes, dp, 8)
    assert float(got) > one  # the buckets' latencies: more than one collective of every parameter
