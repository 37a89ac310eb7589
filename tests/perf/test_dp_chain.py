"""The data-parallel overlap as Megatron-core runs it in the MLPerf Training v5.1 NeMo containers (issue 20 part 1).

NVIDIA's llama31_8b implementation (mlcommons/training_results_v5.1 at 441d65f4, NVIDIA/benchmarks/llama31_8b/
implementations/nemo/Dockerfile) checks out NVIDIA/Megatron-LM at `MCORE_REVISION=25.09-alpha.rc1` (d33919011c,
package_info 0.15.0rc5) and NeMo at 25.09-alpha.rc1; the file:line references below are at those tags. Its configs
set OVERLAP_GRAD_REDUCE and OVERLAP_PARAM_GATHER True, ALIGN_PARAM_GATHER and OVERLAP_PARAM_GATHER_WITH_OPTIM_STEP
False (config_common_8b.sh), FP8_PARAM_GATHER True (config_common.sh), and pass them to DistributedDataParallelConfig
(pretrain.py) with `num_distributed_optimizer_instances` left at 1. What the code does with one micro-batch a step:

* The gather chain. `DistributedDataParallel._make_forward_pre_hook` (distributed_data_parallel.py:409-443) calls
  `finish_param_sync` for a module's bucket group; with `align_param_gather` False nothing dispatched the first
  group's gather before the forward (the optimizer step launches none with `overlap_param_gather`: distrib_optimizer.py
  2587-2593; NeMo sets `param_sync_func` only with `align_param_gather`: nemo/lightning/_strategy_lib.py:747-753), so
  the first pre-hook dispatches it and waits (param_and_grad_buffer.py:283-290), then dispatches the next group's
  (lines 291-301), which runs beside the first group's modules. One group's gather at a time hides behind the forward
  of the one micro-batch; only the first group's shows: the model's window and edge, as before.
* The groups. The buffer walks the parameters in reverse registration order (param_and_grad_buffer.py:636) and closes
  the remaining parameters into a last bucket (lines 662-664), so the last bucket holds the input embedding. An FP8
  parameter's buffer is uint8, the other parameters keep their 16-bit dtype in a second buffer
  (distributed_data_parallel.py:163-176), and `partition_buckets` merges every non-FP8 bucket into the last FP8
  bucket group (param_and_grad_buffer.py:957-982, "merge all non-fp8 buckets into the last fp8 bucket group"). That
  group is gathered first (`next_param_gather_bucket_group` runs from the last group to the first:
  distributed_data_parallel.py:262-269) and reduced last (`register_grad_ready` starts a group's reduce-scatter only
  when every gradient in it is ready, param_and_grad_buffer.py:483-486; the embedding's is the backward's last). So
  what shows at each end is that group, not one bucket: `buckets.edge_params`, in 16 bits where the parameters are
  (`buckets.sixteen_bit_params`). This the model lacked; it is what these tests pin.
* Reduce-scatter and all-gather go to the same communicator (`intra_distributed_optimizer_instance_group`:
  param_and_grad_buffer.py:237-239, 376-383), so they serialise on its NCCL stream; with one micro-batch they do not
  meet (the gathers end within the forward, the reductions start in the backward), and the model times them in
  separate windows. `full_iteration` CUDA graphs (FullCudaGraphWrapper, full_cuda_graph.py:163-187) capture the
  forward and backward with these hooks running: `is_graph_capturing` (transformer/cuda_graphs.py:57-77) reads a
  flag only Megatron-core's per-layer capture sets, so the collectives are captured as issued and replay the same
  chain.
* The SMs the DP collectives hold. The implementation also passes a per-communicator NCCL configuration
  (conf/nccl/custom_communicator_cta.yaml: the dp and dp_cp groups min_ctas 1, max_ctas 8), but NCCL 2.28.3 (the
  Dockerfile's NCCL_REVISION) lets NCCL_MIN_CTAS / NCCL_MAX_CTAS override a communicator's config
  (src/init.cc:1614-1628 at v2.28.3-1, `envConfigOverride`), and config_common.sh exports 16 and 32: the 16 SMs of
  `exposure.NCCL_CTAS` stand.

Left out (docs/perf-model.md, Limitations): a pipeline rank past the first, and every model chunk past the first,
is not bucketed at all (distributed_data_parallel.py:115-127 sets `bucket_size` None for pp rank > 0; NeMo's
megatron_parallel.py:639 passes `disable_bucketing` for chunks > 0), where the model buckets every rank; their
reduction is one collective per chunk, whose window is the pipeline's cooldown.
"""

