"""Write docs/switches.md, how far each training switch moves each scored case: `python docs/gen_switches.py`.

For every training switch of the one table (`archgen.model.switches.SWITCHES`) and every value it allows, every
training case of the scored files (tests/data/validation-cases.yaml and validation-modern.yaml, copies of
../shared/data, and every case file under tests/perf/data) is predicted again with that switch stated at that
value, everything else as the case states it. The move is the change of the case's error (predicted / measured - 1)
in percentage points, the largest over the metrics the case measured. A value that is already the case's own
(stated, or its stack's profile) moves nothing and is not tried; an FP8 recipe is tried on FP8 cases only (a 16-bit
job has none); `ep_dedup` and `moe_dispatcher` must agree, so flipping one leaves the other to follow it. A flip the
model refuses (a layout that no longer fits its rules, a pair of switches a workload may not state together, or a
value the code of the case's stated stack lacks, `stack_features.missing`: `refusals`, what the flip adds to what the
case states) is counted as refused, not as a move.

`--check` writes nothing and exits 1 when docs/switches.md is stale. The covering tests and their sources are listed
by hand in `COVERAGE`; tests/perf/test_switch_coverage.py holds each switch that moves a case by more than
`THRESHOLD` points to a row there whose test exists, and lists those whose row is of kind 'none' (`unsourced`: no
published timing found) as not covered.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from archgen.errors import ArchgenError
from archgen.model.cases import METRIC_UNITS, Case
from archgen.model.switches import SWITCHES
from archgen.perf.train.stacks import resolve, stated_knobs
from archgen.scoring.case_checks import measured_value, training_problems
from archgen.scoring.cases import predict, read_case_file
from archgen.scoring.catalog import load_accelerators

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "switches.md"
#: Points of error a switch may move a case by before it needs a test from a source (issue 20's second bar).
THRESHOLD = 5.0


def case_files() -> list[Path]:
    """The two shared scoring files (copies under tests/data), then every case file of tests/perf/data, by name."""
    perf = sorted(p for p in (ROOT / "tests" / "perf" / "data").glob("*.yaml")
                  if "schema: archgen-validation/1" in p.read_text(encoding="utf-8"))
    return [ROOT / "tests" / "data" / "validation-cases.yaml", ROOT / "tests" / "data" / "validation-modern.yaml",
            *perf]


@dataclass(frozen=True)
class Move:
    """One (switch, value) flip of one case: the case, its file, and its error per measured metric before and after.

    Errors are (predicted / measured - 1) in percent, one per metric the case measured, in its order.
    """

    switch: str
    value: object
    case: str
    file: str
    before: tuple[float, ...]
    after: tuple[float, ...] | None  # None: the model refuses the flipped case

    @property
    def points(self) -> float:
        """How far the error moved, in percentage points: the largest move over the metrics (0 when refused)."""
        return 0.0 if self.after is None else max(abs(a - b) for a, b in zip(self.after, self.before, strict=True))


def _errors(case: Case, accs: dict) -> tuple[float, ...]:
    """The case's error in percent for each metric it measured."""
    pred = predict(case, accs)
    return tuple((pred[m.metric] / float(measured_value(m).to(METRIC_UNITS[m.metric]).magnitude) - 1.0) * 100.0
                 for m in case.measured)


def _flipped(case: Case, name: str, value: object) -> Case:
    t = case.training
    assert t is not None
    update: dict[str, object] = {name: value}
    if name == "ep_dedup":
        update["moe_dispatcher"] = None
    if name == "moe_dispatcher":
        update["ep_dedup"] = None
    return case.model_copy(update={"training": t.model_copy(update=update)})


def refusals(case: Case) -> set[str]:
    """Why the stack refuses a training case as stated: `case_checks.training_problems`, which `predict` applies.

    Its layout's rules, MoE at tp > 1 without sequence parallelism, and a stated overlap_tp_comm true under FP4 or
    without sequence parallelism, as a workload's `Training` refuses them.
    """
    return {m for _, m in training_problems(case)}


