"""The training job and its parallel layout: the types every part of the training model takes.

`Layout` is the parallel layout and its per-step options (one entry per layout when vectorised); `Job` what is trained
and how apart from the layout. They live below `training` so that `exposure`, `experts` and `ranks`, which
`training` calls, take them without importing `training` back (issue 19: the cycle through `Job`/`Layout`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.launch import HOST_OP_TIME
from archgen.perf.hw.memory import WEIGHT_BYTES
from archgen.perf.hw.reserve import holds_reserve
from archgen.perf.train.pipeline_split import DEFAULT, PipelineOptions
from archgen.perf.train.stacks import JOB_DEFAULTS as _D
from archgen.perf.train.stacks import Knobs


@dataclass(frozen=True)
class Layout:
    """A parallel layout and its per-step options; numeric fields may be numpy arrays (one entry per layout).

    `zero` is the sharding stage (0 none, 1 optimizer state = the distributed optimizer, 2 + gradients, 3 +
    weights, i.e. FSDP); None takes the job's `distributed_optimizer`. `pipeline` places the layers on the ranks
    (`pipeline_split.PipelineOptions`, one for all layouts of a call). `offload` is what goes to host memory
    (`memory.OFFLOAD_CODES`: 1 activations, 2 optimizer state, 3 both; see `offload`).
    """

    tp: np.ndarray | int
    pp: np.ndarray | int
    dp: np.ndarray | int
    micro_batch: np.ndarray | int
    cp: np.ndarray | int = 1
    ep: np.ndarray | int = 1
    interleave: np.ndarray | int = 1
    recompute: np.ndarray | int = 0
    sequence_parallel: np.ndarray | bool = _D.sequence_parallel
    zero: np.ndarray | int | None = None
    pipeline: PipelineOptions = DEFAULT
    offload: np.ndarray | int = 0
    etp: np.ndarray | int | None = None  # expert tensor-parallel size (MoE parallel folding); None: tp


#: Whether each stack's Megatron-core trains at a tp above the model's KV heads (tp a multiple of them). Megatron-core
#: f7dfb99 (#2565, first released in core_v0.16.0) sub-shards the QKV activations there: every rank computes its
#: tp-th of the QKV projection, all-gathers it over TP and keeps one KV head's group, whose backward reduce-scatters
#: (megatron/core/transformer/attention.py at 3097d81, lines 1455-1475, `all_gather_last_dim_from_tensor_parallel_
#: region`: "forward: AG, backward RS"). Before it, TransformerConfig raises "num_query_groups (...) must be a multiple
#: of tensor_model_parallel_size" (megatron/core/transformer/transformer_config.py at core_v0.9.0, lines 339-343).
#: Megatron-Bridge 26.04 pins 3097d81 and Primus fd1eeab pins Megatron-LM d3528a2, both after f7dfb99; the 2024 recipe
#: is core_v0.9.0's and the 2021 one predates grouped-query attention altogether.
QKV_SUBSHARDING = {"megatron-lm-2021": False, "megatron-core-2024": False, "nemo-2025": True, "primus-2025": True}


@dataclass(frozen=True)
class Job:
    """What is trained and how, apart from the layout: the model, the batch and the stack's switches.

    A switch left out takes its value under `stacks.JOB_DEFAULTS` (a profile of the table in
    `archgen.model.switches`); `grad_reduce_dtype` None means fp16 gradients for fp16 training and the profile's
    fp32 main gradients otherwise (`stacks.resolve`'s precision rule).

    `tp_async_backward` is not a switch (no stack lets a user turn it off): True, every stack's behaviour, runs the
    column-parallel backward's input re-gather and dgrad reduce-scatter async beside their GEMMs without userbuffers
    (`tp_comm`: Transformer Engine and Megatron-core do); False puts every TP collective on the critical path, as
    Calculon's `tensor_par_overlap: none` does (calculon-ai/calculon caa4b11, calculon/llm/layers.py lines 935-937:
    a `TPComm` layer's exposed time is its whole network time), for comparisons in Calculon's terms only
    (tests/perf/calculon_plans.py `LIKE_JOB`).

    `qkv_subsharding` is not a switch either: whether the stack runs tp above the KV heads (`QKV_SUBSHARDING`); a
    layout that needs it is refused where it is False (`layout_rules.layout_problems`, `layouts.enumerate_layouts`).

    `split_stack` is not a switch either: the stack whose pipeline placements apply (`switch_allows.UNEVEN_SPLITS`;
    None: the newest's, every one); a layout that states no placement and needs one the stack lacks is refused
    (`refused.bare_split_problem`, through `layout_rules.layout_problems` and `layouts.enumerate_layouts`).

    `host_op` is not a switch either: the host's time per eager operation it issues (s; `perf.train.host`), the
    measured eager PyTorch operation `launch.HOST_OP_TIME` unless a range over it asks for another
    (`scoring.unstated.host_range`).

    `cp_hierarchy` is not a switch but a layout's: `parallelism.hierarchical_context_parallel_sizes` [a2a, p2p], the
    groups of cp_comm_type a2a+p2p (`cp_comm`); None where the job states none.
    """

    arch: Arch
    seq_len: int
    global_batch: int
    precision: str = "bf16"
    attention: str = _D.attention
    distributed_optimizer: bool = _D.distributed_optimizer
    overlap_grad_reduce: bool = _D.overlap_grad_reduce
    overlap_tp_comm: bool = _D.overlap_tp_comm
    overlap_p2p_comm: bool = _D.overlap_p2p_comm
    grad_reduce_dtype: str | None = None
    param_gather_dtype: str = _D.param_gather_dtype
    overlap_param_gather: bool = _D.overlap_param_gather
    ep_dedup: bool = _D.ep_dedup
    moe_dispatcher: str = _D.moe_dispatcher
    overlap_ep_comm: bool = _D.overlap_ep_comm
    dropout: bool = _D.dropout
    fp8_recipe: str = _D.fp8_recipe
    permute_in_dispatch: bool = _D.permute_in_dispatch
    grad_accum_fusion: bool = _D.grad_accum_fusion
    cuda_graphs: str = _D.cuda_graphs
    ddp_bucket_size: int | str = _D.ddp_bucket_size  # parameters per DDP bucket or "default" (`exposure.bucket_params`)
    cross_entropy: str = _D.cross_entropy
    moe_shared_expert_overlap: bool = _D.moe_shared_expert_overlap
    moe_force_balance: bool = _D.moe_force_balance
    cp_comm_type: str = _D.cp_comm_type
    rope_fusion: bool = _D.rope_fusion
    tp_async_backward: bool = True  # not a switch: see the docstring
    ep_overlap_pace: float | None = None  # not a switch: None takes `contention.GPU_DRIVEN_PACE` (its range's ends)
    qkv_subsharding: bool = True  # not a switch: see the docstring
    cp_hierarchy: tuple[int, int] | None = None  # not a switch: see the docstring
    runtime_reserve: bool = True  # not a switch: the part's runtime holds `hw.reserve.runtime_reserve` (not a TPU's)
    split_stack: str | None = None  # not a switch: see the docstring
    host_op: float = HOST_OP_TIME  # not a switch: see the docstring

    @classmethod
    def from_knobs(cls, arch: Arch, seq_len: int, global_batch: int, precision: str, knobs: Knobs,
                   stack: str | None = None, cp_hierarchy: tuple[int, int] | None = None, vendor: str = "NVIDIA"
                   ) -> Job:
        """A job with a stack profile's resolved switches (`stacks.resolve`); `stack` None: the newest's rules.

        `vendor`: the part's (`hw.reserve.holds_reserve`: whether its runtime holds the CUDA/NCCL reserve).
        """
        return cls(arch, seq_len, global_batch, precision, knobs.attention, knobs.distributed_optimizer,
                   knobs.overlap_grad_reduce, knobs.overlap_tp_comm, knobs.overlap_p2p_comm, knobs.grad_reduce_dtype,
                   knobs.param_gather_dtype, knobs.overlap_param_gather, knobs.ep_dedup, knobs.moe_dispatcher,
                   knobs.overlap_ep_comm, knobs.dropout, knobs.fp8_recipe, knobs.permute_in_dispatch,
                   knobs.grad_accum_fusion, knobs.cuda_graphs, knobs.ddp_bucket_size, knobs.cross_entropy,
                   knobs.moe_shared_expert_overlap, knobs.moe_force_balance, knobs.cp_comm_type,
                   knobs.rope_fusion,
                   qkv_subsharding=QKV_SUBSHARDING.get(stack or "", True), cp_hierarchy=cp_hierarchy,
                   runtime_reserve=holds_reserve(vendor), split_stack=stack)

    @functools.cached_property  # read per rank class and formula (issue 25)
    def recipe(self) -> str | None:
        """Transformer Engine recipe of the linear GEMMs (`quant.recipe`); None for 16-bit training."""
        return Q.recipe(self.precision, self.fp8_recipe)

    @functools.cached_property  # read per rank class and formula (issue 25)
    def grad_bytes(self) -> float:
        """Bytes per gradient element in the buffer and on the wire."""
        dt = self.grad_reduce_dtype or ("fp16" if self.precision == "fp16" else "fp32")
        return K.DTYPE_BYTES[dt]

    @functools.cached_property  # read per estimate (issue 25)
    def model_flops(self) -> float:
        """Model FLOPs of one step, global_batch · seq_len tokens (`Arch.model_flops`): what MFU counts."""
        return self.arch.model_flops(self.global_batch * self.seq_len, self.seq_len)

    @functools.cached_property  # read per estimate (issue 25)
    def graph_scopes(self) -> frozenset[str]:
        """The scopes `cuda_graphs` names ("attn+moe_router": attn and moe_router)."""
        return frozenset(self.cuda_graphs.split("+"))

    @functools.cached_property  # read per rank class and formula (issue 25)
    def weight_bytes(self) -> float:
        """Bytes per compute weight (1 with FP8 parameters, which `fp8_param_gather` keeps)."""
        return K.DTYPE_BYTES[self.param_gather_dtype] if self.precision == "fp8" else WEIGHT_BYTES
