"""CPU of archgen commands in this checkout against another checkout of archgen, interleaved in one run.

`python bench/compare_ab.py BASE [RUNS]`: BASE is a checkout with its own `.venv` (e.g. `git worktree add --detach
/tmp/base main && make -C /tmp/base .venv/.installed`). Each command runs in a fresh interpreter of each checkout,
in that checkout's folder, alternating, so that the load of a shared machine hits both alike; the table gives the
median CPU (user + system of the child) of each and their ratio, the measure issue 25 compares. Both checkouts are
run once first, so their byte code and caches are warm. Prints the table; writes no file. Not one of `make
bench`'s `bench_*.py` (it needs a BASE checkout).
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


def _cpu(root: Path, args: tuple[str, ...]) -> float:
    """CPU seconds of one run of `archgen args` from checkout `root`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([str(root / ".venv" / "bin" / "archgen"), *args], cwd=root, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    """Measure and print the table."""
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    base, runs = Path(sys.argv[1]).resolve(), int(sys.argv[2]) if len(sys.argv) > 2 else 11
    roots = (base, HEAD)
    for args in COMMANDS:
        for root in roots:
            _cpu(root, args)
    lines = [f"Median CPU of {runs} interleaved runs; base {base}, head {HEAD}.", "",
             "| command | base CPU (s) | head CPU (s) | head / base |", "|---|---|---|---|"]
    for args in COMMANDS:
        samples: dict[Path, list[float]] = {root: [] for root in roots}
        for _ in range(runs):
            for root in roots:
                samples[root].append(_cpu(root, args))
        b, h = (statistics.median(samples[root]) for root in roots)
        lines.append(f"| archgen {' '.join(args)} | {b:.3f} | {h:.3f} | {h / b:.2f}x |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
