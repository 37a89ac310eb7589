"""The transformer shape the model computes with, and the FLOP-counting conventions.

FLOP convention (stated once, used everywhere): a GEMM of M x K by K x N is 2·M·N·K FLOP; attention scores and
the weighted sum count the full s x s square (no causal discount), as SC21's eq. 3 and PaLM count them (Megatron-LM's
`num_floating_point_operations` halves it for the causal mask since 20d66d5, core_v0.16.0: `causal_share`). *Model
FLOPs* are forward + backward = 3 x forward, without recomputation; they give MFU. *Hardware FLOPs* add the
recomputed forward work. Multi-token prediction layers (`mtp_layers`, the job's) count as Megatron-LM's
`num_floating_point_operations` counts them (megatron/training/training.py at d98e8a6, lines 1042-1046 and 1288-1303):
each a layer of the decoder's last layer's kind, its 2h x h projection and the logits once more; they are in the
model FLOPs and so in MFU. For a GPT block stack (ffn = 4h, MHA) model FLOPs per step reduce to Megatron's
72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)) and full-recompute hardware FLOPs to 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))
(Narayanan et al., SC21, eq. 3).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

from archgen.errors import InternalError
from archgen.model.workload import Model, Workload

if TYPE_CHECKING:  # the validation cases' models: not imported for a workload's estimate (issue 25)
    from archgen.model.cases import CaseModel


@dataclass(frozen=True)
class Arch:
    """A decoder-only transformer's dimensions (plain ints).

    The counts derived from them are kept once worked out (`cached_property`, in the instance's `__dict__`, which
    equality, hashing and `dataclasses.replace` do not read): one estimate reads them dozens of times (issue 25).
    """

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    gated: bool = False
    experts: int = 0
    top_k: int = 0
    expert_ffn: int = 0
    shared_experts: int = 0
    dense_layers: int = 0
    router_groups: int = 0  # group-limited routing: expert groups (0: none) and those a token's experts come from
    router_group_topk: int = 0
    tied: bool = False  # the output layer reuses the input embedding (one vocab x hidden matrix)
    kv_lora_rank: int = 0  # multi-head latent attention: the KV latent's rank (0: none)
    kv_rope_dim: int = 0  # and its decoupled RoPE key
    q_lora_rank: int = 0  # MLA's compressed query (0: projected from the hidden state)
    qk_nope_dim: int = 0  # MLA's per-head query/key dimension without RoPE
    v_head_dim: int = 0  # MLA's per-head value dimension
    mtp_layers: int = 0  # multi-token prediction layers the training job trains (`training.mtp_layers`; 0 serving)
    rope: bool | None = None  # rotary position embedding on every layer's query and key (None: not stated, and
    qk_norm: bool | None = None  # so not charged); a norm over each head's query and key (likewise)

    @classmethod
    def from_model(cls, m: Model | CaseModel, mtp_layers: int = 0) -> Arch:
        """The shape of a `Model` spec (or of a validation case's model, which has the same fields).

        `mtp_layers`: the multi-token prediction layers a training job trains (its `mtp_layers`; the model's own
        count says what the architecture has, `perf.workload.estimate.within_context`).
        """
        moe = m.moe
        return cls(layers=m.layers, hidden=m.hidden, heads=m.heads, kv_heads=m.kv_heads or m.heads,
                   head_dim=m.head_dim or m.hidden // m.heads, ffn=m.ffn, vocab=m.vocab, gated=m.gated_ffn,
                   experts=moe.experts if moe else 0, top_k=moe.top_k if moe else 0,
                   expert_ffn=moe.expert_ffn if moe else 0, shared_experts=moe.shared_experts if moe else 0,
                   dense_layers=moe.dense_layers if moe else 0,
                   router_groups=(moe.router_num_groups or 0) if moe else 0,
                   router_group_topk=(moe.router_group_topk or 0) if moe else 0, tied=m.tie_embeddings,
                   kv_lora_rank=m.mla.kv_lora_rank if m.mla else 0,
                   kv_rope_dim=m.mla.qk_rope_head_dim if m.mla else 0,
                   q_lora_rank=(m.mla.q_lora_rank or 0) if m.mla else 0,
                   qk_nope_dim=m.mla.qk_nope_head_dim if m.mla else 0,
                   v_head_dim=m.mla.v_head_dim if m.mla else 0, mtp_layers=mtp_layers,
                   rope=None if m.position_embedding is None else m.position_embedding == "rope",
                   qk_norm=m.qk_norm)

    @classmethod
    def of_workload(cls, m: Model, workload: Workload) -> Arch:
        """The shape `workload` runs: `from_model` with the MTP layers its training trains (none when serving).

        The one home of a job's parameter count (`params`): its memory and time (`perf.workload.estimate`) and its
        checkpoint size (`perf.train.point_goodput.checkpoint_bytes`) read it.
        """
        return cls.from_model(m, workload.training.mtp_layers if workload.training is not None else 0)

    @property
    def model_features(self) -> tuple[int | None, int]:
        """What `stack_features.missing` reads of the model: its expert groups (None: none) and its KV latent's rank."""
        return self.router_groups or None, self.kv_lora_rank

    @cached_property
    def ffn_mats(self) -> int:
        """FFN weight matrices: 3 for a gated (SwiGLU) FFN, else 2."""
        return 3 if self.gated else 2

    @cached_property
    def moe_layers(self) -> int:
        """Layers with a mixture-of-experts FFN."""
        return self.layers - self.dense_layers if self.experts else 0

    @cached_property
    def attn_params(self) -> int:
        """Weights of one attention block (its projections: QKV and output, or MLA's)."""
        return int(sum(n * k for _, n, k in self.attn_gemms(1)))

    @cached_property
    def attn_norms(self) -> int:
        """Norms inside the attention block beyond the layer's own: MLA's on the KV latent and the query latent."""
        return (1 + (1 if self.q_lora_rank else 0)) if self.kv_lora_rank else 0

    def attn_gemms(self, tp) -> list[tuple[str, float, float]]:
        """The attention block's projections on one rank of `tp` (array allowed): (name, N, K) of each GEMM.

        QKV and output projections, their N (QKV) or K (output) split `tp` ways. Multi-head latent attention
        (DeepSeek-V2, arXiv 2405.04434, section 2.1; DeepSeek-V3's wq_a, wq_b, wkv_a, wkv_b and wo): the query's and
        the KV latent's down-projections are whole on every rank and run as one GEMM, as vLLM runs them
        (vllm/model_executor/models/deepseek_v2.py, `fused_qkv_a_proj`, a ReplicatedLinear-style merged layer), the
        up-projections and the output split by heads. In a decode step wkv_b runs absorbed into the query and the
        output (the same weights, FLOP and bytes at M tokens).
        """
        h = self.hidden
        if not self.kv_lora_rank:
            q = self.heads * self.head_dim
            return [("QKV projection", (q + 2 * self.kv_heads * self.head_dim) / tp, h),
                    ("attention output projection", h, q / tp)]
        qk = self.heads * (self.qk_nope_dim + self.kv_rope_dim)
        latent = self.kv_lora_rank + self.kv_rope_dim
        down = [("query and KV down-projection", 1.0 * (self.q_lora_rank + latent), h),
                ("query up-projection", qk / tp, self.q_lora_rank)] if self.q_lora_rank else \
            [("query projection", qk / tp, h), ("KV down-projection", 1.0 * latent, h)]
        return [*down, ("KV up-projection", self.heads * (self.qk_nope_dim + self.v_head_dim) / tp, self.kv_lora_rank),
                ("attention output projection", h, self.heads * self.v_head_dim / tp)]

    @cached_property
    def qk_head_dim(self) -> int:
        """Per-head dimension of the query and key the attention core multiplies: head_dim, or MLA's.

        MLA's is qk_nope_head_dim + qk_rope_head_dim (192 for DeepSeek-V3): Megatron-core's `MLASelfAttention`
        concatenates the two into one query and one key per head (megatron/core/transformer/multi_latent_attention.py
        at d98e8a6, `get_query_key_value_tensors`: `query = torch.cat([q_no_pe, q_pos_emb], dim=-1)`, likewise `key`).
        """
        return self.qk_nope_dim + self.kv_rope_dim if self.kv_lora_rank else self.head_dim

    def qk_values(self, tp) -> float:
        """Query and key values per token on one rank of `tp`: what a QK norm reads (MLA's key has every head's)."""
        return (self.heads + (self.heads if self.kv_lora_rank else self.kv_heads)) * self.qk_head_dim / tp

    def rope_values(self, tp) -> float:
        """Values per token one rank's rotary embedding rotates: the query's and the key's (MLA: the RoPE parts).

        Under MLA only the decoupled RoPE parts are rotated (DeepSeek-V2, arXiv 2405.04434, section 2.1.3): the
        query's per head, the key's once, shared by every head.
        """
        return (self.heads / tp + 1) * self.kv_rope_dim if self.kv_lora_rank else self.qk_values(tp)

    @cached_property
    def v_dim(self) -> int:
        """Per-head dimension of the value and of the attention core's output: head_dim, or MLA's v_head_dim."""
        return self.v_head_dim if self.kv_lora_rank else self.head_dim

    @cached_property
    def core_head_dim(self) -> float:
        """The attention core's FLOP per score and head over 4: the mean of `qk_head_dim` and `v_dim`.

        QKᵀ takes 2·qk_head_dim FLOP per score, the weighted sum 2·v_dim (head_dim alike: 4·head_dim; DeepSeek-V3's
        MLA: 2·192 + 2·128 = 4·160).
        """
        return (self.qk_head_dim + self.v_dim) / 2

    @cached_property
    def dense_ffn_params(self) -> int:
        """Weights of one dense FFN."""
        return self.ffn_mats * self.hidden * self.ffn

    @cached_property
    def expert_params(self) -> int:
        """Weights of one expert."""
        return self.ffn_mats * self.hidden * self.expert_ffn

    def layer_params(self, moe: bool) -> int:
        """Weights of one layer (all experts when `moe`), with its two norms."""
        return self._moe_layer_params if moe else self._dense_layer_params

    @cached_property
    def _dense_layer_params(self) -> int:
        return self.attn_params + self.dense_ffn_params + 2 * self.hidden

    @cached_property
    def _moe_layer_params(self) -> int:
        ffn = (self.experts + self.shared_experts) * self.expert_params + self.hidden * self.experts
        return self.attn_params + ffn + 2 * self.hidden

    @cached_property
    def mtp_moe(self) -> bool:
        """Whether a multi-token prediction layer's transformer block is an MoE layer.

        Megatron-LM builds it with the spec of the decoder's last layer ("Use spec of the last layer in decoder block
        as spec of the transformer layer in MTP", gpt_builders.py at d98e8a6, lines 57-84); the dense layers lead
        (`dense_layers`), so it is an MoE block wherever the model has MoE layers, as DeepSeek-V3's MTP module is
        (arXiv 2412.19437, section 2.2: "one Transformer block").
        """
        return self.moe_layers > 0

    @cached_property
    def mtp_extra_params(self) -> int:
        """Weights of one MTP layer beyond its transformer block: the projection M_k and its three norms.

        Megatron-core's `MultiTokenPredictionLayer` (megatron/core/transformer/multi_token_prediction.py at d98e8a6):
        `eh_proj`, a column-parallel linear of 2h inputs and h outputs without bias, and `enorm`, `hnorm` and
        `final_layernorm`; the embedding and the output layer are the model's own, shared (arXiv 2412.19437, 2.2).
        """
        return 2 * self.hidden * self.hidden + 3 * self.hidden

    @cached_property
    def mtp_params(self) -> int:
        """Weights of the job's MTP layers: each a block of the last layer's kind (`mtp_moe`) and `mtp_extra_params`."""
        return self.mtp_layers * (self.layer_params(self.mtp_moe) + self.mtp_extra_params)

    @cached_property
    def embedding_params(self) -> int:
        """Input embedding and output layer: one vocab x hidden matrix when tied, else two."""
        return (1 if self.tied else 2) * self.vocab * self.hidden

    def params(self) -> int:
        """Total parameters: the layers, the embeddings (once when tied), the final norm and the MTP layers trained."""
        dense = self.layers - self.moe_layers
        return (dense * self.layer_params(False) + self.moe_layers * self.layer_params(True)
                + self.embedding_params + self.hidden + self.mtp_params)

    def active_ffn_params(self, moe: bool) -> int:
        """FFN weights one token passes through."""
        if not moe:
            return self.dense_ffn_params
        return (self.top_k + self.shared_experts) * self.expert_params + self.hidden * self.experts

    def forward_flops_per_token(self, seq_len: float) -> float:
        """Forward FLOP per token of a sequence of `seq_len` (full s² attention, logits included).

        Each MTP layer adds a layer of the last layer's kind, its 2h x h projection and the logits again (as
        Megatron-LM counts them, module docstring; its norms are not counted, as no layer's are here).
        """
        dense = self.layers - self.moe_layers
        d = self.mtp_layers
        gemm = dense * (self.attn_params + self.dense_ffn_params) \
            + self.moe_layers * (self.attn_params + self.active_ffn_params(True))
        if d:
            gemm += d * (self.attn_params + self.active_ffn_params(self.mtp_moe) + 2 * self.hidden * self.hidden)
        attn = 2.0 * (self.layers + d) * seq_len * self.heads * self.core_head_dim  # QK^T and AV, 2 FLOP per MAC
        return 2.0 * gemm + 2.0 * attn + 2.0 * (1 + d) * self.hidden * self.vocab

    def causal_share(self, seq_len: float) -> float:
        """Share of the model FLOPs (`model_flops`) a causal mask skips: half the attention core's QK^T and AV.

        The model FLOPs count the full s² scores, as NeMo's formula does (the 12·s/h term of NeMo's llama3,
        nemo/utils/flops_formulas.py) and Megatron-LM's did before core_v0.16.0 (20d66d5, 2026-01-17, halves the core
        for the causal mask); a causal flash kernel runs half of them (`kernels.attention_forward`).
        """
        return 2.0 * (self.layers + self.mtp_layers) * seq_len * self.heads * self.core_head_dim \
            / self.forward_flops_per_token(seq_len)

    def mtp_share(self, seq_len: float) -> float:
        """Share of the model FLOPs (`model_flops`) the job's MTP layers add: 0 where it trains none."""
        if not self.mtp_layers:
            return 0.0
        bare = replace(self, mtp_layers=0).forward_flops_per_token(seq_len)
        return 1.0 - bare / self.forward_flops_per_token(seq_len)

    def model_flops(self, tokens: float, seq_len: float) -> float:
        """Model FLOPs (forward + backward, no recompute) for `tokens` tokens: what MFU counts."""
        return 3.0 * tokens * self.forward_flops_per_token(seq_len)


def megatron_flops(arch: Arch, batch: float, seq_len: float, convention: str) -> float:
    """FLOPs per iteration by a published formula (the `flop_counting` of a validation case).

    Args:
        arch: Model shape.
        batch: Sequences per iteration.
        seq_len: Tokens per sequence.
        convention: 'megatron_96' (SC21 eq. 3, full recompute), 'model_72' (no recompute) or 'nemo_llama3'
            (NeMo's `flops_formulas.llama3`, NVIDIA/NeMo at 9421f21, nemo/utils/flops_formulas.py lines 88-105,
            which NeMo's FLOPsMeasurementCallback divides by the world size for its TFLOPS/GPU: no recompute,
            full s² attention, GQA K/V projections (12·g/a) and a gated FFN (18·f/h)).

    Returns:
        FLOP per iteration.
    """
    b, s, l, h, v = batch, seq_len, arch.layers, arch.hidden, arch.vocab  # noqa: E741 (the paper's symbols)
    if convention == "megatron_96":
        return 96.0 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))
    if convention == "model_72":
        return 72.0 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h))
    if convention == "nemo_llama3":
        g, a, f = arch.kv_heads, arch.heads, arch.ffn
        return b * s * l * h * h * (12 + 12 * g / a + 18 * f / h + 12 * s / h + 6 * v / (l * h))
    raise InternalError(f"unknown FLOP-counting convention '{convention}'")