def moves(accs: dict | None = None) -> Iterator[Move]:
    """Every (switch, value) flip of every scorable training case, in file, case and table order."""
    accs = accs if accs is not None else load_accelerators()
    for path in case_files():
        cf = read_case_file(path)
        for _, case in cf.entries:
            if not isinstance(case, Case) or (t := case.training) is None:
                continue
            if case.system.accelerator not in accs or t.precision not in accs[case.system.accelerator].peak:
                continue
            try:
                before = _errors(case, accs)
            except ArchgenError:
                continue
            knobs = resolve(t.stack, stated_knobs(t), t.precision)
            refused = refusals(case)   # as stated: once a case, not again for each of its flips
            for name, switch in SWITCHES.items():
                if name == "fp8_recipe" and t.precision != "fp8":
                    continue
                for value in switch.values:
                    if getattr(knobs, name) == value:
                        continue
                    after: tuple[float, ...] | None = None
                    flipped = _flipped(case, name, value)
                    if not refusals(flipped) - refused:  # what the flip makes the stack refuse
                        try:
                            after = _errors(flipped, accs)
                        except ArchgenError:
                            after = None
                    yield Move(name, value, case.id, path.name, before, after)


@dataclass(frozen=True)
class Cover:
    """What holds one switch to a publication: the tests, their sources, and what kind of evidence they are.

    `kind` is 'ablation' (the same job measured with the switch on and off), 'breakdown' (a profile or a measured
    cost of the mechanism, not an on/off pair) or 'none' (no publication found; `searched` says where was looked).
    """

    kind: str
    tests: tuple[str, ...]
    source: str
    searched: str = ""


_P = "tests/perf/"
_MB = "NVIDIA-NeMo/Megatron-Bridge at 067f987"
_NO_DP = (f"{_MB} docs/training/communication-overlap.md, docs/performance-guide.md and skills/nemo-mbridge-perf-tp-dp-"
          "comm-overlap (its card.yaml: overlap_perf_claims doc_only, 'Repo docs do not provide benchmark-backed "
          "proof'); NeMo user guide 24.12 and 25.09, Communication Overlap (qualitative only); Megatron-LM and "
          "Transformer Engine issues and pull requests; NVIDIA developer blog; web search")
_PR3524 = ("; NVIDIA/Megatron-LM PR #3524 (--overlap-param-gather for the layer-wise optimizer, an 8B model at TP 8: "
           "284 ms median per iteration without, 256 ms minimum with; no GPU count, batch or sequence length stated)")
