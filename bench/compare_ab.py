"""CPU of archgen commands in this checkout against another checkout of archgen, interleaved in one run.

`python bench/compare_ab.py BASE [RUNS]`: BASE is a checkout with its own `.venv` (e.g. `git worktree add --detach
/tmp/base main && make -C /tmp/base .venv/.installed`). Each command runs in a fresh interpreter of each checkout,
in that checkout's folder, alternating, so that the load of a shared machine hits both alike, and which runs first
alternates by round (A B, B A: the first of a pair ran up to 10 % slower on the sweep, whichever checkout it was);
the table gives the median CPU (user + system of the child) of each and their ratio, the measure issue 25 compares.
Both checkouts are run once first, so their byte code and caches are warm. Prints the table; writes no file. Not one
of `make bench`'s `bench_*.py` (it needs a BASE checkout).

`python bench/compare_ab.py BASE [RUNS] --sweep` compares instead the CPU of the batched evaluation of
`bench_sweep.py`'s 10^5-point training sweep (`SWEEP`: measured inside the child, so that neither start-up nor spec
loading counts), the figure behind that bench's points per baseline op; BASE needs that bench's `TRAIN`, `levels`
and `problem_of` (866f3bc2's has them). Wall-clock runs of it on a shared 2-core machine moved that figure from
696.7 to 426.8 with no work added (sweepslow: the same 24,882 layouts and 203,729 timed (point, layout) pairs at
866f3bc2 and after, `tests/perf/test_sweep_work.py`).
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from pathlib import Path

HEAD = Path(__file__).resolve().parent.parent
COMMANDS = (
    ("check", "specs/", "--format", "json"),
    ("check", "specs/"),
    ("estimate", "--workload", "llama3-70b-pretrain-b200"),
    ("validate", "specs/"),
)
#: `--sweep`'s child: the CPU seconds of `workers.evaluate_all` on bench_sweep.py's 100,080-point sweep, printed.
SWEEP = ("import sys, tempfile, time; sys.path.insert(0, 'bench'); import bench_sweep as b; "
         "from archgen.commands import workers; b.keep_freed_memory()\n"
         "with tempfile.TemporaryDirectory() as tmp:\n"
         "    p = b.problem_of(b.TRAIN.format(hbm=b.levels(834)), tmp); c = time.process_time()\n"
         "    assert len(workers.evaluate_all(p, None).rows) == 100_080\n"
         "    print(time.process_time() - c)")


def _cpu(root: Path, args: tuple[str, ...]) -> float:
    """CPU seconds of one run of `archgen args` from checkout `root`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([str(root / ".venv" / "bin" / "archgen"), *args], cwd=root, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _sweep_cpu(root: Path, args: tuple[str, ...]) -> float:
    """CPU seconds of the 10^5-point sweep's evaluation in checkout `root` (`SWEEP`; `args` unused)."""
    done = subprocess.run([str(root / ".venv" / "bin" / "python"), "-c", SWEEP], cwd=root, capture_output=True,
                          text=True, check=True)
    return float(done.stdout.split()[-1])


def main() -> None:
    """Measure and print the table."""
    argv = [a for a in sys.argv[1:] if a != "--sweep"]
    if not argv:
        sys.exit(__doc__)
    base, runs = Path(argv[0]).resolve(), int(argv[1]) if len(argv) > 1 else 11
    roots = (base, HEAD)
    sweep = "--sweep" in sys.argv[1:]
    commands = (("bench_sweep.py's 10^5-point sweep, evaluation only",),) if sweep else COMMANDS
    cpu = _sweep_cpu if sweep else _cpu
    for args in commands:
        for root in roots:
            cpu(root, args)
    lines = [f"Median CPU of {runs} interleaved runs; base {base}, head {HEAD}.", "",
             "| command | base CPU (s) | head CPU (s) | head / base |", "|---|---|---|---|"]
    for args in commands:
        samples: dict[Path, list[float]] = {root: [] for root in roots}
        for i in range(runs):
            for root in roots if i % 2 == 0 else roots[::-1]:   # ABBA: neither always runs first
                samples[root].append(cpu(root, args))
        b, h = (statistics.median(samples[root]) for root in roots)
        lines.append(f"| {args[0] if sweep else 'archgen ' + ' '.join(args)} | {b:.3f} | {h:.3f} | {h / b:.2f}x |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
