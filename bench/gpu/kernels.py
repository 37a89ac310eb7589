"""Kernel measurements on one GPU, for the performance model's mechanisms (not run by `make test`).

Run on a machine with a GPU and PyTorch: `python bench/gpu/kernels.py OUT.json`. Each section is timed with CUDA
events (warm-up, then the median of repeated runs) and written as soon as it ends, so that a run cut short keeps
what it measured. The shapes are those of the modern file's worst row (Qwen3-30B-A3B: hidden 2048, 128 experts of
768, top-8, 32 query and 4 KV heads of 128, vocabulary 151,936, sequence 4,096).
"""

# ruff: noqa: B023  (each lambda is called before its loop variables move on)
from __future__ import annotations

import json
import platform
import subprocess
import sys
import time

OUT = sys.argv[1] if len(sys.argv) > 1 else "kernels.json"
ONLY = set(sys.argv[2:])  # section names to run (all when none given)
RESULT: dict = {"sections": {}}


def save() -> None:
    """Write what is measured so far."""
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(RESULT, f, indent=1, sort_keys=True)


def shell(cmd: str) -> str:
    """A command's output, for the record of the machine."""
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout
    except Exception as err:  # noqa: BLE001
        return f"failed: {err}"


RESULT["host"] = {"python": sys.version, "platform": platform.platform(),
                  "nvidia_smi": shell("nvidia-smi"),
                  "clocks": shell("nvidia-smi -q -d CLOCK,POWER,PERFORMANCE"),
                  "pip": shell(f"{sys.executable} -m pip list 2>/dev/null | head -400")}
save()

import torch  # noqa: E402

dev = torch.device("cuda")
props = torch.cuda.get_device_properties(0)
RESULT["torch"] = {"version": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
                   "device": props.name, "sms": props.multi_processor_count, "memory": props.total_memory}
save()


