"""Which training switches change no number of a job: those its layout, model or precision make moot.

A moot switch keeps its value (`stacks.explain` lists it, `Used.used` false) but acts on a collective, a schedule or
a datatype the job does not have; `moot` says why.
"""

from __future__ import annotations

from collections.abc import Mapping

#: MoE switches: moot for a model without MoE layers.
MOE_SWITCHES = ("ep_dedup", "moe_dispatcher", "overlap_ep_comm", "permute_in_dispatch", "moe_shared_expert_overlap",
                "moe_force_balance")


def moot(name: str, layout: Mapping[str, object], moe: bool | None, precision: str | None = None,
         rope: bool | None = None) -> str | None:
    """Why switch `name` changes no number of a job with this layout, model and precision, or None.

    Sequence parallelism and the TP overlap act on tensor-parallel collectives, which tp = 1 has none of
    (`ranks.layout_arrays`, `layer.layer_times`); the p2p overlap acts on the interleaved schedule's pipeline sends,
    which pp = 1 or interleave = 1 has none of (`training.pipeline_comm`); `cp_comm_type` acts on context
    parallelism's exchange, which cp = 1 has none of (`cp_comm`); the MoE switches act on the token
    dispatch, which a model without MoE layers has none of. The DP overlaps act on the data-parallel collectives
    (`exposure.dp_exposure`), which a layout of one rank per DP group (dp x cp = 1, and one per expert DP group,
    `memory.expert_data_parallel`) has none of; the parameter-gather overlap on the distributed optimizer's gather,
    which zero 0 has none of. The FP8 recipe and the FP8 parameter gather (`param_gather_dtype`) act on FP8 training
    only (`quant.recipe`, `Job.weight_bytes`); the RoPE fusion acts on a rotary embedding, which a model that states
    none (`rope` false) is charged none of (`layer.position_bytes`). A field the layout does not give (or a
    precision or `rope` None) is not judged.
    """
    tp, pp, v = layout.get("tp"), layout.get("pp"), layout.get("interleave")
    if name in ("sequence_parallel", "overlap_tp_comm") and tp == 1:
        return "not used: tp = 1 has no tensor-parallel collectives"
    if name == "cp_comm_type" and layout.get("cp") == 1:
        return "not used: cp = 1 has no context parallelism"
    if name == "overlap_p2p_comm" and pp == 1:
        return "not used: pp = 1 has no pipeline sends"
    if name == "overlap_p2p_comm" and v == 1:
        return "not used: interleave = 1, and only the interleaved schedule overlaps its sends"
    if name == "rope_fusion" and rope is False:
        return "not used: the model states no rotary position embedding"
    if name in MOE_SWITCHES and moe is False:
        return "not used: the model has no MoE layers"
    if name in ("overlap_grad_reduce", "overlap_param_gather") and (why := _no_dp(layout, moe)):
        return why
    if name == "overlap_param_gather" and layout.get("zero") == 0:
        return "not used: zero 0 (no distributed optimizer) gathers no parameters"
    if name in ("fp8_recipe", "param_gather_dtype") and precision is not None and precision != "fp8":
        return f"not used: {precision} training has no FP8 " + ("recipe" if name == "fp8_recipe" else "parameters")
    return None


def _no_dp(layout: Mapping[str, object], moe: bool | None) -> str | None:
    """Why a layout has no data-parallel collectives (dp x cp = 1 and one rank per expert DP group), or None."""
    dp, cp = layout.get("dp"), layout.get("cp", 1)
    if not isinstance(dp, int) or not isinstance(cp, int) or dp * cp != 1:
        return None
    tp, ep, etp = layout.get("tp"), layout.get("ep", 1), layout.get("etp")
    etp = tp if etp is None else etp
    if moe is not False and (not isinstance(tp, int) or not isinstance(ep, int) or not isinstance(etp, int)
                             or tp != etp * ep):  # expert DP = tp x dp x cp / (etp x ep)
        return None
    return "not used: dp x cp = 1 has no data-parallel collectives"
