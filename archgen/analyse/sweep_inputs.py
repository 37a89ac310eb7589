"""What a sweep point on a cluster cannot compute, and why: its power, its goodput or its cost per token.

A point's power and energy per token rest on the cluster's IT power, a training point's goodput (and its goodput
tokens and cost per token) on somewhere to write checkpoints, and its cost per token on the cluster's cost per used
accelerator-hour in USD (`usd_per_hour`, which `analyse.sweep_figures.sweep_figures` gives the points). `missing` says
which of those a cluster lacks; `checks.sweep.unanswerable` reads it before any point runs (SWP001 in `archgen
check`, a refusal in `archgen sweep`).
"""

from __future__ import annotations

from collections.abc import Sequence

from archgen.analyse.checkpoint_storage import no_checkpoint_target
from archgen.analyse.conversion import unpowered
from archgen.analyse.cost import Cost, analyse_cost
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.nodes import compute_node
from archgen.model.sweep import COST_OBJECTIVES, RUN_METRICS, STORAGE_METRICS
from archgen.model.workload import Workload
from archgen.perf.workload.derived import POWER_METRICS
from archgen.units import Q
from archgen.validate import Specs

#: What a point's figure rests on beyond its estimate: the cluster's IT power, the job's goodput, prices in USD; and
#: what `missing` also names: a chip in the place of the cluster's own, which its prices are not for.
POWER, GOODPUT, PRICES, SWAPPED, TOKENS = "power", "goodput", "prices", "swapped", "tokens"


def rests_on(metric: str, job: str) -> tuple[str, ...]:
    """What a sweep point's `metric` of a `job` ("training", "inference", ...) rests on: `POWER`, `GOODPUT`, `PRICES`.

    A training job's cost per token is per goodput token, so it rests on its goodput too; a serving job's is not;
    its checkpoint write and restore times rest on its checkpoint storage as goodput does (`GOODPUT`); its time to
    train on its token budget (`TOKENS`, the workload's `checkpoint.tokens`), and its goodput time to train on both.
    """
    return (*((POWER,) if metric in POWER_METRICS else ()),
            *((GOODPUT,) if job == "training" and metric in STORAGE_METRICS else ()),
            *((PRICES,) if metric in COST_OBJECTIVES else ()),
            *((TOKENS,) if metric in RUN_METRICS else ()))


def usd_per_hour(cost: Cost | None, cluster: str) -> tuple[Q | None, str]:
    """A cluster's cost per used accelerator-hour in USD, what a point's cost per token rests on; else None and why."""
    if cost is None:
        return None, f"cluster '{cluster}' has no prices (no part of its bill of materials, nor its facility, has one)"
    if cost.currency is None:
        return None, cost.no_opex   # prices in several currencies (COST001)
    if cost.currency != "USD":
        return None, f"cluster '{cluster}' is priced in {cost.currency}, and a sweep's cost per token is in USD"
    hour = cost.per_used_accelerator_hour
    if hour is None:
        return None, "; ".join(filter(None, (cost.withheld, cost.no_opex, cost.no_power))) or \
            f"cluster '{cluster}' has no cost per accelerator-hour"
    return hour, ""


def missing(specs: Specs, a: ClusterAnalysis, workload: Workload, needs: Sequence[str],
            accelerators: Sequence[str] = ()) -> list[tuple[str, str]]:
    """What a sweep point of `workload` on cluster `a` lacks for a figure resting on `needs` (`rests_on`), and why.

    Pairs of what is missing (`TOKENS`, `POWER`, `GOODPUT`, `PRICES`, `SWAPPED`) and the reason in words; [] where
    nothing is.
    `accelerators` is the sweep's `accelerator` axis: a cluster's prices are its own systems', so where the axis
    leaves its own chip out no point on it is priced (`commands.sweep_problems._swapped`).
    """
    out = []
    if TOKENS in needs and not workload.checkpoint.tokens:
        out.append((TOKENS, f"workload '{workload.id}' states no token budget (`checkpoint.tokens`)"))
    if POWER in needs and (dark := unpowered(a)):
        out.append((POWER, dark))
    if GOODPUT in needs and (nowhere := no_checkpoint_target(specs, a, workload)):
        out.append((GOODPUT, f"{nowhere} (REL006)"))
    if PRICES in needs:
        _, unpriced = usd_per_hour(analyse_cost(specs, a), a.cluster.spec.id)
        node = compute_node(a.nodes)
        own = node.part.accelerator if node is not None else None
        if unpriced:
            out.append((PRICES, unpriced))
        elif accelerators and own not in accelerators:
            out.append((SWAPPED, f"the `accelerator` axis swaps {', '.join(repr(x) for x in accelerators)} for the "
                                 f"'{own}' of cluster '{a.cluster.spec.id}', whose prices are those of its own "
                                 "systems"))
    return out
