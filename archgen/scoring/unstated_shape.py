"""A training case's range over the position embedding and QK norm its model leaves unstated (`shape_span`).

A case's inline model that states neither `position_embedding` nor `qk_norm` (the shared validation files' models)
is charged neither kernel (`perf.train.layer.position_bytes`, issue 25). Where the model's shape is exactly a catalog
model's (every `Shape` field but these two), the range reads the case again with them as that model's published
config states them (the catalog file cites it); else at the two ends a modern model takes, RoPE without a QK norm
(Llama 3, arXiv 2407.21783 Table 3) and RoPE with one (Qwen3, arXiv 2505.09388 section 2). A field the model states
is kept. The scored point, neither charged (as learned or ALiBi positions are: nothing per layer), stays one end;
shown only where the range moves the prediction, and never scored.
"""

from __future__ import annotations

from math import isclose

from archgen.load import shipped_catalog
from archgen.model.accelerator import Accelerator
from archgen.model.cases import Case, CaseModel
from archgen.model.workload import Model, Shape
from archgen.scoring.cases import case_hardware, training_estimate, training_metrics
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


def shape_range(case: Case, accelerators: dict[str, Accelerator], scored: Prediction | None = None
                ) -> tuple[dict[str, tuple[float, float]], str]:
    """Each measured metric's range over `shape_fills` with the scored point, and its words; ({}, "") if none moves."""
    fills, words = shape_fills(case)
    model = case.model
    if not fills or model is None:
        return {}, ""
    hw = case_hardware(case, accelerators)
    ends = [scored.values if scored is not None and scored.made_on(hw) else
            training_metrics(case, hw, float(training_estimate(case, hw).step_time))]
    for fill in fills:
        variant = case.model_copy(update={"model": model.model_copy(update=fill)})
        ends.append(training_metrics(variant, hw, float(training_estimate(variant, hw).step_time)))
    if all(isclose(e[k], ends[0][k], rel_tol=1e-9) for e in ends[1:] for k in ends[0]):
        return {}, ""
    return {m.metric: (min(e[m.metric] for e in ends), max(e[m.metric] for e in ends)) for m in case.measured}, words
