"""The output layer's cross entropy as each implementation moves it: bytes per logit, forward and backward together.

A logit is one element of the rank's [tokens, vocabulary / tp] slice, written in 16 bits by the output layer's GEMM
(BF16 or FP16 training; under FP8/FP4 the output layer stays in BF16, `kernels.training_core_dtype`). The three
implementations (the `cross_entropy` switch, `archgen.model.switches`) are counted from their kernels' reads and
writes of that slice; what they move per token (the row max, the sum, the target's logit, the loss) is a vocabulary
times smaller and not counted.

* ``unfused``, Megatron's vocab-parallel cross entropy in FP32 (Megatron-LM v2.6 megatron/model/gpt_model.py:56
  ``vocab_parallel_cross_entropy(output.float(), labels)`` and megatron/mpu/cross_entropy.py:31-103; Megatron-core
  core_v0.9.0 megatron/core/tensor_parallel/cross_entropy.py:27-112, the same passes): the cast to FP32 (read 2, write
  4), the max (read 4), the in-place subtraction of the max (read 4, write 4), ``exp`` in place (4 + 4), the sum (4),
  the division by the sum, kept as the softmax for the backward (4 + 4); backward, the in-place multiplication by
  the loss gradient (4 + 4) and autograd's cast of the FP32 gradient back to the 16-bit logits' dtype (read 4, write
  2): 38 + 14 = 52 B.
* ``native``, Megatron-core's fused cross entropy (``cross_entropy_loss_fusion`` with ``cross_entropy_fusion_impl``
  'native', megatron/core/fusions/fused_cross_entropy.py at d98e8a6: four ``jit_fuser`` functions, torch.compile
  from PyTorch 2.2, megatron/core/jit.py): ``calculate_logits_max`` reads the 16-bit logits and returns their FP32
  copy (2 + 4); ``calculate_predicted_logits`` subtracts the max and exponentiates in place, summing (4 + 4);
  ``calculate_cross_entropy_loss`` divides in place (4 + 4); ``calculate_gradients`` multiplies the softmax in place
  (read 4, the mutated input written back 4) and returns it in BF16 (write 2): 22 + 10 = 32 B, counting each
  compiled function as one kernel. That is a floor: if the compiler materialises the gradient's gather-scatter
  (``grad_2d[arange_1d, masked_target_1d] -= ...``) as a copy of the softmax, it moves 8 B more.
* ``te``, Transformer Engine's Triton kernels (``cross_entropy_fusion_impl`` 'te', Megatron-core
  megatron/core/extensions/transformer_engine.py:3000 at 3097d81 calls ``parallel_cross_entropy`` with reduce_loss
  False; transformer_engine/common/triton/cross_entropy.py at f031cf8, the commit Megatron-Bridge 26.04-alpha.rc2's
  pyproject.toml pins, and the same lines at TE v2.9, Bridge v0.2.2's pin): ``online_softmax_kernel`` reads the
  logits once (line 72, 2 B); ``cross_entropy_kernel`` reads them again (177) and writes the gradient over them in
  their own dtype (190), 2 + 2; backward, ``element_mul_kernel`` scales it in place by the per-token loss gradient
  (261-262, 2 + 2; transformer_engine/pytorch/triton/cross_entropy.py:121 skips it only for a scalar 1.0, and
  Megatron's per-token loss is not one): 6 + 4 = 10 B. From TE v2.18 (01bbe3e, July 2026) the gradient is kept in
  FP32 instead; no stack profile here pins such a version.
"""

from __future__ import annotations

from archgen.perf.hw import kernels as K
from archgen.perf.hw.hardware import Hardware

#: Bytes each implementation moves per logit, forward and backward (counted in the module docstring).
BYTES_PER_LOGIT = {"unfused": 52.0, "native": 32.0, "te": 10.0}


def loss_time(hw: Hardware, kind: str, logits):
    """Memory time of the cross entropy over `logits` (the rank's tokens x vocabulary / tp), forward and backward."""
    return K.memory_time(hw, BYTES_PER_LOGIT[kind] * logits)
