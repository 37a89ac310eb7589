"""The kernels of one transformer layer placed on the accelerator's roofline.

The roofline model: Williams, Waterman and Patterson, "Roofline", CACM 52(4), 2009.

For a training estimate the kernels are one layer's forward pass for one micro-batch on one accelerator (shapes
split by the layout's tp and cp, element-wise traffic by sequence parallelism); for an inference estimate they are
one layer of one prefill request and one layer of one decode step at the estimate's batch. Each kernel has its
FLOP, the bytes it moves and the time `perf/hw/kernels.py` gives it, so the points show where the step time of
`perf/train/training.py` and `perf/serve/inference.py` goes, not a separate model:

* GEMM (m×k by k×n, `batch` of them): 2·m·n·k FLOP, (m·k + k·n + m·n)·dtype bytes, time `kernels.gemm_time`; in
  training at least the part's GEMM floor per kernel, the experts' over Transformer Engine's streams
  (`gemm_floor.gemm_kernel_time`), as `layer._layer_forward` charges them.
* Flash attention: 2·b·heads·s_q·s_kv·(d_qk + d_v) FLOP (4·…·d_head where the two are one; MLA's
  `Arch.qk_head_dim` and `v_dim`), halved by the causal mask; Q, K, V and O read or written once
  (K and V at the local KV heads); time `kernels.attention_forward`. Materialised attention counts the two
  score GEMMs over the full square and the score traffic (`kernels.SCORE_BYTES_FWD` per score, and
  `SCORE_DROPOUT_BYTES_FWD` with dropout).
* Decode attention: 4·b·heads·context·d_head FLOP against the KV-cache read; time `kernels.decode_attention`.
* Element-wise (norms, bias-dropout-residual, activation, and FP8/FP4 quantisation): the bytes
  `layer.elementwise_bytes` charges (`kernels.ELEMENTWISE_H`·h per token, the dropout masks in training;
  `inference.SERVING_ELEMENTWISE_H`·h, `quant.serving_casts` and `serve.ffn.ffn_bytes` for inference), time
  `kernels.memory_time`. Its
  FLOP are a count for placing the point only (`ELEMENTWISE_FLOP_H`, `ACTIVATION_FLOP`); they enter no time, and
  a memory-bound point only slides along the bandwidth roof when they change.
* Rotary embedding and QK norms (training, where the model states them): `layer.position_bytes`, likewise
  (`ROPE_FLOP`, `QK_NORM_FLOP` place the point).

Ceilings: the compute roof is the dtype's dense peak × the part's GEMM efficiency (`Hardware.gemm_rate`), the
memory roof HBM bandwidth × `hbm_efficiency`; each efficiency is measured, a point of a stated range, or assumed
where the part states none (`efficiency_basis`), and the documents say which; the ridge point is their ratio
(FLOP/B). A square n×n GEMM has intensity 2n³ / (3n²·bytes) = 2n / (3·bytes) FLOP/B, n/3 for 16-bit data
(NVIDIA, "Matrix Multiplication Background User's Guide", Deep Learning Performance documentation, "Arithmetic
intensity").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.model.workload import Model, Workload
from archgen.perf.hw import gemm_floor as F
from archgen.perf.hw import kernels as K
from archgen.perf.hw import kv_cache_dtype as KV
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import ACT_BYTES
from archgen.perf.serve.attention_quant import attention_dtypes
from archgen.perf.serve.ffn import ffn_bytes
from archgen.perf.serve.inference import SERVING_ELEMENTWISE_H
from archgen.perf.serve.lengths import decode_context
from archgen.perf.train.layer import elementwise_bytes, position_bytes
from archgen.perf.train.router import router_bytes
from archgen.perf.train.stacks import on_vendor, training_knobs

#: Element-wise FLOP per token and layer in units of h: two norms at ~4 FLOP per element (centre, square,
#: normalise, scale) and two bias-dropout-residual passes at 3 (add, mask, add).
ELEMENTWISE_FLOP_H = 14.0
#: FLOP per rotated value of a rotary embedding (x·cos + rot(x)·sin: 2 products, 1 sum) and per value of a QK norm
#: (as a layer norm's ~4: square, sum, scale, weight).
ROPE_FLOP = 3.0
QK_NORM_FLOP = 4.0
#: Activation FLOP per FFN intermediate element: GeLU (tanh approximation) ~8, SwiGLU (x·σ(x)·gate) ~5.
ACTIVATION_FLOP = {False: 8.0, True: 5.0}


@dataclass(frozen=True)
class Kernel:
    """One kernel of a layer: its work, its traffic and the model's time for it.

    Attributes:
        name: What it computes ('QKV projection', 'attention core', ...).
        phase: 'forward' (training), 'prefill' or 'decode' (inference).
        flop: Work (FLOP).
        bytes_moved: HBM traffic under the roofline convention (B).
        time: The model's time for it (s).
        gemm: Whether it runs on the tensor cores at the GEMM rate (GEMMs and attention).
    """

    name: str
    phase: str
    flop: float
    bytes_moved: float
    time: float
    gemm: bool = True

    @property
    def intensity(self) -> float:
        """Arithmetic intensity (FLOP/B)."""
        return self.flop / self.bytes_moved if self.bytes_moved else float("inf")

    @property
    def achieved(self) -> float:
        """Achieved rate (FLOP/s) at the model's time."""
        return self.flop / self.time if self.time else 0.0


