"""archgen's plan search on issue 25's two Calculon cases, and the plan written as a Calculon execution.

`python -m tests.perf.calculon_plans [CALCULON_COMMAND]` runs `search_plan` on both cases, writes each best plan as
Calculon's execution JSON and, given Calculon's CLI (e.g. `/path/to/venv/bin/calculon`, or the `CALCULON`
environment variable) and `CALCULON_ROOT` (its checkout, for models/ and systems/), runs `calculon llm` on it and
prints Calculon's sample rate: the figure recorded in tests/perf/data/calculon-optima.yaml. It also does so for
stack megatron-core-2024 with `CALCULON_KNOBS` stated. Calculon is not a dependency of archgen; nothing
here imports it.

The hardware mirrors Calculon's shipped systems (calculon-ai/calculon caa4b11, systems/a100_80g.json and
systems/h100_80g_nvl8.json) as far as archgen's model states them: the accelerator from archgen's catalog, 8 per
NVLink domain at Calculon's NVLink rate, Calculon's per-GPU scale-out rate, and its second memory tier (512 GiB at
32 GB/s for A100, 450 GB/s for H100) as host memory. Calculon has no CPU: the CPU memory bandwidth archgen's
optimizer offload needs is a DGX's share per GPU (A100: 2 x EPYC 7742, 16 channels of DDR4-3200, 409.6 GB/s per 8
GPUs, as tests/perf/data/calculon-530b-5120.yaml; H100: specs/catalog/systems/dgx-h100.yaml, 614.4 GB/s per 8).
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from archgen.perf.explore.plan import search_plan
from archgen.perf.explore.plan_result import PlanResult
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.host_share import HostShare
from archgen.perf.train.job import Job
from archgen.perf.train.pipeline_split import PipelineOptions
from archgen.perf.train.stacks import resolve
from archgen.scoring.catalog import load_accelerators
from archgen.units import Q_

#: Calculon's names for archgen's recompute modes (Calculon `activation_recompute`: selective is its attn_only)
RECOMPUTE = {"none": "none", "selective": "attn_only", "full": "full"}
#: Calculon's NVLink domain (network tier 0 of both shipped systems: size 8, must be filled)
DOMAIN = 8


@dataclass(frozen=True)
class Case:
    """One of the issue's jobs: Calculon's model and system files and archgen's equivalent."""

    name: str
    model: str              # Calculon's models/ file
    system: str             # Calculon's systems/ file
    arch: Arch
    accelerator: str        # archgen catalog id
    gpus: int
    batch: int
    scale_up: str
    scale_out: str
    host_link: str
    host_memory_bandwidth: str


# Megatron-LM SC21 (Narayanan et al., Table 1): 1T (128 layers, hidden 25,600, 160 heads, batch 3,072) and GPT-3 175B
# (96 layers, hidden 12,288, 96 heads, batch 1,536), sequence 2,048; Calculon's models/megatron-1T.json and
# models/gpt3-175B.json state the same blocks (Calculon has no embedding or output layer).
CASES = {
    "1t-4096-a100": Case("1T on 4,096 A100", "models/megatron-1T.json", "systems/a100_80g.json",
                         Arch(layers=128, hidden=25600, heads=160, kv_heads=160, head_dim=160, ffn=102400,
                              vocab=51200), "a100-sxm4-80gb", 4096, 3072, "300 GB/s", "25 GB/s", "32 GB/s",
                         "51.2 GB/s"),
    "175b-1024-h100": Case("175B on 1,024 H100", "models/gpt3-175B.json", "systems/h100_80g_nvl8.json",
                           Arch(layers=96, hidden=12288, heads=96, kv_heads=96, head_dim=128, ffn=49152, vocab=51200),
                           "h100-sxm5-80gb", 1024, 1536, "450 GB/s", "50 GB/s", "450 GB/s", "76.8 GB/s"),
}
STACK = "nemo-2025"  # the default stack (archgen.model.stack_profiles.DEFAULT_STACK): the one `--search-plan` searches

