"""The activations one layer's attention block saves for its backward pass, per token on one rank.

Beside the layer norms' and the first linear layer's inputs (`memory.layer_activation_bytes`): Q, K, V and the
attention output (Korthikanti et al., arXiv 2205.05198, Table 2), and under multi-head latent attention MLA's own
tensors, as Megatron-core's `MLASelfAttention` keeps them (megatron/core/transformer/multi_latent_attention.py at
d98e8a6, `get_query_key_value_tensors`, with the unfused down-projections, `mla_down_proj_fusion` False by default
in transformer_config.py):

* the query's and the KV latent's down-projections are two linear layers reading the same norm output, so under
  FP8/FP4 each keeps its own quantised copy (one more 1-byte h than a QKV projection); in 16 bits they share it;
* `q_layernorm` and `kv_layernorm` keep their latent inputs (2 bytes) and the two up-projections theirs (1 byte
  under FP8/FP4, else 2), scattered to the sequence-parallel region;
* the core keeps Q and K at qk_nope_head_dim + qk_rope_head_dim per head (`query = torch.cat([q_no_pe,
  q_pos_emb], dim=-1)`, likewise `key` with `k_pos_emb` expanded to every head), V and its output at v_head_dim,
  split by tp; 16-bit, as the flash kernel takes them.
"""

from __future__ import annotations

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.numeric import maximum


def attention_saved_bytes(arch: Arch, tp, hs, lin: float, low: bool):
    """(Bytes per token of the attention block's head-sized and latent tensors on one rank, extra units of h).

    `hs`: tp under sequence parallelism, else 1; `lin`: bytes of a saved linear input; `low`: an FP8/FP4 recipe.
    """
    if not arch.kv_lora_rank:
        q, kv = arch.heads * arch.head_dim, arch.kv_heads * arch.head_dim
        kv_rank = maximum(kv / tp, arch.head_dim)  # tp above the KV heads: one head per rank (QKV sub-sharding)
        return (2.0 * q + 2.0 * q) / tp + 2.0 * 2 * kv_rank, 0.0
    core = 2.0 * 2.0 * arch.heads * (arch.qk_head_dim + arch.v_dim) / tp
    latent = (2.0 + lin) * (arch.q_lora_rank + arch.kv_lora_rank) / hs
    return core + latent, (lin if low else 0.0)