from __future__ import annotations

import pytest

from archgen.perf.comm.collectives import collective_times
from archgen.perf.hw.arch import Arch
from archgen.perf.train.buckets import edge_params, mean_bucket, sixteen_bit_params
from archgen.perf.train.exposure import NCCL_CTAS, bucket_params, dp_exposed
from archgen.perf.train.job import Job
from archgen.perf.train.stacks import explain, resolve

LLAMA31_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)
VOCAB = 128256 * 4096  # one embedding matrix at tp 1


def test_the_fp8_gather_leaves_the_embedding_output_layer_and_norms_in_16_bits():
    """Transformer Engine's FP8 weights are the GEMMs'; Llama 3.1 8B's other parameters (input embedding and output
    layer, untied, 525,336,576 each; two norms a layer and the final one) are 16-bit (distributed_data_parallel.py
    163-176). On a rank of tp 2 the two matrices are split, the norms are not."""
    assert sixteen_bit_params(LLAMA31_8B, 1.0, 32, 1, 1) == 2 * VOCAB + 65 * 4096 == 1_050_939_392
    assert sixteen_bit_params(LLAMA31_8B, 2.0, 32, 1, 1) == VOCAB + 65 * 4096
    # a middle pipeline stage of 8 layers holds only their norms; a tied output layer is the embedding
    assert sixteen_bit_params(LLAMA31_8B, 1.0, 8, 0, 0) == 16 * 4096
    tied = Arch(layers=2, hidden=1024, heads=8, kv_heads=8, head_dim=128, ffn=4096, vocab=1000, tied=True)
    assert sixteen_bit_params(tied, 1.0, 2, 1, 1) == 1000 * 1024 + 5 * 1024
    assert sixteen_bit_params(tied, 1.0, 1, 0, 1) == 1000 * 1024 + 3 * 1024  # the last stage's copy


def test_the_first_gathered_group_holds_the_embedding_and_under_fp8_every_16_bit_parameter():
    """The walk's last bucket ends on the input embedding (param_and_grad_buffer.py:636, 662-664); under the FP8
    gather `partition_buckets` merges the 16-bit buckets into the last FP8 group (lines 957-982). A rank without the
    embedding (a later pipeline stage) keeps one bucket at the edge, and its 16-bit norms under FP8."""
    bucket = mean_bucket(LLAMA31_8B, 768e6)
    high = sixteen_bit_params(LLAMA31_8B, 1.0, 32, 1, 1)
    assert edge_params(LLAMA31_8B, bucket, 1.0, 1, high, True) == bucket + high
    assert edge_params(LLAMA31_8B, bucket, 1.0, 1, 0.0, False) == bucket + VOCAB
    assert edge_params(LLAMA31_8B, bucket, 2.0, 1, 0.0, False) == bucket + VOCAB / 2
    assert edge_params(LLAMA31_8B, bucket, 1.0, 0, 0.0, False) == bucket


