"""The `Model` kind (an LLM architecture) and the `Workload` kind (a training or inference job on a cluster).

A workload states what it runs and, optionally, how: a parallel layout left out is searched by the performance
model (the best layout that fits). Targets are ordinary `Requirement`s on the performance metrics (`step_time`,
`mfu`, `tokens_per_second`, `ttft`, `tpot`, `memory_headroom`, ...); they become PERF checks.
"""

from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from archgen.model.dataset import Dataset
from archgen.model.field_types import Precision
from archgen.model.field_words import keys_said
from archgen.model.inference import Inference
from archgen.model.reliability import Checkpointing
from archgen.model.requirements import Requirement, WorkloadRequirements
from archgen.model.spec import Document, FieldError, Ref, Spec, raise_each
from archgen.model.switches import SWITCHES, SequenceParallel, StackSwitches
from archgen.model.training_rules import (
    fp8_recipe_problem,
    hierarchy_problem,
    mtp_overlap_problem,
    offload_problem,
    sp_source,
    tp_overlap_problem,
    tp_overlap_sp_problem,
    zero_problem,
)
from archgen.units import Information

Recompute = Literal["none", "selective", "full"]
#: How a model encodes token positions (`Shape.position_embedding`).
PositionEmbedding = Literal["rope", "learned", "alibi", "none"]


def _group_routing_problem(experts: int, top_k: int, groups: int, group_topk: int) -> tuple[tuple[str], str] | None:
    """(field, why) of group-limited routing Megatron-core refuses or does not run as stated, or None.

    Read at Megatron-LM 3097d81 (Megatron-Bridge 26.04's pin, the `nemo-2025` profile's). Its config asserts the
    first two (megatron/core/transformer/transformer_config.py lines 2180-2198: experts divisible by the groups,
    group_topk at most the groups; group_topk without num_groups raises, num_groups without group_topk routes with
    no limit, hence `MoE`'s "go together"). The last two it runs, but not as the fields say (`group_limited_topk`,
    megatron/core/transformer/moe/moe_utils.py lines 618-634): with fewer experts in the chosen groups than top_k its
    `torch.topk` over the masked scores takes experts of groups it did not choose (scored -inf); with top_k below
    group_topk each group is scored by its top top_k // group_topk = 0 experts, every group scores 0, and the choice
    among them ignores the router (the same groups for every token), not the spread `group_routing` reads.
    """
    per = experts // groups if experts % groups == 0 else 0
    if not per:
        return ("router_num_groups",), (f"router_num_groups ({groups}) does not divide experts ({experts}); "
                                        f"expected a divisor, equal groups (Megatron-core asserts it)")
    if group_topk > groups:
        return ("router_group_topk",), (f"router_group_topk ({group_topk}) is larger than router_num_groups "
                                        f"({groups}); expected at most {groups} (Megatron-core asserts it)")
    if group_topk * per < top_k:
        return ("router_group_topk",), (f"router_group_topk ({group_topk}) groups of {per} experts hold "
                                        f"{group_topk * per}, fewer than top_k ({top_k}); expected at least "
                                        f"{-(-top_k // per)} groups (Megatron-core would take the rest from groups "
                                        "it did not choose)")
    if top_k < group_topk:
        return ("router_group_topk",), (f"router_group_topk ({group_topk}) is larger than top_k ({top_k}); "
                                        f"expected at most {top_k} (Megatron-core scores a group by its top "
                                        "top_k // router_group_topk experts, none here, so the groups would not "
                                        "follow the router)")
    return None


