"""Calculon's optimal execution for the issue-25 cases, searched in two passes (Calculon's own model, our loop).

Run: `PYTHONPATH=<calculon checkout> python bench/calculon_optimum.py {1t,175b} OUT.json` (needs Calculon,
calculon-ai/calculon, and its numpy/pandas/psutil; it is not a dependency of archgen, so this is not part of
`make bench`). Writes Calculon's best execution, its stats and what was searched to OUT.json
(tests/perf/data/calculon-optima.yaml holds the figures it gave). `--pp-tier0` runs only the check described below.
`--like-archgen` searches only the executions archgen's model can state (`like_archgen`): issue 25's like-for-like
optimum, `calculon_optimum_like` in the data file, against archgen's search over what Calculon can state
(tests/perf/calculon_plans.search_like).

Calculon's own search (`calculon llm-optimal-execution`) walks every combination: ~1.0e7 executions for 1T on 4,096
A100 and ~1.2e7 for 175B on 1,024 H100, 3-20 ms each on this machine (hours on two shared cores; it builds its
loggers at level NOTSET, so every debug line of the model is formatted: 1-6 ms each without that). This script
evaluates the same executions with the same code (`Llm.compile`, `Llm.run`, `Llm.get_sample_rate`) over a smaller
space, in two passes:

1. **Pass 1**, every knob that changes memory or compute: tensor, pipeline and data parallelism, interleaving,
   recompute (full, attn_only, none), optimizer sharding, sequence-parallel AG redo, TP overlap (none, ring, pipe),
   micro-batch size, and weight, activation and optimizer offload where the execution does not fit without (offload
   only adds time in Calculon's model: overheads and a longer bubble); with TP communication `rs_ag` (sequence
   parallelism), DP overlap on, TP on network tier 0 where it fits (8 % tp == 0), PP and DP on tier 1. Micro-batch
   sizes stop at the first that fits under no offload (Calculon's own `--mbs-break` rule: memory grows with the
   micro-batch).
2. **Pass 2**, around the best of pass 1 (the 200 best executions, the 200 best without offload and the best per
   (tp, pp, interleave, offload or not)): every network assignment Calculon allows, DP overlap on and off, and every
   TP communication type (ar, p2p_rs_ag, rs_ag) with the AG redo it allows; and every offload combination around
   the 20 best.

The space of pass 1 times pass 2 covers every knob of Calculon's search; what is not covered is a combination
whose pass-1 rank (under the fixed network assignment, DP overlap and `rs_ag`) was outside the 200 best and not best
for its (tp, pp, interleave), or an offload that is faster than none where none fits. That is an assumption, stated
in the data file, not a proof. One check of it (`--pp-tier0`): pass 1 again for every (tp, pp) that fits in one
NVLink domain, with PP on tier 0 as well (the assignment pass 2 found best for 175B).
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import subprocess
import sys
import time
from pathlib import Path

import calculon  # type: ignore[import-not-found]
from calculon.llm import Llm, OptimalExecution  # type: ignore[import-not-found]

CASES = {
    # Megatron-LM SC21 (Narayanan et al., Table 1): batch 3,072 for 1T, 1,536 for 175B; Calculon's models and systems
    "1t": ("models/megatron-1T.json", 4096, 3072, "systems/a100_80g.json"),
    "175b": ("models/gpt3-175B.json", 1024, 1536, "systems/h100_80g_nvl8.json"),
}
TOP = 200
#: (weight, activations, optimizer) offload: none first, then every combination
OFFLOADS = list(itertools.product((False, True), repeat=3))
#: Seeds of pass 2 that are also tried with every offload combination
TOP_OFFLOAD = 20
#: Calculon's search builds `logging.Logger('sub')` at level NOTSET, so every debug line of the model is formatted
#: (80 % of an evaluation's time here); at WARNING they are skipped. Logging only: no figure changes.
LOG = logging.Logger("calculon-optimum", logging.WARNING)


def execution(n: int, tp: int, pp: int, dp: int, batch: int, **kw) -> dict:
    """A Calculon execution JSON (`Llm.Execution.from_json`) with the fixed fields of the search."""
    e = {"num_procs": n, "tensor_par": tp, "pipeline_par": pp, "data_par": dp, "tensor_par_net": 0,
         "pipeline_par_net": 1, "data_par_net": 1, "batch_size": batch, "microbatch_size": 1, "datatype": "float16",
         "fused_activation": True, "attention_type": "multihead", "activation_recompute": "full",
         "pipeline_interleaving": 1, "optimizer_sharding": False, "tensor_par_comm_type": "rs_ag",
         "tensor_par_overlap": "none", "seq_par_ag_redo": False, "data_par_overlap": False, "weight_offload": False,
         "activations_offload": False, "optimizer_offload": False, "training": True}
    e.update(kw)
    return e


def offloads(exe: dict) -> bool:
    """Whether `exe` offloads anything to Calculon's second memory tier."""
    return bool(exe["weight_offload"] or exe["activations_offload"] or exe["optimizer_offload"])