#: The tests that hold each switch to a publication (tests/perf/test_switch_coverage.py checks that every switch
#: moving a case by more than `THRESHOLD` points is here and that each test named exists).
COVERAGE: dict[str, Cover] = {
    "sequence_parallel": Cover("ablation", (
        f"{_P}test_switch_ablations.py::test_sequence_parallel_alone_as_korthikanti_table4 (xfail: 8.1 % against "
        "3.1 %)", f"{_P}test_ablations.py::test_sequence_parallel_with_selective_recompute_moves_the_step_as_measured"),
        "Korthikanti et al., arXiv 2205.05198, Table 4 (one 22B layer) and Table 5 (iteration)"),
    "attention": Cover("ablation", (
        f"{_P}test_switch_ablations.py::test_flash_attention_speeds_2k_training_as_fa2_table1",
        f"{_P}test_switch_ablations.py::test_flash_attention_speeds_8k_training_as_fa2_table1 (xfail: 2.14x against "
        "3.06x)", f"{_P}test_kernels.py::test_flash_forward_matches_flashattention3_on_h100"),
        "Dao, FlashAttention-2, arXiv 2307.08691, Table 1; FlashAttention-3 forward (fa3-h100-forward.yaml)"),
    "distributed_optimizer": Cover("none", (
        f"{_P}test_training.py::test_optimizer_state_is_sharded_by_the_distributed_optimizer",
        f"{_P}test_overlap_cost.py::test_step_fixed_costs_zero_the_gradient_buffer_and_clip"),
        "memory and step costs from Megatron-core's code, not a timing", "Megatron-LM docs (distributed optimizer: "
        "bytes per parameter only); ZeRO, Rajbhandari et al. SC20 (throughput across model sizes, not one model on "
        f"and off); {_MB} skills/nemo-mbridge-perf-memory-tuning ('~1-2%' throughput cost, stated without a run); "
        "alibaba/Megatron-LLaMA issues #22 and #27 (their OverlappedDistributedOptimizer against Megatron's "
        "distributed optimizer, not the optimizer on and off); NVIDIA/Megatron-LM 69e2514 (2022, the README's "
        "distributed-optimizer section: bytes per parameter only); bigscience-workshop/bigscience "
        "train/tr11-176B-ml/chronicles-prequel.md at 053adaf ('Trying with ZeRO_STAGE=0/1', 181B on 48 nodes of 8 "
        "A100: stage 1 120.29 and 134.02, stage 0 137.34 and 113.02 under 'Sec/it' and 'TFLOPs', where the page's "
        "own micro-batch table gives the stage-1 run as 134.02 s/it and 120.29 TFLOPs; its note: the two stages ran "
        "on different code branches, 'need to retest'; Megatron-DeepSpeed's ZeRO, not Megatron's distributed "
        "optimizer)"),
    "grad_reduce_dtype": Cover("none", (
        f"{_P}test_effects.py::test_fp8_param_gather_halves_the_gather_and_bf16_gradients_halve_the_reduction",),
        "bytes on the wire from NeMo's communication-overlap guide, not a timing", _NO_DP + "; mlfoundations/scaling "
        "issue #3 (OpenLM under PyTorch FSDP on two A100 nodes, reduction in FP32 then BF16: 3,000 and 3,200 "
        "tokens/s/GPU; not Megatron, the model and layout unstated); NVIDIA/Megatron-LM PR #6458 (an inference MoE "
        "combine in BF16, not the gradient reduction)"),
    "param_gather_dtype": Cover("none", (
        f"{_P}test_effects.py::test_fp8_param_gather_halves_the_gather_and_bf16_gradients_halve_the_reduction",
        f"{_P}test_dp_chain.py::test_the_fp8_gather_leaves_the_embedding_output_layer_and_norms_in_16_bits"),
        "bytes on the wire from NeMo's communication-overlap guide ('reducing the all-gather overhead by half')",
        _NO_DP + "; Megatron-core MoE README at d98e8a6 (FP8 parameter gather 'reducing overhead by 50%', no run); "
        "vllm-project/tpu-inference PR #2407 ('about 2.8% improvement' from an FP8 all-gather in TPU inference, "
        "the figures in a screenshot)"),
    "overlap_grad_reduce": Cover("breakdown", (
        f"{_P}test_overlap_cost.py::test_mlperf_gpt3_11616_h100_and_the_nccl_sms_move_it",
        f"{_P}test_overlap_cost.py::test_dp_overlap_exposes_the_edge_buckets_and_takes_nccls_sms",
        f"{_P}test_dp_chain.py::test_one_micro_batch_hides_all_but_the_first_gathered_and_last_reduced_group"),
        "MLPerf Training v4.1 GPT-3 on 11,616 H100 (NCCL_MIN_CTAS=16 in NVIDIA's configs); Megatron-core buckets "
        "(d98e8a6; the edge bucket groups at 25.09-alpha.rc1)", "no on/off ablation: " + _NO_DP + _PR3524),
    "overlap_param_gather": Cover("breakdown", (
        f"{_P}test_overlap_cost.py::test_mlperf_gpt3_11616_h100_and_the_nccl_sms_move_it",
        f"{_P}test_effects.py::test_param_gather_overlap_hides_all_but_the_first_bucket",
        f"{_P}test_dp_chain.py::test_one_micro_batch_hides_all_but_the_first_gathered_and_last_reduced_group"),
        "MLPerf Training v4.1 GPT-3 on 11,616 H100; Megatron-core buckets (d98e8a6; the gather chain and the edge "
        "bucket groups at 25.09-alpha.rc1)",
        "no on/off ablation: " + _NO_DP + _PR3524),
    "overlap_tp_comm": Cover("breakdown", (
        f"{_P}test_overlap_cost.py::test_h100_tp_overlap_runs_and_the_cost_moves_them",
        f"{_P}test_tp_overlap.py::test_llama3_405b_table4_within_25_percent"),
        "NeMo 25.11 H100 rows (nemo-25.11.yaml) with Transformer Engine userbuffers' SMs and chunks (d0067d0); "
        "Llama 3 paper Table 4", "no on/off ablation: " + _NO_DP + "; Flux, arXiv 2406.06858 (its own fused kernels "
        "against Megatron-LM, not Transformer Engine's userbuffers)"),
    "overlap_p2p_comm": Cover("none", (
        f"{_P}test_effects.py::test_p2p_overlap_leaves_the_warmup_and_flush_sends",
        f"{_P}test_training.py::test_interleaved_p2p_overlap_leaves_only_warmup_and_flush_blocking"),
        "derived by hand from Megatron's interleaved schedule", "Narayanan et al. SC21 (Figs. 12-18 ablate the "
        "interleaved schedule and the scatter/gather optimisation, not the p2p overlap, which came later); "
        f"Megatron-LM arguments.py; {_MB} skills/nemo-mbridge-perf-tp-dp-comm-overlap (its follow-up: 'Add a "
        "functional PP smoke for interleaved pipeline overlap'); NVIDIA/apex PR #1616 (introduces the overlap, no "
        "timing); NVIDIA/Megatron-LM issue #4385 ('5-15% of step time', stated without a run); PaddlePaddle/Paddle "
        "PR #61935 (+2.73 % on Paddle's own pipeline, model and layout unstated); pytorch/torchtitan b5bcd76 "
        "benchmarks/llama3_h100_202412_torchtitan.md Table 5 (1F1B against interleaved 1F1B: the schedule, not the "
        "overlap); MegaScale, arXiv 2402.15627 (its ablation joins the DP, PP and TP overlaps in one step; the table "
        "was not readable here); web search"),
    "ep_dedup": Cover("ablation", (
        f"{_P}test_switch_ablations.py::test_ep_dedup_against_the_aws_dispatcher_ab (xfail: 0.67-0.77x against "
        "0.95-1.86x)",
        f"{_P}test_overlap_cost.py::test_ep_dedup_dispatch_against_deepeps_measured_time",
        f"{_P}test_dispatcher.py::test_hybridep_fixed_cost_across_nodes_against_the_h100_table"),
        "awslabs/awsome-distributed-ai 95b939c megatron-bridge/qwen3-{235b,30b}/benchmarks/RESULTS.md (NCCL "
        "all-to-all against DeepEP over EFA, B300 and H100); DeepEP docs/legacy.md (dd758ca) RDMA rates; HybridEP's "
        "H100 table", f"no A/B on InfiniBand: {_MB} skills/nemo-mbridge-perf-moe-dispatcher-selection has alltoall "
        "45.65 s and HybridEP 20.15 s on Qwen3-30B-A3B, 16 H100, but the runs differ in more than the dispatcher "
        "('not a throughput ranking')"),
    "overlap_ep_comm": Cover("ablation", (
        f"{_P}test_folding.py::test_ep_overlap_saves_what_the_published_ablation_saved",
        f"{_P}test_overlap_cost.py::test_ep_overlap_hides_each_all_to_all_behind_its_own_window"),
        f"{_MB} skills/nemo-mbridge-perf-moe-comm-overlap: Qwen3-30B-A3B, 16 H100, 24.7138 s off, 20.992 s on"),
    "fp8_recipe": Cover("ablation", (
        f"{_P}test_switch_ablations.py::test_delayed_scaling_against_current_scaling_as_the_te_gemm_guide (xfail: "
        "0.915x against 0.853x)",
        f"{_P}test_quant.py::test_quantisation_bytes_explain_most_of_the_guides_autocast_overhead"),
        "Transformer Engine GEMM profiling guide on B300 (d0067d0): the 12 GEMMs of a layer under each recipe",
        "GEMM level only; no end-to-end ablation as numbers: NVIDIA blog 'Faster Training Throughput in FP8 "
        "Precision with NVIDIA NeMo' compares the recipes in charts only"),
}
COVERAGE["moe_dispatcher"] = COVERAGE["ep_dedup"]
COVERAGE["dropout"] = Cover("ablation", (
    f"{_P}test_switch_ablations.py::test_attention_dropout_against_the_flashattention_a100_benchmark (xfail: "
    "1.36-1.44x against 1.22-1.33x)",
    f"{_P}test_dropout_timed.py::test_the_hidden_masks_are_two_bytes_per_token_and_hidden_element",
    f"{_P}test_dropout_timed.py::test_a_materialised_attention_moves_its_mask"),
    "Dao et al., FlashAttention, arXiv 2205.14135v2, Appendix E.6, Tables 11 and 14 (Megatron's materialised "
    "attention, forward + backward on one A100 40GB, FP16, batch 16, 8 heads of 64, with the padding mask: dropout 0.1 "
    "and none at 512, 1024 and 2048 tokens); mask bytes from Megatron-core's fused bias-dropout-add and PyTorch's "
    "dropout kernel (a 1-byte mask only for 0 < p < 1); it moves the materialised-attention cases, whose score masks "
    "are s x s",
    "the A/B is of the attention's dropout only: the hidden states' bias-dropout-add masks have no on/off timing. "
    "Before it: Megatron-LM and Megatron-Bridge docs (dropout is a recipe value, never timed on and off); "
    "FlashAttention-2, Dao 2023 (benchmarks without dropout); karpathy/nanoGPT PR #195 (dropout 0.1 against 0 through "
    "PyTorch SDPA on one A100, 3,774 and 3,273 ms per loop: a small model, not Megatron's fused kernels); "
    "Megatron-LM d98e8a6 docs, Megatron-Bridge 067f987 "
    "docs and skill cards, NeMo 8cfedd7 performance docs (no dropout timing); web search")
