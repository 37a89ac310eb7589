"""The training switches, declared once: each field below is one row of the table (`SWITCHES`).

A switch is a choice the training stack makes that moves the step time or the memory (the attention kernel, what
overlaps what, the dtypes on the wire). Each is a field (name, type and so its allowed values, description) with its
value under every stack profile and where that value is read (`ByStack`). From these two classes come a Workload's
`training` switches (and `parallelism.sequence_parallel`), a validation case's, the profiles the performance model
resolves (`archgen.perf.train.stacks`) and the defaults of its internal job (`archgen.perf.train.job.Job`);
a test holds each of them to this table. A job that states no `stack` takes the newest profile (`DEFAULT_STACK`),
and a stated switch always wins over the profile.

The profiles (read from each framework's own code and recipes; nothing in them is fitted to a measurement):

* `megatron-lm-2021`: Megatron-LM as the SC21 paper and the 2021-22 runs used it (NVIDIA/Megatron-LM v2.x).
* `megatron-core-2024`: NeMo 24.x, the stack the scored MLPerf Training v4.1 runs used: NeMo v2.0.0 (24.09), on
  Megatron-core core_r0.9.0, its model configs, recipes (nemo/collections/llm/) and precision plugins, each value
  cited to its file and line at that tag; where NeMo leaves a switch to Megatron-core, core_v0.9.0's default. Plain
  Megatron-LM runs differ in three switches (dropout, cross_entropy, param_gather_dtype under FP8): a case that
  ran it states them (docs/perf-model.md, Stack profiles).
* `nemo-2025`: NeMo 2 / Megatron-Bridge recipes (src/megatron/bridge/training/mixed_precision.py, comm_overlap.py,
  recipes/) and NeMo's published performance configurations (scripts/performance/).
* `primus-2025`: AMD's Primus (AMD-AGI/Primus at fd1eeab, Megatron-LM on ROCm): its module defaults
  (primus/configs/modules/megatron/) and model bases (primus/configs/models/megatron/), and where AMD's 168 published
  MI300X and MI355X LLM pre-training configs (examples/megatron/configs/*/*-pretrain.yaml) mostly set a switch, their
  value; a switch Primus leaves out is Megatron-core's default, and each source says which.

Two rules depend on the precision and are applied when a profile is resolved (`perf.train.stacks.resolve`): fp16
training keeps fp16 gradients (Megatron's fp16 path, Megatron-Bridge's `fp16_mixed`), and the FP8 parameter gather
applies to FP8 training only.
"""

from typing import Annotated, Literal, Self

from pydantic import Field, field_validator, model_validator

from archgen.model.spec import FieldError, Spec, raise_each
from archgen.model.stack_features import missing, without
from archgen.model.stack_profiles import DEFAULT_STACK, ByStack, Stack
from archgen.model.switch_table import TrainingSwitch, rows, whole_tensor_bucket
from archgen.model.training_rules import shared_overlap_problem

AttentionKernel = Literal["flash", "materialized"]
GradDtype = Literal["fp32", "bf16", "fp16"]
GatherDtype = Literal["bf16", "fp8"]
#: Transformer Engine recipes archgen models, by training precision (Megatron-LM's `--fp8-recipe` names;
#: `blockwise` is Megatron-core's Fp8Recipe.blockwise, which builds TE's `Float8BlockScaling`: NVIDIA/Megatron-LM at
#: 3097d81, megatron/core/enums.py line 18, megatron/core/fp8_utils.py lines 565-566; `archgen.perf.hw.quant`).
Fp8Recipe = Literal["delayed", "tensorwise", "mxfp8", "blockwise"]
MoeDispatcher = Literal["alltoall", "deepep", "hybridep"]
#: The output layer's cross entropy: Megatron's unfused FP32 one, Megatron-core's fused one (impl 'native') or
#: Transformer Engine's Triton kernels (impl 'te'); bytes per logit in `archgen.perf.train.loss`.
CrossEntropy = Literal["unfused", "native", "te"]
#: Megatron-core's CUDA-graph scopes (`cuda_graph_scope`, transformer_config.py at 3097d81), joined by "+" in the
#: order Megatron lists them; "none" is `cuda_graph_impl` "none". moe_preprocess needs moe_router (its assert).
CudaGraphs = Literal["none", "attn", "moe_router", "moe_router+moe_preprocess", "attn+moe_router",
                     "attn+moe_router+moe_preprocess", "full_iteration"]
