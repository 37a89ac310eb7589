"""The RoPE fusion (`rope_fusion`): Transformer Engine's fused rotary-embedding kernel or PyTorch's separate operations.

Megatron-core runs `fused_apply_rotary_pos_emb` under `apply_rope_fusion` and otherwise `_apply_rotary_pos_emb_bshd`
(megatron/core/models/common/embeddings/rope_utils.py at 2edffad, lines 73-126 and 268-306): t·cos, a negation of
half the values, a `cat`, ·sin, their sum and a last `cat`, each a kernel that reads and writes 16-bit values. Per
rotated value the fused kernel moves 2 + 2 B each way (`kernels.ROPE_BYTES`); the unfused forward 24 B and backward
34 B (`kernels.ROPE_UNFUSED_BYTES`, each operation counted there). Per stack: Megatron-LM v2.6 has no rotary
embedding; Megatron-core core_v0.9.0's TransformerConfig defaults apply_rope_fusion to False
(transformer_config.py:162), which NeMo v2.0.0 keeps but for its Llama configs (llama.py:56,102); Megatron-Bridge's
performance scripts set it True (scripts/performance/utils/overrides.py:65-66 at 2b82f6f17), as Primus's model base
does (primus/configs/models/megatron/language_model.yaml:84 at fd1eeab).
"""

from __future__ import annotations

import pytest

from archgen.model.switch_allows import UNSETTLED
from archgen.model.switches import SWITCHES, StackSwitches
from archgen.perf.hw import kernels as K
from archgen.perf.train import host as H
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times, position_bytes
from archgen.perf.train.moot import moot
from archgen.perf.train.stacks import resolve
from tests.data.models import catalog_arch

LLAMA3_8B = catalog_arch("llama3-8b")


def test_bytes_per_rotated_value_counted_from_the_operations():
    """Forward: t·cos 2 + 2, -x2 on half 1 + 1, cat 2 + 2, ·sin 2 + 2, the sum 4 + 2, the last cat 2 + 2: 24 B.
    Backward: two products' gradients 2 x (2 + 2), the negation's 1 + 1, the chunk's cat 2 + 2, the sum of the
    input's two gradients 4 + 2, the full slice's zeros and copy 2 + 2 + 2, the empty slice's zeros 2, the last sum
    4 + 2: 34 B. Six and eight and a half times the fused kernel's 4 B."""
    assert K.ROPE_UNFUSED_BYTES == (4 + 2 + 4 + 4 + 6 + 4, 8 + 2 + 4 + 6 + 6 + 2 + 6) == (24.0, 34.0)
    assert K.ROPE_BYTES == (4.0, 4.0)


def test_one_llama3_8b_layer_by_hand(h100):
    """Llama 3 8B at TP 1 rotates 32 query and 8 key heads of 128: 5,120 values a token. At 8,192 tokens the unfused
    path moves (24 - 4) x 5,120 x 8,192 = 838,860,800 B more forward and (34 - 4) x 5,120 x 8,192 = 1,258,291,200 B
    more backward, and launches 18 kernels more forward (10 a tensor for 1) and 16 more backward (9 for 1)."""
    assert LLAMA3_8B.rope and not LLAMA3_8B.qk_norm and LLAMA3_8B.rope_values(1) == 40 * 128
    fused, unfused = position_bytes(LLAMA3_8B, 1), position_bytes(LLAMA3_8B, 1, fused=False)
    T = 8192
    assert (T * (unfused[0] - fused[0]), T * (unfused[1] - fused[1])) == (838_860_800.0, 1_258_291_200.0)
    assert H.attention_ops(LLAMA3_8B, False)[0] - H.attention_ops(LLAMA3_8B)[0] == 18.0
    assert H.attention_ops(LLAMA3_8B, False)[1] - H.attention_ops(LLAMA3_8B)[1] == 16.0
    on, off = (layer_times(h100, Job(LLAMA3_8B, T, 128, "bf16", rope_fusion=f), tp=1, mb=1, cp=1, ep=1, rc=0,
                           sp=False) for f in (True, False))
    assert float(off.forward - on.forward) == pytest.approx(
        float(K.memory_time(h100, 838_860_800.0)) + 18 * K.KERNEL_OVERHEAD, rel=1e-9)
    assert float(off.backward - on.backward) == pytest.approx(
        float(K.memory_time(h100, 1_258_291_200.0)) + 16 * K.KERNEL_OVERHEAD, rel=1e-9)


