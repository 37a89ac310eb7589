"""Host time of a kernel launch: what the host spends issuing one kernel when no CUDA graph replays it.

A run that replays its forward pass from a CUDA (HIP) graph issues the whole pass with one host call; each kernel
then pays only its in-graph fixed cost on the GPU (`kernels.KERNEL_OVERHEAD`). A run that launches eagerly issues
each kernel from the host. The host runs ahead of the GPU asynchronously, so its time is hidden while the pass takes
the GPU longer than the host takes to issue it, and sets the pace where it does not: a pass takes at least its
kernels times the host time of one launch (training: `perf.train.host`; serving: `serve.pass_costs.host_floor`).

**Eager PyTorch** (`HOST_OP_TIME`): 13.48 µs, the CPU time of one `torch.nn.Linear` forward (one eager PyTorch
operation that launches one cuBLAS GEMM; BF16, hidden 2,048, 8,192 tokens) on an H100 DGX, whose host is an Intel
Xeon Platinum 8480C (NVIDIA/TransformerEngine issue #2053, "[PyTorch] High CPU overhead on Grace systems",
2025-08-11, table: CPU runtime per Linear forward). The same table measures 37.08 µs on GB200 and 33.17 µs on GH200
(Grace hosts); the catalog does not say which CPU hosts an accelerator, so every accelerator takes the x86 figure,
the low end for Grace systems (and, unmeasured, for an AMD host launching HIP kernels).

**The launch alone** (`LAUNCH_RANGE`): "Usually, the launch time on the CPU side is between 5-20 microseconds"
(facebookresearch/HolisticTraceAnalysis docs/source/features/cuda_kernel_launch_stats.rst, "Short GPU kernels": the
CUDA runtime's launch call in a PyTorch trace). A TensorRT engine enqueues its kernels from C++, without Python or
PyTorch's dispatcher, so a launch there costs that call alone: no source times a TensorRT engine's enqueue per
kernel, so serving takes the range's low end as the point (a pass's host time then a lower bound) and carries the
whole range (`TENSORRT_LAUNCH`).
"""

#: CPU time of one eager PyTorch operation that launches one kernel, on an H100 DGX host (Xeon Platinum 8480C):
#: `torch.nn.Linear` forward, 13.48 µs (NVIDIA/TransformerEngine issue #2053, 2025-08-11, table).
HOST_OP_TIME = 13.48e-6
#: CPU time of one kernel launch alone, "usually ... between 5-20 microseconds" (HolisticTraceAnalysis docs,
#: cuda_kernel_launch_stats.rst): the range `HOST_OP_TIME` is checked against, and a TensorRT engine's launch.
LAUNCH_RANGE = (5e-6, 20e-6)
#: A TensorRT engine's host time per kernel it enqueues without a CUDA graph: the launch call alone, no Python
#: (`LAUNCH_RANGE`); its low end is the estimate's point.
TENSORRT_LAUNCH = LAUNCH_RANGE
#: The host's time per eager operation a training job runs over (s): the model's point, one eager PyTorch operation
#: measured on an x86 H100 host (`HOST_OP_TIME`), and the high end of what the CUDA launch call alone "usually" takes
#: (`LAUNCH_RANGE`, HolisticTraceAnalysis's docs). A case's range (`scoring.unstated.host_range`) and a training
#: workload's other end (`perf.workload.training_estimate.host_ends`) both run over it.
HOST_OPS = (HOST_OP_TIME, LAUNCH_RANGE[1])

#: Host seconds per kernel a serving pass launches, by how it launches them (`Inference.kernel_launch`): replayed from
#: a graph (one call a pass: 0 per kernel), eagerly from PyTorch (`HOST_OP_TIME`), or enqueued by a TensorRT engine
#: (`TENSORRT_LAUNCH`'s low end).
HOST_PER_LAUNCH = {"graph": 0.0, "pytorch": HOST_OP_TIME, "tensorrt": TENSORRT_LAUNCH[0]}
#: How `estimate` words a pass's launches by `Inference.kernel_launch` (none under a graph).
LAUNCH_WORDS = {
    "pytorch": f"each kernel from eager PyTorch, {HOST_OP_TIME * 1e6:g} us of host time a launch, measured on an "
               "x86 H100 host",
    "tensorrt": f"a TensorRT engine's enqueue, the CUDA launch call alone, {LAUNCH_RANGE[0] * 1e6:g}-"
                f"{LAUNCH_RANGE[1] * 1e6:g} us a launch by HolisticTraceAnalysis's docs: the low end is taken, so "
                "where the host binds the pass is a lower bound"}
