"""The notes of a training estimate on per-layer kernels it times partly or not at all: dropout and position kernels.

Each says what the estimate charges and what it leaves out, so that a figure resting on a kernel the model does not
time reads as such (newuser38's dropout read as honoured but untimed; rope40's unstated position embedding).
"""

from __future__ import annotations

from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job


def dropout_note(job: Job) -> list[str]:
    """What dropout costs in the estimate and what it leaves out (newuser38: dropout read as honoured but untimed).

    The hidden dropouts' masks are memory and traffic (`kernels.DROPOUT_MASK_H`), a materialised attention's mask
    too (`kernels.SCORE_DROPOUT_BYTES_FWD`); a flash kernel draws its random numbers inside, which is not timed.
    """
    if not job.dropout:
        return []
    flash = ("; attention dropout inside the flash kernel (random numbers drawn in the kernel, again in the "
             "backward) is not timed: no cited source measures it") if job.attention == "flash" else ""
    return ["dropout: its 1-byte masks are held and timed as memory traffic (written forward, read backward)"
            + flash]


def position_note(arch: Arch) -> list[str]:
    """What the model leaves unstated of its attention's per-layer kernels (rope40): neither is charged, and said.

    A rotary position embedding and QK norms add kernels and traffic to every layer (`layer.position_bytes`,
    `host.attention_ops`); a model that does not say whether it has them gets neither, a lower bound if it has them.
    """
    unstated = [w for w, v in (("its position embedding", arch.rope), ("whether it norms query and key", arch.qk_norm))
                if v is None]
    if not unstated:
        return []
    return [f"the model does not state {' or '.join(unstated)}: no rotary-embedding or QK-norm kernels are charged, "
            "a lower bound for a model that has them"]
