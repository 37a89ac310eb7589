"""Why a serving job's expert parallelism or attention data parallelism cannot split its model.

`serving_estimate` refuses such a job at the key at fault; the case files' checks (`scoring.case_checks`) refuse a
published run the same way. Split from `perf.workload.serving_estimate` for its size.
"""

from __future__ import annotations

from archgen.perf.hw.arch import Arch


def expert_problem(arch: Arch, ep: int, redundant: int = 0) -> str | None:
    """Why `ep` cannot split the model's experts and `redundant` copies, or None."""
    if ep > 1 and not arch.experts:
        return f"ep ({ep}) needs a mixture-of-experts model; this one is dense"
    slots = arch.experts + redundant
    if arch.experts and slots % ep:
        fits = max(d for d in range(1, ep) if slots % d == 0)
        fill = -arch.experts % ep   # the fewest copies that fill every rank equally (0 where ep divides the experts)
        held = (f"the {arch.experts} experts and {redundant} redundant copies ({slots})" if redundant else
                f"the {arch.experts} experts")
        return (f"ep ({ep}) does not divide {held}: each rank holds (experts + redundant_experts) / ep "
                f"whole slots; state redundant_experts so that they divide (EPLB's extra copies, e.g. {fill} or "
                f"{fill + ep} at ep {ep}), or an ep that divides them, such as {fits} (with a tp it divides)")
    return None


def attention_dp_problem(arch: Arch, attention_dp: bool) -> str | None:
    """Why attention data parallelism cannot run on the model, or None.

    Attention DP keeps the experts split over the replica while each rank runs the whole attention on its own
    requests; on a dense model nothing stays split, so it would be plain data parallelism labelled as tp ways.
    """
    if attention_dp and not arch.experts:
        return ("attention_dp needs a mixture-of-experts model (its experts stay split over the replica); this one "
                "is dense: run replicas of tp 1 for plain data parallelism")
    return None