def test_a_model_without_rope_is_not_moved():
    """GPT-3's learned positions: the switch charges nothing and `moot` says it is not used."""
    gpt3 = catalog_arch("gpt3-175b")
    assert position_bytes(gpt3, 1, fused=False) == position_bytes(gpt3, 1) == (0.0, 0.0)
    assert H.attention_ops(gpt3, False) == H.attention_ops(gpt3)
    assert moot("rope_fusion", {}, False, "bf16", rope=False) == "not used: the model states no rotary position " \
                                                                  "embedding"
    assert moot("rope_fusion", {}, False, "bf16", rope=True) is None
    assert moot("rope_fusion", {}, False, "bf16") is None   # not known: not judged


def test_the_profiles_and_their_sources():
    assert [resolve(s, {}, "bf16").rope_fusion for s in ("megatron-lm-2021", "megatron-core-2024", "nemo-2025",
                                                        "primus-2025")] == [False, False, True, True]
    assert resolve("megatron-core-2024", {"rope_fusion": True}, "bf16").rope_fusion is True
    assert "transformer_config.py:162" in SWITCHES["rope_fusion"].source("megatron-core-2024")
    assert "overrides.py:65-66 at 2b82f6f17" in SWITCHES["rope_fusion"].source("nemo-2025")
    assert "language_model.yaml:84" in SWITCHES["rope_fusion"].source("primus-2025")
    # NeMo 24.x's configs split on it: a job under megatron-core-2024 that leaves it out ranges over both
    assert UNSETTLED["megatron-core-2024"]["rope_fusion"][0] == (False, True)


def test_megatron_lm_2021_has_no_fused_rotary_embedding():
    """Stated true under megatron-lm-2021 (v2.6, no RoPE at all) is refused, with the commit that brought it."""
    with pytest.raises(ValueError, match="the fused rotary embedding is not in the code of stack megatron-lm-2021.*"
                                         "a01b42c"):
        StackSwitches(stack="megatron-lm-2021", rope_fusion=True)
    assert StackSwitches(stack="megatron-core-2024", rope_fusion=True).rope_fusion is True


CASE = """\
schema: archgen-validation/1
cases:
- id: core-2024-rope
  source: test
  status: confirmed
  system: {accelerator: h100-sxm5-80gb, count: 8, scale_up: {domain: 8, bandwidth: "450 GB/s"}}
  model: {layers: 24, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, position_embedding: rope, qk_norm: false}
  training: {seq_len: 2048, global_batch: 64, precision: bf16, tp: 1, pp: 1, dp: 8, stack: megatron-core-2024}
  measured: [{metric: step_time, value: 1, unit: s}]
"""


def test_a_core_2024_case_with_rope_ranges_over_both_and_one_without_does_not(tmp_path):
    """NeMo 24.x's configs split on the fusion (`switch_allows.UNSETTLED`): a case under megatron-core-2024 whose
    model has RoPE and that leaves the switch out ranges over both values, the unfused one slower; learned positions
    leave nothing to range over (`moot`), nor does a stated value."""
    from archgen.scoring.cases import predict, read_cases
    from archgen.scoring.catalog import load_accelerators
    from archgen.scoring.unstated import unsettled_switches

    accs = load_accelerators()
    (path := tmp_path / "rope.yaml").write_text(CASE, encoding="utf-8")
    (case,), _ = read_cases(path)
    assert unsettled_switches(case, accs)["rope_fusion"] == (False, True)
    times = {v: predict(case.model_copy(update={"training": case.training.model_copy(
        update={"rope_fusion": v})}), accs)["step_time"] for v in (False, True)}
    assert times[False] > times[True]
    (path := tmp_path / "learned.yaml").write_text(CASE.replace("rope,", "learned,"), encoding="utf-8")
    (learned,), _ = read_cases(path)
    assert "rope_fusion" not in unsettled_switches(learned, accs)
    stated = case.model_copy(update={"training": case.training.model_copy(update={"rope_fusion": True})})
    assert "rope_fusion" not in unsettled_switches(stated, accs)


