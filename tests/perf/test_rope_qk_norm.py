"""The rotary embedding's and the QK norms' kernels, charged where the model states them (session rope40, issue 20).

Bytes per value from the kernels the stacks run: Transformer Engine's fused RoPE (transformer_engine/common/
fused_rope/fused_rope.cu at f031cf87: one read and one write each way) and its RMSNorm over each head's query and key
(rmsnorm_fwd_kernels.cuh / rmsnorm_bwd_kernels.cuh: x in, z out forward; dz and x in, dx out backward; one FP32
1/rms per head vector). Megatron-Bridge's performance scripts set `apply_rope_fusion` (scripts/performance/utils/
overrides.py lines 65-66 at 2b82f6f17) and its Qwen3 bridges `qk_layernorm` (qwen3_moe_bridge.py line 52).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from archgen.perf.hw import kernels as K
from archgen.perf.train import host as H
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times, position_bytes
from archgen.perf.workload.kernel_notes import position_note
from tests.conftest import SPECS
from tests.data.models import catalog_arch, catalog_model

QWEN3_30B = catalog_arch("qwen3-30b-a3b")
UNSTATED = replace(QWEN3_30B, rope=None, qk_norm=None)


def test_every_catalog_model_states_both_fields():
    """Each shipped model says how it encodes positions and whether it norms query and key, with its source."""
    ids = sorted(p.stem for p in (SPECS / "catalog" / "models").glob("*.yaml"))
    assert len(ids) == 9
    read = {i: (catalog_model(i).position_embedding, catalog_model(i).qk_norm) for i in ids}
    assert read == {"deepseek-v3": ("rope", False), "gpt3-175b": ("learned", False), "llama3-405b": ("rope", False),
                    "llama3-70b": ("rope", False), "llama3-8b": ("rope", False), "mixtral-8x22b": ("rope", False),
                    "mixtral-8x7b": ("rope", False), "qwen3-235b-a22b": ("rope", True), "qwen3-30b-a3b": ("rope", True)}
    for i in ids:  # the file's comment cites where each value comes from
        text = (SPECS / "catalog" / "models" / f"{i}.yaml").read_text(encoding="utf-8")
        assert "Position embedding" in text and "QK norm" in text, i


def test_qwen3_bytes_per_token_by_hand():
    """Qwen3-30B-A3B at TP 1: 32 query and 4 key heads of 128, 4,608 values. RoPE 2 + 2 B each way; the QK norms
    2 + 2 B forward, 4 + 2 B backward, and 4 B of 1/rms per head vector each way (36 vectors): forward 18,432 +
    18,432 + 144 = 37,008 B a token, backward 18,432 + 27,648 + 144 = 46,224 B. TP 4 splits the heads."""
    assert QWEN3_30B.qk_values(1) == QWEN3_30B.rope_values(1) == (32 + 4) * 128
    assert position_bytes(QWEN3_30B, 1) == (37008.0, 46224.0)
    assert position_bytes(QWEN3_30B, 4) == (37008.0 / 4, 46224.0 / 4)
    assert position_bytes(UNSTATED, 1) == (0.0, 0.0)
    llama = catalog_arch("llama3-8b")  # RoPE alone: 40 heads of 128, 4 B each way
    assert position_bytes(llama, 1) == (40 * 128 * 4.0, 40 * 128 * 4.0)


def test_mla_rotates_only_its_decoupled_parts():
    """DeepSeek-V3: RoPE on each head's 64-value decoupled query part and the one shared 64-value key part
    (arXiv 2405.04434 section 2.1.3): (128 / tp + 1) x 64 values."""
    ds = catalog_arch("deepseek-v3")
    assert ds.rope and not ds.qk_norm
    assert ds.rope_values(8) == (128 / 8 + 1) * 64
    assert position_bytes(ds, 8) == ((128 / 8 + 1) * 64 * 4.0,) * 2


def test_learned_positions_and_unstated_charge_nothing_but_only_unstated_is_said():
    """GPT-3's learned positions add nothing per layer; a model that states neither field gets nothing either, and
    the estimate says so rather than assume."""
    gpt3 = catalog_arch("gpt3-175b")
    assert (gpt3.rope, gpt3.qk_norm) == (False, False)
    assert position_note(gpt3) == [] and position_note(QWEN3_30B) == []
    assert position_note(replace(gpt3, rope=None)) == [
        "the model does not state its position embedding: no rotary-embedding or QK-norm kernels are charged, a "
        "lower bound for a model that has them"]
    assert "or whether it norms query and key" in position_note(UNSTATED)[0]
    assert H.attention_ops(gpt3) == H.attention_ops(UNSTATED) == H.ATTENTION_OPS
    assert H.attention_ops(QWEN3_30B) == (H.ATTENTION_OPS[0] + 4.0, H.ATTENTION_OPS[1] + 4.0)


@pytest.mark.parametrize("rc", [0, 1, 2])
def test_the_layer_pays_the_bytes_and_kernels_each_pass(h100, rc):
    """On an H100 the stated model's layer moves the forward bytes at the HBM rate plus 4 kernels' fixed cost in its
    forward, the backward's own bytes (not twice the forward's) plus 4 kernels in its backward, and again the
    forward's under full recomputation (rc 2) only: selective recomputation re-runs the attention core alone."""
    T = 4096.0
    got, ref = (layer_times(h100, Job(a, 4096, 1024, "bf16", rope_fusion=True), tp=1, mb=1, cp=1, ep=16, rc=rc, sp=False)
                for a in (QWEN3_30B, UNSTATED))
    fwd = float(K.memory_time(h100, T * 37008.0)) + 4 * K.KERNEL_OVERHEAD
    bwd = float(K.memory_time(h100, T * 46224.0)) + 4 * K.KERNEL_OVERHEAD
    assert float(got.forward - ref.forward) == pytest.approx(fwd, rel=1e-9)
    assert float(got.backward - ref.backward) == pytest.approx(bwd, rel=1e-9)
    assert float(got.recompute - ref.recompute) == pytest.approx(fwd if rc == 2 else 0.0, abs=1e-12)
    assert fwd == pytest.approx(0.0575e-3, abs=0.001e-3)  # 152 MB at the H100's HBM rate, and 5.2 µs


def test_the_data_files_state_the_models_the_catalog_states():
    """Every inline model of a training case file that states the fields states what the catalog says of the model
    of that shape (vocabulary and hidden size identify it among the shipped models)."""
    shapes = {(m.vocab, m.hidden): (m.position_embedding, m.qk_norm)
              for m in (catalog_model(p.stem) for p in (SPECS / "catalog" / "models").glob("*.yaml"))}
    shapes[(32000, 8192)] = ("rope", False)  # Llama 2 70B (arXiv 2307.09288 section 2.2), not in the catalog
    seen = 0
    for path in sorted((Path(__file__).parent / "data").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "schema: archgen-validation" not in text:
            continue
        doc = yaml.safe_load(text)
        for case in doc.get("cases", []) if isinstance(doc, dict) else []:
            m = case.get("model") if isinstance(case, dict) else None
            if isinstance(m, dict) and "position_embedding" in m:
                assert (m["position_embedding"], m["qk_norm"]) == shapes[(m["vocab"], m["hidden"])], case["id"]
                seen += 1
    assert seen > 60
