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
from archgen.perf.comm.nccl import generation
from archgen.perf.hw.generation import NVLS_FROM
from archgen.perf.workload.estimate_result import Estimate

#: The figures besides the peaks that the model reads from an accelerator (`perf.hw.from_spec.hardware_for`); the
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


#: NCCL's tuning tables by `compCapIndex` (`perf.comm.nccl.generation`).
_TABLES = ("Volta's", "Ampere's", "Hopper's", "Blackwell's (NCCL's newest)")


def keyed_on(compute_capability: float, training: bool, precision: str | None = None) -> str:
    """What the model takes from a compute capability (`perf.hw.generation`), in words; training's rules if `training`.

    FP8's two rules (the tensor-wise copies and MXFP8) are named for an FP8 job (or where `precision` is not given)
    only: a BF16 or FP4 job reads neither (`perf.hw.quant`: MXFP8 and NVFP4 write both copies on any generation).

    The counterpart of `generation.WITHOUT`: NCCL's tuning table (`perf.comm.nccl.generation`), NVLS from 9.0
    (`generation.runs_nvls`), and for training Transformer Engine's FP8 copies (`perf.hw.quant`: one from 10.0),
    Megatron-Bridge's TP-overlap streams (`perf.train.tp_comm`: several from 10.0), MXFP8 (`training_estimate.
    recipe_problem`: from 10.0) and the HybridEP dispatcher (`nvidia_only`: any NVIDIA generation).
    """
    gen = generation(compute_capability)
    if gen is None:
        return "no NVIDIA generation"
    items = [f"NCCL's {_TABLES[gen]} tuning constants (LL, LL128 and Simple protocols)",
             "NVLS in-switch reduction where the domain has it" if compute_capability >= NVLS_FROM else "no NVLS"]
    if training:
        new = compute_capability >= 10.0
        fp8 = precision in (None, "fp8")
        items += [*([f"FP8 tensors quantised {'once' if new else 'twice, once transposed'} (Transformer Engine's "
                     f"rule {'from' if new else 'below'} 10.0)"] * fp8),
                  f"TP-overlap GEMM chunks on {'several' if new else 'one'} stream" + "s" * new,
                  *([f"the MXFP8 recipe {'allowed' if new else 'refused'}"] * fp8), "the HybridEP dispatcher allowed"]
    return "; ".join(items)


def unconfirmed_note(accelerator: str, figures: tuple[str, ...], precision: str | None,
                     told: tuple[str, ...] = (), compute_capability: float = 0.0,
                     training: bool = False) -> list[str]:
    """The note naming which of `figures` (`unconfirmed_figures`) a job in `precision` reads (None: a collective).

    `told`: figures a note of their own already names (`scale_up.latency`, `defaults_note.latency_note`), left out
    here so that an estimate names each once. A requirement judged on the estimate names them all in the compliance
    matrix (`analyse.assumed`, REQ005).
    """
    read = tuple(f for f in unconfirmed_read(figures, precision) if f not in told)
    if not read:
        return []
    rules = keyed_on(compute_capability, training, precision)
    keyed = ([f"its unconfirmed compute_capability {compute_capability:g} is an assumed generation, from which the "
              f"model takes {rules}, not the part's own (unpublished) rules"]
             if "compute_capability" in read and compute_capability else [])
    return [f"the estimate rests on figures {accelerator} lists as unconfirmed (`unconfirmed:`, not confirmed from a "
            f"public source): {', '.join(read)}; the band spans the model's error and stated efficiency ranges, not "
            "these", *keyed]


def mfu_peak(conventions: dict[str, str], read: tuple[str, ...], precision: str | None,
             dense: tuple[str, ...] = ()) -> dict[str, str]:
    """`conventions` with the MFU's peak stated as the part lists it where that peak is unconfirmed (newuser46).

    The training estimate calls its MFU peak "dense" (`peak` holds dense figures, docs/adding-a-part.md); a peak
    entered from an announcement ("50 PFLOPS NVFP4 inference", "1.2 EF FP8 training") is not known to be dense, so
    "dense fp8 peak of rubin" read as a datasheet's dense figure. Here it names the figure unconfirmed instead; the
    value, after the last ': ', is kept as the hardware block shows it. `dense`: the data types whose peak the part
    states dense (`Accelerator.peak_basis`, CAT010): the figure is then dense by its source, though unconfirmed.
    """
    text = conventions.get("mfu_peak", "")
    if precision is None or f"peak.{precision}" not in read or not text.startswith("dense "):
        return conventions
    label, value = text.removeprefix("dense ").rsplit(": ", 1)
    if precision in dense:
        return {**conventions, "mfu_peak": f"dense {label}, unconfirmed (dense as its source states it, "
                                           f"`peak_basis`; the figure itself not confirmed): {value}"}
    return {**conventions, "mfu_peak": f"{label} as the part lists it, unconfirmed (not confirmed dense: an "
                                       f"announced peak may count sparsity or compression, and the MFU divides by "
                                       f"it): {value}"}


def marked(est: Estimate, read: tuple[str, ...], precision: str | None, dense: tuple[str, ...] = ()) -> Estimate:
    """`est` with its MFU peak (`mfu_peak`) and hardware rows marked where they show a figure of `read`.

    `read` is `unconfirmed_read`'s: an announced peak or bandwidth is not shown as a datasheet's (newuser46).

    A cluster's own `scale_up.bandwidth` replaces the part's in the row (NET010 holds them equal on the part's own
    links); the row is marked by the part's figure all the same, as the note names it.
    """
    rows = {**HARDWARE_ROWS, **({"peak": f"peak.{precision}"} if precision else {})}
    shown = {row: figure for row, figure in rows.items() if figure in read and row in est.hardware}
    return replace(est, conventions=mfu_peak(est.conventions, read, precision, dense), hardware_unconfirmed=shown)