COVERAGE["permute_in_dispatch"] = Cover("none", (
    f"{_P}test_permute.py::test_permutation_traffic_per_token",
    f"{_P}test_permute.py::test_unfused_hybridep_pays_its_permutation_passes"),
    "permutation traffic per token derived from Megatron-core's moe_utils permute/unpermute and DeepEP's HybridEP "
    "code, not a timing", f"{_MB} docs/performance-summary.md and the Megatron-core MoE README (the fusion flag "
    "is described, no run with it on and off); NVIDIA-NeMo/Megatron-Bridge issue #2886 (HybridEP's fused "
    "permutation measured with 'no e2e improvement', no figures or layout given); deepseek-ai/DeepEP PR #588 (its "
    "kernel benchmark on 4 ranks: dispatch 457 us, dispatch then permute 500 us; the fused line was not in what was "
    f"read); NVIDIA-NeMo/Automodel PR #3618 (an H100 A/B whose figures were cut off in what was read); {_MB} "
    "skills/nemo-mbridge-perf-moe-hardware-configs and -moe-optimization-workflow (the fusion a recipe setting, no "
    "run without it)")
COVERAGE["grad_accum_fusion"] = Cover("none", (
    f"{_P}test_grad_accum_fusion.py::test_one_layer_saves_four_bytes_per_gemm_weight_per_micro_batch",
    f"{_P}test_grad_accum_fusion.py::test_the_input_embedding_keeps_its_pass_and_the_output_layer_fuses"),
    "bytes per parameter derived from Megatron-LM's fused_weight_gradient_dense.cu (83b1e42: cublasGemmEx, fp32 C, "
    "beta 1) and Transformer Engine's linear.py (d0067d0: out=main_grad, accumulate), not a timing",
    "Megatron-LM commit 83b1e42 and its arguments help, Megatron-Bridge docs (bridge.utils.fusions API page), NeMo "
    "PR #4494 (introduces the knob, no numbers), ROCm/apex PRs #164/#165/#169 (port, no numbers), NVIDIA/Megatron-LM "
    "PR #7101 (Megatron-FSDP, no on/off table), AMD-AGI/Primus-Turbo PR #454 (the fused accumulation for ROCm, no "
    "step time in what was read), Primus 653ad380 examples (the fusion off, no run with it on): no published on/off "
    "step time found")
