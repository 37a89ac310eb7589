"""The figures of its accelerator an estimate rests on that the part lists as unconfirmed, named in a note.

A part drafted from announcements (NVIDIA Rubin, AMD MI455X, Google TPU v7 before their datasheets) lists its peaks,
HBM bandwidth or scale-up link under `unconfirmed:` (docs/catalog-audit.md). The estimate's band spans the model's
error and the part's stated efficiency ranges, not those figures, so an MFU or a step time on them read as one on
datasheet figures. `check` names the unconfirmed figures a cluster's power rests on (PWR012); this note does the same
for an estimate: the figures the performance model reads (`FIGURES`, the peak of the job's data type and BF16's,
which attention and the other unquantised kernels run at) that the part states and marks, itself or a field above it
(`model.base.Part.is_unconfirmed`). A collective reads only the scale-up link's (`COLLECTIVE_FIGURES`).
"""

from __future__ import annotations

from dataclasses import replace

from archgen.model.accelerator import Accelerator
from archgen.perf.workload.estimate_result import Estimate

#: The figures besides the peaks that the model reads from an accelerator (`perf.hw.hardware.hardware_for`); the
#: compute capability picks NCCL's tables and the FP8 rule (`perf.hw.generation`), and a part whose generation's
#: figure is not yet published states it unconfirmed (CAT008's fix).
FIGURES = ("memory", "memory_bandwidth", "vector_peak", "l2_cache", "l2_bandwidth", "compute_capability",
           "multiprocessors", "scale_up.bandwidth", "scale_up.links", "scale_up.latency")

#: The estimate's hardware rows (`perf.hw.hardware.Hardware`, the "hardware per accelerator" block) that show one of
#: the part's figures as it states it, by the figure; "peak" shows the job's data type's (`marked`).
HARDWARE_ROWS = {"hbm_capacity": "memory", "hbm_bandwidth": "memory_bandwidth",
                 "scale_up_bandwidth": "scale_up.bandwidth"}

#: Of those, what a collective's time reads.
COLLECTIVE_FIGURES = ("compute_capability", "scale_up.bandwidth", "scale_up.links", "scale_up.latency")


def _stated(acc: Accelerator, dotted: str) -> bool:
    """Whether the part states `dotted` (a default it leaves is named by `perf.workload.defaults_note` instead)."""
    owner: object = acc
    *parents, name = dotted.split(".")
    for parent in parents:
        owner = getattr(owner, parent, None)
        if owner is None:
            return False
    return name in getattr(owner, "model_fields_set", ()) and getattr(owner, name) is not None


def unconfirmed_figures(acc: Accelerator) -> tuple[str, ...]:
    """The figures the model may read that `acc` states and marks unconfirmed: peaks per data type, then `FIGURES`."""
    named = [*(f"peak.{dt}" for dt in acc.peak), *(f for f in FIGURES if _stated(acc, f))]
    return tuple(f for f in named if acc.is_unconfirmed(f))


def unconfirmed_read(figures: tuple[str, ...], precision: str | None) -> tuple[str, ...]:
    """Which of `figures` (`unconfirmed_figures`) a job in `precision` reads (None: a collective)."""
    peaks = {f"peak.{precision}", "peak.bf16"}
    return tuple(f for f in figures if (f in COLLECTIVE_FIGURES if precision is None else
                                        f in peaks or not f.startswith("peak.")))


def unconfirmed_note(accelerator: str, figures: tuple[str, ...], precision: str | None,
                     told: tuple[str, ...] = ()) -> list[str]:
    """The note naming which of `figures` (`unconfirmed_figures`) a job in `precision` reads (None: a collective).

    `told`: figures a note of their own already names (`scale_up.latency`, `defaults_note.latency_note`), left out
    here so that an estimate names each once. A requirement judged on the estimate names them all in the compliance
    matrix (`analyse.assumed`, REQ005).
    """
    read = tuple(f for f in unconfirmed_read(figures, precision) if f not in told)
    if not read:
        return []
    return [f"the estimate rests on figures {accelerator} lists as unconfirmed (`unconfirmed:`, not confirmed from a "
            f"public source): {', '.join(read)}; the band spans the model's error and stated efficiency ranges, not "
            "these"]


def mfu_peak(conventions: dict[str, str], read: tuple[str, ...], precision: str | None) -> dict[str, str]:
    """`conventions` with the MFU's peak stated as the part lists it where that peak is unconfirmed (newuser46).

    The training estimate calls its MFU peak "dense" (`peak` holds dense figures, docs/adding-a-part.md); a peak
    entered from an announcement ("50 PFLOPS NVFP4 inference", "1.2 EF FP8 training") is not known to be dense, so
    "dense fp8 peak of rubin" read as a datasheet's dense figure. Here it names the figure unconfirmed instead; the
    value, after the last ': ', is kept as the hardware block shows it.
    """
    text = conventions.get("mfu_peak", "")
    if precision is None or f"peak.{precision}" not in read or not text.startswith("dense "):
        return conventions
    label, value = text.removeprefix("dense ").rsplit(": ", 1)
    return {**conventions, "mfu_peak": f"{label} as the part lists it, unconfirmed (not confirmed dense: an "
                                       f"announced peak may count sparsity or compression, and the MFU divides by "
                                       f"it): {value}"}


def marked(est: Estimate, read: tuple[str, ...], precision: str | None) -> Estimate:
    """`est` with its MFU peak (`mfu_peak`) and hardware rows marked where they show a figure of `read`.

    `read` is `unconfirmed_read`'s: an announced peak or bandwidth is not shown as a datasheet's (newuser46).

    A cluster's own `scale_up.bandwidth` replaces the part's in the row (NET010 holds them equal on the part's own
    links); the row is marked by the part's figure all the same, as the note names it.
    """
    rows = {**HARDWARE_ROWS, **({"peak": f"peak.{precision}"} if precision else {})}
    shown = {row: figure for row, figure in rows.items() if figure in read and row in est.hardware}
    return replace(est, conventions=mfu_peak(est.conventions, read, precision), hardware_unconfirmed=shown)
