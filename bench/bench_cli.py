"""Cold-start benchmark: `archgen --version`, `estimate`, `validate` and `check` as ratios to importing pydantic, pint.

The baseline imports pint the way archgen does (`archgen.pint_import`: without Dask and without `importlib.metadata`,
defer35), so that it pays no import archgen no longer pays; a plain `import pydantic, pint` imported
`importlib.metadata` and `email` besides, which made every ratio to it look smaller (inputs35). It runs with one BLAS
thread, as every archgen command does (`archgen.startup`): OpenBLAS's spinning threads had made its CPU 1.8x its
single-threaded figure on two idle cores, and every CPU ratio that much smaller (thirty-seventh session).
`archgen/__init__.py` imports nothing, so the baseline adds no archgen module beyond that one.

The estimates are a training one and two serving ones (bench/specs/serve-deepseek-r1): issue 25's closed loop of
2,048 requests at TP32 on a GB200 NVL72 (CPU 5.31 s on main at 7620e3ad, 14.8x the baseline, against 0.74 s, 2.1x,
after the simulation's speed-ups, interleaved on the project's shared machine) and an open loop at MLPerf v5.1's
DeepSeek-R1 Server settings on a DGX B200 (3.31 s, 9.2x, against 1.93 s, 5.4x).

The warm `check specs/` (issue bar: within 3x of the baseline) was 3.42x and 3.44x at f5a574c5 and 2.70x in both of
two runs once its workload estimates were kept beside the validated specs (checkspeed40: its check row alone, the
tree before beside it, 15 interleaved rounds at load 5-9; docs/architecture.md, "(14) checkspeed40").

Each command runs in a fresh interpreter, alternating with the baseline so that machine noise hits both; the
table reports medians of wall time and of CPU time (user + system of the child, the measure issue 25 compares) and
their ratios to the baseline measured in the same run (issue bar: check within 3x). The children write and reuse
byte code and keep their caches in a folder of the bench's own, as bench_calculon.py's do (`ENV`).

Where Calculon is found (bench_calculon.py's `calculon_command`: `$CALCULON`, else the one `make calculon` builds,
else one on PATH), its `llm` run of the README example is one more row of the same rounds, and the report gives the
CPU ratio of the training estimate to it: issue 25's CLI bar (<= 1), measured beside every other command.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_calculon import CALCULON_ARGS, ENV, calculon_command, calculon_source

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RUNS = 9
COMMANDS = {
    # with one BLAS thread, as `archgen.startup` sets for every archgen command: numpy's OpenBLAS otherwise starts a
    # thread per core that spins while pint imports numpy (0.33 CPU-s for 0.23 s of wall on 2 idle cores, against
    # 0.18 single-threaded), which made the baseline's CPU, and so every CPU ratio to it, depend on the cores idle
    "baseline: python -c 'import pydantic; from archgen.pint_import import pint'": [
        "env", "OPENBLAS_NUM_THREADS=1", sys.executable, "-c", "import pydantic; from archgen.pint_import import pint"],
    "archgen --version": [str(BIN / "archgen"), "--version"],
    "archgen estimate --workload llama3-70b-pretrain-b200": [str(BIN / "archgen"), "estimate", "--workload",
                                                             "llama3-70b-pretrain-b200"],
    # issue 25's serving estimate (newuser33): DeepSeek-R1 FP4 at TP32 with attention DP on a GB200 NVL72, a closed
    # loop of 2,048 requests, with its sensitivities and efficiency range (29 simulated estimates)
    "archgen estimate (DeepSeek-R1 TP32 GB200 NVL72, concurrency 2,048)": [
        str(BIN / "archgen"), "estimate", "specs", "bench/specs/serve-deepseek-r1", "--workload",
        "bench-serve-deepseek-r1-tp32-c2048"],
    # an open loop: MLPerf v5.1's DeepSeek-R1 Server settings on one DGX B200, 5.02 queries/s
    "archgen estimate (DeepSeek-R1 DGX B200, Server at 5.02/s)": [
        str(BIN / "archgen"), "estimate", "specs", "bench/specs/serve-deepseek-r1", "--workload",
        "bench-serve-deepseek-r1-b200-server"],
    "archgen validate specs/": [str(BIN / "archgen"), "validate", "specs/"],
    "archgen check specs/": [str(BIN / "archgen"), "check", "specs/"],
}
#: The row of Calculon's `llm` run and the archgen command issue 25's CLI bar compares with it.
CALCULON, BAR = "calculon llm (README example)", "archgen estimate --workload llama3-70b-pretrain-b200"


def _time(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, env=ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    """Measure, print and write `bench/results/cli.md`."""
    found = calculon_command()
    if found:
        COMMANDS[CALCULON] = found + CALCULON_ARGS
    for cmd in COMMANDS.values():  # warm the page cache and the units cache
        _time(cmd)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for _ in range(RUNS):
        for name, cmd in COMMANDS.items():
            samples[name].append(_time(cmd))
    base = [statistics.median(s[k] for s in next(iter(samples.values()))) for k in (0, 1)]
    lines = ["# Cold start", "", f"Median of {RUNS} runs each, interleaved; ratio to the baseline of the same run.", "",
             "| command | wall (s) | ratio to baseline | CPU (s) | CPU ratio to baseline |", "|---|---|---|---|---|"]
    for name, values in samples.items():
        wall, cpu = (statistics.median(s[k] for s in values) for k in (0, 1))
        lines.append(f"| {name} | {wall:.3f} | {wall / base[0]:.2f}x | {cpu:.3f} | {cpu / base[1]:.2f}x |")
    if found:
        cpu = {k: statistics.median(s[1] for s in samples[k]) for k in (BAR, CALCULON)}
        lines += ["", f"CPU ratio of `{BAR.removeprefix('archgen ')}` to Calculon's `llm`: "
                      f"**{cpu[BAR] / cpu[CALCULON]:.2f}** (issue 25's CLI bar <= 1). Calculon: {calculon_source()}."]
    else:
        lines += ["", "Calculon: not found (`make calculon`, or `CALCULON`); no ratio to it."]
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "bench" / "results" / "cli.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