@dataclass(frozen=True)
class Roofline:
    """The ceilings of one accelerator for one data type and the kernels placed under them.

    Attributes:
        accelerator: Catalog id of the accelerator.
        dtype: Data type of the GEMMs.
        peak: Dense tensor peak of `dtype` (FLOP/s).
        compute_ceiling: Peak × the part's GEMM efficiency for `dtype` (FLOP/s).
        hbm_peak: HBM peak bandwidth (B/s).
        memory_ceiling: HBM bandwidth × efficiency (B/s).
        kernels: The kernels, in execution order within each phase.
        tokens: Tokens one layer processes in each phase (per accelerator before the tp split).
        tp: Tensor-parallel size the shapes are split by.
        gemm_basis: What the GEMM efficiency under `compute_ceiling` is (`efficiency_basis`): 'measured',
            'range' (a point of a stated range) or 'assumed' (the part states none).
        hbm_basis: The same for the HBM efficiency under `memory_ceiling`.
        memory: What the part's memory is called (`Hardware.memory_type`): 'HBM', or 'GDDR6' on an L40S.
        mtp_layers: The multi-token prediction layers a training job trains (`Arch.mtp_layers`): each a layer of the
            kind drawn (`Arch.mtp_moe`), so its kernels are these; its 2h x h projection, like the logits, is no
            layer's kernel and is not drawn (the step's FLOP count, `Arch.model_flops`, has both).
    """

    accelerator: str
    dtype: str
    peak: float
    compute_ceiling: float
    hbm_peak: float
    memory_ceiling: float
    kernels: tuple[Kernel, ...]
    tokens: dict[str, int]
    tp: int
    gemm_basis: str = "measured"
    hbm_basis: str = "measured"
    memory: str = "HBM"
    mtp_layers: int = 0

    @property
    def ridge(self) -> float:
        """Intensity where the memory roof meets the compute roof (FLOP/B)."""
        return self.compute_ceiling / self.memory_ceiling

    def ceiling(self, intensity: float) -> float:
        """Attainable FLOP/s at `intensity`: min(compute roof, intensity × memory roof)."""
        return min(self.compute_ceiling, intensity * self.memory_ceiling)

    def of_roof(self, k: Kernel) -> float:
        """The share of the roof at `k`'s intensity that `k` reaches: achieved FLOP/s over `ceiling`.

        A kernel of no FLOP (an MoE router's auxiliary loss, traffic only) has intensity 0 and a roof of 0 FLOP/s
        there, so its share is taken as the same ratio on the memory roof, its bandwidth over `memory_ceiling`
        (equal to the FLOP form wherever both are defined: achieved / (intensity x roof) = bytes / time / roof).
        Before (newuser58) the FLOP form divided by zero and rendering a cluster with an MoE training job crashed.
        """
        if k.flop > 0:
            return k.achieved / self.ceiling(k.intensity)
        return k.bytes_moved / k.time / self.memory_ceiling if k.time > 0 and self.memory_ceiling > 0 else 0.0


