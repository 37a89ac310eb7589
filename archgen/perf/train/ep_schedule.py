"""Which compute each MoE all-to-all runs beside under the EP overlap, as Megatron-core's combined 1F1B forms it.

Read from NVIDIA/Megatron-LM at 3097d81 (the commit Megatron-Bridge 26.04-alpha.rc2 pins):

* Each piece of a layer is a `ScheduleNode` that runs on its own stream inside `stream_acquire_context`
  (megatron/core/pipeline_parallel/utils.py lines 287-308): it waits on its micro-batch's CUDA event before it
  runs and records that event after, so the nodes of one micro-batch run one after the other whatever their
  streams (one event a model chunk's plan: model_chunk_schedule_plan.py line 319, `self._event`, passed to every
  layer's nodes).
* `attn` (attention, pre-MLP norm, router, dispatch preprocessing) and `mlp` (the experts) run on the compute
  stream, `moe_dispatch` and `moe_combine` on the communication stream (model_chunk_schedule_plan.py lines 161-165;
  the combine node also runs the MoE postprocessing and the bias-dropout-add, fine_grained_callables.py lines
  582-629).
* `TransformerLayerSchedulePlan.run` (model_chunk_schedule_plan.py lines 196-263) issues, for the forward
  micro-batch f and the backward one b of a paired layer: b's combine backward, f's attn, b's mlp backward, f's
  dispatch, b's dispatch backward, f's mlp, f's combine, b's attn backward (`ep_overlap_early_attn_memory_release`
  False, its default: model_parallel_config.py line 296; `delay_wgrad_compute` False leaves `backward_dw` empty,
  fine_grained_callables.py line 331). The paired layers of a chunk follow one another (lines 483-497).

So the communication stream holds combine_b, dispatch_f, dispatch_b, combine_f and the compute stream attn_f,
mlp_b, mlp_f, attn_b, in that order, and each node after the first waits for the node before it of its own
micro-batch, which ran on the other stream in the phase before: mlp_b for combine_b, dispatch_f for attn_f,
dispatch_b for mlp_b, mlp_f for dispatch_f, attn_b for dispatch_b, combine_f for mlp_f, and the next layer's
combine_b for attn_b and attn_f for combine_f. Every phase boundary is therefore a barrier of both streams: a
phase lasts the longer of its two nodes, and each all-to-all has its phase's compute beside it, whole and no more
(`windows`): combine backward beside the forward's attn (A), dispatch beside the MLP backward (2E), dispatch
backward beside the MLP forward (E), combine beside the attn backward (2A). A step's first forward and last
backward run alone (`ep_exposure.unpaired_chunks`).

What the schedule fixes is where each all-to-all may run; how much of it runs while the compute does is a
result (`beside`). Megatron-Bridge's A/B profile measures it (tests/perf/data/bridge-moe-overlap-profile.yaml:
3.96 s a step of communication concurrent with GEMM and attention kernels, with the overlap on).
"""

from __future__ import annotations

from archgen.perf.hw.numeric import maximum, minimum

#: The EP overlap's phases in issue order: (communication node, compute node beside it), f the forward micro-batch
#: and b the backward one (`TransformerLayerSchedulePlan.run` at 3097d81; module docstring).
PHASES = (("combine_b", "attn_f"), ("dispatch_f", "mlp_b"), ("dispatch_b", "mlp_f"), ("combine_f", "attn_b"))
#: The phase of the forward dispatch, whose synchronisation passes first in its window (`beside`).
_DISPATCH_F = [comm for comm, _ in PHASES].index("dispatch_f")


def windows(pre, expert):
    """Compute beside each all-to-all of a paired layer, in `PHASES` order (s).

    `pre` is the forward's compute before the dispatch (A: attention, norms, router) and `expert` the experts'
    forward (E); each backward is taken as twice its forward, as `ep_exposure.expert_comm` times them.
    """
    return (pre, 2.0 * expert, expert, 2.0 * pre)


def beside(a2a, phase_windows, pace, sync=0.0, counted=None):
    """Time the communication stream's kernels run beside compute in one paired layer (s).

    Each all-to-all `a2a` starts with its phase (`PHASES`) and runs beside that phase's compute until the one of
    them that ends first; beside compute it keeps `pace` of its own speed, so it runs min(window, a2a / pace) beside
    it. The forward dispatch's synchronisation (`sync`, `dispatch_calls.forward_sync`) passes first in its window
    (the second) and runs no kernel of the all-to-all. Alone the rest of each all-to-all runs at its own speed.

    `counted` is the part of each window's compute a profile counts (Megatron-Bridge's counts communication
    concurrent with GEMM and attention kernels only: tests/perf/data/bridge-moe-overlap-profile.yaml); it is taken
    as spread evenly over its window (stated: the kernels' order inside a node is not timed). Default: all of it.
    """
    total = 0.0
    counted = phase_windows if counted is None else counted
    for i, (w, c) in enumerate(zip(phase_windows, counted, strict=True)):
        room = maximum(w - (sync if i == _DISPATCH_F else 0.0), 0.0)
        share = c / maximum(w, 1e-30)
        total = total + share * minimum(room, a2a / maximum(pace, 1e-30))
    return total