class MoE(Spec):
    """Mixture-of-experts feed-forward layers."""

    experts: int = Field(gt=0, le=100_000, description="Routed experts per MoE layer.")
    top_k: int = Field(gt=0, description="Experts each token is routed to.")
    expert_ffn: int = Field(gt=0, description="Intermediate size of one expert.")
    shared_experts: int = Field(0, ge=0, description="Always-active experts per MoE layer.")
    dense_layers: int = Field(0, ge=0, description="Leading layers that keep a dense FFN.")
    router_num_groups: int | None = Field(None, gt=0, description=(
        "Group-limited routing (Megatron-core `moe_router_num_groups`; DeepSeek-V3's config.json `n_group` 8): the "
        "routed experts split into this many equal groups of consecutive experts, each token routed inside "
        "router_group_topk of them. Stated with router_group_topk; left out, every expert is a candidate."))
    router_group_topk: int | None = Field(None, gt=0, description=(
        "Groups each token's top_k experts are chosen from (Megatron-core `moe_router_group_topk`; DeepSeek-V3's "
        "`topk_group` 4: with a group per node, a token reaches at most 4 nodes): at most router_num_groups and "
        "top_k, and groups enough to hold top_k experts (Megatron-core's rules). The deduplicated EP dispatch "
        "(`ep_dedup`) is sized by the nodes it reaches (docs/perf-model.md, Group-limited routing)."))

    @model_validator(mode="after")
    def _top_k_fits(self) -> Self:
        if self.top_k > self.experts:
            raise FieldError(("top_k",), f"top_k ({self.top_k}) is larger than the number of experts ({self.experts})")
        g, m = self.router_num_groups, self.router_group_topk
        if (g is None) != (m is None):   # Megatron raises on m without g; g without m routes with no group limit
            raise FieldError(("router_group_topk" if m is None else "router_num_groups",),
                             f"router_num_groups ({g}) and router_group_topk ({m}) go together (Megatron-core "
                             "needs both for group-limited routing); state both or neither")
        if g is None or m is None:
            return self
        problem = _group_routing_problem(self.experts, self.top_k, g, m)
        if problem:
            raise FieldError(*problem)
        return self


class LatentAttention(Spec):
    """Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, section 2.1): what its KV cache holds."""

    # The KV cache and a decode step's attention read the latent, and the projections are MLA's; the attention core
    # of a prefill or a training step keeps the model's `heads` x `head_dim` (docs/perf-model.md, Inference).

    kv_lora_rank: int = Field(gt=0, description="Rank of the compressed key-value latent (512 in DeepSeek-V3).")
    qk_rope_head_dim: int = Field(ge=0, description="Dimension of the decoupled RoPE key shared by every head (64 in "
                                                    "DeepSeek-V3).")
    qk_nope_head_dim: int = Field(gt=0, description="Per-head query and key dimension without RoPE (128 in "
                                                    "DeepSeek-V3); a head's query and key are this + qk_rope_head_dim.")
    v_head_dim: int = Field(gt=0, description="Per-head value dimension (128 in DeepSeek-V3).")
    q_lora_rank: int | None = Field(None, gt=0, description="Rank of the compressed query (1536 in DeepSeek-V3); left "
                                                            "out, the query is projected from the hidden state "
                                                            "directly (DeepSeek-V2-Lite).")