def _f(x) -> float:
    return float(np.asarray(x))


def _gemm(hw: Hardware, dtype: str, name: str, phase: str, m, n, k, batch=1.0, streams=0.0) -> Kernel:
    """A GEMM's point; with `streams` (training) each of its `batch` kernels at least the floor (`gemm_floor`)."""
    flop = 2.0 * m * n * k * batch
    nbytes = K.gemm_bytes(dtype, m, n, k, batch, hw.fp4)
    time = F.gemm_kernel_time(hw, dtype, m, n, k, batch, streams) if streams else K.gemm_time(hw, dtype, m, n, k, batch)
    return Kernel(name, phase, _f(flop), _f(nbytes), _f(time))


def _attention(hw: Hardware, dtype: str, phase: str, *, batch, q_len, kv_len, heads, kv_heads, head_dim, v_dim,
               kernel: str, dropout: bool = False) -> Kernel:
    """The attention core (prefill or training forward), flash or materialised, causal (`v_dim`: the value's)."""
    time = K.attention_forward(hw, dtype, batch=batch, q_len=q_len, kv_len=kv_len, heads=heads, head_dim=head_dim,
                               kernel=kernel, causal=True, dropout=dropout, v_dim=v_dim)
    full = 2.0 * batch * heads * q_len * kv_len * (head_dim + v_dim)
    eb = K.DTYPE_BYTES[dtype]
    if kernel == "flash":  # Q and O, K and V
        nbytes = (batch * q_len * heads * (head_dim + v_dim) + batch * kv_len * kv_heads * (head_dim + v_dim)) * eb
        return Kernel("attention core", phase, _f(0.5 * full), _f(nbytes), _f(time))
    bh, scores = batch * heads, batch * heads * q_len * kv_len
    per_score = K.SCORE_BYTES_FWD + (K.SCORE_DROPOUT_BYTES_FWD if dropout else 0.0)
    nbytes = bh * eb * ((q_len * head_dim + head_dim * kv_len + q_len * kv_len)
                        + (q_len * kv_len + kv_len * v_dim + q_len * v_dim)) + scores * per_score
    return Kernel("attention core", phase, _f(full), _f(nbytes), _f(time))


def _elementwise(hw: Hardware, phase: str, nbytes, flop) -> Kernel:
    return Kernel("element-wise", phase, _f(flop), _f(nbytes), _f(K.memory_time(hw, nbytes)), gemm=False)


def _ffn(hw: Hardware, a: Arch, dtype: str, phase: str, tokens, tp, *, experts_local=None,
         training: bool = False) -> list[Kernel]:
    """FFN GEMMs of one layer: dense up(/gate) and down, or the MoE experts' (balanced routing)."""
    one = 1.0 if training else 0.0  # a training GEMM's floor (`_gemm`)
    if not a.experts:
        up = "FFN up/gate" if a.gated else "FFN up"
        return [_gemm(hw, dtype, up, phase, tokens, (a.ffn_mats - 1) * a.ffn / tp, a.hidden, streams=one),
                _gemm(hw, dtype, "FFN down", phase, tokens, a.hidden, a.ffn / tp, streams=one)]
    local, streams = experts_local, F.TE_GEMM_STREAMS * one
    m_e = tokens * a.top_k / local
    return [_gemm(hw, dtype, "expert up/gate" if a.gated else "expert up", phase, m_e,
                  (a.ffn_mats - 1) * a.expert_ffn / tp, a.hidden, local, streams),
            _gemm(hw, dtype, "expert down", phase, m_e, a.hidden, a.expert_ffn / tp, local, streams)]


def _projections(hw: Hardware, a: Arch, dtype: str, phase: str, tokens, tp, quantised: str = "all",
                 streams: float = 0.0) -> list[Kernel]:
    return [_gemm(hw, d, name, phase, tokens, n, k, streams=streams)
            for (name, n, k), d in zip(a.attn_gemms(tp), attention_dtypes(a, dtype, quantised), strict=True)]