def rate(app, syst, exe: dict) -> tuple[float | None, bool]:
    """(samples/s or None, whether it failed on memory) of one execution in Calculon's model."""
    m = Llm(app, LOG)
    try:
        m.compile(syst, Llm.Execution.from_json(exe))
        m.run(syst)
    except Llm.Error as err:
        return None, str(err).startswith("Mem tier")
    return m.get_sample_rate(), False


def stats(app, syst, exe: dict) -> dict:
    """Calculon's stats JSON of one execution."""
    m = Llm(app, LOG)
    m.compile(syst, Llm.Execution.from_json(exe))
    m.run(syst)
    return m.get_stats_json(False)


def megatron_nets(tp: int, pp: int, dp: int) -> dict:
    """Network tiers in Megatron's rank order (tp, dp, pp).

    A group is on tier 0 (NVLink, 8) where it fits there whole with the groups inside it, else on tier 1, as
    tests/perf/calculon_plans.networks places archgen's plans.
    """
    nets, inside = {}, 1
    for name, size in (("tensor", tp), ("data", dp), ("pipeline", pp)):
        nets[f"{name}_par_net"] = 0 if size > 1 and 8 % (inside * size) == 0 else 1
        inside *= size  # the next group's ranks are `inside` apart
    return nets


def like_archgen(exe: dict) -> bool:
    """Whether archgen's model can state `exe` (`--like-archgen`).

    That is: tp inside the NVLink domain (archgen's layouts keep it there), Megatron's rank order for the networks,
    TP overlap none or ring (archgen's overlap_tp_comm is TE's ring exchange; no `pipe`), TP communication
    all-reduce or rs_ag (sequence parallelism; no p2p_rs_ag), no AG redo, DP overlap on wherever dp > 1 (archgen's
    overlaps that never add time are on: perf/explore/plan.DOMINANT), and an interleaved schedule only with a
    multiple of pp micro-batches (Megatron-core's default micro-batch groups, perf/train/layout_rules.layout_problems;
    Calculon charges a shortage as bubbles instead).
    """
    tp, pp, dp = exe["tensor_par"], exe["pipeline_par"], exe["data_par"]
    m = exe["batch_size"] // (dp * exe["microbatch_size"])
    return (tp <= 8 and all(exe[k] == v for k, v in megatron_nets(tp, pp, dp).items())
            and exe["tensor_par_overlap"] in ("none", "ring") and exe["tensor_par_comm_type"] in ("ar", "rs_ag")
            and not exe["seq_par_ag_redo"] and exe["data_par_overlap"] == (dp > 1)
            and (exe["pipeline_interleaving"] == 1 or m % pp == 0))


