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

* **Weights** (a model-only option: `WEIGHT_OFFLOAD_STACKS` says why no stack archgen profiles runs it): Calculon's
  weight offload (`calculon/llm/llm.py` at caa4b11). The rank's layer weights live in host memory and each layer's
  comes in before it computes, for every micro-batch and pass: during the forward it shares the copy window with the
  activations going out in the other direction, during the backward it comes in beside them, so per layer and
  micro-batch max(0, max(w, a) / link - forward) + max(0, (w + a) / link - backward) (Calculon's
  `_get_fw_offload_size`, the larger of the two, and `_get_bw_offload_size`, their sum, llm.py 2021-2045, overlapped
  as its `_baseblock_fw/bw_offload_overhead`, llm.py 1571-1605). Under ZeRO-3 a rank fetches only its shard and the
  all-gather that the ZeRO-3 model already charges assembles the layer (ZeRO-Infinity's bandwidth-centric
  partitioning, Rajbhandari et al., SC21, arXiv 2104.07857, section 6.1). One cost Calculon leaves out is charged:
  after the optimizer step the updated 16-bit weights of the rank's layers go back to the host once per step,
  exposed (nothing else runs then; `weight_writeback`). With optimizer offload too the CPU step writes the host
  copy itself, so there is no write-back (ZeRO-Offload's CPU step updates the host parameters, Ren et al., USENIX
  ATC '21, arXiv 2101.06840, section 4).

All copy over the accelerator's host link (PCIe, NVLink-C2C) at `Hardware.host_link_bandwidth` x
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


#: Why weight offload is a model-only option (searched only when asked, and labelled so): no stack archgen profiles
#: runs it. Megatron-core's `cpu_offloading_weights` (model_parallel_config.py at d98e8a6) hands the flag to
#: Transformer Engine, whose `get_cpu_offload_context` (transformer_engine/pytorch/cpu_offload.py at d0067d0, lines
#: 826-830) warns "Offloading weights is deprecated. Using offload_weights=True does not have any effect"; and that
#: layer-level offload refuses pipeline parallelism and recomputation (Megatron-Bridge docs, training/cpu-offloading).
#: DeepSpeed's ZeRO-Infinity (`offload_param`, ZeRO-3 only) does offload weights, but is not a profile here.
WEIGHT_OFFLOAD_STACKS = "none of megatron-lm-2021, megatron-core-2024, nemo-2025 (Transformer Engine's weight " \
                        "offload is a no-op since its deprecation); DeepSpeed ZeRO-Infinity offload_param has it"


def activation_exposed(hw: Hardware, layer_bytes, forward, backward):
    """Exposed time of one layer's activation offload for one micro-batch: out during `forward`, back in `backward`."""
    copy = layer_bytes / link_rate(hw)
    return maximum(0.0, copy - forward) + maximum(0.0, copy - backward)


def layer_exposed(hw: Hardware, act_bytes, weight_bytes, forward, backward):
    """Exposed copy time of one layer for one micro-batch, activations `act_bytes` and weights `weight_bytes`.

    During `forward` the activations go out and the weights come in (opposite directions: the larger sets the copy),
    during `backward` both come in (one direction: their sum).
    """
    link = link_rate(hw)
    return maximum(0.0, maximum(act_bytes, weight_bytes) / link - forward) + maximum(
        0.0, (act_bytes + weight_bytes) / link - backward)


def weight_writeback(hw: Hardware, weight_bytes):
    """Time to write a rank's updated offloaded weights (`weight_bytes`) back to the host after the step."""
    return weight_bytes / link_rate(hw)


def optimizer_step(hw: Hardware, params, grad_bytes, weight_bytes):
    """Time of an offloaded optimizer step over `params` (the rank's shard): copies and CPU step overlapped."""
    link = link_rate(hw)
    d2h = params * grad_bytes / link
    h2d = params * weight_bytes / link
    cpu = params * CPU_ADAM_BYTES / maximum(hw.host_memory_bandwidth, 1.0)
    return maximum(maximum(d2h, h2d), cpu)