#: Context parallelism's communication (Megatron-LM --cp-comm-type; `archgen.perf.train.cp_comm`).
CpCommType = Literal["p2p", "a2a", "allgather", "a2a+p2p"]
#: Megatron-core's own DDP bucket (`bucket_size` None: max(40M, 1M x DP size) parameters; `ddp_bucket_size`).
BucketDefault = Literal["default"]

#: The sources the settings below cite, shortened.
_LM21 = "Megatron-LM v2.x (SC21)"
_ARGS = "Megatron-LM megatron/training/arguments.py"
_NEMO24 = "NeMo v2.0.0 (24.09, on Megatron-core core_r0.9.0: Dockerfile.ci:55)"
_NEMO24_GPT = f"{_NEMO24} nemo/collections/llm/gpt/model/base.py"
_NEMO24_175B = f"{_NEMO24} nemo/collections/llm/recipes/gpt3_175b.py"
_NEMO24_PRECISION = f"{_NEMO24} nemo/collections/llm/recipes/precision/mixed_precision.py"
_BRIDGE = "Megatron-Bridge"
_PRIMUS = "Primus fd1eeab"
_PMODULE = "Primus fd1eeab primus/configs/modules/megatron"
_PMODEL = "Primus fd1eeab primus/configs/models/megatron"
_PEX = "Primus fd1eeab examples/megatron/configs/MI300X and MI355X *-pretrain.yaml"


class SequenceParallel(Spec):
    """The switch a parallel layout carries (a Workload's `parallelism`; a case's `training`)."""

    sequence_parallel: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: sequence parallelism arrived in 2022 (Korthikanti et al., arXiv 2205.05198)"),
        (True, f"{_NEMO24_175B}:65: sequence_parallelism True (Mixtral 8x7B's recipe turns it off, "
               "mixtral_8x7b.py:65)"),
        (True, f"{_BRIDGE} recipes: sequence_parallel with TP > 1"),
        (True, f"{_PMODEL}/language_model.yaml:166: sequence_parallel: true"))] = Field(
        None, description="Megatron sequence parallelism with TP; the stack's default when left out.")


