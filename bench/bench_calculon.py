"""Against Calculon: the CLI's CPU, and archgen's best plan in Calculon's model with the time of the whole search.

Run: `python bench/bench_calculon.py` (or `make bench`). Writes bench/results/calculon.md. Issue 25's bars: the CPU
time of `archgen estimate` at most Calculon's `llm` CLI's (ratio <= 1), measured in one run; archgen's best plan for
1T on 4,096 A100 and 175B on 1,024 H100, evaluated in Calculon's model, within 2 % of Calculon's optimum (figures
from tests/perf/data/calculon-optima.yaml, held by tests/perf/test_calculon_optimum.py), the whole plan search
under 1 s of CPU (measured here, least of 3).

Each command runs in a fresh interpreter, the two alternating round by round so machine noise hits both; the CPU
time is user + system of the child (`resource.getrusage(RUSAGE_CHILDREN)`), the median of `RUNS` rounds.

archgen runs warm, as a user's repeated command does: its byte code and caches (parsed YAML, compiled code, the
validated specs `archgen.snapshot` keeps) written by the warm-up run, in a cache folder of the bench's own (`CACHE`),
which no other process on the machine evicts. A third command, alternating with the two,
is archgen with its kept specs removed before each run (`SPECS_KEPT`): the first run after a spec file changed,
which validates and keeps them again.

- archgen: `archgen estimate --workload llama3-70b-pretrain-b200` (the shipped workload `bench_cli.py` times: Llama
  3.1 70B on 512 B200, its layout searched: more work than Calculon's single execution).
- Calculon: `calculon llm megatron-1T.json 3072_t4_p64_d12_mbs4_full.json a100_80g.json -`, the single calculation
  of its README (one execution of 1T on 3,072 A100), with the input files it ships (bench/calculon/, copied from
  calculon-ai/calculon at caa4b11, Apache-2.0).

Calculon is not a dependency of archgen. `make calculon` builds its command line the same way each time: the commit
bench/calculon/ was copied from, exported into build/calculon/src, installed in a venv of its own (build/calculon/venv)
with the dependency versions bench/calculon/requirements.txt pins (this machine is offline: `CALCULON_GIT=` a clone
or mirror holding the commit; the target says so where it cannot fetch or install). The bench runs, in this order:
the command in `$CALCULON` (e.g. `/path/to/venv/bin/calculon`, or `python /path/to/calculon/bin/calculon` with its
checkout on PYTHONPATH), else the one `make calculon` built, else a `calculon` on PATH or beside this interpreter;
otherwise it writes "not installed" and the ratio is not measured. The report names which it ran: the CLI ratio
moves with Calculon's install (its pandas and numpy are most of its run), so a ratio is only comparable to one
measured against the same.

One configuration in process (issue 25's bar: archgen's CPU per evaluation / Calculon's <= 0.07, `ONE_BAR`): the
same plan in both models, 1T on 4,096 A100, archgen's like-for-like pick as tests/perf/data/calculon-optima.yaml
records it (`archgen_plan_like`: its Calculon execution, and archgen's layout and switches read back from it by
`calculon_terms.archgen_plan`). archgen: `estimate_training` in this process; Calculon: its evaluation of the
execution (bench/calculon_one.py) in a child interpreter, `$CALCULON_PYTHON` or this one, with `$CALCULON_ROOT`
(Calculon's checkout) on its PYTHONPATH; where neither is set and `make calculon` built them, its venv's interpreter
and build/calculon/src. Each side times its own CPU (`time.process_time`) over a round of calls,
the two alternating round by round; the ratio is of the medians. Where Calculon does not import, the bench says why
and leaves that section without a ratio.
"""

from __future__ import annotations

