"""The position embedding and QK norm a training case's model leaves unstated, carried as a range (ropespan40).

rope40 charges RoPE and QK-norm kernels only where the model states them; a case whose inline model states neither
(the shared files' models) is scored charging neither. `scoring.unstated_shape.shape_range` predicts it again with
them as a catalog model of exactly its shape publishes them, else at RoPE without and with a QK norm, and shows the
range beside the scored point, which stays.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.scoring import unstated_shape as S
from archgen.scoring.cases import predicted, read_cases
from archgen.scoring.unstated import unstated_span
from tests.conftest import SPECS

SHARED = Path(__file__).resolve().parents[1] / "data"


def _case(name: str, case_id: str):
    cases, _ = read_cases(SHARED / f"{name}.yaml")
    return next(c for c in cases if c.id == case_id)


def test_the_shared_qwen3_row_ranges_to_its_published_rope_and_qk_norm(accelerators):
    """The modern file's Qwen3-30B-A3B FP8 EP 16 row (measured 143,360 tokens/s) has the catalog model's shape, whose
    config has RoPE and a QK norm (arXiv 2505.09388 section 2): 188,670 tokens/s scored, 185,390 with them (+29.3 %,
    as rope40 measured on a copy of the file that states them). The scored point stays."""
    case = _case("validation-modern", "nemo2604-h100-qwen3-30b-a3b-fp8-ep16")
    scored = predicted(case, accelerators)
    got, words = S.shape_range(case, accelerators, scored)
    lo, hi = got["tokens_per_second"]
    assert hi == scored.values["tokens_per_second"] == pytest.approx(188_670, rel=1e-4)
    assert lo == pytest.approx(185_390, rel=1e-4)
    assert lo / 143_360 - 1 == pytest.approx(0.293, abs=0.001)
    assert words.startswith("RoPE positions, a QK norm, as Qwen3-30B-A3B's published config states")
    assert S.shape_range(case, accelerators) == (got, words)        # the point reused, not changed
    span, said = unstated_span(case, accelerators, scored)
    assert words in said and span["tokens_per_second"][0] <= lo
    assert predicted(case, accelerators).values == scored.values   # never scored


def test_a_gpt3_row_that_states_learned_positions_shows_none(accelerators):
    """MLPerf's GPT-3 175B row matches no catalog shape (its vocabulary is padded differently), so unstated it ranges
    over the two RoPE ends; stating GPT-3's learned positions and no QK norm (arXiv 2005.14165) leaves none open."""
    case = _case("validation-modern", "mlperf-t41-gpt3-256xh100")
    assert S.catalog_match(case.model) is None
    got, words = S.shape_range(case, accelerators)
    assert got and words.startswith("RoPE without and with a QK norm")
    assert case.model is not None
    stated = case.model_copy(update={"model": case.model.model_copy(update={"position_embedding": "learned",
                                                                             "qk_norm": False})})
    assert S.shape_fills(stated) == ([], "")
    assert S.shape_range(stated, accelerators) == ({}, "")
    assert "RoPE" not in unstated_span(stated, accelerators)[1]


def test_a_stated_field_is_kept_and_only_the_other_filled(accelerators):
    """Learned positions stated, QK norm left out: only the QK norm is filled, at both ends (no catalog shape)."""
    case = _case("validation-modern", "mlperf-t41-gpt3-256xh100")
    assert case.model is not None
    half = case.model_copy(update={"model": case.model.model_copy(update={"position_embedding": "learned"})})
    assert S.shape_fills(half)[0] == [{"qk_norm": False}, {"qk_norm": True}]


def test_the_catalog_match_is_exact_on_shape():
    """A shared Llama 3.1 8B row's model is the catalog's; one layer more is no model's."""
    case = _case("validation-modern", "mlperf-t51-llama31-8b-8xgb200-nvfp4")
    assert case.model is not None
    match = S.catalog_match(case.model)
    assert match is not None and match.id == "llama3-8b"
    assert S.catalog_match(case.model.model_copy(update={"layers": case.model.layers + 1})) is None