class StackSwitches(Spec):
    """The training stack and the switches it sets; each left out (None) takes the stack's value."""

    stack: Stack = Field(DEFAULT_STACK, description="Training stack whose profile fills every switch left out; the "
                                                    "newest of the accelerator's vendor when left out (primus-2025 "
                                                    "on AMD, nemo-2025 on others; docs/perf-model.md, Stack "
                                                    "profiles).")
    attention: Annotated[AttentionKernel | None, ByStack(
        ("materialized", f"{_LM21}: Megatron's fused softmax (FlashAttention postdates the runs)"),
        ("flash", f"{_NEMO24_GPT}:138-143: default_layer_spec is Transformer Engine's wherever it imports (fused/flash "
                 "attention)"),
        ("flash", f"{_BRIDGE} recipes: Transformer Engine fused attention"),
        ("flash", f"{_PMODULE}/pre_trainer.yaml:30: use_flash_attn: true; {_PMODEL}/language_model.yaml:48: "
                  "transformer_impl: transformer_engine (ROCm TE fused attention)"))] = Field(
        None, description="Attention kernel: flash or materialized scores.")
    distributed_optimizer: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: --DDP-impl local; --use-distributed-optimizer arrived in 2022"),
        (True, f"{_NEMO24} nemo/collections/llm/recipes/optim/adam.py:45: use_distributed_optimizer=True (the "
               "recipes' distributed_fused_adam_with_cosine_annealing, e.g. gpt3_175b.py:191)"),
        (True, f"{_BRIDGE} recipes: use_distributed_optimizer=True"),
        (True, f"{_PMODULE}/pre_trainer.yaml:32: use_distributed_optimizer: true (the dense MI355X "
               "configs run torch FSDP2 instead: use_torch_fsdp2: true)"))] = Field(
        None, description="Shard optimizer state over DP ranks (Megatron's distributed optimizer, ZeRO-1). True "
                          "allows ZeRO stages 1 to 3: with `parallelism.zero` left out the layout search takes the "
                          "fastest of them, so state `zero: 1` for ZeRO-1 alone; false holds it to 0.")
    grad_reduce_dtype: Annotated[GradDtype | None, ByStack(
        ("fp32", f"{_LM21}: the local DDP all-reduces fp32 main gradients"),
        ("fp32", f"{_NEMO24_PRECISION}:30: bf16_mixed grad_reduce_in_fp32=True (gpt3_175b.py:116 alike), as "
                 "Megatron-LM: 'bfloat16 requires gradient accumulation and all-reduce to be done in fp32'"),
        ("bf16", f"{_BRIDGE} scripts/performance, the configs its published tables and NeMo's MLPerf runs ran: every "
                 "LLM pre-training config sets mixed_precision and ddp grad_reduce_in_fp32 = False (v0.2.0 to "
                 "v0.5.1 configs/*/*_llm_pretrain.py, e.g. v0.4.2 qwen/qwen3_llm_pretrain.py:41-42, "
                 "llama/llama31_llm_pretrain.py:42-43; v0.6.0 perf_recipes/_common.py:71-72; NeMo 2.6 "
                 "scripts/performance/helpers.py set_precision_configs; MLPerf Training v5.0 and v5.1 NeMo "
                 "pretrain.py); the library's bf16_mixed (training/mixed_precision.py:202) reduces in fp32: "
                 "state grad_reduce_dtype fp32 for a run on it"),
        ("fp32", f"{_PMODULE}/trainer_base.yaml:41: grad_reduce_in_bf16: false, so Megatron-LM's fp32 "
                 "reduction of bf16 training"))] = Field(
        None, description="Gradient buffer and DP reduction dtype.")
    param_gather_dtype: Annotated[GatherDtype | None, ByStack(
        ("bf16", f"{_LM21}: no distributed optimizer, no FP8 parameters"),
        ("fp8", f"{_NEMO24_PRECISION}:53: bf16_with_fp8_mixed sets fp8_params=True, which turns fp8_param_gather on "
                "(nemo/lightning/pytorch/plugins/mixed_precision.py:104-106); MLPerf Training v4.1 NeMo GPT-3: "
                "FP8_PARAMS=True (Megatron-LM's --fp8-param-gather is off by default)"),
        ("fp8", f"{_BRIDGE} training/mixed_precision.py: the FP8 recipes set fp8_param_gather=True"),
        ("bf16", f"{_PMODULE}/trainer_base.yaml:59: fp8_param_gather: false"))] = Field(
        None, description="Distributed optimizer's weight all-gather dtype (fp8: fp8_param_gather, FP8 runs).")
    overlap_grad_reduce: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: the local DDP all-reduces after the backward pass"),
        (True, f"{_NEMO24_175B}:117: overlap_grad_reduce=True"),
        (True, f"{_BRIDGE} training/comm_overlap.py: overlap_grad_reduce with dp > 1"),
        (True, f"{_PEX}: overlap_grad_reduce: true in 154 of the 168 (trainer_base.yaml:171 "
               "false)"))] = Field(
        None, description="Overlap the DP gradient reduction with backward.")
    overlap_param_gather: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no distributed optimizer, so no parameter gather"),
        (True, f"{_NEMO24_175B}:118: overlap_param_gather=True"),
        (True, f"{_BRIDGE} training/comm_overlap.py: overlap_param_gather with dp > 1"),
        (True, f"{_PEX}: overlap_param_gather: true in 126 of the 168, false with torch FSDP2 "
               "(trainer_base.yaml:172 false)"))] = Field(
        None, description="Overlap the DP weight all-gather with forward.")
    overlap_tp_comm: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no TP communication overlap"),
        (False, f"{_NEMO24} nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py:116: off unless asked "
                "(gpt3_175b.py:228 asks in its performance recipe only)"),
        (True, f"{_BRIDGE} scripts/performance/utils/overrides.py, recipes/llama/h100/llama3.py: on with TP > 1 "
               "and SP"),
        (False, f"{_PMODEL}/language_model.yaml:180: tp_comm_overlap: false; none of the 168 sets "
                "it"))] = Field(
        None, description="Overlap tensor-parallel collectives with the layer GEMMs (Transformer Engine userbuffers, "
                          "Megatron-Core tp_comm_overlap); needs sequence parallelism: off where it is stated "
                          "off, and stated true without it an error. Off under fp4 (Transformer Engine's "
                          "userbuffers take no NVFP4 tensor), and stated true there an error.")
    overlap_p2p_comm: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: blocking pipeline sends (--overlap-p2p-communication was opt-in)"),
        (True, f"{_NEMO24} nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py:136: overlap_p2p_comm with "
               "virtual pipelining in the performance recipes (the callback gpt3_175b.py:228 adds), as MLPerf "
               "Training v4.0/v4.1 NeMo GPT-3 conf/custom.yaml (OVERLAP_P2P_COMM default True); the plain recipes "
               "keep core_v0.9.0's False (model_parallel_config.py:228): state it for such a run"),
        (True, f"{_BRIDGE} training/comm_overlap.py: overlap_p2p_comm with virtual pipelining"),
        (True, f"{_PMODULE}/trainer_base.yaml:161: overlap_p2p_comm: true"))] = Field(
        None, description="Overlap the pipeline's point-to-point sends with the next chunk in the steady state of the "
                          "interleaved schedule; no effect without interleave.")
    ep_dedup: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no MoE token dispatcher"),
        (False, "Megatron-core alltoall dispatcher: every routed copy is sent, in BF16"),
        (True, f"{_BRIDGE} MoE recipes: the flex dispatcher (see moe_dispatcher)"),
        (True, f"{_PEX}: the MoE ones set use_turbo_deepep: true (see moe_dispatcher)"))] = Field(
        None, description="MoE dispatch sends a token once per destination node (DeepEP/HybridEP); left out, it "
                          "follows a stated moe_dispatcher (true for deepep and hybridep).")
    moe_dispatcher: Annotated[MoeDispatcher | None, ByStack(
        ("alltoall", f"{_LM21}: no MoE token dispatcher (the plain all-to-all stands in; no MoE case uses it)"),
        ("alltoall", f"{_NEMO24} nemo/collections/llm/"
                     "gpt/model/mixtral.py:63: moe_token_dispatcher_type 'alltoall' (its one MoE model family), as "
                     "the Megatron-core MoE README advises for EP > 1; core_v0.9.0's own default is 'allgather' "
                     "(transformer_config.py:270, arguments.py:1884), which archgen does not model"),
        ("hybridep", f"{_BRIDGE} 26.04-alpha.rc2 scripts/performance/configs: moe_flex_dispatcher_backend='hybridep' "
                     "in the Qwen3 (H100 EP16 included), Kimi, GPT-OSS and DeepSeek-V3 base configs (DeepEP only "
                     "in DeepSeek-V3 B200 FP8-MX/NVFP4); v0.2.2's Qwen3 base configs already set hybridep"),
        ("deepep", f"{_PEX}: 36 of the 37 MoE ones set use_turbo_deepep: true (the model bases' "
                   "alltoall, e.g. deepseek_v3_base.yaml:34, is then replaced): flex with Primus-Turbo's DeepEP "
                   "(backends/megatron/patches/turbo/moe_dispatcher_patches.py:59-60); costed as NVIDIA's DeepEP, "
                   "Turbo's own per-call cost unstated"))] = Field(
        None, description="MoE token dispatcher backend: alltoall (Megatron-core's NCCL all-to-all), deepep or "
                          "hybridep (the flex dispatcher's backends); sets the per-call host and synchronisation "
                          "cost (docs/perf-model.md, Training: MoE dispatcher per-call cost). Left out with "
                          "ep_dedup stated, it follows ep_dedup (false: alltoall; true under a profile whose "
                          "dispatcher is alltoall: deepep, Megatron-core's default flex backend).")
    overlap_ep_comm: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no MoE token dispatcher"),
        (False, without("megatron-core-2024", "overlap_ep_comm")),
        (False, f"{_BRIDGE}: overlap_moe_expert_parallel_comm stays off unless asked"),
        (False, f"{_PMODULE}/trainer_base.yaml:235: overlap_moe_expert_parallel_comm: false; "
                "primus_megatron_module.yaml:86: patch_moe_overlap: false"))] = Field(
        None, description="Overlap the MoE all-to-all with another micro-batch's compute.")
    moe_shared_expert_overlap: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no MoE token dispatcher"),
        (False, without("megatron-core-2024", "moe_shared_expert_overlap")),
        (False, f"{_BRIDGE} 26.04-alpha.rc2 training/flex_dispatcher_backend.py:72: the profile's flex dispatcher "
                "sets it False (over the DeepSeek, GLM and Kimi providers' True)"),
        (False, f"{_PMODEL}/language_model.yaml:108: false; 47 of the 168 set it false, none true"))] = Field(
        None, description="The shared experts' FC1 beside the MoE dispatch and FC2 beside the combine (Megatron-core "
                          "moe_shared_expert_overlap), not before the router (docs/perf-model.md, Training: "
                          "shared-expert overlap). An error with overlap_ep_comm true (exclusive in Megatron-core).")
    moe_force_balance: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no MoE router"), (False, without("megatron-core-2024", "moe_force_balance")),
        (True, f"{_BRIDGE} v0.4.2 scripts/performance/configs/qwen/qwen3_llm_pretrain.py:44 (deepseek, gpt_oss, kimi, "
               "nemotron_3 alike): moe_router_force_load_balancing = True, 'required for token dropless'"),
        (True, f"{_PEX}: 89 of the 91 setting it set true (primus_megatron_model.yaml:3 false)"))] = Field(
        None, description="The MoE router replaces its logits by random ones (Megatron-core moe_router_force_load_"
                          "balancing, benchmarks): 2 kernels more a MoE layer (docs/perf-model.md, Host time).")
    dropout: Annotated[bool | None, ByStack(
        (True, "Megatron-LM: hidden and attention dropout 0.1"),
        (False, f"{_NEMO24} nemo/collections/llm/gpt/model: hidden and attention dropout 0.0 in GPTConfig175B "
                "(base.py:318-319), LlamaConfig (llama.py:48-49), MixtralConfig (mixtral.py:54-55) and every other "
                "model family but Starcoder's (0.2) and the small GPTConfig sizes (Megatron-core's 0.1); MLPerf "
                "Training v4.0/v4.1 NeMo GPT-3 conf/custom.yaml: hidden_dropout 0.0"),
        (False, f"{_BRIDGE} Llama and Qwen model bridges: hidden_dropout=0.0"),
        (False, f"{_PMODEL}/llama_base.yaml:12-13: hidden and attention dropout 0.0, which the Llama, Qwen, "
                "Mixtral and DeepSeek bases extend (language_model.yaml:30 keeps 0.1)"))] = Field(
        None, description="Dropout on (its masks are stored with the activations).")
    fp8_recipe: Annotated[Fp8Recipe | None, ByStack(
        ("delayed", f"{_ARGS}: --fp8-recipe default 'delayed'"),
        ("delayed", without("megatron-core-2024", "fp8_recipe")),
        ("tensorwise", f"{_BRIDGE} docs/performance-summary.md (NeMo 25.11): FP8-CS, current scaling"),
        ("delayed", f"{_PMODULE}/trainer_base.yaml:54: fp8_recipe: delayed; 163 of the 168 example configs "
                    "leave it (3 tensorwise, 1 mxfp8)"))] = Field(
        None, description="Transformer Engine scaling recipe of FP8 training: delayed, tensorwise (current scaling), "
                          "mxfp8 (32-value blocks, E8M0 scales; compute capability 10.0 or higher, as Transformer "
                          "Engine requires) or blockwise (Float8BlockScaling: 1x128 activation and gradient tiles, "
                          "128x128 weight blocks, FP32 scales, as DeepSeek-V3 trained; compute capability 9.0 or "
                          "higher; no userbuffers TP overlap). An error on any other precision: a 16-bit job has no "
                          "FP8 tensors, and FP4 training follows NVFP4.")
    permute_in_dispatch: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no MoE token dispatcher"),
        (False, without("megatron-core-2024", "permute_in_dispatch")),
        (False, "Megatron-core transformer_config.py at 3097d81 (the Megatron-LM commit Megatron-Bridge "
                "26.04-alpha.rc2 pins): moe_permute_fusion_into_hybridep = False; the 26.04 performance configs "
                "(scripts/performance/configs/qwen) do not set it"),
        (False, f"{_PRIMUS}: no HybridEP (NVIDIA's); moe_permute_fusion_into_hybridep is left at "
                "Megatron-core's default, False"))] = Field(
        None, description="HybridEP's dispatch and combine kernels write and read the tokens in expert order "
                          "themselves (Megatron-core moe_permute_fusion_into_hybridep true): no separate permute and "
                          "unpermute (docs/perf-model.md, Training: MoE token permutation). HybridEP only.")
    grad_accum_fusion: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no such flag in v2.0, v2.5 or v2.6 (Aug 2021); --no-gradient-accumulation-fusion (on by "
                "default) arrived in Megatron-LM 83b1e42 (Feb 2022, megatron/arguments.py)"),
        (True, f"{_NEMO24_GPT}:172: gradient_accumulation_fusion wherever its fused kernel imports; Megatron-LM "
               "core_v0.9.0 megatron/training/arguments.py:1245: --no-gradient-accumulation-fusion "
               "(store_false: on by default); TE Linear, LayerNormLinear and GroupedLinear take "
               "fuse_wgrad_accumulation from it (megatron/core/extensions/transformer_engine.py:180,302,659)"),
        (True, f"{_BRIDGE} 26.04-alpha.rc2 src/megatron/bridge/models/gpt_provider.py:200: default "
               "can_enable_gradient_accumulation_fusion() (utils/fusions.py:34: true wherever Transformer Engine "
               "imports)"),
        (False, f"{_PEX}: gradient_accumulation_fusion: false in 134 of the 168 "
                "(language_model.yaml:178 true)"))] = Field(
        None, description="The weight-gradient GEMMs accumulate into the main gradient in their epilogue "
                          "(Megatron's gradient_accumulation_fusion; Transformer Engine fuse_wgrad_accumulation): no "
                          "separate accumulation pass for the linear layers' weights (docs/perf-model.md, Training: "
                          "gradient accumulation).")

    cuda_graphs: Annotated[CudaGraphs | None, ByStack(
        ("none", f"{_LM21}: no CUDA graphs"),
        ("none", "Megatron-LM core_v0.9.0 megatron/core/transformer/transformer_config.py:304: enable_cuda_graph "
                 "= False"),
        ("none", f"{_BRIDGE}: Megatron-core's default cuda_graph_impl 'none' (transformer_config.py at 3097d81); "
                 "recipes opt in per model and GPU: v0.4.0 scripts/performance/configs/qwen/"
                 "qwen3_workload_base_configs.py QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_BF16_V1 sets transformer_engine "
                 "[moe_router, moe_preprocess], its FP8_CS_V1 twin none"),
        ("none", f"{_PMODULE}/trainer_base.yaml:429: enable_cuda_graph: false; none of the 168 sets "
                 "HIP graphs"))] = Field(
        None, description="Scopes of each layer captured in CUDA graphs (Megatron-core cuda_graph_scope, "
                          "'+'-joined: attn, moe_router, moe_preprocess; full_iteration: the whole iteration, "
                          "cuda_graph_impl local at Megatron-core 3097d81, full_iteration in later versions; none: "
                          "no graphs). The host issues a captured scope as one graph launch per pass instead "
                          "of its operations (docs/perf-model.md, Training: Host time).")
    ddp_bucket_size: Annotated[int | BucketDefault | None, ByStack(
        ("default", f"{_LM21}: the local DDP all-reduces after the backward pass (no overlap: one collective)"),
        ("default", f"{_NEMO24_175B}:114-119: the DDP config sets no bucket_size (nor does MLPerf v4.1's "
                    "custom.yaml, read by megatron_gpt_model.py:559), so Megatron-core's: distributed_data_parallel.py "
                    "at core_v0.14.0, lines 62-65, max(40M, 1M x the DP size without CP) parameters; the performance "
                    "recipes' MegatronCommOverlapCallback sets 128 Mi with dp > 1 (megatron_comm_overlap.py:166)"),
        (134217728, f"{_BRIDGE} src/megatron/bridge/training/comm_overlap.py at aae8200, `_get_optimizer_overlap_"
                    "cfgs`: bucket_size 128 * 1024 * 1024 with dp > 1, applied by `setup` with the distributed "
                    "optimizer only (lines 634-642; without it Megatron-core's default); NeMo 2's "
                    "MegatronCommOverlapCallback the same"),
        ("default", f"{_PMODULE}/trainer_base.yaml:168: ddp_bucket_size: null, left to Megatron-core's "
                    "default; no LLM config of the 168 sets it"))] = Field(
        None, description="Parameters per DDP bucket (Megatron-core `bucket_size`), each bucket's gradients "
                          "reduced and weights gathered as one collective with overlap_grad_reduce; 'default' is "
                          "Megatron-core's max(40M, 1M x the DP size without CP) (docs/perf-model.md, Training: DP).")

    @field_validator("ddp_bucket_size", mode="before")
    @classmethod
    def _bucket_of_whole_tensors(cls, value: object) -> object:
        """A stated DDP bucket is a count of at least `MIN_BUCKET` parameters (`switch_table.whole_tensor_bucket`)."""
        return whole_tensor_bucket(value)
    cross_entropy: Annotated[CrossEntropy | None, ByStack(
        ("unfused", f"{_LM21}: megatron/model/gpt_model.py:56 at v2.6, vocab_parallel_cross_entropy(output.float(), "
                    "labels); no fused loss"),
        ("native", f"{_NEMO24_GPT}:171: cross_entropy_loss_fusion = True (over Megatron-core core_v0.9.0's False, "
                   "model_parallel_config.py:201): core_v0.9.0's fused_vocab_parallel_cross_entropy "
                   "(language_module.py:38-39), the one fused loss it has"),
        ("te", f"{_BRIDGE} src/megatron/bridge/models/gpt_provider.py: cross_entropy_loss_fusion = True (v0.2.2:180, "
               "v0.4.0:196); scripts/performance set cross_entropy_fusion_impl = 'te' (v0.2.2 utils/helpers.py:108, "
               "v0.4.0 utils/overrides.py:66)"),
        ("te", f"{_PEX}: cross_entropy_fusion_impl 'te' with cross_entropy_loss_fusion true in 100 of "
               "the 168 (language_model.yaml:78-79: false, native)"))] = Field(
        None, description="The output layer's cross entropy: unfused (Megatron's vocab-parallel loss in FP32, 52 B a "
                          "logit), native (Megatron-core cross_entropy_loss_fusion with cross_entropy_fusion_impl "
                          "'native', 32 B) or te (impl 'te', Transformer Engine's Triton kernels, 10 B); "
                          "docs/perf-model.md, Training: the loss.")
    cp_comm_type: Annotated[CpCommType | None, ByStack(
        ("p2p", f"{_LM21}: no context parallelism (cp 1 only; the value is never used)"),
        ("p2p", "Megatron-LM core_v0.9.0 has no --cp-comm-type: Transformer Engine's default p2p"),
        ("p2p", f"{_BRIDGE}: Megatron-core's cp_comm_type None, which TEDotProductAttention passes as p2p "
                "(megatron/core/extensions/transformer_engine.py at d98e8a6, lines 2141-2142); the Llama and Qwen "
                "recipes leave it (some set a2a, e.g. recipes/gpt_oss/h100/gpt_oss.py:70 at 067f987)"),
        ("p2p", f"{_PMODEL}/language_model.yaml:152: cp_comm_type: p2p"))] = Field(
        None, description="Context parallelism's communication (Megatron-LM --cp-comm-type): p2p (K and V passed "
                          "round a ring beside the attention), allgather (K and V gathered before it, Llama 3's; "
                          "all_gather, Transformer Engine's spelling, is read as it), "
                          "a2a (Ulysses: all-to-alls of Q, K, V and the output, heads split over cp; needs each TP "
                          "rank's heads divisible by cp) or a2a+p2p (all-to-alls inside the first group of "
                          "parallelism.hierarchical_context_parallel_sizes, the ring over the second); only p2p "
                          "overlaps the attention (docs/perf-model.md, Training: context parallelism). No effect at "
                          "cp 1.")
    rope_fusion: Annotated[bool | None, ByStack(
        (False, f"{_LM21}: no rotary embedding (learned positions, megatron/model/language_model.py:140 at v2.6)"),
        (False, "Megatron-LM core_v0.9.0 megatron/core/transformer/transformer_config.py:162: apply_rope_fusion = "
                f"False, kept by {_NEMO24_GPT} and the Mixtral, Mistral, Qwen2, Gemma and Nemotron configs; NeMo's "
                "Llama configs set True (llama.py:56,102): state it for such a run"),
        (True, f"{_BRIDGE} scripts/performance/utils/overrides.py:65-66 at 2b82f6f17: apply_rope_fusion = True"),
        (True, f"{_PMODEL}/language_model.yaml:84: apply_rope_fusion: true; of the 168, 13 set true and 6 false "
               "(gpt_oss_20B on MI300X, deepseek_v4_flash, glm5)"))] = Field(
        None, description="The rotary embedding runs as Transformer Engine's fused kernel (Megatron-core "
                          "apply_rope_fusion), not as PyTorch's separate products, rotation and concatenations "
                          "(docs/perf-model.md, Kernels: rotary embedding). No effect on a model without one.")

    @field_validator("cp_comm_type", mode="before")
    @classmethod
    def _all_gather(cls, value: object) -> object:
        """`all_gather` is the `allgather` type, in the spelling Transformer Engine runs.

        Transformer Engine dispatches "all_gather" (context_parallel.py at d0067d0, line 5110; any other name raises
        "Unsupported communication type") and Megatron-core's TransformerConfig lists it so (transformer_config.py at
        d98e8a6, line 1034); Megatron-LM's --cp-comm-type help says allgather (arguments.py at d98e8a6, line 3221).
        """
        return "allgather" if value == "all_gather" else value

    @model_validator(mode="after")
    def _dispatcher_and_dedup_agree(self) -> Self:
        """DeepEP and HybridEP deduplicate per node, Megatron-core's alltoall does not: the two must agree."""
        d, e = self.moe_dispatcher, self.ep_dedup
        if d is not None and e is not None and e != (d != "alltoall"):
            raise ValueError(f"ep_dedup {str(e).lower()} contradicts moe_dispatcher {d!r}; expected ep_dedup "
                             f"{str(d != 'alltoall').lower()} (deepep and hybridep send a token once per node, "
                             "alltoall every routed copy) or leave ep_dedup out")
        if problem := shared_overlap_problem(self.overlap_ep_comm, self.moe_shared_expert_overlap):
            raise FieldError(("moe_shared_expert_overlap",), problem)
        if self.permute_in_dispatch:
            used = d if d is not None else ("alltoall" if e is False else SWITCHES["moe_dispatcher"].default(
                self.stack))
            if used == "alltoall" and e:  # a stated ep_dedup under an alltoall profile reads as DeepEP
                used = "deepep"
            if used != "hybridep":
                raise ValueError(f"permute_in_dispatch true with moe_dispatcher {used!r}; expected "
                                 "moe_dispatcher hybridep (only HybridEP's kernels permute the tokens themselves) "
                                 "or leave permute_in_dispatch out")
        return self

    @model_validator(mode="after")
    def _stated_stack_has_them(self) -> Self:
        """Each feature the job states is in the code of the stack it states (`stack_features.missing`).

        A stack left out is a house default, not a run the spec describes: the same finding is PERF004's warning.
        """
        if "stack" in self.model_fields_set:
            inline = not hasattr(self, "parallelism")   # a case's layout fields are its training's own
            raise_each([FieldError(m.path[1:] if inline and m.path[0] == "parallelism" else m.path, m.message)
                        for m in missing(self.stack, self)], type(self).__name__)
        return self


#: The table: every training switch, by name, in declaration order.
SWITCHES: dict[str, TrainingSwitch] = rows(SequenceParallel, StackSwitches)
