"""Megatron-core's DDP buckets as its buffer forms them (issue 20): a greedy walk that closes on whole tensors."""

import numpy as np
import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.train.buckets import layer_tensors, mean_bucket
from archgen.perf.train.exposure import bucket_params
from archgen.perf.train.job import Job

LLAMA31_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


def test_llama31_8b_buckets_as_dells_mlperf_log_prints_them():
    """Dell's MLPerf Training v5.1 Llama 3.1 8B logs (tp 1, bucket_size=134217728) print 33 buckets of ~218M and the
    embedding's and output layer's: 35, where parameters / bucket_size counts 60. The walk (param_and_grad_buffer.py
    at 0011998, `for param in params[::-1]`, closing at `>= bucket_size`): FC2 + FC1 = 176M closes the first bucket,
    then each holds a layer's FC1 norm, QKV, its norm and projection and the next-lower layer's FC2 and FC1:
    218,112,000."""
    layer = 4096 * 4096 + 4096 + 6144 * 4096 + 4096 + 2 * 14336 * 4096 + 14336 * 4096
    assert sum(layer_tensors(LLAMA31_8B, 1.0, False)) == layer == 218_112_000
    closed = [58720256 + 117440512] + [layer] * 31  # 32 layers: 1 + 31 closed buckets, the last partial
    assert mean_bucket(LLAMA31_8B, 134217728) == pytest.approx(sum(closed) / len(closed), rel=1e-12)
    job = Job(LLAMA31_8B, 8192, 1152, ddp_bucket_size=134217728)
    count = np.ceil(LLAMA31_8B.params() / bucket_params(job, 8.0))
    assert 35 <= count <= 38  # the log's 35; the model spreads the two 525M embedding matrices over its mean bucket
    assert np.ceil(LLAMA31_8B.params() / 134217728) == 60  # what the threshold alone counted


def test_a_tensor_larger_than_the_bucket_is_a_bucket_of_its_own():
    """Below every tensor's size each tensor closes its bucket: the mean bucket is the mean tensor of the layers."""
    tensors = layer_tensors(LLAMA31_8B, 1.0, False)
    assert mean_bucket(LLAMA31_8B, 1.0) == pytest.approx(sum(tensors) / len(tensors))


def test_arrays_walk_each_pair_once_and_broadcast():
    """A sweep's arrays of thresholds and tp give each layout its pair's walk."""
    got = mean_bucket(LLAMA31_8B, np.array([[64e6], [134217728.0]]), np.array([1.0, 2.0]))
    assert got.shape == (2, 2)
    for i, b in enumerate((64e6, 134217728.0)):
        for j, t in enumerate((1.0, 2.0)):
            assert got[i, j] == mean_bucket(LLAMA31_8B, b, t)


def test_nemo_2025_takes_bridges_bucket():
    """Megatron-Bridge's comm_overlap.py (at aae8200, `_get_optimizer_overlap_cfgs`) sets bucket_size 128 * 1024 *
    1024 with dp > 1 when `setup` applies the DP overlap (the distributed optimizer on); NeMo 2's
    MegatronCommOverlapCallback does the same. The nemo-2025 profile says so; megatron-core-2024 keeps Megatron-core's
    default."""
    from archgen.model.switches import StackSwitches
    field = StackSwitches.model_fields["ddp_bucket_size"]
    by_stack = next(m for m in field.metadata if hasattr(m, "setting"))
    assert by_stack.setting("nemo-2025")[0] == 128 * 1024 * 1024 == 134217728
    assert by_stack.setting("megatron-core-2024")[0] == "default"


def test_the_walk_is_shared_by_models_built_apart_and_is_megatrons_layer_by_layer():
    """speedmodel34: the walk lists a dense and a MoE layer's tensors once and is kept by their values, so a second
    Arch of the same model (each case and sweep point builds its own) takes the first one's walk; the mean is the
    float the layer-by-layer walk gives (param_and_grad_buffer.py's loop, written out here), dense layers first."""
    moe = Arch(layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=128, ffn=18432, vocab=129280, gated=True,
               experts=256, expert_ffn=2048, shared_experts=1, dense_layers=3, rope=True, qk_norm=False)
    closed, size = [], 0.0
    for i in reversed(range(moe.layers)):
        for t in reversed(layer_tensors(moe, 8.0, i >= moe.dense_layers)):
            size += t
            if size >= 4e8:
                closed.append(size)
                size = 0.0
    assert mean_bucket(moe, 4e8, 8.0) == sum(closed) / len(closed)
    twin = Arch(**{f: getattr(moe, f) for f in moe.__dataclass_fields__})
    assert "_bucket_walks" not in twin.__dict__ and mean_bucket(twin, 4e8, 8.0) == sum(closed) / len(closed)