class Shape(Spec):
    """A decoder-only transformer's shape (GPT/Llama family): what a `Model` and a validation case's `model` give."""

    layers: int = Field(gt=0, le=10_000, description="Transformer blocks.")
    hidden: int = Field(gt=0, description="Model (embedding) dimension h.")
    heads: int = Field(gt=0, description="Query attention heads.")
    kv_heads: int | None = Field(None, gt=0, description="Key/value heads (GQA/MQA); defaults to `heads` (MHA).")
    head_dim: int | None = Field(None, gt=0, description="Dimension per head; defaults to hidden / heads.")
    ffn: int = Field(gt=0, description="Feed-forward intermediate size (4h for GPT-3, 28672 for Llama-2-70B).")
    vocab: int = Field(gt=0, description="Vocabulary size (padded as trained).")
    gated_ffn: bool = Field(False, description="SwiGLU/GeGLU: three FFN matrices instead of two.")
    moe: MoE | None = Field(None, description="Mixture-of-experts layers, if any.")
    mla: LatentAttention | None = Field(None, description=(
        "Multi-head latent attention (DeepSeek-V2/V3), if the model has it: its KV cache holds kv_lora_rank + "
        "qk_rope_head_dim values per token and layer, shared by every head, instead of 2 x kv_heads x head_dim."))
    mtp_layers: int = Field(0, ge=0, le=64, description=(
        "Multi-token prediction modules of the architecture (DeepSeek-V3: config.json `num_nextn_predict_layers` 1; "
        "arXiv 2412.19437, section 2.2): each a 2h-to-h projection of the normed hidden state and next token's "
        "embedding, one transformer block and the shared embedding and output head. A training job trains them only "
        "where it says so (training.mtp_layers, Megatron-core's --mtp-num-layers); serving does not read them."))
    position_embedding: PositionEmbedding | None = Field(None, description=(
        "How the model encodes positions, as its published config or paper says: rope (rotary, applied to every "
        "layer's query and key; config.json `rope_theta`), learned (absolute positions added to the input "
        "embedding once, GPT-2/GPT-3), alibi (a bias inside the attention scores) or none. Only rope adds kernels "
        "to every layer; left out, the estimate charges none and says the position embedding is not stated."))
    qk_norm: bool | None = Field(None, description=(
        "A norm over each head's query and key before attention (Qwen3: RMSNorm on q and k, Megatron-core "
        "`qk_layernorm`), as the published config or paper says; true adds its kernels to every layer. Not MLA's "
        "latent norms, which `mla` implies. Left out, the estimate charges none and says it is not stated."))
    tie_embeddings: bool = Field(False, description=(
        "The output layer reuses the input embedding, as the model's published config says (`tie_word_embeddings`:"
        " true for BLOOM, GPT-2, Gemma; false for Llama, Mixtral, DeepSeek): its parameters are counted once."))

    @model_validator(mode="after")
    def _heads_divide(self) -> Self:
        kv, errors = self.kv_heads or self.heads, []
        if self.heads % kv:
            errors.append(FieldError(("kv_heads",), f"heads ({self.heads}) must be a multiple of kv_heads ({kv})"))
        if self.head_dim is None and self.hidden % self.heads:
            errors.append(FieldError(("heads",), f"hidden ({self.hidden}) is not divisible by heads ({self.heads}); "
                                                 "give head_dim"))
        raise_each(errors, type(self).__name__)
        return self


class Model(Shape, Document):
    """A decoder-only transformer (GPT/Llama family)."""

    kind: Literal["Model"] = "Model"
    source: str = Field("", description="Where the architecture is published.")
    context_length: int | None = Field(None, gt=0, description="Longest sequence the model is published for, in "
                                       "tokens (config.json's `max_position_embeddings`), e.g. 131072; a serving "
                                       "job's input + output or a training job's seq_len beyond it is an error.")


Offload = Literal["none", "activations", "optimizer", "both"]


