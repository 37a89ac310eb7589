"""The note of a training estimate on a part that states no `multiprocessors`: its overlaps cost the compute nothing.

Communication that overlaps compute holds some of the part's compute units for as long as it runs, and the GEMMs
beside it run on the rest (`perf.train.exposure.sm_kept`): NCCL's collectives 16 SMs (`exposure.NCCL_CTAS`),
Transformer Engine's TP overlap 16 (`exposure.UB_COMM_SMS`), an overlapped all-to-all 20
(`ep_exposure.EP_COMM_SMS`). A part that leaves `multiprocessors` out has no count to take them from, so the model
charges nothing (`Hardware.multiprocessors` 0): the most favourable reading, which no efficiency range spans, so the
band does not either. Before (newuser58) nothing said so: Llama 3.1 405B FP8 on 576 parts of a hypothetical 11.25
PFLOP/s accelerator read 3.39 s a step, where the same part with an H100's 132 SMs takes 3.585 s (+5.8 %), and an
MI355X training estimate carried the same silence. The note gives the step time at that count, for scale, with the
switches the layout overlaps, and asks for the figure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.exposure import NCCL_CTAS, UB_COMM_SMS
from archgen.perf.train.job import Job
from archgen.perf.train.moot import moot

#: A part's compute units for scale where it states none: the H100 SXM5's 132 SMs (NVIDIA H100 Tensor Core GPU
#: Architecture whitepaper, 2022, table 3; specs/catalog/accelerators/h100-sxm5-80gb.yaml `multiprocessors`).
SCALE_UNITS = 132.0

#: The DP and EP switches whose communication runs beside compute on units it takes from it (`perf.train.exposure`,
#: `ep_exposure`), with what each overlaps; TP's collectives take them under sequence parallelism (`tp_comm`).
OVERLAPS = {"overlap_grad_reduce": "the gradient reduction", "overlap_param_gather": "the parameter gather",
            "overlap_ep_comm": "the expert all-to-all"}


def sm_note(hw: Hardware, job: Job, layout: Mapping[str, object], sequence_parallel: bool, moe: bool,
            step_time: Callable[[Hardware], float]) -> list[str]:
    """The note of a training estimate whose overlaps take no compute units because `hw`'s part states none.

    `layout` is the estimate's (its fields as numbers), `sequence_parallel` its setting, `step_time` times the
    estimate's job and layout on given hardware. Empty where the part states `multiprocessors`, or where the step
    time at `SCALE_UNITS` is the same (the layout overlaps nothing that holds units).
    """
    if not isinstance(hw.multiprocessors, int | float) or hw.multiprocessors > 0:
        return []
    base = step_time(hw)
    scaled = step_time(dataclasses.replace(hw, multiprocessors=SCALE_UNITS))
    if not scaled > base:
        return []
    tp = layout.get("tp", 1)
    used = ([("the TP overlap" if job.overlap_tp_comm else "the sequence-parallel TP collectives")]
            if sequence_parallel and isinstance(tp, int) and tp > 1 else [])
    used += [what for name, what in OVERLAPS.items() if getattr(job, name) and moot(name, layout, moe) is None]
    what = f" ({', '.join(used)})" if used else ""
    return [f"{hw.accelerator} states no `multiprocessors`, so the communication this job overlaps with compute"
            f"{what} takes none of the compute units the work beside it runs on: the most favourable reading, "
            f"which the band does not span (on an NVIDIA GPU NCCL's collectives hold {NCCL_CTAS:.0f} SMs and "
            f"Transformer Engine's TP overlap {UB_COMM_SMS:.0f}, `perf.train.exposure`); with an H100's "
            f"{SCALE_UNITS:.0f} SMs the step would take {scaled:.4g} s, not {base:.4g} s ({scaled / base - 1:+.1%}); "
            "state `multiprocessors` (the units a communication kernel occupies: SMs, CUs)"]
