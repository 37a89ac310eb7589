"""Offload to host memory: the copies' time and how much of it the compute hides (training).

Megatron-core offloads two things to host memory (`memory` holds what stays where):

* **Activations** (`--fine-grained-activation-offloading`; `megatron/core/pipeline_parallel/
  fine_grained_activation_offload.py`): each layer's saved tensors go to pinned host memory on a D2H stream while
  the forward pass goes on, and come back on an H2D stream before that layer's backward. The copy of a layer hides
  behind the layer's own forward (and its backward, with any recomputation) and shows only where it takes longer:
  per layer and micro-batch, max(0, bytes / link - forward) + max(0, bytes / link - backward). This is Calculon's
  overlap rule (`calculon/llm/llm.py`: offload overhead = max(0, offload time - block time), per block and
  micro-batch, forward and backward), with the whole layer time as the window: the copy engines move the data,
  and its HBM traffic (under 6 % of HBM bandwidth even at NVLink-C2C rates) is not charged.
* **Optimizer state** (`--optimizer-cpu-offload`, `megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py`):
  the step runs on the CPU. Each parameter of the rank's shard sends its gradient to the host, the CPU's Adam
  streams its state in host memory, and the updated 16-bit weight comes back. With
  `--overlap-cpu-optimizer-d2h-h2d` (which Megatron-core's documentation recommends; one CPU optimizer per
  parameter, each pipelined with the copies) the three overlap and the slowest sets the time; it replaces the
  accelerator's own optimizer step. The CPU step is taken as bound by the CPU memory bandwidth (an assumption:
  no measurement of torch's fused CPU AdamW is cited).

Both copy over the accelerator's host link (PCIe, NVLink-C2C) at `Hardware.host_link_bandwidth` x
`host_link_efficiency`, each direction on its own.
"""

from __future__ import annotations

from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum

#: Host memory bytes the CPU's Adam moves per parameter: fp32 master, first and second moments read and written
#: (24) and the fp32 gradient read (4).
CPU_ADAM_BYTES = 28.0


def link_rate(hw: Hardware):
    """Achieved host link bandwidth per direction (B/s); a floor keeps a system without one finite."""
    return maximum(hw.host_link_bandwidth * hw.host_link_efficiency, 1.0)


def activation_exposed(hw: Hardware, layer_bytes, forward, backward):
    """Exposed time of one layer's activation offload for one micro-batch: out during `forward`, back in `backward`."""
    copy = layer_bytes / link_rate(hw)
    return maximum(0.0, copy - forward) + maximum(0.0, copy - backward)


def optimizer_step(hw: Hardware, params, grad_bytes, weight_bytes):
    """Time of an offloaded optimizer step over `params` (the rank's shard): copies and CPU step overlapped."""
    link = link_rate(hw)
    d2h = params * grad_bytes / link
    h2d = params * weight_bytes / link
    cpu = params * CPU_ADAM_BYTES / maximum(hw.host_memory_bandwidth, 1.0)
    return maximum(maximum(d2h, h2d), cpu)