class Parallelism(SequenceParallel):
    """Parallel layout; every field left out is searched (`sequence_parallel` takes the stack's value)."""

    tp: int | None = Field(None, gt=0, description="Tensor-parallel size (within the scale-up domain); it divides "
                                                   "the attention heads and a dense layer's FFN.")
    pp: int | None = Field(None, gt=0, description="Pipeline-parallel stages.")
    dp: int | None = Field(None, gt=0, description="Data-parallel replicas.")
    cp: int = Field(1, gt=0, description="Context-parallel size (sequence split across ranks, exchanged as "
                                         "`cp_comm_type` says: ring attention under p2p, the default); above 1 it "
                                         "needs Transformer Engine's attention (attention flash).")
    ep: int = Field(1, gt=0, description="Expert-parallel size (MoE). Megatron-core folds it over a pipeline "
                                         "stage's tp x cp x dp ranks (MoE parallel folding): etp x ep must divide "
                                         "them, ep need not divide dp.")
    hierarchical_context_parallel_sizes: tuple[Annotated[int, Field(gt=0)], Annotated[int, Field(gt=0)]] | None = \
        Field(None, description="The [a2a, p2p] groups of cp_comm_type a2a+p2p (Megatron-LM "
                                "--hierarchical-context-parallel-sizes): all-to-alls inside the first, consecutive "
                                "CP ranks, the ring over the second; their product is cp. Needed with a2a+p2p at "
                                "cp > 1, refused with any other type.")
    etp: int | None = Field(None, gt=0, description="Expert tensor-parallel size (expert_tensor_parallel_size): "
                                                    "ways each expert's FFN is split (it must divide the expert FFN); "
                                                    "left out: searched where the stack folds the experts (MoE "
                                                    "parallel folding, Megatron-core 0.10 on), else tp.")
    interleave: int | None = Field(None, gt=0, description="Virtual stages per pipeline rank (interleaved 1F1B).")
    micro_batch: int | None = Field(None, gt=0, description="Sequences per micro-batch.")
    zero: Literal[0, 1, 2, 3] | None = Field(
        None, description="Sharding over DP: 0 none, 1 optimizer state (the distributed optimizer), 2 + gradients, "
                          "3 + weights (FSDP). Left out: searched over the stages the stack runs (only 0 under a "
                          "stated distributed_optimizer false, only 1-3 under true), or the stack's distributed "
                          "optimizer in a layout stated whole; a stage that contradicts a stated "
                          "distributed_optimizer is an error.")
    offload: Offload | None = Field(
        None, description="What goes to host memory: activations (Megatron-core fine-grained activation offloading), "
                          "optimizer (--optimizer-cpu-offload: state and step on the CPU), both, or none; needs the "
                          "node's `host_memory`. optimizer and both need the distributed optimizer (zero 1-3; "
                          "Megatron-LM refuses them at zero 0). Left out: searched where memory binds (the offloads "
                          "the stack runs), none in a stated layout.")
    embedding_slot: bool | None = Field(
        None, description="Count the embedding as a layer slot of the first pipeline stage (Megatron-core "
                          "account_for_embedding_in_pipeline_split); left out: both slots when only they make the "
                          "layers divide.")
    loss_slot: bool | None = Field(None, description="Count the loss as a layer slot of the last pipeline stage "
                                                     "(account_for_loss_in_pipeline_split).")
    first_stage_layers: int | None = Field(None, gt=0, description="Layers on the first pipeline stage "
                                                                    "(num_layers_in_first_pipeline_stage).")
    last_stage_layers: int | None = Field(None, gt=0, description="Layers on the last pipeline stage "
                                                                   "(num_layers_in_last_pipeline_stage).")
    pipeline_layout: str | None = Field(
        None, description="Megatron-core pipeline_model_parallel_layout, e.g. 'Et*4|(t*4|)*14tmL': stages split by |, "
                          "E embedding, t layer, L loss, m an MTP layer (as many as training.mtp_layers, just before "
                          "L); sets interleave.")


def layout_said(text: str) -> str:
    """`text`, which names layout fields as a spec does ("micro_batch 1"), with each in a customer's words.

    The words of every `Parallelism` field come from the one table, `field_words.said` ("micro-batch size 1"), so a
    message about a layout needs no words of its own for a key that is not a word.
    """
    return keys_said(text, Parallelism.model_fields)


class TrainingJob(Spec):
    """What a training job trains on: sequence length, batch, precision and recomputation."""

    seq_len: int = Field(gt=0, description="Tokens per sequence.")
    global_batch: int = Field(gt=0, description="Sequences per optimizer step.")
    precision: Precision = Field("bf16", description="GEMM data type (fp16, bf16, fp8, fp4).")
    recompute: Recompute | None = Field(None, description="Activation recomputation; searched when left out.")
    mtp_layers: int = Field(0, ge=0, le=64, description=(
        "Multi-token prediction layers the run trains (Megatron-core's --mtp-num-layers, `mtp_num_layers`; "
        "DeepSeek-V3 trained 1), at most the model's mtp_layers. Each adds, on the last pipeline stage as "
        "Megatron-core places them, a transformer block of the model's last layer's kind, its 2h-to-h projection, "
        "and the output layer's GEMM and cross entropy again: FLOPs, weights, optimizer state and activations. The "
        "tokens per second count the same tokens (docs/perf-model.md, Training: multi-token prediction). Left out: "
        "0, Megatron-core's default."))


