"""One Qwen3-30B-A3B layer's GPU time on one GPU, as one rank of EP 16 runs it (not run by `make test`).

Run on a machine with a GPU and PyTorch: `python bench/gpu/moe_layer.py OUT.json`. A plain PyTorch BF16 layer, the
shapes of the modern file's worst row (nemo2604-h100-qwen3-30b-a3b-fp8-ep16: hidden 2048, 32 query and 4 KV heads
of 128 with QK norms and rotary embedding, 128 experts of 768, top-8, sequence 4,096, micro-batch 1): attention on
the rank's 4,096 tokens, and the experts a rank of EP 16 holds (8 of the 128) on the 32,768 routed copies that reach
them when routing is balanced (each token's top-8 mapped onto the 8 local experts). No all-to-all: one GPU. The
forward and backward are profiled (torch.profiler) and the GPU time of every kernel summed by kind, so that the
host's launch time is not counted; eager wall time is recorded beside it. Not NeMo's stack (no Transformer Engine,
no fused permutation, cuDNN attention through PyTorch's SDPA): a reference for the GPU-side work, not a calibration.
"""

# ruff: noqa: B023
from __future__ import annotations

import json
import sys
import time

import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else "moe_layer.json"
COMPILE = "--compile" in sys.argv  # the layer through torch.compile (Inductor fuses its elementwise work)
dev = torch.device("cuda")
torch.manual_seed(0)
T, H, HQ, HKV, D, E_ALL, TOPK, FFN, E_LOCAL = 4096, 2048, 32, 4, 128, 128, 8, 768, 8
bf16 = torch.bfloat16


def param(*shape, scale=0.02):
    """A trainable BF16 weight."""
    return (torch.randn(*shape, device=dev) * scale).to(bf16).requires_grad_()


W = {"norm1": torch.ones(H, device=dev, dtype=bf16, requires_grad=True),
     "norm2": torch.ones(H, device=dev, dtype=bf16, requires_grad=True),
     "qnorm": torch.ones(D, device=dev, dtype=bf16, requires_grad=True),
     "knorm": torch.ones(D, device=dev, dtype=bf16, requires_grad=True),
     "qkv": param(H, (HQ + 2 * HKV) * D), "o": param(HQ * D, H), "router": param(H, E_ALL),
     "fc1": param(E_LOCAL, H, 2 * FFN), "fc2": param(E_LOCAL, FFN, H)}
pos = torch.arange(T, device=dev, dtype=torch.float32)
inv = 1.0 / (1_000_000 ** (torch.arange(0, D, 2, device=dev, dtype=torch.float32) / D))
ang = torch.outer(pos, inv)
COS, SIN = torch.cos(ang).to(bf16), torch.sin(ang).to(bf16)
GROUPED = hasattr(torch, "_grouped_mm")