def test_one_micro_batch_hides_all_but_the_first_gathered_and_last_reduced_group(h100):
    """With windows longer than the collectives (one micro-batch's forward and backward), the group at each end
    shows whole and the rest overlaps on the SMs NCCL leaves (16 of H100's 132). FP8 gather on 64 ranks, bf16
    gradients: the reduction's edge is the group's share of the parameters, the gather's its share of the gathered
    bytes (FP8 weights in 1 B, the 16-bit parameters in 2 B), and the gather moves those bytes in all."""
    job = Job(LLAMA31_8B, 8192, 64, precision="fp8", param_gather_dtype="fp8", grad_reduce_dtype="bf16",
              ddp_bucket_size=768_000_000, overlap_param_gather=True)
    params, dp = float(LLAMA31_8B.params()), 64.0
    bucket = bucket_params(job, dp)
    high = sixteen_bit_params(LLAMA31_8B, 1.0, 32, 1, 1)
    edge = edge_params(LLAMA31_8B, bucket, 1.0, 1, high, True)
    n = -(-params // bucket)
    rs, ag = (n * t for t in collective_times(h100, (("reduce_scatter", params * 2.0 / n),
                                                      ("all_gather", (params + high) / n)), dp, 1.0))
    e_rs, e_ag = edge / params, (bucket + 2.0 * high) / (params + high)
    assert 0.23 < e_rs < 0.24 and 0.32 < e_ag < 0.33  # where one bucket alone was 0.11 of each
    lost = NCCL_CTAS / 132
    want = sum(e * t + lost * (1 - e) * t for e, t in ((e_rs, float(rs)), (e_ag, float(ag))))
    got = dp_exposed(h100, job, params, dp, 1.0, 1, 1e9, 1e9, 1.0, 1.0, bucket=bucket, edge=edge, high=high)
    assert float(got) == pytest.approx(want, rel=1e-12)
    # no window: every collective shows, the 16-bit parameters' bytes in the gather too
    bare = dp_exposed(h100, job, params, dp, 1.0, 1, 0.0, 0.0, 1.0, 1.0, bucket=bucket, edge=edge, high=high)
    assert float(bare) == pytest.approx(float(rs + ag), rel=1e-12)


def test_mlperf_8b_rows_show_the_edge_group(accelerators):
    """The 72-GPU GB200 row (tp 1, cp 2, dp 36, 768M buckets, FP8 gather, one micro-batch): its exposed DP time is
    at least the edge group's share of its reduction and gather, which the estimate's terms carry."""
    from pathlib import Path

    from archgen.scoring.cases import case_hardware, read_case_file, training_estimate
    path = Path(__file__).resolve().parent / "data" / "mlperf-training-v5.yaml"
    (case,) = [c for c in read_case_file(path).cases if c.id == "mlperf-t51-llama31-8b-72xgb200-fp8-cp2"]
    hw = case_hardware(case, accelerators)
    est = training_estimate(case, hw)
    params = float(LLAMA31_8B.params())
    job_bucket = mean_bucket(LLAMA31_8B, 768e6)
    high = sixteen_bit_params(LLAMA31_8B, 1.0, 32, 1, 1)
    n = -(-params // job_bucket)
    rs, ag = (n * t for t in collective_times(hw, (("reduce_scatter", params * 2.0 / n),
                                                    ("all_gather", (params + high) / n)), 72.0, 72.0))
    edge_only = (job_bucket + high) / params * float(rs) + (job_bucket + 2 * high) / (params + high) * float(ag)
    assert float(est.dp_comm) > edge_only > 2.0 * job_bucket / params * float(rs + ag)


def test_nemo_2025_without_the_distributed_optimizer_keeps_megatron_cores_bucket():
    """Megatron-Bridge applies its DP overlap settings, the 128 Mi bucket among them, only with the distributed
    optimizer (src/megatron/bridge/training/comm_overlap.py at aae8200, `setup`, lines 634-642; the bucket at line
    576): without it the DDP config keeps `bucket_size` None, Megatron-core's default. A stated bucket stands."""
    assert resolve("nemo-2025", {}, "bf16").ddp_bucket_size == 134_217_728
    assert resolve("nemo-2025", {"distributed_optimizer": False}, "bf16").ddp_bucket_size == "default"
    assert resolve("nemo-2025", {"distributed_optimizer": False, "ddp_bucket_size": 5_000_000},
                   "bf16").ddp_bucket_size == 5_000_000
    assert resolve("megatron-core-2024", {"distributed_optimizer": False}, "bf16").ddp_bucket_size == "default"


def test_explain_says_why_the_bucket_is_megatron_cores():
    """`--explain` gives the rule's reason for the bucket, as it does for the precision rules."""
    from archgen.model.cases import CaseTraining
    t = CaseTraining(seq_len=4096, global_batch=64, micro_batch=1, precision="bf16", tp=1, pp=1, dp=8,
                     distributed_optimizer=False, stack="nemo-2025")
    (used,) = [u for u in explain(t) if u.name == "ddp_bucket_size"]
    assert used.value == "default" and "distributed optimizer" in used.source and "634-642" in used.source