def timed(fn, reps: int = 20, warm: int = 3) -> float:
    """Median seconds of fn() on the GPU (CUDA events around each call)."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    times.sort()
    return times[len(times) // 2]


def graphed(fn, calls: int = 20, reps: int = 10) -> float:
    """Seconds of one fn() on the GPU alone.

    `calls` calls are captured in a CUDA graph and replayed, so that the host's launch time (7-12 us a PyTorch call
    here) is not counted, as in a training step that keeps the GPU busy.
    """
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return timed(graph.replay, reps=reps, warm=2) / calls


def section(name):
    """Run the decorated function now (when asked for) and record its result, or its error, under `name`."""

    def wrap(fn):
        if ONLY and name not in ONLY:
            return fn
        started = time.time()
        try:
            RESULT["sections"][name] = fn()
        except Exception as err:  # noqa: BLE001
            RESULT["sections"][name] = {"error": f"{type(err).__name__}: {err}"}
        RESULT["sections"].setdefault(name, {})
        if isinstance(RESULT["sections"][name], dict):
            RESULT["sections"][name]["wall_s"] = round(time.time() - started, 2)
        save()
        print(name, "done", round(time.time() - started, 1), "s", flush=True)
        return fn
    return wrap


@section("hbm_copy")
def _():
    n = 2 << 30  # 2 GiB each way
    x = torch.empty(n, dtype=torch.uint8, device=dev)
    y = torch.empty_like(x)
    t = timed(lambda: y.copy_(x), reps=10)  # not graphed: a captured copy_ becomes a copy-engine memcpy node
    return {"bytes_moved": 2 * n, "seconds": t, "TBps": 2 * n / t / 1e12}


@section("kernel_floor")
def _():
    out = {}
    tiny = torch.zeros(1024, device=dev)
    n = 2000

    def eager():
        for _ in range(n):
            tiny.add_(1.0)
    out["eager_tiny_add_per_kernel_s"] = timed(eager, reps=5, warm=1) / n
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        eager()
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(n):
            tiny.add_(1.0)
    out["graph_tiny_add_per_kernel_s"] = timed(g.replay, reps=5, warm=1) / n
    # a mid-sized elementwise kernel: one token-row block of Qwen3-30B's hidden (4096 x 2048 bf16, 16 MiB)
    act = torch.randn(4096, 2048, device=dev, dtype=torch.bfloat16)
    o = torch.empty_like(act)
    out["bf16_4096x2048_mul_s"] = graphed(lambda: torch.mul(act, 1.5, out=o))
    out["bf16_4096x2048_mul_bytes"] = 2 * act.numel() * 2
    act8 = torch.randn(32768, 2048, device=dev, dtype=torch.bfloat16)
    o8 = torch.empty_like(act8)
    out["bf16_32768x2048_mul_s"] = graphed(lambda: torch.mul(act8, 1.5, out=o8))
    out["bf16_32768x2048_mul_bytes"] = 2 * act8.numel() * 2
    return out


def gemm_bf16(m, n, k):
    """A BF16 GEMM (m x k) @ (k x n), cuBLAS through torch.matmul."""
    a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
    o = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    t = graphed(lambda: torch.matmul(a, b, out=o))
    return {"m": m, "n": n, "k": k, "s": t, "TFLOPs": 2 * m * n * k / t / 1e12}


def gemm_fp8(m, n, k):
    """An FP8 (E4M3) GEMM with tensor-wise scales, BF16 output, cuBLASLt through torch._scaled_mm."""
    a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()  # column-major B, as cuBLASLt FP8 needs
    one = torch.ones((), device=dev)
    t = graphed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    return {"m": m, "n": n, "k": k, "s": t, "TFLOPs": 2 * m * n * k / t / 1e12}


@section("gemm_square")
def _():
    rows = []
    for size in (4096, 8192, 16384):
        rows.append({"dtype": "bf16", **gemm_bf16(size, size, size)})
        rows.append({"dtype": "fp8", **gemm_fp8(size, size, size)})
    return {"rows": rows}


@section("gemm_k_ramp")
def _():
    rows = []
    for mn in (4096, 8192):
        for k in (256, 512, 768, 1024, 1536, 2048, 4096, 8192, 16384):
            rows.append({"dtype": "bf16", **gemm_bf16(mn, mn, k)})
            rows.append({"dtype": "fp8", **gemm_fp8(mn, mn, k)})
    return {"rows": rows}


@section("gemm_expert_shapes")
def _():
    # one Qwen3-30B-A3B expert: fc1 (gate+up) 2048 -> 1536, fc2 768 -> 2048; forward, input-gradient and
    # weight-gradient shapes at M tokens routed to it
    rows = []
    for m in (256, 512, 1024, 2048, 4096, 8192):
        for name, (mm, n, k) in {"fc1_fwd": (m, 1536, 2048), "fc2_fwd": (m, 2048, 768),
                                 "fc1_dgrad": (m, 2048, 1536), "fc2_dgrad": (m, 768, 2048),
                                 "fc1_wgrad": (2048, 1536, m), "fc2_wgrad": (768, 2048, m)}.items():
            rows.append({"gemm": name, "dtype": "bf16", **gemm_bf16(mm, n, k)})
            rows.append({"gemm": name, "dtype": "fp8", **gemm_fp8(mm, n, k)})
    return {"rows": rows}


@section("gemm_decode")
def _():
    # decode-sized GEMMs: M tokens of a batch against Llama 3.1 8B's weights (fused QKV 4096 -> 6144, output
    # 4096 -> 4096, fused gate+up 4096 -> 28672, down 14336 -> 4096): weight streaming, then the kernel floor
    rows = []
    for m in (1, 8, 32, 128, 512):
        for name, (n, k) in {"qkv": (6144, 4096), "out": (4096, 4096), "gate_up": (28672, 4096),
                             "down": (4096, 14336)}.items():
            rows.append({"gemm": name, "dtype": "bf16", **gemm_bf16(m, n, k), "tokens": m})
            rows.append({"gemm": name, "dtype": "fp8", **gemm_fp8(m if m >= 16 else 16, n, k), "tokens": m})
    return {"rows": rows, "note": "FP8 GEMMs need M >= 16: FP8 M < 16 runs at 16 (what a framework pads to); BF16 at M"}


@section("grouped_small")
def _():
    gm = getattr(torch, "_grouped_mm", None)
    if gm is None:
        return {"error": "torch._grouped_mm not in this torch"}
    rows = []
    for groups in (8, 32, 128):
        for tokens in (16, 64, 256):
            x = torch.randn(groups * tokens, 2048, device=dev, dtype=torch.bfloat16)
            w = torch.randn(groups, 2048, 1536, device=dev, dtype=torch.bfloat16)
            offs = torch.arange(tokens, groups * tokens + 1, tokens, device=dev, dtype=torch.int32)
            t = graphed(lambda: gm(x, w, offs=offs))
            rows.append({"groups": groups, "tokens_per_group": tokens, "n": 1536, "k": 2048, "s": t,
                         "weight_bytes": groups * 2048 * 1536 * 2})
    return {"rows": rows}


@section("grouped_gemm")
def _():
    out = {}
    gm = getattr(torch, "_grouped_mm", None)
    if gm is None:
        return {"error": "torch._grouped_mm not in this torch"}
    rows = []
    for groups, tokens, n, k in ((8, 4096, 1536, 2048), (8, 4096, 2048, 768), (8, 2048, 1536, 2048),
                                 (32, 1024, 1536, 2048)):
        x = torch.randn(groups * tokens, k, device=dev, dtype=torch.bfloat16)
        w = torch.randn(groups, k, n, device=dev, dtype=torch.bfloat16)
        offs = torch.arange(tokens, groups * tokens + 1, tokens, device=dev, dtype=torch.int32)
        t = graphed(lambda: gm(x, w, offs=offs))
        rows.append({"groups": groups, "tokens_per_group": tokens, "n": n, "k": k, "s": t,
                     "TFLOPs": 2 * groups * tokens * n * k / t / 1e12})
    out["rows"] = rows
    return out


@section("grouped_gemm_fp8")
def _():
    gm = getattr(torch, "_scaled_grouped_mm", None)
    if gm is None:
        return {"error": "torch._scaled_grouped_mm not in this torch"}
    rows = []
    for groups, tokens, n, k in ((8, 4096, 1536, 2048), (8, 4096, 2048, 768), (8, 2048, 1536, 2048),
                                 (8, 2048, 2048, 768)):
        x = torch.randn(groups * tokens, k, device=dev).to(torch.float8_e4m3fn)
        w = torch.randn(groups, n, k, device=dev).to(torch.float8_e4m3fn).transpose(-2, -1)
        offs = torch.arange(tokens, groups * tokens + 1, tokens, device=dev, dtype=torch.int32)
        sa = torch.ones(groups * tokens, device=dev)
        sb = torch.ones(groups, n, device=dev)
        t = graphed(lambda: gm(x, w, sa, sb, offs=offs, out_dtype=torch.bfloat16))
        rows.append({"groups": groups, "tokens_per_group": tokens, "n": n, "k": k, "s": t,
                     "TFLOPs": 2 * groups * tokens * n * k / t / 1e12})
    return {"rows": rows}


@section("permute_gather")
def _():
    tokens, hidden, topk = 4096, 2048, 8
    x = torch.randn(tokens, hidden, device=dev, dtype=torch.bfloat16)
    idx = torch.randint(0, tokens, (tokens * topk,), device=dev)
    sort_idx = torch.sort(idx).values
    y = torch.empty(tokens * topk, hidden, device=dev, dtype=torch.bfloat16)
    out = {"bytes_written": y.numel() * 2, "bytes_read_at_least": x.numel() * 2}
    out["index_select_random_s"] = graphed(lambda: torch.index_select(x, 0, idx, out=y))
    out["index_select_sorted_s"] = graphed(lambda: torch.index_select(x, 0, sort_idx, out=y))
    # unpermute as a gather: each token's top-k rows summed (no atomics)
    rows = torch.randperm(tokens * topk, device=dev).view(tokens, topk)
    out["unpermute_gather_sum_s"] = graphed(lambda: y[rows].sum(1))
    z = torch.zeros(tokens, hidden, device=dev, dtype=torch.bfloat16)
    out["index_add_s"] = graphed(lambda: z.index_add_(0, idx, y))
    probs = torch.randn(tokens, 128, device=dev)
    out["router_topk_softmax_s"] = graphed(lambda: torch.topk(torch.softmax(probs, -1), topk, dim=-1))
    return out


@section("attention")
def _():
    import torch.nn.functional as F
    b, s, hq, d = 1, 4096, 32, 128
    q = torch.randn(b, hq, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(b, hq, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(b, hq, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    flops_fwd = 4 * b * hq * s * s * d / 2  # causal
    out = {}
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
        fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        g = torch.randn_like(o)

        def both():
            r = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            r.backward(g)
        fb = timed(both, reps=10)
    out.update({"fwd_s": fwd, "fwd_TFLOPs": flops_fwd / fwd / 1e12, "fwd_bwd_s": fb,
                "fwd_bwd_TFLOPs": 3.5 * flops_fwd / fb / 1e12, "note": "torch SDPA flash backend (FlashAttention-2)"})
    return out


@section("attention_cudnn")
def _():
    import torch.nn.functional as F
    rows = []
    for s, causal in ((4096, True), (4096, False), (16384, False), (16384, True)):
        b, h, d = max(1, 16384 // s), 32, 128
        q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
        flops_fwd = 4 * b * h * s * s * d / (2 if causal else 1)
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.CUDNN_ATTENTION):
            fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), reps=10)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            g = torch.randn_like(o)

            def both():
                F.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(g)
            fb = timed(both, reps=10)
        bwd = fb - fwd
        rows.append({"batch": b, "seq": s, "heads": h, "head_dim": d, "causal": causal, "fwd_s": fwd, "fwd_bwd_s": fb,
                     "fwd_TFLOPs": flops_fwd / fwd / 1e12, "bwd_TFLOPs": 2.5 * flops_fwd / bwd / 1e12})
    return {"rows": rows, "note": "torch SDPA cuDNN backend; backward FLOP 2.5x the forward's (FlashAttention-2)"}


@section("cross_entropy")
def _():
    tokens, vocab = 4096, 151936
    logits = torch.randn(tokens, vocab, device=dev, dtype=torch.bfloat16, requires_grad=True)
    target = torch.randint(0, vocab, (tokens,), device=dev)

    def both():
        loss = torch.nn.functional.cross_entropy(logits.float(), target)
        loss.backward()
    return {"fwd_bwd_s": timed(both, reps=10), "logits_bytes": logits.numel() * 2}


@section("gemm_waves")
def _():
    # Wave quantisation (NVIDIA's Matrix Multiplication Background guide, §3.2): at M = 2048 a 128 x 128 tile grid
    # crosses a multiple of the 132 SMs at N = 1056 and 2112; a library that runs its tiles in waves steps there.
    # Also DeepGEMM's narrow shape, 4096 x 2112 x 7168, and its neighbours, through cuBLAS.
    rows = []
    for n in range(128, 3073, 64):
        rows += [dict(gemm_bf16(2048, n, 4096), dtype="bf16"), dict(gemm_fp8(2048, n, 4096), dtype="fp8")]
    for n in (1920, 1984, 2048, 2112, 2176, 2240):
        rows += [dict(gemm_bf16(4096, n, 7168), dtype="bf16"), dict(gemm_fp8(4096, n, 7168), dtype="fp8")]
    return {"rows": rows, "note": "cuBLAS through torch.matmul (BF16) and torch._scaled_mm (FP8, tensor-wise scales)"}


RESULT["done"] = True
save()