def test_the_catalog_models_are_validated_once_a_process(monkeypatch):
    """fidelity41: `catalog_match` validated the catalog's nine models again for each case leaving a field out; it
    now reads them through `scoring.catalog.load_parts`, the one memo `load_accelerators` uses."""
    from archgen.model.workload import Model
    case = _case("validation-modern", "mlperf-t51-llama31-8b-8xgb200-nvfp4")
    assert case.model is not None
    first = S.catalog_match(case.model)
    monkeypatch.setattr(Model, "model_validate", classmethod(lambda cls, data: pytest.fail("validated again")))
    assert S.catalog_match(case.model) is first


def test_load_parts_reads_a_kind_sees_a_changed_file_and_refuses_a_duplicate_id(tmp_path):
    from archgen.errors import ValidateError
    from archgen.model.workload import Model
    from archgen.scoring.catalog import load_accelerators, load_parts
    catalog = SPECS / "catalog"
    text = (catalog / "models" / "llama3-8b.yaml").read_text(encoding="utf-8")
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "a.yaml").write_text((catalog / "accelerators" / "h100-sxm5-80gb.yaml").read_text(encoding="utf-8"),
                                     encoding="utf-8")
    models = load_parts(Model, [tmp_path])
    assert list(models) == ["llama3-8b"] and list(load_accelerators([tmp_path])) == ["h100-sxm5-80gb"]
    assert load_parts(Model, [tmp_path])["llama3-8b"] is models["llama3-8b"]
    (tmp_path / "m.yaml").write_text(text.replace("layers: 32", "layers: 31"), encoding="utf-8")
    assert load_parts(Model, [tmp_path])["llama3-8b"].layers == 31
    (tmp_path / "n.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ValidateError, match="duplicate model id 'llama3-8b'"):
        load_parts(Model, [tmp_path])


def test_a_megatron_lm_2021_rows_rope_ends_range_over_the_fusion_its_code_cannot_settle(accelerators, monkeypatch):
    """memreq42, from rope2021: SC21 Table 1 row 1 (1.7B on 32 A100, megatron-lm-2021) states no position embedding,
    so its shape range reads it with RoPE, without and with a QK norm. RoPE opens `rope_fusion`, which Megatron-LM
    v2.6's code cannot settle (`switch_allows.UNSETTLED`: it has no rotary embedding); before, each RoPE end was charged
    unfused alone. The two ranges now multiply: each RoPE end at both ends of the fusion, four corners beside the
    point. By hand: the fused rotary kernel removes time and charges none, so each fused corner lies between its
    unfused corner and the point (no RoPE kernel at all): the band's ends are the point (137.3 TFLOP/s per GPU) and
    RoPE with a QK norm, unfused (128.3), and the fused corners (136.2 and 134.9) lie inside it."""
    from archgen.scoring import cases as C

    case = _case("validation-cases", "megatron-sc21-t1-1.7b")
    assert case.model is not None and case.training is not None
    hw = C.case_hardware(case, accelerators)
    point = C.training_metrics(case, hw, float(C.training_estimate(case, hw).step_time))["tflops_per_gpu"]
    corners = {}
    for qk, fused in ((False, False), (False, True), (True, False), (True, True)):
        at = case.model_copy(update={
            "model": case.model.model_copy(update={"position_embedding": "rope", "qk_norm": qk}),
            "training": case.training.model_copy(update={"rope_fusion": fused})})
        corners[qk, fused] = C.training_metrics(at, hw, float(C.training_estimate(at, hw).step_time))["tflops_per_gpu"]
    for qk in (False, True):
        assert corners[qk, False] < corners[qk, True] < point
    read = []
    estimate = S.training_estimate

    def spy(variant, h, *args, **kwargs):
        m, t = variant.model, variant.training
        read.append((m.position_embedding, m.qk_norm, t.rope_fusion))
        return estimate(variant, h, *args, **kwargs)

    monkeypatch.setattr(S, "training_estimate", spy)
    got, words = S.shape_range(case, accelerators)
    assert sorted(read, key=str) == sorted([(None, None, None)] + [("rope", qk, f) for qk, f in corners], key=str)
    assert got == {"tflops_per_gpu": (min(point, *corners.values()), max(point, *corners.values()))}
    assert got["tflops_per_gpu"] == (corners[True, False], point)
    assert words == ("RoPE without and with a QK norm (the case's model leaves them out; no catalog model has its "
                     "shape), each at both ends of what its code cannot settle for this model (rope_fusion false/true: "
                     "Megatron-LM v2.6 (2021-08-27) lacks the fused rotary embedding (core_v0.5.0, a01b42c); the "
                     "estimate takes the profile's false)")
