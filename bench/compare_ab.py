"""CPU of archgen commands in this checkout against another checkout of archgen, interleaved in one run.

`python bench/compare_ab.py BASE [RUNS]`: BASE is a checkout with its own `.venv` (e.g. `git worktree add --detach
/tmp/base main && make -C /tmp/base .venv/.installed`). Each command runs in a fresh interpreter of each checkout,
in that checkout's folder, alternating, so that the load of a shared machine hits both alike, and which runs first
alternates by round (A B, B A: the first of a pair ran up to 10 % slower on the sweep, whichever checkout it was);
the table gives the median CPU (user + system of the child) of each and their ratio, the measure issue 25 compares.
Both checkouts are run once first, so their byte code and caches are warm: the children run with a cache folder of
this run's own (`CACHE`, removed at exit) and write byte code whatever the environment says (`ENV`). Prints the
table. Not one of `make bench`'s `bench_*.py` (it needs a BASE checkout).

`python bench/compare_ab.py BASE [RUNS] --sweep` compares instead the CPU of the batched evaluation of
`bench_sweep.py`'s 10^5-point training sweep (`SWEEP`: measured inside the child, so that neither start-up nor spec
loading counts), the figure behind that bench's points per baseline op; BASE needs that bench's `TRAIN`, `levels`
and `problem_of` (866f3bc2's has them). Wall-clock runs of it on a shared 2-core machine moved that figure from
696.7 to 426.8 with no work added (sweepslow: the same 24,882 layouts and 203,729 timed (point, layout) pairs at
866f3bc2 and after, `tests/perf/test_sweep_work.py`).
"""

from __future__ import annotations

import atexit
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HEAD = Path(__file__).resolve().parent.parent
#: The children's cache folder (`XDG_CACHE_HOME`): this run's own, removed at exit, as bench_calculon.py's. In the
#: shared ~/.cache every checkout and command of the machine keeps its validated specs among 32
#: (`snapshot.MAX_SNAPSHOTS`), so runs in parallel (other checkouts, other engineers) could evict what the warm-up kept
#: and turn the hits measured into misses in one checkout and not the other.
CACHE = Path(tempfile.mkdtemp(prefix="archgen-compare-ab-cache-"))
atexit.register(shutil.rmtree, CACHE, True)
#: The children write and reuse byte code even where the environment says not to (this machine sets
#: PYTHONDONTWRITEBYTECODE): otherwise each run recompiles archgen and the warm-up warms nothing.
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "XDG_CACHE_HOME": str(CACHE)}
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
    subprocess.run([str(root / ".venv" / "bin" / "archgen"), *args], cwd=root, env=ENV, capture_output=True,
                   check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _sweep_cpu(root: Path, args: tuple[str, ...]) -> float:
    """CPU seconds of the 10^5-point sweep's evaluation in checkout `root` (`SWEEP`; `args` unused)."""
    done = subprocess.run([str(root / ".venv" / "bin" / "python"), "-c", SWEEP], cwd=root, env=ENV,
                          capture_output=True, text=True, check=True)
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