class Training(StackSwitches, TrainingJob):
    """A pre-training job: the job, its stack and switches (`archgen.model.switches`), and its parallel layout."""

    parallelism: Parallelism = Field(default_factory=Parallelism, description="Parallel layout (optional).")

    @model_validator(mode="after")
    def _recipe_needs_fp8(self) -> Self:
        if problem := fp8_recipe_problem(self.precision, self.fp8_recipe):
            raise FieldError(("fp8_recipe",), problem)
        if problem := zero_problem(self.distributed_optimizer, self.parallelism.zero):
            raise FieldError(("parallelism", "zero"), problem)
        if problem := offload_problem(self.distributed_optimizer, self.parallelism.zero, self.parallelism.offload):
            raise FieldError(("parallelism", "offload"), problem)
        if self.attention == "materialized" and (self.parallelism.cp or 1) > 1:
            raise FieldError(("parallelism", "cp"), f"cp {self.parallelism.cp} needs Transformer Engine's attention, "
                             "and attention is stated materialized (Megatron-core's own attention asserts 'Context "
                             "parallelism is only supported by TEDotProductAttention!', megatron/core/transformer/"
                             "dot_product_attention.py); expected cp 1, or attention flash or left out")
        if problem := hierarchy_problem(self.cp_comm_type, self.parallelism.cp,
                                        self.parallelism.hierarchical_context_parallel_sizes):
            raise FieldError(("parallelism", "hierarchical_context_parallel_sizes"), problem)
        if problem := tp_overlap_problem(self.precision, self.overlap_tp_comm, self.fp8_recipe):
            raise FieldError(("overlap_tp_comm",), problem)
        ep_overlap = SWITCHES["overlap_ep_comm"].default(self.stack) if self.overlap_ep_comm is None else \
            self.overlap_ep_comm
        if problem := mtp_overlap_problem(bool(ep_overlap), self.mtp_layers):
            raise FieldError(("mtp_layers",), problem)
        sp = self.parallelism.sequence_parallel
        on = bool(SWITCHES["sequence_parallel"].default(self.stack)) if sp is None else sp
        if problem := tp_overlap_sp_problem(self.overlap_tp_comm, on, sp_source(sp, self.stack), self.parallelism.tp):
            raise FieldError(("overlap_tp_comm",), problem)
        return self


def job_kind(spec: object, noun: str) -> str:
    """The one job a workload (or validation case) describes: 'training', 'inference' or 'collective'.

    Raises ValueError unless exactly one is given, and a training or inference job names its model.
    """
    jobs = [k for k in ("training", "inference", "collective") if getattr(spec, k) is not None]
    if len(jobs) != 1:
        raise ValueError("give exactly one of 'training', 'inference' or 'collective'")
    if jobs[0] != "collective" and getattr(spec, "model", None) is None:
        raise ValueError(f"a {jobs[0]} {noun} needs 'model'")
    return jobs[0]


class Collective(Spec):
    """A collective benchmark (as nccl-tests runs it) over the workload's accelerators."""

    op: Literal["all_reduce", "all_gather", "reduce_scatter", "all_to_all"] = Field(description="The collective.")
    size: Information = Field(description="Message size as nccl-tests reports it, e.g. '8 GiB': each rank's buffer "
                                          "for all_reduce and all_to_all, the full gathered buffer for all_gather "
                                          "and reduce_scatter.")
    algorithm: Literal["auto", "ring", "tree", "hierarchical", "nvls", "nvls_tree", "sharp", "pat"] = Field(
        "auto", description="NCCL algorithm; 'auto' takes the fastest algorithm and protocol NCCL enables by "
                            "default on this hardware (ring, tree, NVLS, NVLSTree, PAT). 'sharp' (CollNet) and 'nvls' "
                            "across scale-up domains reduce in the scale-out switches and need them to have SHARP; "
                            "'hierarchical' is archgen's pipelined reduce-scatter / across / all-gather.")