COVERAGE["cuda_graphs"] = Cover("ablation", (
    f"{_P}test_switch_ablations.py::test_te_scoped_graphs_against_the_bridge_cuda_graphs_card (xfail: 1.000x "
    "against 0.685x)",
    f"{_P}test_cuda_graphs.py::test_card_layer_operations_with_router_graphs_by_hand",
    f"{_P}test_cuda_graphs.py::test_the_card_row_is_scored_and_its_graphs_move_nothing"),
    "NVIDIA-NeMo/Megatron-Bridge skills/nemo-mbridge-perf-cuda-graphs/card.yaml at 228e9a3 (Qwen3-30B-A3B, 16 H100, "
    "blockwise FP8: "
    "about 29.18 s eager, 20.00 s with TE graphs of attn, moe_router and moe_preprocess); operations a scope "
    "captures counted from Megatron-core's transformer_layer.py (3097d81) and Transformer Engine's graph.py "
    "(f031cf87), each replay at the host cost of one eager operation (TransformerEngine#2053)",
    "the A/B is of the router-and-attention scopes; the full-iteration graphs that move cases by more than 5 points "
    f"have no on/off run: {_MB} examples/model_verification_cards/qwen3-30b-a3b/card.yaml (graphs on in every H100 "
    "BF16 run), Megatron-core MoE README 'CPU Overhead Bottleneck' (no figure), TransformerEngine issue #761 "
    "(profiles as screenshots), NVIDIA-NeMo/Megatron-Bridge PRs #4080 and #4127 (TE graphs of mlp and attn on Llama "
    "3 70B, GB200, NVFP4: '~+7% TFLOPS' over none, no step times; mlp is a scope the switch does not offer), "
    "NVIDIA/Megatron-LM PR #7446 (optimizer graphs on a functional-test proxy, 39.45 -> 33.07 ms; not a value of "
    "the switch)")