def training_kernels(hw: Hardware, arch: Arch, *, seq_len: int, dtype: str, attention: str, tp: int, cp: int = 1,
                     ep: int = 1, micro_batch: int = 1, sequence_parallel: bool = True,
                     fp8_recipe: str = "delayed", moe_dispatcher: str = "alltoall",
                     permute_fusion: bool = False, dropout: bool = False, force_balance: bool = False,
                     rope_fusion: bool = False) -> Roofline:
    """One layer's forward kernels for one micro-batch on one accelerator.

    Timed as `layer._layer_forward` times them (the MoE layer when the model has experts; router and shared
    experts included).

    Args:
        hw: Hardware.
        arch: Model shape.
        seq_len: Tokens per sequence.
        dtype: Training data type.
        attention: 'flash' or 'materialized'.
        tp: Tensor-parallel size.
        cp: Context-parallel size (splits the queries).
        ep: Expert-parallel size.
        micro_batch: Sequences per micro-batch.
        sequence_parallel: Whether the element-wise h-traffic is split by tp.
        fp8_recipe: Transformer Engine FP8 recipe (`quant`); FP4 is NVFP4.
        moe_dispatcher: MoE token dispatcher (`experts.permute_h`).
        permute_fusion: HybridEP permutes inside its kernels (`permute_in_dispatch`).
        dropout: Hidden and attention dropout (their masks' traffic, `kernels.DROPOUT_MASK_H`).
        force_balance: The router's random logits (`moe_force_balance`; `router.router_bytes`).
        rope_fusion: The fused rotary embedding (`rope_fusion`, false as `Job`'s; `layer.position_bytes`).

    Returns:
        The roofline with the layer's kernels.
    """
    a, phase = arch, "forward"
    s_q = seq_len / cp
    T = micro_batch * s_q
    out = _projections(hw, a, dtype, phase, T, tp, streams=1.0)
    if a.experts:
        out.append(_gemm(hw, K.training_core_dtype(dtype), "router", phase, T / tp if sequence_parallel else T,
                         a.experts, a.hidden, streams=1.0))  # in 16 bit (`router`'s docstring)
        out += _ffn(hw, a, dtype, phase, T, tp, experts_local=a.experts / ep, training=True)
        if a.shared_experts:
            f = a.shared_experts * a.expert_ffn
            out += [_gemm(hw, dtype, "shared expert up/gate" if a.gated else "shared expert up", phase, T,
                          (a.ffn_mats - 1) * f / tp, a.hidden, streams=1.0),
                    _gemm(hw, dtype, "shared expert down", phase, T, a.hidden, f / tp, streams=1.0)]
        f_elem = a.top_k * a.expert_ffn
        rb = router_bytes(a, force_balance)[0] * (T / tp if sequence_parallel else T)
        out.append(Kernel("router loss", phase, 0.0, _f(rb), _f(K.memory_time(hw, rb)), gemm=False))
    else:
        out += _ffn(hw, a, dtype, phase, T, tp, training=True)
        f_elem = a.ffn
    out.append(_attention(hw, K.training_core_dtype(dtype), phase, batch=micro_batch, q_len=s_q, kv_len=seq_len,
                          heads=a.heads / tp, kv_heads=max(a.kv_heads / tp, 1.0), head_dim=a.qk_head_dim,
                          v_dim=a.v_dim, kernel=attention, dropout=dropout))
    h_split = tp if (sequence_parallel and tp > 1) else 1
    nbytes = elementwise_bytes(a, dtype, T, tp, sequence_parallel, bool(a.experts), fp8_recipe=fp8_recipe,
                               cc=hw.compute_capability, ep=ep, dispatcher=moe_dispatcher, fused=permute_fusion,
                               dropout=dropout)
    flop = T * (ELEMENTWISE_FLOP_H * a.hidden / h_split + ACTIVATION_FLOP[a.gated] * f_elem / tp)
    out.append(_elementwise(hw, phase, nbytes, flop))
    pos = T * position_bytes(a, tp, rope_fusion)[0]
    if pos:  # a stated rotary embedding and QK norms (`layer.position_bytes`): x·cos + rot(x)·sin, a norm's 4
        pflop = T * ((ROPE_FLOP * a.rope_values(tp) if a.rope else 0.0) + (QK_NORM_FLOP * a.qk_values(tp)
                                                                            if a.qk_norm else 0.0))
        out.append(Kernel("rotary embedding and QK norms", phase, _f(pflop), _f(pos), _f(K.memory_time(hw, pos)),
                          gemm=False))
    return _roofline(hw, dtype, out, {phase: int(T)}, tp, arch.mtp_layers)