def pass1(app, syst, n: int, max_batch: int, pp_tier0: bool = False, like: bool = False) -> tuple[list, int]:
    """The pass-1 executions that fit, with their rates, and the number evaluated.

    `pp_tier0`: only the (tp, pp) that fit in one NVLink domain together, with both on tier 0 (the check of
    `--pp-tier0`). `like`: only executions archgen can state (`like_archgen`).
    """
    found, count = [], 0
    for tp in Llm.get_all_tensor_parallelisms(n, app.hidden, app.attn_heads):
        if like and tp > 8:
            continue
        for pp in Llm.get_all_pipeline_parallelisms(n, tp, app.num_blocks):
            dp = Llm.get_data_parallelism(n, tp, pp)
            batch = OptimalExecution.get_batch_size(dp, max_batch)
            if batch is None:
                continue
            tn = 0 if tp > 1 and 8 % tp == 0 else 1
            if pp_tier0 and (pp == 1 or 8 % (tp * pp)):
                continue
            for v, rc, osh, redo, tpo in itertools.product(
                    Llm.get_valid_pipeline_interleavings(app.num_blocks, pp), ("full", "attn_only", "none"),
                    (True, False) if dp > 1 else (False,), (False, True), ("none", "ring", "pipe") if tp > 1
                    else ("none",)):
                if redo and rc == "full":
                    continue
                dead: set = set()  # offload combinations that ran out of memory at a smaller micro-batch
                for mbs in Llm.get_valid_microbatch_sizes(app.seq_size, tp, dp, batch, pp):
                    for off in OFFLOADS:
                        wo, ao, oo = off
                        if off in dead or (ao and rc == "full"):
                            continue
                        exe = execution(n, tp, pp, dp, batch, tensor_par_net=tn, pipeline_par_net=0 if pp_tier0 else 1,
                                        microbatch_size=mbs,
                                        activation_recompute=rc, pipeline_interleaving=v, optimizer_sharding=osh,
                                        seq_par_ag_redo=redo, tensor_par_overlap=tpo, data_par_overlap=dp > 1,
                                        weight_offload=wo, activations_offload=ao, optimizer_offload=oo)
                        if like:
                            exe.update(megatron_nets(tp, pp, dp))
                            if not like_archgen(exe):
                                continue
                        r, memory = rate(app, syst, exe)
                        count += 1
                        if r is None:
                            dead.add(off)  # memory grows with the micro-batch (--mbs-break); other errors stay
                            continue
                        found.append((r, exe))
                        if not any(off):
                            break  # it fits without offload: offload only adds time (pass 2 checks the best)
                    if len(dead) == len(OFFLOADS) - (4 if rc == "full" else 0):
                        break  # --mbs-break: nothing fits at this micro-batch, so nothing at a larger one
            print(f"pass 1: tp {tp} pp {pp}: {count:,} evaluated, {len(found):,} fit, best "
                  f"{max((f[0] for f in found), default=0):.3f}", flush=True)
    return found, count


def pass2(app, syst, seeds: list[dict], like: bool = False) -> tuple[list, int]:
    """Every network assignment, DP overlap and TP communication type around each seed execution.

    And every offload combination around the first `TOP_OFFLOAD` seeds. `like`: only those archgen can state.
    """
    found, count, seen = [], 0, set()
    for seed in seeds[:TOP_OFFLOAD]:
        for wo, ao, oo in OFFLOADS:
            exe = dict(seed, weight_offload=wo, activations_offload=ao, optimizer_offload=oo)
            if ao and exe["activation_recompute"] == "full":
                continue
            r, _ = rate(app, syst, exe)
            count += 1
            seen.add(json.dumps(exe, sort_keys=True))
            if r is not None:
                found.append((r, exe))
    for seed in seeds:
        tp, pp, dp = seed["tensor_par"], seed["pipeline_par"], seed["data_par"]
        for ct, tn, pn, dn, dpo in itertools.product(("ar", "p2p_rs_ag", "rs_ag"), (0, 1) if tp > 1 else (0,),
                                                     (0, 1) if pp > 1 else (0,), (0, 1) if dp > 1 else (0,),
                                                     (True, False) if dp > 1 else (False,)):
            for redo in ((False, True) if Llm.can_redo_ag(ct, seed["activation_recompute"]) else (False,)):
                exe = dict(seed, tensor_par_comm_type=ct, tensor_par_net=tn, pipeline_par_net=pn, data_par_net=dn,
                           data_par_overlap=dpo, seq_par_ag_redo=redo)
                key = json.dumps(exe, sort_keys=True)
                if key in seen or (like and not like_archgen(exe)):
                    continue
                seen.add(key)
                r, _ = rate(app, syst, exe)
                count += 1
                if r is not None:
                    found.append((r, exe))
    return found, count