COVERAGE["ddp_bucket_size"] = Cover("none", (
    f"{_P}test_overlap_cost.py::test_dp_overlap_exposes_the_edge_buckets_and_takes_nccls_sms",
    f"{_P}test_mlperf_training_v5.py::test_rows_state_the_ddp_bucket_the_runs_set",
    f"{_P}test_dp_chain.py::test_nemo_2025_without_the_distributed_optimizer_keeps_megatron_cores_bucket"),
    "one collective per bucket read from Megatron-core's param_and_grad_buffer.py (core_v0.14.0, lines 214-264 and "
    "323-437) and its default from distributed_data_parallel.py (lines 62-65); the MLPerf Training v5.1 rows state "
    "the sizes their configs and logs give (768M, 134M parameters), not a timing of one job at two sizes",
    "mlcommons/training_results_v5.0 and v5.1 (each submission runs one bucket size); Megatron-core and "
    "Megatron-Bridge code (comm_overlap.py sets 128 Mi with the distributed optimizer only); pytorch/pytorch issue "
    "#118421 and PR #61507 (PyTorch DDP's bucket_cap_mb, delays and opinions, no Megatron step time); Megatron-LM "
    "d98e8a6 and Megatron-Bridge 067f987 docs (no bucket sweep)")
COVERAGE["cross_entropy"] = Cover("ablation", (
    f"{_P}test_switch_ablations.py::test_te_cross_entropy_against_unfused_as_primus_pr182",
    f"{_P}test_cross_entropy.py::test_bytes_per_logit_as_counted_from_the_kernels",
    f"{_P}test_cross_entropy.py::test_the_output_layer_charges_the_loss_the_job_states",
    f"{_P}test_qwen3_breakdown.py::test_the_recipes_fused_cross_entropy_is_charged"),
    "bytes per logit counted from Megatron-LM's cross_entropy.py (v2.6, core_v0.9.0), Megatron-core's "
    "fused_cross_entropy.py (d98e8a6) and Transformer Engine's Triton kernels (f031cf8); AMD-AGI/Primus PR #182 "
    "(653ad380: TE fused cross entropy on and off, DeepSeek-V2-Lite, 8 GPUs, GBS 32: 215.3 and 210.7 TFLOPS, the "
    "example config's layout; the GPU and micro-batch unstated, so MI300X, MI325X and MI355X at 1, 2 and 4 are run)",
    "te against unfused only (native has no on/off run); the PR's memory (121.64 and 127.66 GB) is not tested: "
    "the model charges both the same. Before it: Megatron-core, Megatron-Bridge and Transformer Engine code and "
    "the MLPerf Training v5.0/v5.1 configs (the fusion "
    "set, no run without it); TransformerEngine PR #1456 (introduces the kernel, no timing); Liger-Kernel PR #1207 "
    "and ServiceNow/Fast-LLM PR #466 (other kernels' loss-only timings, not Megatron's); AMD-AGI/Primus PRs #1023 "
    "and #1049 (a logits copy removed from the fused path, not the fusion on and off)")

COVERAGE["cp_comm_type"] = Cover("none", (
    f"{_P}test_cp_comm.py::test_a2a_bytes_and_times_are_the_four_all_to_alls_each_way",
    f"{_P}test_cp_comm.py::test_allgather_gathers_k_and_v_twice_and_scatters_their_gradients",
    f"{_P}test_cp_comm.py::test_the_types_without_a_ring_are_exposed_whole",
    f"{_P}test_cp_comm.py::test_a2a_plus_p2p_rings_a_share_of_the_heads_over_the_second_group"),
    "bytes and overlap read from Transformer Engine's context_parallel.py at d0067d0 (AttnFuncWithCPAndKVP2P, "
    "AttnFuncWithCPAndKVAllGather, AttnFuncWithCPAndQKVOA2A) and Megatron-core's transformer_config.py at d98e8a6 "
    "(line 1037: the all-gather 'cannot be overlapped'), not a timing",
    f"{_MB} docs/training/hierarchical-context-parallel.md ('benchmarks showed identical throughput' for a2a at tp 2 "
    "x cp 4 and a2a+p2p [8, 2] at tp 1 x cp 16, no model size, numbers or GPUs stated); USP (Fang and Zhao, arXiv "
    "2405.07719) and Llama 3 (arXiv 2407.21783 section 3.3.2) were not readable here (no table of theirs checked); "
    "mindspore-ai/hyper-parallel issues #257 and #398 (Ulysses against P2P for linear attention in MindSpore, not "
    f"Transformer Engine's softmax attention); {_MB} skills/nemo-mbridge-perf-moe-long-context (CP degree against "
    "sequence length, one type); NeMo 8cfedd7 docs/source/performance/performance_long_sequence.md and torchtitan "
    "b5bcd76 Table 2 (CP against none or by degree, not by type); web search")