def inference_kernels(hw: Hardware, arch: Arch, *, input_len: int, output_len: int, dtype: str,
                      kv_dtype: str | None, tp: int, batch: int, ffn_activation: str = "separate",
                      quantised_attention: str = "all", output_len_cv: float | None = None) -> Roofline:
    """One layer of one prefill request and one layer of one decode step at `batch`.

    Timed as `inference._forward` times them (the MoE layer when the model has experts).

    Args:
        hw: Hardware.
        arch: Model shape.
        input_len: Prompt tokens.
        output_len: Generated tokens (mean; the decode context is `lengths.decode_context`, input + output/2
            with every output of one length).
        dtype: Weight and GEMM data type.
        kv_dtype: KV-cache data type (default: `kv_cache_dtype.serving_kv_dtype`).
        tp: Tensor-parallel size of a replica.
        batch: Sequences in flight during decode.
        ffn_activation: The FFN activation as a kernel of its own or in the GEMM's epilogue (`serve.ffn`).
        quantised_attention: Attention projections in `dtype` (`serve.attention_quant`); the others in BF16.
        output_len_cv: The generated lengths' coefficient of variation (None: one length), as the offline step.

    Returns:
        The roofline with both phases' kernels.
    """
    a = arch
    out: list[Kernel] = []
    kv = KV.serving_kv_dtype(dtype, kv_dtype)
    kv_local = max(a.kv_heads / tp, 1.0)
    b = max(float(batch), 1.0)
    for phase, tokens in (("prefill", float(input_len)), ("decode", b)):
        out += _projections(hw, a, dtype, phase, tokens, tp, quantised_attention)
        if a.experts:
            out += _ffn(hw, a, dtype, phase, tokens, tp, experts_local=min(a.experts, tokens * a.top_k))
            if a.shared_experts:
                s_f = a.shared_experts * a.expert_ffn / tp
                out += [_gemm(hw, dtype, "shared expert up/gate" if a.gated else "shared expert up", phase, tokens,
                              (a.ffn_mats - 1) * s_f, a.hidden),
                        _gemm(hw, dtype, "shared expert down", phase, tokens, a.hidden, s_f)]
        else:
            out += _ffn(hw, a, dtype, phase, tokens, tp)
        if phase == "prefill":
            out.append(_attention(hw, KV.kv_attention_dtype(kv), phase, batch=1.0, q_len=tokens, kv_len=tokens,
                                  heads=a.heads / tp, kv_heads=kv_local, head_dim=a.qk_head_dim, v_dim=a.v_dim,
                                  kernel="flash"))
        else:
            context = decode_context(input_len, output_len, output_len_cv)
            kv_bytes, core = KV.kv_element_bytes(kv), KV.kv_attention_dtype(kv)
            if a.kv_lora_rank:  # multi-head latent attention (`inference.attention_core`)
                heads = a.heads / tp
                flop, nbytes = K.latent_decode_flop_bytes(batch=b, context=context, rank=a.kv_lora_rank,
                                                          rope=a.kv_rope_dim, kv_bytes=kv_bytes, heads=heads)
                time = K.latent_decode_attention(hw, batch=b, context=context, rank=a.kv_lora_rank,
                                                 rope=a.kv_rope_dim, kv_bytes=kv_bytes, heads=heads, dtype=core)
            else:
                time = K.decode_attention(hw, batch=b, context=context, kv_heads=kv_local, head_dim=a.head_dim,
                                          kv_bytes=kv_bytes, heads=a.heads / tp, dtype=core)
                flop = 4.0 * b * (a.heads / tp) * context * a.head_dim
                nbytes = 2.0 * b * context * kv_local * a.head_dim * kv_bytes
            out.append(Kernel("attention core", phase, flop, nbytes, _f(time)))
        # FP8/FP4 activation quantisation, per layer
        fp4 = hw.fp4
        casts = Q.serving_casts(a, dtype, tp, qkv_quantised=quantised_attention == "all", fp4=fp4)[0] / a.layers
        casts += sum(ffn_bytes(a, dtype, tp, activation=ffn_activation, fp4=fp4)) / a.layers  # activation, combine
        out.append(_elementwise(hw, phase, tokens * (ACT_BYTES * SERVING_ELEMENTWISE_H * a.hidden + casts),
                                tokens * ELEMENTWISE_FLOP_H * a.hidden))
    return _roofline(hw, dtype, out, {"prefill": int(input_len), "decode": int(b)}, tp)