# Issue 25's like-for-like comparison: archgen's search restricted to the plans Calculon's execution can state
# (calculon-ai/calculon caa4b11 calculon/llm/llm.py, `Llm.Execution`), with the same switches stated both sides;
# bench/calculon_optimum.py --like-archgen restricts Calculon's side to the plans archgen can state.
#: Switches stated for archgen: Calculon's attention is the unfused `multihead` block (QK^T, softmax, dropout,
#: attention over V as separate kernels, the scores stored: llm.py `_build_attn_block`), it always has Megatron's
#: dropout layers (attention and hidden), and it has no PP overlap: every pipeline send is exposed
#: (`pp_comm_exposed_time` is `pp_comm_link_time`; `Llm.Execution` has no knob for it), where Megatron-core's
#: interleaved schedule overlaps them (`overlap_p2p_comm`). nemo-2025 runs flash attention without dropout.
LIKE_STATED: dict[str, object] = {"attention": "materialized", "dropout": True, "overlap_p2p_comm": False}
#: What the `megatron-core-2024` record (calculon-optima.yaml, archgen_plan_calculon_knobs) states: Calculon's unfused
#: attention and its dropout (above; the profile, NeMo 24.x, runs none), and Megatron's unfused loss, the one that
#: record was searched with (Calculon has no output layer or loss to match: an assumption, not Calculon's).
CALCULON_KNOBS: dict[str, object] = {"attention": "materialized", "dropout": True, "cross_entropy": "unfused"}
#: What Calculon's `tensor_par_overlap: none` (an archgen plan without TP overlap, `execution`) means, set on archgen's
#: job: every TP collective on the critical path (calculon/llm/layers.py lines 935-937, `TPComm.get_exposed_net_time`
#: is its whole `compute_net_time`; llm.py lines 1485-1495 and 1528 sum them into `tp_comm_exposed_time`).
#: Transformer Engine and Megatron-core run the column-parallel backward's input re-gather and dgrad reduce-scatter
#: async (`tp_comm`), a schedule Calculon cannot state; no stack has a switch for it (`Job.tp_async_backward`).
LIKE_JOB: dict[str, object] = {"tp_async_backward": False}
#: ZeRO stages Calculon can state: 0, and its `optimizer_sharding`, which splits the optimizer state and the weight
#: gradients over dp (`shard_optimizer` of every layer; one block's gradients kept whole): ZeRO-2. ZeRO-1 keeps
#: every gradient whole (Calculon would count it as ZeRO-2's), ZeRO-3 also shards the weights (no Calculon knob).
LIKE_ZEROS = (0, 2)
#: Calculon's blocks are the decoder layers only: no embedding or loss slot in a pipeline stage; an even split
#: (Calculon's pipeline_par divides num_blocks, its interleaving the blocks per processor); interleaved only in
#: Megatron-core's default micro-batch groups of pp (`whole_groups`: m a multiple of pp), the schedule Calculon
#: models (a count that is not it charges as a short last group's bubbles, which Megatron-core refuses to run).
LIKE_PIPELINE = PipelineOptions(embedding_slot=False, loss_slot=False, whole_groups=True)


def hardware(case: Case, accelerators=None) -> Hardware:
    """archgen's hardware for `case` (see the module docstring)."""
    acc = (accelerators or load_accelerators())[case.accelerator]
    host = HostShare(Q_(512, "GiB"), Q_(case.host_link), Q_(case.host_memory_bandwidth), 0.95)
    return hardware_for(acc, scale_up_size=DOMAIN, scale_up_bandwidth=Q_(case.scale_up),
                        scale_out_bandwidth=Q_(case.scale_out), host=host)


def search(case: Case, accelerators=None, stack: str = STACK, stated: dict[str, object] | None = None,
           model_only: bool = False) -> tuple[PlanResult, float]:
    """archgen's plan search for `case` (with the switches `stated`, kept as stated) and its CPU seconds.

    `model_only` also searches weight offload, which no stack runs (`search_plan`).
    """
    hw = hardware(case, accelerators)
    job = Job.from_knobs(case.arch, 2048, case.batch, "bf16", resolve(stack, stated or {}, "bf16"))
    start = time.process_time()
    plan = search_plan(hw, job, case.gpus, stack, stated or {}, model_only=model_only)
    return plan, time.process_time() - start


