"""Cold-start benchmark: `archgen --version` and `archgen check specs/` as ratios to `import pydantic, pint`.

Each command runs in a fresh interpreter, alternating with the baseline so that machine noise hits both; the
table reports medians and the ratio to the baseline measured in the same run (issue bar: check within 3x).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RUNS = 9
COMMANDS = {
    "baseline: python -c 'import pydantic, pint'": [sys.executable, "-c", "import pydantic, pint"],
    "archgen --version": [str(BIN / "archgen"), "--version"],
    "archgen check specs/": [str(BIN / "archgen"), "check", "specs/"],
}


def _time(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    """Measure, print and write `bench/results/cli.md`."""
    for cmd in COMMANDS.values():  # warm the page cache and the units cache
        _time(cmd)
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(RUNS):
        for name, cmd in COMMANDS.items():
            samples[name].append(_time(cmd))
    base = statistics.median(next(iter(samples.values())))
    lines = ["# Cold start", "", f"Median of {RUNS} runs each, interleaved; ratio to the baseline of the same run.", "",
             "| command | median (s) | ratio to baseline |", "|---|---|---|"]
    for name, values in samples.items():
        med = statistics.median(values)
        lines.append(f"| {name} | {med:.3f} | {med / base:.2f}x |")
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "bench" / "results" / "cli.md").write_text(text)


if __name__ == "__main__":
    main()