def efficiency_basis(hw: Hardware, dtype: str) -> tuple[str, str]:
    """What `hw`'s GEMM efficiency for `dtype` and its HBM efficiency rest on: 'measured', 'range' or 'assumed'.

    'assumed': the part states no figure, so the model took an assumed point (`perf.hw.assumed_gemm`,
    `perf.hw.assumed_efficiency`); 'range': the part states a range (`gemm_range`, `hbm_range`) and the figure is
    the point inside it; 'measured': the part states the figure alone.
    """
    gemm = ("assumed" if dtype not in hw.gemm_efficiency
            else "range" if dtype in hw.gemm_efficiency_range else "measured")
    hbm = ("assumed" if "hbm" in hw.assumed_efficiencies
           else "range" if hw.hbm_efficiency_range else "measured")
    return gemm, hbm


def _roofline(hw: Hardware, dtype: str, kernels: list[Kernel], tokens: dict[str, int], tp: int,
              mtp_layers: int = 0) -> Roofline:
    gemm, hbm = efficiency_basis(hw, dtype)
    return Roofline(hw.accelerator, dtype, hw.peak_for(dtype), hw.gemm_rate(dtype), hw.hbm_bandwidth,
                    hw.hbm_bandwidth * hw.hbm_efficiency, tuple(kernels), tokens, int(tp), gemm, hbm, hw.memory_type,
                    mtp_layers)


def workload_roofline(workload: Workload, model: Model, hw: Hardware, layout: dict,
                      concurrency: float | None = None) -> Roofline | None:
    """The roofline of an estimate's chosen layout; None when the estimate has no layout (nothing fits).

    A serving estimate's decode step is drawn at `concurrency`, the sequences its metric says are in flight (under
    an arrival rate, the simulated mean, not the KV cache's capacity that `layout["max_batch"]` caps admission at).
    """
    if not layout:
        return None
    arch = Arch.of_workload(model, workload)  # the job's shape, its MTP layers with it (`Roofline.mtp_layers`)
    if workload.training is not None:
        t = workload.training
        knobs = training_knobs(on_vendor(t, hw.vendor))  # no stack stated: the vendor's newest profile
        return training_kernels(hw, arch, seq_len=t.seq_len, dtype=t.precision, attention=knobs.attention,
                                tp=int(layout["tp"]), cp=int(layout.get("cp", 1)), ep=int(layout.get("ep", 1)),
                                micro_batch=int(layout["micro_batch"]), sequence_parallel=knobs.sequence_parallel,
                                fp8_recipe=knobs.fp8_recipe, moe_dispatcher=knobs.moe_dispatcher,
                                permute_fusion=knobs.permute_in_dispatch, dropout=knobs.dropout,
                                force_balance=knobs.moe_force_balance, rope_fusion=knobs.rope_fusion)
    inf = workload.inference
    assert inf is not None, "a Workload has a training or an inference job (model.workload)"
    return inference_kernels(hw, arch, input_len=inf.input_len, output_len=inf.output_len, dtype=inf.precision,
                             kv_dtype=inf.kv_precision, tp=int(layout["tp"]), ffn_activation=inf.ffn_activation,
                             quantised_attention=inf.quantised_attention, output_len_cv=inf.output_len_cv,
                             batch=max(round(concurrency), 1) if concurrency is not None
                             else int(layout.get("batch", layout.get("max_batch", 1))))