def test_explain_gives_the_value_and_its_source(tmp_path):
    """`estimate --explain`'s list (`stacks.explain`): the profile's value with the file and line it was read from,
    used for a model with RoPE, not used for one that states none."""
    from archgen.perf.train.stacks import explain
    from archgen.scoring.cases import read_cases

    (path := tmp_path / "rope.yaml").write_text(CASE, encoding="utf-8")
    (case,), _ = read_cases(path)
    used = {u.name: u for u in explain(case.training, rope=True)}["rope_fusion"]
    assert (used.value, used.origin, used.profile, used.used) == (False, "profile", "megatron-core-2024", True)
    assert used.source == SWITCHES["rope_fusion"].source("megatron-core-2024") + (
        "; megatron-core-2024 leaves it unsettled, what its published configurations split on (rope_fusion "
        "false/true): the range over unstated knobs shows each value (an estimate's note, a case's range; "
        "switch_allows.UNSETTLED)")
    # under megatron-lm-2021 (no RoPE at all) it says the code cannot settle it, and which end the estimate takes
    (path := tmp_path / "lm21.yaml").write_text(CASE.replace("megatron-core-2024", "megatron-lm-2021"),
                                                encoding="utf-8")
    (lm21,), _ = read_cases(path)
    used = {u.name: u for u in explain(lm21.training, rope=True)}["rope_fusion"]
    assert (used.value, used.profile) == (False, "megatron-lm-2021")
    assert "megatron-lm-2021 leaves it unsettled, what its code cannot settle for this model (rope_fusion " \
           "false/true: Megatron-LM v2.6 (2021-08-27) lacks the fused rotary embedding (core_v0.5.0, a01b42c); " \
           "the estimate takes the profile's false)" in used.source
    assert not {u.name: u for u in explain(case.training, rope=False)}["rope_fusion"].used


def test_every_unsettled_range_is_estimated_at_its_profiles_value_one_its_code_has():
    """`switch_allows.UNSETTLED`: the first value is the profile's, which the estimate takes, and the stack's code
    has it (`stack_features.lacks`); a value the code lacks may stand only at the far end of the range."""
    from archgen.model.stack_features import lacks
    for stack, switches in UNSETTLED.items():
        for name, (values, _) in switches.items():
            assert values[0] == getattr(resolve(stack, {}, "bf16"), name), (stack, name)
            assert lacks(stack, name, values[0]) is None, (stack, name)
    assert UNSETTLED["megatron-lm-2021"]["rope_fusion"][0] == (False, True)
    assert lacks("megatron-lm-2021", "rope_fusion", True) is not None


def test_a_rope_case_under_megatron_lm_2021_ranges_to_the_fused_end_and_a_stated_true_is_still_refused(tmp_path):
    """Megatron-LM v2.6 has no rotary embedding, so a RoPE model under megatron-lm-2021 (a stand-in for another
    stack, as llama3-405b-table4's rows state it) leaves the fusion unsettled: scored at the profile's unfused value,
    with the fused end as its range (estimated, not refused: the case does not state it), said as what the code
    cannot settle. Stating true is refused as before; a learned-position model has nothing to range over."""
    from archgen.errors import AnalyseError
    from archgen.scoring.cases import predict, read_cases
    from archgen.scoring.catalog import load_accelerators
    from archgen.scoring.unstated import unsettled_range, unsettled_switches, unstated_span

    accs = load_accelerators()
    (path := tmp_path / "rope.yaml").write_text(CASE.replace("megatron-core-2024", "megatron-lm-2021"),
                                                encoding="utf-8")
    (case,), _ = read_cases(path)
    assert unsettled_switches(case, accs) == {"rope_fusion": (False, True)}
    scored = predict(case, accs)["step_time"]
    low, high = unsettled_range(case, accs)["step_time"]
    assert low < high == scored   # the unfused end is the scored one, the fused end faster
    fused = case.model_copy(update={"training": case.training.model_copy(update={"rope_fusion": True})})
    with pytest.raises(AnalyseError, match="fused rotary embedding is not in the code of stack megatron-lm-2021"):
        predict(fused, accs)
    words = unstated_span(case, accs)[1]
    assert "what its code cannot settle for this model (rope_fusion false/true: Megatron-LM v2.6 (2021-08-27) " \
           "lacks the fused rotary embedding (core_v0.5.0, a01b42c); the estimate takes the profile's false)" in words
    (path := tmp_path / "learned.yaml").write_text(CASE.replace("megatron-core-2024", "megatron-lm-2021")
                                                   .replace("rope,", "learned,"), encoding="utf-8")
    (learned,), _ = read_cases(path)
    assert unsettled_switches(learned, accs) == {}
