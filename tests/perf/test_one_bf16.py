"""BF16's 2 bytes are held once (`kernels.DTYPE_BYTES`): the activations' (`kernels.ACT_BYTES`), which the
quantisation casts read (`quant`), and the working weights' (`memory.WEIGHT_BYTES`), a parameter's type."""

from __future__ import annotations

from archgen.perf.hw import kernels as K
from archgen.perf.hw import memory as M
from archgen.perf.hw import quant as Q


def test_the_casts_read_the_activation_bytes_and_the_weights_take_bf16s():
    assert not hasattr(Q, "READ")  # the cast's BF16 input is an activation: `kernels.ACT_BYTES`, not a copy
    assert Q.ACT_BYTES is K.ACT_BYTES
    assert M.WEIGHT_BYTES == K.DTYPE_BYTES["bf16"] == 2.0  # bfloat16: 16 bits (Kalamkar et al. 2019, arXiv:1905.12322, sec. 2)
