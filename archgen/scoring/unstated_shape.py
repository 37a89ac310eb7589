"""A training case's range over the position embedding and QK norm its model leaves unstated (`shape_span`).

A case's inline model that states neither `position_embedding` nor `qk_norm` (the shared validation files' models)
is charged neither kernel (`perf.train.layer.position_bytes`, issue 25). Where the model's shape is exactly a catalog
model's (every `Shape` field but these two), the range reads the case again with them as that model's published
config states them (the catalog file cites it); else at the two ends a modern model takes, RoPE without a QK norm
(Llama 3, arXiv 2407.21783 Table 3) and RoPE with one (Qwen3, arXiv 2505.09388 section 2). A field the model states
is kept. The scored point, neither charged (as learned or ALiBi positions are: nothing per layer), stays one end;
shown only where the range moves the prediction, and never scored.

A fill can open a switch the point leaves moot: RoPE makes `rope_fusion` used, which megatron-lm-2021 (its code has no
rotary embedding) and megatron-core-2024 (its configurations split) leave unsettled (`switch_allows.UNSETTLED`). The
two ranges multiply (memreq42, from rope2021): each RoPE end is read at both ends of the switch, the profile's unfused
value and the fused one, so the band's ends are corners of the two (as `model.unsettled.joined` takes a third input's
end at its corner), not the RoPE ends charged unfused alone. The switches the point itself leaves unsettled are
`unstated.unsettled_range`'s, at the point.
"""

from __future__ import annotations

from itertools import product
from math import isclose

from archgen.load import shipped_catalog
from archgen.model.accelerator import Accelerator
from archgen.model.cases import Case, CaseModel
from archgen.model.switch_allows import UNSETTLED, unsettled_words
from archgen.model.workload import Model, Shape
from archgen.perf.train.moot import moot
from archgen.perf.train.stacks import on_vendor
from archgen.scoring.cases import case_hardware, case_vendor, training_estimate, training_metrics
from archgen.scoring.catalog import load_parts
from archgen.scoring.prediction import Prediction

#: The fields this range fills where a case's model leaves them out.
FIELDS = ("position_embedding", "qk_norm")

#: The two ends taken where no catalog model has the case's shape: RoPE without and with a QK norm.
ENDS = ({"position_embedding": "rope", "qk_norm": False}, {"position_embedding": "rope", "qk_norm": True})

#: Each field's value in words (`shape_fills`).
WORDS = {"position_embedding": lambda v: f"{'RoPE' if v == 'rope' else v} positions",
         "qk_norm": lambda v: "a QK norm" if v else "no QK norm"}


def _shape(m: Shape) -> dict[str, object]:
    """A model's shape without the fields this range fills, its defaults resolved (kv_heads, head_dim)."""
    got = {k: getattr(m, k) for k in Shape.model_fields if k not in FIELDS}
    got["kv_heads"] = m.kv_heads or m.heads
    got["head_dim"] = m.head_dim or m.hidden // m.heads
    return got


def catalog_match(model: CaseModel) -> Model | None:
    """The shipped catalog model whose shape is exactly `model`'s (`_shape`), or None."""
    want = _shape(model)
    return next((m for m in load_parts(Model, [shipped_catalog() / "models"]).values() if _shape(m) == want), None)


def shape_fills(case: Case) -> tuple[list[dict[str, object]], str]:
    """The values the range reads the case's model at, and in words; ([], "") where the model states both."""
    model = case.model
    if case.training is None or model is None or all(getattr(model, f) is not None for f in FIELDS):
        return [], ""
    said = [f for f in FIELDS if getattr(model, f) is None]
    match = catalog_match(model)
    if match is not None:
        fill = {f: getattr(match, f) for f in said}
        shown = ", ".join(WORDS[f](v) for f, v in fill.items())
        return [fill], f"{shown}, as {match.name}'s published config states (its shape; the case's model leaves it out)"
    fills = [{f: e[f] for f in said} for e in ENDS]
    return fills, ("RoPE without and with a QK norm (the case's model leaves them out; no catalog model has its "
                   "shape)")


def unsettled_switches(case: Case, accelerators: dict[str, Accelerator]) -> dict[str, tuple[object, ...]]:
    """The switches of `unstated.unsettled_range` with the values it takes them at (empty for any other case).

    Those the case leaves out and its model and precision use (`perf.train.moot`: a dense model's MoE switches move
    nothing; a model without RoPE leaves `rope_fusion` moot, until `shape_range` fills RoPE in).
    """
    t = case.training
    if t is None:
        return {}
    stack = on_vendor(t, case_vendor(case, accelerators)).stack
    moe = case.model is not None and case.model.moe is not None
    rope = case.model is not None and case.model.position_embedding == "rope"
    return {n: vals for n, (vals, _) in UNSETTLED.get(stack, {}).items()
            if getattr(t, n, None) is None and moot(n, {}, moe, t.precision, rope) is None}


def shape_range(case: Case, accelerators: dict[str, Accelerator], scored: Prediction | None = None
                ) -> tuple[dict[str, tuple[float, float]], str]:
    """Each measured metric's range over `shape_fills` with the scored point, and its words; ({}, "") if none moves.

    Each fill is read at every combination of the unsettled switches it opens (`unsettled_switches` of the filled
    case less the point's: `rope_fusion` under megatron-lm-2021), each estimated, not refused, as the case states none.
    """
    fills, words = shape_fills(case)
    model, t = case.model, case.training
    if not fills or model is None or t is None:
        return {}, ""
    hw = case_hardware(case, accelerators)
    ends = [scored.values if scored is not None and scored.made_on(hw) else
            training_metrics(case, hw, float(training_estimate(case, hw).step_time))]
    held = unsettled_switches(case, accelerators)
    said: dict[str, tuple[object, ...]] = {}
    for fill in fills:
        variant = case.model_copy(update={"model": model.model_copy(update=fill)})
        opened = {n: v for n, v in unsettled_switches(variant, accelerators).items() if n not in held}
        said |= opened
        for combo in product(*opened.values()):
            at = variant.model_copy(update={"training": t.model_copy(update=dict(zip(opened, combo, strict=True)))})
            ends.append(training_metrics(at, hw, float(training_estimate(at, hw).step_time)))
    if all(isclose(e[k], ends[0][k], rel_tol=1e-9) for e in ends[1:] for k in ends[0]):
        return {}, ""
    if said:
        words += ", each at both ends of " + unsettled_words(on_vendor(t, hw.vendor).stack, said)
    return {m.metric: (min(e[m.metric] for e in ends), max(e[m.metric] for e in ends)) for m in case.measured}, words
