"""AMD's training stack (issue 20 part 6): a job on an AMD accelerator that states no stack runs Primus, not NeMo.

Before: `archgen estimate --workload llama3-70b-pretrain-mi355x --explain` read every switch from `nemo-2025`
(Megatron-Bridge's defaults: TP overlap with Transformer Engine userbuffers, HybridEP, the 128 Mi DDP bucket), with
a note that the profiles describe NVIDIA stacks. Now it takes `primus-2025`, read from AMD-AGI/Primus at fd1eeab
(its module defaults, model bases and AMD's MI300X/MI355X pre-training configs; each source in the table).
"""

from __future__ import annotations

from archgen.model.stack_profiles import VENDOR_STACKS, runs_on, vendor_stack
from archgen.model.switch_allows import allowed
from archgen.model.switches import SWITCHES
from archgen.model.workload import Training
from archgen.perf.train.stacks import PROFILES, explain, on_vendor, training_knobs, variants


def test_every_primus_value_cites_primus() -> None:
    """Each switch's value under primus-2025 is read from Primus at one commit (the source names it)."""
    for name, switch in SWITCHES.items():
        assert switch.source("primus-2025").startswith("Primus fd1eeab"), name


def test_primus_sets_what_its_configs_set() -> None:
    """The values that differ from nemo-2025, each as Primus at fd1eeab sets it (sources in `switches`):
    language_model.yaml:180 tp_comm_overlap false; use_turbo_deepep true in the MoE configs (Primus-Turbo's DeepEP);
    trainer_base.yaml:54 fp8_recipe delayed, :59 fp8_param_gather false; gradient_accumulation_fusion false in 134 of the 168 pre-training
    configs; trainer_base.yaml:168 ddp_bucket_size null (Megatron-core's default); trainer_base.yaml:41
    grad_reduce_in_bf16 false (fp32, where NeMo's performance configs reduce in BF16)."""
    p, n = PROFILES["primus-2025"], PROFILES["nemo-2025"]
    differ = {k: getattr(p, k) for k in SWITCHES if getattr(p, k) != getattr(n, k)}
    assert differ == {"param_gather_dtype": "bf16", "overlap_tp_comm": False, "moe_dispatcher": "deepep", "fp8_recipe": "delayed",
                      "grad_accum_fusion": False, "ddp_bucket_size": "default", "grad_reduce_dtype": "fp32"}
    assert allowed("primus-2025", "offload") == allowed("nemo-2025", "offload")  # trainer_base.yaml:113, Megatron's


def test_an_amd_job_that_states_no_stack_takes_primus() -> None:
    t = Training(seq_len=8192, global_batch=512, precision="bf16")
    assert VENDOR_STACKS == {"AMD": "primus-2025"} and vendor_stack("NVIDIA") == vendor_stack("") == "nemo-2025"
    amd = on_vendor(t, "AMD")
    assert amd.stack == "primus-2025" and "stack" not in amd.model_fields_set  # still a default, not stated
    assert training_knobs(amd) == PROFILES["primus-2025"]
    assert on_vendor(t, "NVIDIA") is t and t.stack == "nemo-2025"
    used = explain(t, vendor="AMD")
    assert (used[0].value, used[0].origin) == ("primus-2025", "default")
    assert "newest profile for this vendor (AMD" in used[0].source
    stated = Training(seq_len=8192, global_batch=512, precision="bf16", stack="nemo-2025")
    assert on_vendor(stated, "AMD") is stated and explain(stated, vendor="AMD")[0].value == "nemo-2025"


def test_primus_runs_on_amd_only() -> None:
    """The stack range of a job that states no stack: Primus among the profiles on AMD, not on another vendor's."""
    assert runs_on("primus-2025", "AMD") and not runs_on("primus-2025", "NVIDIA")
    assert runs_on("nemo-2025", "AMD")  # a job may state it (ROCm/Megatron-LM); it stays in the AMD range
    names = [name for name, _ in variants({}, "bf16", False, "nemo-2025", "NVIDIA")]
    assert names == ["megatron-core-2024", "megatron-lm-2021", "nemo-2025"]
    assert "primus-2025" in [name for name, _ in variants({}, "bf16", False, "primus-2025", "AMD")]