class JobPlacement(Spec):
    """How the job's ranks lie on the cluster's scale-up domains (a Slurm segment; docs/perf-model.md, placement)."""

    per_domain: int = Field(gt=0, description=(
        "Accelerators of the job in each scale-up domain it runs on, whole nodes, e.g. 64 of an NVL72's 72: "
        "Slurm's `--segment=16` of 4-GPU trays, as Megatron-Bridge's GB200 launcher asks for "
        "(scripts/performance/utils/executors.py `slurm_executor`). The rest of each domain's trays stay idle: the "
        "job's hot spares (docs/reliability.md). Left out, the ranks fill whole domains in order."))


class Workload(Document):
    """A training, inference or collective job on a cluster, with optional parallelism and targets."""

    kind: Literal["Workload"] = "Workload"
    model: Ref | None = Field(None, description="Id of the `Model` (training and inference).")
    cluster: Ref | None = Field(None, description="Id of the cluster it runs on (or give it on the command line).")
    accelerators: int | None = Field(None, gt=0, description="Accelerators used; defaults to the whole cluster.")
    placement: JobPlacement | None = Field(None, description=(
        "Accelerators of the job per scale-up domain (`per_domain`); left out, its ranks fill whole domains in "
        "order, the last one partly."))
    training: Training | None = Field(None, description="Training job.")
    inference: Inference | None = Field(None, description="Inference job.")
    collective: Collective | None = Field(None, description="Collective benchmark, e.g. an all-reduce busbw target.")
    checkpoint: Checkpointing = Field(default_factory=Checkpointing, description=(
        "Checkpointing, restart and token budget of a training job (docs/reliability.md); refused on an inference or "
        "collective workload, which reads none of it."))
    dataset: Dataset | None = Field(None, description=(
        "The training data the job reads from its cluster's `storage:`: bytes per token and size, e.g. "
        "{read_per_token: 4 B, size: 60 TB, basis: sourced, source: '...'} (docs/reliability.md); refused on an "
        "inference or collective workload. Left out: `dataset_read_bandwidth` is not provided."))
    requirements: WorkloadRequirements = Field(
        default_factory=list, description="Targets on performance, reliability or cost metrics, e.g. "
                                          "{metric: mfu, target: '>= 0.4'} or {metric: goodput, target: '>= 0.9'}.")

    @model_validator(mode="after")
    def _one_job(self) -> Self:
        errors = []
        kind = job_kind(self, "workload")
        if kind != "training" and "checkpoint" in self.model_fields_set:   # read by training alone (newuser52)
            errors.append(FieldError(("checkpoint",), f"checkpoint (interval, restart, token budget, goodput target; "
                                     f"docs/reliability.md) applies to a training job; this {kind} workload would "
                                     "leave it unused: remove checkpoint"))
        if kind != "training" and self.dataset is not None:
            errors.append(FieldError(("dataset",), f"dataset (what a training job reads from storage) applies to a "
                                                   f"training job; this {kind} workload would leave it unused: "
                                                   "remove dataset"))
        if kind == "collective":
            if self.model is not None:
                errors.append(FieldError(("model",), f"a collective workload runs no model; remove 'model: "
                                                     f"{self.model}'"))
            if self.accelerators is not None and self.accelerators < 2:
                errors.append(FieldError(("accelerators",), f"a collective needs at least 2 accelerators, got "
                                                            f"{self.accelerators}"))
        errors += [FieldError(("requirements", i, "target"), problem) for i, req in enumerate(self.requirements)
                   if (problem := mfu_target_problem(req))]
        raise_each(errors, type(self).__name__)
        return self


def mfu_target_problem(req: Requirement) -> str | None:
    """Why a requirement's target cannot be an MFU (a fraction of peak written as a percentage), or None."""
    limit = req.target.limit
    share = limit.to("dimensionless").magnitude if limit.dimensionless else 0.0
    if req.metric == "mfu" and share > 1:
        return (f"requirement {req.id}: mfu is a fraction of peak, at most 1, got {share:g}; write e.g. '>= 0.35' "
                "or '>= 35 %'")
    if req.metric == "goodput" and share > 1:
        return (f"requirement {req.id}: goodput is a fraction of wall time, at most 1, got {share:g}; write e.g. "
                "'>= 0.9' or '>= 90 %'")
    return None
