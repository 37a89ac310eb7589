"""A materialised attention timed with dropout and without on one part (a published kernel-level A/B), and the model.

The file (tests/perf/data/fa1-a100-attention-dropout.yaml, FlashAttention's A100 benchmark) names the catalog part
the model runs and the peak bandwidth of the one measured, the shape, the lengths compared and the forward + backward
milliseconds of Megatron's fused scale-mask-softmax attention (its padding mask on) with dropout and without. The
measured part's sustained HBM fraction is not stated, so the model runs each end of the catalog's measured range
(`assumed_efficiency.MEASURED_RANGE`); its mask traffic is `kernels.SCORE_DROPOUT_BYTES_FWD` and `_BWD`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from archgen.load import load_file
from archgen.perf.hw import kernels as K
from archgen.perf.hw.assumed_efficiency import MEASURED_RANGE
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.hardware import Hardware
from archgen.scoring.catalog import load_accelerators
from archgen.units import Q_


@dataclass(frozen=True)
class DropoutRow:
    """One length: measured (without, with) ms, and the model's (without, with) ms at each end of the HBM range."""

    seq_len: int
    measured: tuple[float, float]
    model: tuple[tuple[float, float], ...]


def _ms(hw: Hardware, setup: dict, seq_len: int, dropout: bool) -> float:
    """The model's forward + backward of the file's materialised attention at `seq_len` tokens, in ms."""
    times = K.attention_times(hw, setup["dtype"], batch=setup["batch"], q_len=seq_len, kv_len=seq_len,
                              heads=setup["heads"], head_dim=setup["head_dim"], kernel="materialized", dropout=dropout)
    return 1e3 * float(sum(times))


def attention_dropout_check(path: str | Path) -> list[DropoutRow]:
    """Each compared length of the file with the model's forward + backward times (ms) of the same attention."""
    (doc,) = load_file(Path(path))
    data, setup = doc.data, doc.data["setup"]
    acc = load_accelerators()[data["accelerator"]]
    hws = [hardware_for(acc.model_copy(update={"memory_bandwidth": Q_(data["memory_bandwidth"]),
                                               "efficiency": acc.efficiency.model_copy(update={"hbm": hbm})}),
                        scale_up_size=1) for hbm in MEASURED_RANGE["hbm"]]  # one device at each end
    megatron, lengths = data["megatron"], data["seq_len"]
    return [DropoutRow(s, (megatron["masking"][lengths.index(s)], megatron["dropout_and_masking"][lengths.index(s)]),
                       tuple((_ms(hw, setup, s, False), _ms(hw, setup, s, True)) for hw in hws))
            for s in data["compared"]]