def test_the_mi355x_workload_runs_primus(shipped) -> None:
    """The shipped MI355X workload states no stack: its estimate reads primus-2025, without the NVIDIA-stack caveat."""
    notes = shipped.workloads["workload/llama3-70b-pretrain-mi355x"].estimate.notes
    (stack,) = [n for n in notes if n.startswith("stack not stated")]
    assert "newest profile for this vendor (AMD accelerators" in stack and ", primus-2025;" in stack
    assert "describe NVIDIA stacks" not in stack


def test_checks_read_the_workloads_vendor(shipped) -> None:
    """PERF004 judges a workload that states no stack by its vendor's profile (`WorkloadResult.vendor`)."""
    assert shipped.workloads["workload/llama3-70b-pretrain-mi355x"].vendor == "AMD"
    assert shipped.workloads["workload/allreduce-mi355x-th5"].vendor == "AMD"

def test_a_stated_hybridep_switch_keeps_hybridep_on_amd() -> None:
    """permute_in_dispatch is HybridEP's alone (the Training validator, read against nemo-2025's dispatcher): on AMD,
    where the profile's dispatcher is DeepEP, the stated switch keeps the dispatcher it was validated with."""
    t = Training(seq_len=4096, global_batch=256, precision="bf16", permute_in_dispatch=True)
    knobs = training_knobs(on_vendor(t, "AMD"))
    assert (knobs.moe_dispatcher, knobs.ep_dedup, knobs.permute_in_dispatch) == ("hybridep", True, True)
    assert training_knobs(Training(seq_len=4096, global_batch=256, precision="bf16", stack="primus-2025"))\
        .moe_dispatcher == "deepep"


AMD_CASE = """\
schema: archgen-validation/1
cases:
- id: amd-unstated
  source: test
  status: confirmed
  system: {accelerator: mi300x, count: 8, scale_up: {domain: 8, bandwidth: "448 GB/s"}}
  model: {layers: 24, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000}
  training: {seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 1, dp: 8}
  measured: [{metric: step_time, value: 1, unit: s}]
"""


def test_an_amd_case_ranges_over_what_primus_leaves_unsettled(tmp_path) -> None:
    """An AMD case that states no stack is scored at primus-2025 and ranges over the switches AMD's configs split on
    (gradient-accumulation fusion: 134 false / 34 true; cross entropy: 100 te / 68 unfused): the range holds the
    score's prediction, and a case that states both has no such range."""
    from archgen.scoring.cases import predict, read_cases
    from archgen.scoring.catalog import load_accelerators
    from archgen.scoring.unstated import unsettled_range, unstated_range

    path = tmp_path / "amd.yaml"
    path.write_text(AMD_CASE, encoding="utf-8")
    (case,), _ = read_cases(path)
    accs = load_accelerators()
    lo, hi = unsettled_range(case, accs)["step_time"]
    got = predict(case, accs)["step_time"]
    assert lo <= got <= hi and lo < hi
    assert unstated_range(case, accs)["step_time"][0] <= lo
    stated = case.model_copy(update={"training": case.training.model_copy(
        update={"grad_accum_fusion": False, "cross_entropy": "te"})})
    assert unsettled_range(stated, accs) == {}


def test_a_moe_case_ranges_over_the_forced_router_balance_a_dense_one_does_not(tmp_path) -> None:
    """Primus's configs split on moe_force_balance (89 of the 91 that set it true, the model base false:
    `switch_allows.UNSETTLED`): a MoE case that leaves it out ranges over it, a dense one does not (`perf.train.moot`:
    the router's random logits act on MoE layers only), and its two values give two step times (2 kernels more a
    MoE layer with it, `router.router_kernels`)."""
    from archgen.scoring.cases import predict, read_cases
    from archgen.scoring.catalog import load_accelerators
    from archgen.scoring.unstated import unsettled_switches

    moe = AMD_CASE.replace("vocab: 32000}", "vocab: 32000, moe: {experts: 8, top_k: 2, expert_ffn: 2048}}")
    assert moe != AMD_CASE
    accs = load_accelerators()
    (path := tmp_path / "dense.yaml").write_text(AMD_CASE, encoding="utf-8")
    (dense,), _ = read_cases(path)
    (path := tmp_path / "moe.yaml").write_text(moe, encoding="utf-8")
    (case,), _ = read_cases(path)
    assert "moe_force_balance" not in unsettled_switches(dense, accs)
    assert unsettled_switches(case, accs)["moe_force_balance"] == (True, False)
    times = {v: predict(case.model_copy(update={"training": case.training.model_copy(
        update={"moe_force_balance": v})}), accs)["step_time"] for v in (True, False)}
    assert times[True] > times[False]