import atexit
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
INPUTS = ROOT / "bench" / "calculon"
RUNS = 9
#: The children's cache folder (`XDG_CACHE_HOME`): the bench's own, removed at exit. In the shared ~/.cache every
#: checkout and command of the machine keeps its validated specs among 32 (`snapshot.MAX_SNAPSHOTS`), so another
#: engineer's runs could evict what the warm-up kept and turn the hits measured into misses, and the runs after a
#: spec change (`FRESH`) removed every kept entry on the machine, not only the bench's (boot32).
CACHE = Path(tempfile.mkdtemp(prefix="archgen-bench-cache-"))
atexit.register(shutil.rmtree, CACHE, True)
#: The children write and reuse byte code (as an installed package does) even where the environment says not to:
#: otherwise archgen, run from its source tree, recompiles every module each run and Calculon, installed, does not.
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "XDG_CACHE_HOME": str(CACHE)}
ARCHGEN = [str(BIN / "archgen"), "estimate", "--workload", "llama3-70b-pretrain-b200"]
CALCULON_ARGS = ["llm", str(INPUTS / "megatron-1T.json"), str(INPUTS / "3072_t4_p64_d12_mbs4_full.json"),
                 str(INPUTS / "a100_80g.json"), "-"]
OPTIMA = ROOT / "tests" / "perf" / "data" / "calculon-optima.yaml"
#: The one-configuration case (its Calculon model and system: the copies in bench/calculon/) and the bar
ONE_CASE, ONE_BAR = "1t-4096-a100", 0.07
ONE_INPUTS = (INPUTS / "megatron-1T.json", INPUTS / "a100_80g.json")
#: Evaluations per round on each side (about 0.2 s of CPU each here)
ONE_CALLS = {"archgen": 1000, "calculon": 100}


#: What `make calculon` builds: Calculon's checkout at the pinned commit and a venv holding it (Makefile).
BUILT = ROOT / "build" / "calculon"
BUILT_CLI, BUILT_PYTHON, BUILT_SRC = (BUILT / "venv" / "bin" / "calculon", BUILT / "venv" / "bin" / "python",
                                     BUILT / "src")


def calculon_command() -> list[str] | None:
    """The command that runs Calculon's CLI here, or None where it is not installed."""
    if os.environ.get("CALCULON"):
        return shlex.split(os.environ["CALCULON"])
    if BUILT_CLI.is_file():
        return [str(BUILT_CLI)]
    found = shutil.which("calculon") or shutil.which("calculon", path=str(BIN))
    return [found] if found else None


def calculon_source() -> str:
    """Which Calculon `calculon_command` runs, in words for the report (no folder of this machine named)."""
    if os.environ.get("CALCULON"):
        return "the command in `$CALCULON`"
    if BUILT_CLI.is_file():
        return ("build/calculon/venv/bin/calculon, built by `make calculon` (calculon-ai/calculon caa4b11, "
                "dependencies as bench/calculon/requirements.txt pins them)")
    return "a `calculon` found on PATH" if calculon_command() else "none"


#: Where the console script keeps its validated specs (`archgen.snapshot`), as `archgen.cache.cache_dir` names it.
SPECS_KEPT = CACHE / "archgen" / "specs"
FRESH = "archgen, specs changed"
#: The machine's load average (1 minute) before and after the CLI rounds (a shared machine: the ratio moves with it).
LOAD: list[float] = []