COVERAGE["rope_fusion"] = Cover("none", (
    f"{_P}test_rope_fusion.py::test_bytes_per_rotated_value_counted_from_the_operations",
    f"{_P}test_rope_fusion.py::test_one_llama3_8b_layer_by_hand"),
    "bytes and kernels per rotated value counted from Megatron-core's rope_utils.py (2edffad: "
    "_apply_rotary_pos_emb_bshd's products, negation, cats and sum, autograd's gradients of each) and Transformer "
    "Engine's fused_rope.cu (f031cf87), not a timing",
    "Megatron-LM a01b42c ('add knob for rope fusion', no timing) and its arguments help; NVIDIA-NeMo/RL PR #608 "
    "('enable mcore rope fusion': its before and after are screenshots, no figures in text); NVIDIA/TransformerEngine "
    "issue #2866 (the fused THD kernel's own time per layer, not fused against unfused); NVIDIA/Fuser issue #4272 "
    "(RoPE tuning, its data in an internal document); NVIDIA-NeMo/Megatron-Bridge PR #5160 (fused multimodal RoPE "
    "on and off, Qwen3.5-VL 35B-A3B with its vision tower on 16 H100: a VL model with mRoPE, its figures cut off in "
    "what was read) and PR #4305 (DeepSeek-V4-Flash rope fusion on and off: losses only); NVIDIA/NeMo-Framework-"
    "Launcher PR #275 (adds the switch, no numbers); NVIDIA/apex PR #1746 (the fused kernel TE's later took, against "
    "Megatron-core's unfused apply_rotary_pos_emb at 5f2877d: FP32, batch 2, 64 heads, 2,048 or 4,096 tokens, head "
    "dimension 128 or 256, e.g. 0.67 against 0.15 ms; GPU, pass and timing method not stated, 16-bit runs not timed): "
    "no published on/off step time of a Megatron run found")

#: Each overlapped communication (issue 20 part 1) and what holds it to a publication. CP's overlap has no switch
#: of its own: the ring of `cp_comm_type` p2p (and of a2a+p2p's second group) always runs beside the attention core,
#: and the other types run exposed (`perf/train/cp_comm.py`); `cp_comm_type`'s row above covers the choice of type.
MECHANISMS: dict[str, Cover] = {
    "DP gradient reduce-scatter": COVERAGE["overlap_grad_reduce"],
    "DP parameter all-gather": COVERAGE["overlap_param_gather"],
    "TP collectives (userbuffers)": COVERAGE["overlap_tp_comm"],
    "EP dispatch and combine": COVERAGE["overlap_ep_comm"],
    "PP sends (interleaved schedule)": COVERAGE["overlap_p2p_comm"],
    "CP ring (K and V beside the attention core)": Cover("none", (
        f"{_P}test_effects.py::test_cp_ring_shows_only_its_excess_over_the_attention_core",),
        "derived by hand from Megatron-core's ring attention", "Llama 3 (arXiv 2407.21783) Table 4 row 3 (CP 16, "
        "131k context) is a throughput, not a breakdown, and states neither recompute nor its attention FLOP "
        "count; Megatron-Bridge docs/training/communication-overlap.md (no numbers); web search"),
}


def unsourced(all_moves: list[Move]) -> list[str]:
    """The switches beyond `THRESHOLD` points with no test from a published timing, in table order.

    A switch is listed when it has no `COVERAGE` row or one of kind 'none'; issue 20's second bar is not met while
    this list is not empty.
    """
    big = {m.switch for m in all_moves if m.points > THRESHOLD}
    return [n for n in SWITCHES if n in big and (n not in COVERAGE or COVERAGE[n].kind == "none")]