def rope(x):
    """Rotary embedding on (heads, T, D)."""
    a, b = x[..., : D // 2], x[..., D // 2:]
    return torch.cat((a * COS - b * SIN, a * SIN + b * COS), dim=-1)


def experts(xs, offs, counts):
    """The local experts' SwiGLU FFN on the routed rows (sorted by expert)."""
    if GROUPED:
        y = torch._grouped_mm(xs, W["fc1"], offs=offs)
        gate, up = y.chunk(2, dim=-1)
        return torch._grouped_mm(F.silu(gate) * up, W["fc2"], offs=offs)
    outs, start = [], 0
    for e, n in enumerate(counts.tolist()):
        y = xs[start:start + n] @ W["fc1"][e]
        gate, up = y.chunk(2, dim=-1)
        outs.append((F.silu(gate) * up) @ W["fc2"][e])
        start += n
    return torch.cat(outs)


def layer(x):
    """One decoder layer: attention, then the MoE FFN on this rank's experts."""
    h = F.rms_norm(x, (H,), W["norm1"])
    q, k, v = (h @ W["qkv"]).split((HQ * D, HKV * D, HKV * D), dim=-1)
    q = F.rms_norm(q.view(T, HQ, D), (D,), W["qnorm"]).transpose(0, 1)
    k = F.rms_norm(k.view(T, HKV, D), (D,), W["knorm"]).transpose(0, 1)
    v = v.view(T, HKV, D).transpose(0, 1)
    k, v = rope(k).repeat_interleave(HQ // HKV, 0), v.repeat_interleave(HQ // HKV, 0)  # GQA as 32 heads
    a = F.scaled_dot_product_attention(rope(q)[None], k[None], v[None], is_causal=True)
    x = x + a[0].transpose(0, 1).reshape(T, HQ * D) @ W["o"]
    h = F.rms_norm(x, (H,), W["norm2"])
    probs = torch.softmax(h.float() @ W["router"].float(), dim=-1)
    top, idx = torch.topk(probs, TOPK, dim=-1)
    top = top / top.sum(-1, keepdim=True)
    local = (idx % E_LOCAL).flatten()
    order = torch.argsort(local, stable=True)
    token = torch.arange(T, device=dev).repeat_interleave(TOPK)[order]
    counts = torch.bincount(local, minlength=E_LOCAL)
    offs = torch.cumsum(counts, 0).to(torch.int32)
    y = experts(h[token], offs, counts) * top.flatten()[order, None].to(bf16)
    return x + torch.zeros_like(x).index_add(0, token, y)


RUN = torch.compile(layer) if COMPILE else layer


def step(x, g):
    """Forward and backward of the layer."""
    RUN(x).backward(g)


RESULT: dict = {"compiled": COMPILE, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
                "grouped_mm": GROUPED,
                "shapes": {"tokens": T, "hidden": H, "heads": HQ, "kv_heads": HKV, "head_dim": D, "experts": E_ALL,
                           "top_k": TOPK, "expert_ffn": FFN, "local_experts": E_LOCAL}}
x = torch.randn(T, H, device=dev, dtype=bf16, requires_grad=True)
g = torch.randn(T, H, device=dev, dtype=bf16)
with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.CUDNN_ATTENTION,
                                     torch.nn.attention.SDPBackend.FLASH_ATTENTION]):
    try:
        step(x, g)
    except RuntimeError as err:  # a torch whose grouped GEMM has no backward: one GEMM per expert
        RESULT["grouped_mm_error"] = str(err)[:300]
        GROUPED = False
        RESULT["grouped_mm"] = False
    for _ in range(5):
        step(x, g)
    torch.cuda.synchronize()
    reps = 20
    started = time.perf_counter()
    for _ in range(reps):
        step(x, g)
    torch.cuda.synchronize()
    RESULT["eager_wall_s"] = (time.perf_counter() - started) / reps
    from torch.profiler import ProfilerActivity, profile
    n = 5
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            step(x, g)
        torch.cuda.synchronize()
kernels = {}
for e in prof.key_averages():
    t = getattr(e, "self_device_time_total", None) or getattr(e, "self_cuda_time_total", 0)
    if t > 0:
        kernels[e.key] = {"us_per_step": t / n, "calls_per_step": e.count / n}
RESULT["gpu_time_per_step_s"] = sum(k["us_per_step"] for k in kernels.values()) / 1e6
RESULT["kernels_per_step"] = sum(k["calls_per_step"] for k in kernels.values())
RESULT["kernels"] = dict(sorted(kernels.items(), key=lambda kv: -kv[1]["us_per_step"]))
with open(OUT, "w", encoding="utf-8") as f:
    json.dump(RESULT, f, indent=1)
print(json.dumps({k: v for k, v in RESULT.items() if k != "kernels"}, indent=1))
for name, k in list(RESULT["kernels"].items())[:25]:
    print(f"{k['us_per_step']:9.1f} us {k['calls_per_step']:5.1f}x  {name[:110]}")