def _cpu(cmd: list[str], fresh: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run of `cmd` in a child process; `fresh`: no kept specs."""
    if fresh:
        shutil.rmtree(SPECS_KEPT, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, env=ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def measure(calculon: list[str], runs: int = RUNS) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) of each run of each command, alternating, after one warm-up run of each (page cache, byte code)."""
    LOAD[:] = [os.getloadavg()[0]]
    commands = {"archgen": ARCHGEN, "calculon": calculon + CALCULON_ARGS, FRESH: ARCHGEN}
    for cmd in commands.values():
        _cpu(cmd)
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            samples[name].append(_cpu(cmd, fresh=name == FRESH))
    LOAD.append(os.getloadavg()[0])
    _cpu(ARCHGEN)  # the specs kept again
    return samples


def one_configuration(rounds: int = RUNS) -> dict | str:
    """CPU seconds per evaluation of the one-configuration plan in each model, alternating rounds.

    As the module's docstring says; or, where Calculon does not import, why its side could not be measured.
    """
    sys.path.insert(0, str(ROOT))
    from archgen.perf.train.training import estimate_training
    from tests.perf.calculon_plans import CASES
    from tests.perf.calculon_terms import archgen_plan

    plan = yaml.safe_load(OPTIMA.read_text(encoding="utf-8"))["cases"][ONE_CASE]["archgen_plan_like"]
    exe = plan["calculon"]["execution"]
    hw, job, lay = archgen_plan(CASES[ONE_CASE], exe)
    step = float(estimate_training(hw, job, lay).step_time)
    root, python = os.environ.get("CALCULON_ROOT", ""), os.environ.get("CALCULON_PYTHON", "")
    if not root and not python and BUILT_PYTHON.is_file() and BUILT_SRC.is_dir():   # `make calculon`'s
        root, python = str(BUILT_SRC), str(BUILT_PYTHON)
    python = python or sys.executable
    env = dict(ENV, PYTHONPATH=os.pathsep.join(p for p in (root, ENV.get("PYTHONPATH", "")) if p))
    child = subprocess.Popen([python, str(ROOT / "bench" / "calculon_one.py"), *map(str, ONE_INPUTS),
                              json.dumps(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert child.stdin is not None and child.stdout is not None
    ready = child.stdout.readline().split(maxsplit=2)
    if len(ready) < 3 or ready[0] != "ready":
        err = child.communicate()[1].strip().splitlines()
        return (f"Calculon does not import in `{python}` with CALCULON_ROOT {root or 'not set'} "
                f"({err[-1] if err else 'no output'}): ratio not measured.")

    def calculon(n: int) -> float:
        child.stdin.write(f"{n}\n")  # type: ignore[union-attr]
        child.stdin.flush()  # type: ignore[union-attr]
        return float(child.stdout.readline()) / n  # type: ignore[union-attr]

    def archgen(n: int) -> float:
        start = time.process_time()
        for _ in range(n):
            estimate_training(hw, job, lay)
        return (time.process_time() - start) / n

    archgen(ONE_CALLS["archgen"] // 5), calculon(ONE_CALLS["calculon"] // 5)  # warm-up: caches, byte code
    samples: dict[str, list[float]] = {"archgen": [], "calculon": []}
    for _ in range(rounds):
        samples["calculon"].append(calculon(ONE_CALLS["calculon"]))
        samples["archgen"].append(archgen(ONE_CALLS["archgen"]))
    child.stdin.close()
    child.wait()
    return {"samples": samples, "step": step, "rate": float(ready[1]), "where": _portable(ready[2].strip(), root),
            "plan": plan}


def _portable(path: str, root: str) -> str:
    """`path` with Calculon's checkout written as `$CALCULON_ROOT`, so the report names no folder of this machine.

    `make calculon`'s checkout is written as build/calculon/src.
    """
    name = "build/calculon/src" if os.path.realpath(root or "/") == os.path.realpath(BUILT_SRC) else "$CALCULON_ROOT"
    return path.replace(os.path.realpath(root), name).replace(root, name) if root else path


def one_lines(one: dict | str) -> list[str]:
    """The one-configuration section of the report."""
    lines = ["", f"## One configuration in process (issue 25's bar: archgen / Calculon <= {ONE_BAR})", ""]
    if isinstance(one, str):
        return [*lines, one]
    plan = one["plan"]
    lay = ", ".join(f"{k} {v}" for k, v in plan["layout"].items())
    med = {k: statistics.median(v) for k, v in one["samples"].items()}
    ratio = med["archgen"] / med["calculon"]
    note = {"archgen": f"step {one['step']:.5f} s (recorded {plan['step_time_s']} s)",
            "calculon": f"{one['rate']:.4f} samples/s (recorded {plan['calculon']['sample_rate']})"}
    lines += ["The same plan in both models: 1T on 4,096 A100, archgen's like-for-like pick "
              f"(calculon-optima.yaml `archgen_plan_like`: {lay}; stated {plan['stated']}). archgen: "
              "`estimate_training`; Calculon: `Llm` compile, run, sample rate, logger at WARNING "
              f"(bench/calculon_one.py; {one['where']}). CPU per evaluation, each side timing its own process, "
              f"median of {len(one['samples']['archgen'])} alternating rounds of {ONE_CALLS['archgen']:,} (archgen) "
              f"and {ONE_CALLS['calculon']:,} (Calculon) evaluations, one run; load average at the end "
              f"{os.getloadavg()[0]:.2f}.", "",
              "| model | CPU per evaluation (ms) | rounds, least-most (ms) | its figure for the plan |",
              "|---|---:|---:|---|"]
    for name in ("archgen", "calculon"):
        s = one["samples"][name]
        lines.append(f"| {name} | {med[name] * 1e3:.4f} | {min(s) * 1e3:.4f}-{max(s) * 1e3:.4f} | {note[name]} |")
    return [*lines, "", f"**CPU ratio archgen / Calculon, one configuration: {ratio:.3f}**; bar <= {ONE_BAR}: "
            f"{'met' if ratio <= ONE_BAR else 'NOT met'}."]


def search_times(rounds: int = 3) -> dict[str, tuple[float, object]]:
    """CPU seconds (least of `rounds`) of archgen's whole plan search on each of the issue's two cases.

    Also with weight offload searched (`--model-only`), under the case's key + " model-only", and the like-for-like
    search (`calculon_plans.search_like`, one search per ZeRO stage Calculon can state), under key + " like".
    """
    sys.path.insert(0, str(ROOT))
    from tests.perf.calculon_plans import CASES, search, search_like

    out: dict[str, tuple[float, object]] = {}
    for key, case in CASES.items():
        for wide in (False, True):
            runs = [search(case, model_only=wide) for _ in range(rounds)]
            out[key + (" model-only" if wide else "")] = (min(cpu for _, cpu in runs), runs[0][0])
        runs = [search_like(case) for _ in range(rounds)]
        out[key + " like"] = (min(cpu for _, cpu in runs), runs[0][0])
    return out


def like_lines(data: dict, times: dict[str, tuple[float, object]]) -> list[str]:
    """The like-for-like comparison (issue 25's bar as tests/perf/test_calculon_optimum.py holds it)."""
    lines = ["", "### Like for like (the bar)", "",
             "archgen's search over the plans Calculon can state (`calculon_plans.search_like`: attention "
             "materialized, dropout and no PP overlap stated, without TP overlap every TP collective exposed as "
             "Calculon's `none`, ZeRO 0 or 2, no context parallelism, no embedding or "
             "loss slot, interleaving in whole micro-batch groups, weight offload searched) against Calculon's "
             "optimum over the plans archgen can state (`bench/calculon_optimum.py --like-archgen`). Why the rest "
             "of the gap is there, term by term: docs/perf-model.md.", "",
             "| case | Calculon's optimum (samples/s) | archgen's pick in Calculon | gap | bar (within 2 %) "
             "| search CPU (s) |", "|---|---:|---:|---:|---|---:|"]
    for key, case in data["cases"].items():
        opt, mine = case["calculon_optimum_like"]["sample_rate"], case["archgen_plan_like"]["calculon"]
        note = f" (Calculon refuses it: {mine['refused']})" if mine.get("refused") else ""
        cpu, plan = times.get(key + " like", (float("nan"), None))
        if plan is not None and getattr(plan, "best", None) != case["archgen_plan_like"]["layout"]:
            note += " (the recorded pick: archgen now picks another, tests/perf/test_calculon_optimum.py)"
        gap = mine["sample_rate"] / opt - 1
        met = "met" if gap >= -0.02 and not mine.get("refused") else "NOT met"
        lines.append(f"| {case['name']} | {opt:.2f} | {mine['sample_rate']:.2f}{note} | {gap:+.1%} | {met} "
                     f"| {cpu:.3f} |")
    return lines


def optimum_lines(times: dict[str, tuple[float, object]]) -> list[str]:
    """The optimum comparison of tests/perf/data/calculon-optima.yaml and the search times of this run."""
    data = yaml.safe_load(OPTIMA.read_text(encoding="utf-8"))
    lines = ["", "## archgen's best plan in Calculon's model, and the whole search", "",
             f"Calculon's figures: tests/perf/data/calculon-optima.yaml (calculon-ai/calculon "
             f"{data['calculon']['commit'][:7]}; how they were obtained is stated there). Search: `search_plan`, "
             "stack nemo-2025 (`estimate --search-plan`'s default), CPU seconds, least of 3, this run; bar < 1 s.", "",
             "Unrestricted: archgen's default search (flash attention, ZeRO 0-3, embedding slots) against "
             "Calculon's whole space (PP on NVLink, TP beyond a node): a record of representability as much as of "
             "the models.", "",
             "| case | Calculon's optimum (samples/s) | archgen's plan in Calculon | gap | search CPU (s) "
             "| with --model-only (s) |",
             "|---|---:|---:|---:|---:|---:|"]
    for key, case in data["cases"].items():
        opt, mine = case["calculon_optimum"]["sample_rate"], case["archgen_plan"]["calculon"]
        note = f" (Calculon refuses it: {mine['refused']})" if mine.get("refused") else ""
        cpu = times[key][0] if key in times else float("nan")
        wide = times[key + " model-only"][0] if key + " model-only" in times else float("nan")
        plan = times[key][1] if key in times else None
        if plan is not None and getattr(plan, "best", None) != case["archgen_plan"]["layout"]:
            note += " (the recorded pick: archgen now picks another, tests/perf/test_calculon_optimum.py)"
        lines.append(f"| {case['name']} | {opt:.2f} | {mine['sample_rate']:.2f}{note} "
                     f"| {mine['sample_rate'] / opt - 1:+.1%} | {cpu:.3f} | {wide:.3f} |")
    return lines + like_lines(data, times)


def report(samples: dict[str, list[tuple[float, float]]] | None,
           times: dict[str, tuple[float, object]] | None = None, one: dict | str | None = None) -> str:
    """The Markdown of bench/results/calculon.md."""
    lines = ["# CLI CPU against Calculon", "",
             f"Generated by `python bench/bench_calculon.py` on {platform.python_implementation()} "
             f"{platform.python_version()}, byte code cached for both (a warm-up run of each writes it). Issue 25's "
             "bar: archgen's CPU / Calculon's <= 1.", ""]
    tail = (one_lines(one) if one is not None else []) + (optimum_lines(times) if times is not None else [])
    if samples is None:
        return "\n".join([*lines, "Calculon: not installed (`make calculon`, or set `CALCULON` to its command); "
                                  "ratio not measured.", *tail, ""])
    med = {k: [statistics.median(s[i] for s in v) for i in (0, 1)] for k, v in samples.items()}
    load = f" Load average (1 min) before and after: {LOAD[0]:.1f}, {LOAD[1]:.1f}." if len(LOAD) == 2 else ""
    lines += [f"Median of {len(samples['archgen'])} alternating rounds, one run.{load} Calculon: {calculon_source()}.",
              "",
              "| command | wall (s) | CPU (s) |", "|---|---:|---:|",
              f"| `{' '.join(ARCHGEN[1:])}` | {med['archgen'][0]:.3f} | {med['archgen'][1]:.3f} |",
              f"| `calculon llm` (README example: megatron-1T, 3,072 A100, one execution) | {med['calculon'][0]:.3f} "
              f"| {med['calculon'][1]:.3f} |", *fresh_rows(med), "",
              f"**CPU ratio archgen / Calculon: {med['archgen'][1] / med['calculon'][1]:.2f}** "
              f"(wall {med['archgen'][0] / med['calculon'][0]:.2f}); bar <= 1: "
              f"{'met' if med['archgen'][1] <= med['calculon'][1] else 'NOT met'}.", *fresh_ratio(med), *tail, ""]
    return "\n".join(lines)


def fresh_rows(med: dict[str, list[float]]) -> list[str]:
    """The row of archgen's run after a spec change (no kept specs), where it was measured."""
    if FRESH not in med:
        return []
    return [f"| `{' '.join(ARCHGEN[1:])}`, its kept specs removed first (a spec file changed) | {med[FRESH][0]:.3f} "
            f"| {med[FRESH][1]:.3f} |"]


def fresh_ratio(med: dict[str, list[float]]) -> list[str]:
    """The CPU ratio of that run to Calculon's."""
    if FRESH not in med:
        return []
    return ["", f"After a spec change (the specs validated and kept again): CPU ratio "
                f"{med[FRESH][1] / med['calculon'][1]:.2f} (wall {med[FRESH][0] / med['calculon'][0]:.2f})."]


def main() -> None:
    """Measure, print and write bench/results/calculon.md."""
    cmd = calculon_command()
    text = report(measure(cmd) if cmd else None, search_times(), one_configuration())
    print(text)
    (ROOT / "bench" / "results" / "calculon.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