def search_like(case: Case, accelerators=None) -> tuple[PlanResult, float]:
    """archgen's plan search over the plans Calculon can state, and its CPU seconds (issue 25's like for like).

    Stack nemo-2025 (it allows every knob Calculon has: SP, TP overlap, ZeRO, activation and optimizer offload),
    weight offload searched too (`model_only`: Calculon's mechanism), `LIKE_STATED` stated, `LIKE_JOB` set, no context
    parallelism (Calculon has none), ZeRO in `LIKE_ZEROS` (one search per stage, the fastest kept) and
    `LIKE_PIPELINE`. The pick is checked representable.
    """
    hw = hardware(case, accelerators)
    job = replace(Job.from_knobs(case.arch, 2048, case.batch, "bf16", resolve(STACK, LIKE_STATED, "bf16")),
                  **LIKE_JOB)  # type: ignore[arg-type]
    start = time.process_time()
    plans = [search_plan(hw, job, case.gpus, STACK, LIKE_STATED, fixed={"zero": z, "cp": 1}, pipeline=LIKE_PIPELINE,
                         model_only=True) for z in LIKE_ZEROS]
    cpu = time.process_time() - start
    plan = min((p for p in plans if p.estimate is not None), key=lambda p: float(p.estimate.step_time)  # type: ignore[union-attr]
               )
    assert plan.best is not None and case.arch.layers % int(plan.best["pp"]) == 0, plan.best
    return plan, cpu


def networks(tp: int, pp: int, dp: int) -> dict[str, int]:
    """Calculon's network tier of each group (0 NVLink, 1 scale-out) as archgen's model places it: Megatron's rank
    order (tp, dp, pp), a group on tier 0 only where it and the groups inside it fit in one domain (a pipeline spans
    tp·dp·pp ranks: `training.pipeline_comm`). bench/calculon_optimum.py `megatron_nets` is the same rule."""
    nets, inside = {}, 1
    for name, size in (("tensor", tp), ("data", dp), ("pipeline", pp)):
        nets[f"{name}_par_net"] = 0 if size > 1 and DOMAIN % (inside * size) == 0 else 1
        inside *= size  # the next group's ranks are `inside` apart
    return nets


def execution(plan: PlanResult, case: Case) -> dict[str, object]:
    """`plan` as Calculon's execution JSON (`calculon llm`'s second file). Every mapping is one line here.

    - tp, pp, dp, micro-batch, batch: as they are; datatype float16 (Calculon's systems state no bf16; same rate).
    - interleave -> pipeline_interleaving (virtual stages per rank: Calculon's chunks per processor).
    - recompute none / selective / full -> none / attn_only / full.
    - sequence parallelism -> tensor_par_comm_type rs_ag (Megatron's SP), else ar; seq_par_ag_redo false.
    - overlap_tp_comm -> tensor_par_overlap ring (TE userbuffers' ring exchange), else none (every TP collective
      exposed: the like-for-like search sets `LIKE_JOB` for it).
    - overlap_grad_reduce -> data_par_overlap (where dp > 1).
    - ZeRO >= 1 -> optimizer_sharding. Calculon's sharding splits the optimizer state and the weight gradients over
      dp but one block's (`llm.py`: `_block_weight_grad_space_no_sharding` + the sharded rest), about ZeRO-2;
      ZeRO-3's weight sharding has no Calculon knob, so Calculon counts every weight of the rank.
    - offload activations / optimizer / both -> activations_offload / optimizer_offload; weights (a model-only
      option, after Calculon's) -> weight_offload.
    - flash attention: no Calculon knob (its attention is `multihead`, the materialised scores).
    - networks: `networks`.
    """
    assert plan.best is not None, "no plan fits"
    lay, sw = plan.best, plan.switches
    tp, pp, dp = (int(lay[k]) for k in ("tp", "pp", "dp"))
    assert int(lay["cp"]) == 1 and int(lay["ep"]) == 1, "Calculon has no context or expert parallelism"
    nets = networks(tp, pp, dp)
    offload = str(lay.get("offload", "none"))
    return {"num_procs": case.gpus, "tensor_par": tp, "pipeline_par": pp, "data_par": dp, **nets,
            "batch_size": case.batch, "microbatch_size": int(lay["micro_batch"]), "datatype": "float16",
            "fused_activation": True, "attention_type": "multihead",
            "activation_recompute": RECOMPUTE[str(lay["recompute"])],
            "pipeline_interleaving": int(lay["interleave"]), "optimizer_sharding": int(lay["zero"]) >= 1 and dp > 1,
            "tensor_par_comm_type": "rs_ag" if sw["sequence_parallel"] and tp > 1 else "ar",
            "tensor_par_overlap": "ring" if sw["overlap_tp_comm"] and tp > 1 else "none",
            "seq_par_ag_redo": False, "data_par_overlap": bool(sw["overlap_grad_reduce"]) and dp > 1,
            "weight_offload": offload.startswith("weights"),
            "activations_offload": offload.endswith(("activations", "both")),
            "optimizer_offload": offload.endswith(("optimizer", "both")), "training": True}


