"""The accuracy page's all-reduce curves: each published curve's sizes against the model, as Markdown.

`scoring.curves` computes the points (measured and predicted bus bandwidth, the model's choice); this module writes
them (not scored).
"""

from __future__ import annotations

from pathlib import Path

from archgen.load import load_file
from archgen.model.accelerator import Accelerator
from archgen.scoring.catalog import load_accelerators
from archgen.scoring.curves import curve_points


def _size(size: float) -> str:
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size:g} B"


def curve_section(path: str | Path, name: str, accelerators: dict[str, Accelerator] | None = None) -> list[str]:
    """Markdown: per curve of the file, every size's measured and predicted busbw, error and the model's choice."""
    accs = accelerators if accelerators is not None else load_accelerators()
    (doc,) = load_file(Path(path))
    lines = [f"## All-reduce curves: `{name}` (not scored)", "",
             "Every size of each published curve against the model (`auto`, NVLS where the accelerator has it), with "
             "the (algorithm, protocol) NCCL's tuning model takes there. The sources are in the file; they are "
             "torch-based (`all_reduce_bench.py`, one blocking call at a time), so each point includes PyTorch's "
             "per-call overhead, which the model does not have.", ""]
    for key, curve in doc.data.items():
        if "busbw" not in curve:
            continue
        latency = curve.get("network_latency_us")
        tuner = curve.get("tuner", {})
        lines += [f"### {key}", "", f"{curve['source']}; {curve['ranks']} ranks"
                  + (f", network latency {latency} us as its transport declares it" if latency else "") + ".", "",
                  "| size | measured | predicted | error | model's choice |" + (" tuner plugin's |" if tuner else ""),
                  "|---:|---:|---:|---:|---|" + ("---|" if tuner else "")]
        lines += [f"| {_size(p.size)} | {p.measured / 1e9:,.2f} GB/s | {p.predicted / 1e9:,.2f} GB/s | "
                  f"{p.error:+.1%} | {p.choice} |" + (f" {tuner.get(int(p.size), '—')} |" if tuner else "")
                  for p in curve_points(curve, accs)]
        lines.append("")
    return lines
