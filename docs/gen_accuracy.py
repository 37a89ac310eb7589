"""Write the accuracy page to stdout: `python docs/gen_accuracy.py [CASES] > docs/accuracy.md`.

Default case file: tests/data/validation-cases.yaml (a copy of ../shared/data/validation-cases.yaml), then the
second scoring file tests/data/validation-modern.yaml (a copy of ../shared/data/validation-modern.yaml).
"""

import sys
from pathlib import Path

from archgen.output.accuracy import accuracy_page
from archgen.output.curves import curve_section

#: Case files outside the scored one, listed after it (tests/perf/data; each states its source and assumptions).
INDEPENDENT = {name: Path(__file__).resolve().parent.parent / "tests" / "perf" / "data" / name
               for name in ("llama3-405b-table4.yaml", "nemo-25.11.yaml", "nemo-25.11-moe.yaml",
                            "trtllm-perf-overview.yaml", "nim-llama33-70b-concurrency.yaml", "bridge-26.04.yaml",
                            "serving-under-load.yaml", "bridge-card-qwen3-30b.yaml",
                             "bridge-26.04-qwen3-30b.yaml", "bridge-26.02-qwen3-30b-h100-ep8.yaml",
                             "bridge-26.04.01.yaml", "bridge-26.10.yaml",
                             "fa2-gpt3-table1.yaml", "korthikanti-table5.yaml", "aws-dispatcher-efa.yaml",
                             "mlperf-inference-v5.yaml", "mlperf-inference-v5-moe.yaml",
                             "mlperf-inference-v5-deepseek.yaml", "mlperf-training-v5.yaml",
                             "mlperf-training-v5-amd.yaml")}
#: Held-out case files (tests/perf/data): listed with each measurement beside its family's band, and read by no band
#: (docs/gen_bands.py takes SCORED and INDEPENDENT only), so that they test the bands (issue 20 part 8).
HELD_OUT = {name: INDEPENDENT["nemo-25.11.yaml"].parent / name
            for name in ("heldout-v5.yaml", "nemo-long-sequence.yaml", "heldout-trtllm-r1.yaml", "maxtext-v5p.yaml",
                         "mlm-moe-recipes-qwen3-30b.yaml", "nccl-alltoall-p5-efa.yaml",
                         "heldout-mlperf-v50.yaml")}
#: Further scoring files, listed after the first with their own figures (tests/data, copies of ../shared/data).
SCORED = {name: INDEPENDENT["nemo-25.11.yaml"].parents[2] / "data" / name for name in ("validation-modern.yaml",)}
#: Kernel-level measurement files, listed last (archgen.scoring.cases.flash_attention_check).
KERNELS = {name: INDEPENDENT["nemo-25.11.yaml"].parent / name for name in ("fa3-h100-forward.yaml",)}
#: Kernel-level A/Bs of one switch, listed after them (archgen.scoring.dropout_check).
ABLATIONS = {name: INDEPENDENT["nemo-25.11.yaml"].parent / name for name in ("fa1-a100-attention-dropout.yaml",)}
#: Published all-reduce curves, listed size by size at the end (archgen.output.curves.curve_section).
CURVES = INDEPENDENT["nemo-25.11.yaml"].parent / "allreduce-curves.yaml"



def write_or_check(path: Path, text: str, command: str) -> None:
    """The generators' main: write `text` to `path`; with `--check`, write nothing and exit 1 if `path` is stale."""
    root = Path(__file__).resolve().parent.parent
    if "--check" in sys.argv[1:]:
        stale = path.read_text(encoding="utf-8") != text
        print(f"{path.relative_to(root)} is {f'stale: run {command}' if stale else 'current'}")
        sys.exit(1 if stale else 0)
    path.write_text(text, encoding="utf-8")
    print(path.relative_to(root))


def page(path: Path | None = None) -> str:
    """The page for the case file `path` (default tests/data/validation-cases.yaml), as the script prints it."""
    root = Path(__file__).resolve().parent.parent
    path = path if path is not None else root / "tests" / "data" / "validation-cases.yaml"
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    text = accuracy_page(path, str(shown), INDEPENDENT, KERNELS, SCORED, HELD_OUT, ABLATIONS)
    return text + "\n" + "\n".join(curve_section(CURVES, CURVES.name))


if __name__ == "__main__":
    sys.stdout.write(page(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