def calculon_rate(command: list[str], root: Path, case: Case, exe: dict[str, object]) -> tuple[dict, str]:
    """Calculon's stats for `exe` (its `llm` CLI on `root`'s model and system files) and its refusal, if any.

    Where Calculon refuses the execution for memory, the stats are those of the same system with both memory capacities
    lifted (Calculon's time model does not read the capacity; only its check does), and the refusal is returned.
    """
    with tempfile.TemporaryDirectory() as tmp:
        path, out, system = Path(tmp) / "exe.json", Path(tmp) / "stats.json", root / case.system
        path.write_text(json.dumps(exe), encoding="utf-8")
        run = subprocess.run([*command, "llm", str(root / case.model), str(path), str(system), str(out)],
                             capture_output=True, text=True)
        refused = run.stdout.strip() if run.returncode else ""
        if refused:
            assert "Mem tier" in refused, refused
            lifted = json.loads(system.read_text(encoding="utf-8"))
            lifted["mem1"]["GiB"] = lifted["mem2"]["GiB"] = 10**6
            system = Path(tmp) / "lifted.json"
            system.write_text(json.dumps(lifted), encoding="utf-8")
            subprocess.run([*command, "llm", str(root / case.model), str(path), str(system), str(out)], check=True,
                           capture_output=True)
        return json.loads(out.read_text(encoding="utf-8")), refused


def main() -> None:
    """Search both cases; with Calculon's CLI given, print its figures for each best plan."""
    command = shlex.split(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CALCULON", ""))
    root = Path(os.environ.get("CALCULON_ROOT", "."))
    variants = [(STACK, {}, False), (STACK, {}, True), (STACK, {"attention": "materialized"}, False),
                ("megatron-core-2024", CALCULON_KNOBS, False)]
    for (key, case), (stack, stated, model_only) in itertools.product(CASES.items(), variants):
        plan, cpu = search(case, stack=stack, stated=stated, model_only=model_only)
        exe = execution(plan, case)
        assert plan.estimate is not None
        print(f"{key} {stack} {stated}{' model-only' if model_only else ''}: archgen {plan.best} {plan.switches}: step {float(plan.estimate.step_time):.4f} s, "
              f"search {cpu:.3f} CPU s\n  calculon execution: {json.dumps(exe)}")
        if command:
            s, refused = calculon_rate(command, root, case, exe)
            print(f"  calculon: sample_rate {s['sample_rate']:.4f}, total_time {s['total_time']:.4f} s, tier1 "
                  f"{s['proc_mem_tier1_cap_req'] / 2**30:.3f} GiB {refused}")


if __name__ == "__main__":
    main()