def page(all_moves: list[Move]) -> str:
    """The Markdown page."""
    lines = ["# Training switches: how far each moves a scored case", "",
             "Generated by `python docs/gen_switches.py` (do not edit by hand). Every training switch of the one",
             "table (`archgen/model/switches.py`) at every value it allows, stated on every training case of the",
             "scored files (`tests/data/validation-cases.yaml`, `tests/data/validation-modern.yaml` and the case files",
             "of `tests/perf/data`), everything else as the case states it. *Moved* counts the cases whose error",
             f"moves by more than {THRESHOLD:g} percentage points (the largest move over the metrics a case",
             "measured); *max* is the largest move and its case; *refused* counts flips the model refuses (the",
             "layout breaks one of its rules, or the code of the stack the case states lacks the value: the one",
             "table of each feature's first Megatron-LM release, `archgen/model/stack_features.py`). A value that",
             "is already a case's own is not tried.", ""]
    lines += ["| switch | value | cases tried | moved > 5 pt | max move (pt) | case | refused |",
              "|---|---|---:|---:|---:|---|---:|"]
    keys: list[tuple[str, object]] = []
    for m in all_moves:
        if (m.switch, m.value) not in keys:
            keys.append((m.switch, m.value))
    order = {name: i for i, name in enumerate(SWITCHES)}
    keys.sort(key=lambda k: (order[k[0]], SWITCHES[k[0]].values.index(k[1])))
    for name, value in keys:
        ms = [m for m in all_moves if (m.switch, m.value) == (name, value)]
        big = [m for m in ms if m.points > THRESHOLD]
        top = max(ms, key=lambda m: m.points)
        refused = sum(m.after is None for m in ms)
        lines.append(f"| `{name}` | `{_show(value)}` | {len(ms)} | {len(big)} | {top.points:.1f} | "
                     f"{top.case if top.points else '-'} | {refused} |")
    lines += ["", "## What holds each switch to a publication", "",
              "*ablation*: the same job measured with the switch on and off; *breakdown*: a profile or a measured cost",
              "of the mechanism, not an on/off pair; *none*: no publication found (where was looked is listed), so",
              "the switch is **not covered**: its tests check bytes or code paths, not a timing. An xfail test",
              "records a published ablation the model disagrees with, with both numbers.", "",
              "| switch | max move (pt) | kind | tests | source | searched |", "|---|---:|---|---|---|---|"]
    for name in SWITCHES:
        worst = max((m.points for m in all_moves if m.switch == name), default=0.0)
        cover = COVERAGE.get(name)
        if cover is None:
            lines.append(f"| `{name}` | {worst:.1f} | - | - | - | - |")
            continue
        kind = "none: **not covered**" if cover.kind == "none" else cover.kind
        lines.append(f"| `{name}` | {worst:.1f} | {kind} | {_tests(cover)} | {cover.source} | "
                     f"{cover.searched or '-'} |")
    missing = unsourced(all_moves)
    lines += ["", "## Not covered: no published ablation found", ""]
    lines += ([f"Issue 20's second bar is **not met**: {len(missing)} switches move a scored case by more than "
               f"{THRESHOLD:g} points", "with no test against a published timing (no published ablation found; "
               "tests/perf/test_switch_coverage.py", "holds this list and xfails, strictly, until it is empty):", ""]
              + [f"* `{n}`: {max(m.points for m in all_moves if m.switch == n):.1f} points" for n in missing]
              if missing else [f"Every switch that moves a scored case by more than {THRESHOLD:g} points has a test "
                               "against a published timing."])
    bare = [name for name, cover in MECHANISMS.items() if cover.kind == "none"]
    if bare:
        lines += ["", "Overlap mechanisms with no published breakdown or ablation (not covered either): "
                  + "; ".join(bare) + "."]
    lines += ["", "## Each overlap mechanism", "", "| overlapped communication | kind | tests | source | searched |",
              "|---|---|---|---|---|"]
    for name, cover in MECHANISMS.items():
        kind = "none: **not covered**" if cover.kind == "none" else cover.kind
        lines.append(f"| {name} | {kind} | {_tests(cover)} | {cover.source} | {cover.searched or '-'} |")
    lines += ["", "## The cases each switch moves by more than 5 points", "",
              "Each case's error (predicted / measured - 1, the metric that moved most) as scored, then with the",
              "switch stated at the value; the case files are under `tests/data` and `tests/perf/data`.", ""]
    for name, value in keys:
        big = sorted((m for m in all_moves if (m.switch, m.value) == (name, value) and m.points > THRESHOLD),
                     key=lambda m: -m.points)
        if big:
            shown = "; ".join(f"{m.case} {_signed(m)}" for m in big)
            lines.append(f"* `{name}: {_show(value)}` ({len(big)}): {shown}")
    return "\n".join(lines) + "\n"


def _tests(cover: Cover) -> str:
    """The covering tests as Markdown, a note after a test name kept outside its code span."""
    return "<br>".join(f"`{t}`" if " (" not in t else f"`{t.split(' (')[0]}` ({t.split(' (', 1)[1]}"
                       for t in cover.tests)


def _signed(m: Move) -> str:
    """'+4.5 % -> -6.8 %' for the metric that moved most."""
    assert m.after is not None
    i = max(range(len(m.before)), key=lambda j: abs(m.after[j] - m.before[j]))  # type: ignore[index]
    return f"{m.before[i]:+.1f} % -> {m.after[i]:+.1f} %"


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


if __name__ == "__main__":
    from gen_accuracy import write_or_check  # beside this script, on the path when it runs

    write_or_check(PAGE, page(list(moves())), "python docs/gen_switches.py")