def main(case: str, out: Path, root: Path, like: bool = False) -> None:
    """Search `case` and write the result to `out` (`like`: only executions archgen can state)."""
    model, n, max_batch, system = CASES[case]
    app = Llm.Application(calculon.io.read_json_file(str(root / model)))
    syst = calculon.System(calculon.io.read_json_file(str(root / system)))
    start = time.process_time()
    found1, count1 = pass1(app, syst, n, max_batch, like=like)
    t1 = time.process_time() - start
    best_per = {}
    for r, exe in found1:
        k = (exe["tensor_par"], exe["pipeline_par"], exe["pipeline_interleaving"], offloads(exe))
        if k not in best_per or r > best_per[k][0]:
            best_per[k] = (r, exe)
    seeds = [e for _, e in heapq.nlargest(TOP, found1, key=lambda x: x[0])]
    seeds += [e for _, e in heapq.nlargest(TOP, [f for f in found1 if not offloads(f[1])], key=lambda x: x[0])]
    seeds += [e for _, e in best_per.values()]
    seeds = list({json.dumps(e, sort_keys=True): e for e in seeds}.values())
    found2, count2 = pass2(app, syst, seeds, like=like)
    t2 = time.process_time() - start - t1
    best_r, best = max(found1 + found2, key=lambda x: x[0])
    plain_r, plain = max((f for f in found1 + found2 if not offloads(f[1])), key=lambda x: x[0])
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    if not commit and (root / "COMMIT").exists():  # an exported tree (git archive) has no .git: its commit, written
        commit = (root / "COMMIT").read_text(encoding="utf-8")
    result = {"case": case, "like_archgen": like, "model": model, "num_procs": n, "max_batch_size": max_batch,
              "system": system,
              "calculon_commit": commit.strip() or "unknown", "pass1_evaluated": count1, "pass1_fitting": len(found1),
              "pass1_cpu_s": round(t1, 1), "pass2_seeds": len(seeds), "pass2_evaluated": count2,
              "pass2_cpu_s": round(t2, 1), "pass1_best_rate": max(r for r, _ in found1),
              "best_rate": best_r, "best_execution": best, "best_stats": stats(app, syst, best),
              "best_rate_without_offload": plain_r, "best_execution_without_offload": plain,
              "top10": [[r, e] for r, e in heapq.nlargest(10, found1 + found2, key=lambda x: x[0])]}
    out.write_text(json.dumps(result, indent=1, sort_keys=True), encoding="utf-8")
    print(f"{case}: best {best_r:.3f} samples/s, pass 1 {count1:,} evaluated in {t1:.0f} s, pass 2 {count2:,} in "
          f"{t2:.0f} s")


def check_pp_tier0(case: str, out: Path, root: Path) -> None:
    """Pass 1 again for the (tp, pp) that fit in one NVLink domain, with PP on tier 0 too: a check of pass 2's reach."""
    model, n, max_batch, system = CASES[case]
    app = Llm.Application(calculon.io.read_json_file(str(root / model)))
    syst = calculon.System(calculon.io.read_json_file(str(root / system)))
    start = time.process_time()
    found, count = pass1(app, syst, n, max_batch, pp_tier0=True)
    best_r, best = max(found, key=lambda x: x[0]) if found else (None, None)
    out.write_text(json.dumps({"case": case, "evaluated": count, "fitting": len(found), "best_rate": best_r,
                               "best_execution": best, "cpu_s": round(time.process_time() - start, 1)}, indent=1),
                   encoding="utf-8")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = Path(args[2]) if len(args) > 2 else Path(calculon.__file__).parents[1]
    if "--pp-tier0" in sys.argv:
        check_pp_tier0(args[0], Path(args[1]), root)
    else:
        main(args[0], Path(args[1]), root, like="--like-archgen" in sys.argv)
