"""What a sweep point's hardware axes leave unknown: its power where they scale the hardware, and the peaks they hold.

A point whose hardware is scaled (a hardware axis at a factor other than 1, a figure other than the catalogued one, a
`scale_up_size` other than the cluster's: `scaled`) is a machine no catalog entry is. Its speed is the model's at the
scaled figures, but its power is not known: the cluster's IT load is the maximum draw of the parts as catalogued, and
a part with twice the FLOP/s or the HBM bandwidth does not draw what the catalogued one does. Before (newuser58), the
power stayed the cluster's at every point (1463.2 kW across a 405B training sweep of `peak` and `hbm_bandwidth`), so
energy per token fell for free (1.051 J at x1 to 0.591 J at peak x2, hbm x2) and the energy objective's best point
was the hypothetical one, with only a footnote to say so. Now such a point has no `power`, `energy_per_token` or
`job_it_energy` (`unpowered` says why), so it is off the Pareto front of an objective on them and no best point on
one, and a SHALL requirement on them is not provided there. An `accelerator` axis is not scaled hardware here: the
cluster's IT load moves by the difference of the two parts' stated TDPs (docs/sweeps.md, Axes). A `tdp` axis moves it
the same way by the TDP it states, and so gives a point that scales only the chip's own figures (`CHIP_AXES`) its
power; a point that scales the fabric too (its links, switches and optics) still has none.

Its cost is not known either (small27): the cluster's cost per accelerator-hour is its parts' prices and energy as
catalogued, and a part with other figures has neither that price nor (without a `tdp` axis) that power. Before, such
a point kept the cluster's cost per accelerator-hour, so cost per token fell with the factors as energy did. Now it
has no `cost_per_token` (nor its range, nor `cost_per_million_tokens`: `COST_OBJECTIVES`; `unpriced_scaled` says
why), whatever `tdp` states: no axis states a scaled part's price (a price alone would not do: the energy share of
the cost rests on the power too), so the sweep cannot give one.

A `peak` axis (and the `peak` elasticity) scales the tensor peak of the point's data type alone (`Hardware.scaled`):
`peak_axis_scope` names the peaks each accelerator holds, as `archgen estimate --what-if peak=F` does
(`perf.workload.peak_scope`; the sweep's JSON keeps that key, `peak_scope`, for this list).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from archgen.model.sweep import COST_OBJECTIVES
from archgen.model.sweep_axes import CHIP_AXES, HARDWARE_AXES, point_cluster
from archgen.perf.workload.derived import POWER_METRICS
from archgen.perf.workload.estimate import precision
from archgen.perf.workload.peak_scope import held_peaks
from archgen.quantity_json import json_magnitude
from archgen.units import Q

if TYPE_CHECKING:
    from archgen.perf.explore.problem import SweepProblem

_HARDWARE = frozenset(HARDWARE_AXES)
_STATED = frozenset((*HARDWARE_AXES, "tdp"))   # axes a level of which may describe no catalogued machine


def assumed(values: dict[str, Any], problem: SweepProblem | None = None) -> list[str]:
    """The axes of a point's `values` that depart from its machine as catalogued (`as_catalogued`, `own_chip`).

    The hardware axes, and an `accelerator` other than the cluster's own: the chip in the cluster's scale-up domain and
    scale-out path is a machine no catalog entry is (docs/sweeps.md, Axes).
    """
    return [a for a, v in values.items() if (a in _STATED and not as_catalogued(values, a, v, problem))
            or (a == "accelerator" and not own_chip(values, problem))]


def scaled(values: dict[str, Any], problem: SweepProblem | None = None) -> list[str]:
    """The hardware axes of a point's `values` not as catalogued (`assumed` without the `accelerator` and `tdp` axes).

    Each hardware axis asked once (`as_catalogued`), in the order of `values`: `assumed`'s list less the axes not in
    `HARDWARE_AXES`, without asking `own_chip` or the `tdp` level, which that drops (run once or twice a sweep point).
    """
    return [a for a, v in values.items() if a in _HARDWARE and not as_catalogued(values, a, v, problem)]


def own_chip(values: dict[str, Any], problem: SweepProblem | None) -> bool:
    """Whether a point's `accelerator` is its cluster's own chip (without `problem`, as any figure, assumed not)."""
    base = problem.bases.get((_design(values), None)) if problem is not None else None
    return base is not None and values.get("accelerator") == base.hardware.accelerator


def as_catalogued(values: dict[str, Any], axis: str, level: Any, problem: SweepProblem | None) -> bool:
    """Whether hardware axis `axis` at `level` leaves a point's machine as its cluster catalogues it.

    A factor scales a figure: 1 (1.0 or 1) leaves it. A `scale_up_size` equal to the cluster's, or a figure
    ('1800 GB/s') equal to the catalogued one (the point's precision's peak), describes the machine as it is; that
    takes `problem` (its `bases`, the point's cluster), without which any size or figure counts as assumed.
    `latency` stands for two figures and is only ever scaled.
    """
    if not isinstance(level, Q) and axis != "scale_up_size":
        return float(level) == 1.0
    if problem is None or axis == "latency":
        return False
    base = problem.bases.get((_design(values), values.get("accelerator")))
    if base is None:
        return False
    hw = base.hardware
    if axis == "tdp":
        have = problem.tdp.get((_design(values), values.get("accelerator")))
        return have is not None and math.isclose(json_magnitude(level), have, rel_tol=1e-9)
    if axis == "scale_up_size":
        return int(level) == hw.scale_up_size
    dtype = values.get("precision") or precision(problem.workload) or "bf16"
    have = hw.peak.get(dtype) if axis == "peak" else getattr(hw, axis, None)
    return have is not None and math.isclose(json_magnitude(level), float(have), rel_tol=1e-9)


#: Why a point on scaled hardware has no power (`unpowered`), in words.
UNPOWERED = ("its hardware is scaled ({axes}), and the cluster's IT power is the maximum draw of its parts as "
             "catalogued, not of these: the sweep states no power for them")
#: Why a point whose `tdp` the sweep states still has no power: the fabric's parts are scaled too.
FABRIC = "; a `tdp` axis states the accelerator's, not the fabric's ({axes})"


def unpowered(axes: tuple[str, ...], tdp: bool) -> str:
    """Why a point has no power and nothing made from it (`POWER_METRICS`), in words; "" where its power is known.

    `axes` are the point's `scaled` hardware axes, `tdp` whether the sweep has a `tdp` axis. Known where no hardware
    axis is scaled, or where the sweep has a `tdp` axis and only the chip's own figures (`model.sweep_axes.CHIP_AXES`)
    are: the point's power is then the cluster's with that TDP (`point_axes.point_base`).
    """
    fabric = [a for a in axes if a not in CHIP_AXES] if tdp else axes
    if not fabric:
        return ""
    return UNPOWERED.format(axes=", ".join(axes)) + (FABRIC.format(axes=", ".join(fabric)) if tdp else "")


#: Why a point on scaled hardware has no cost per token (`unpriced_scaled`), in words.
UNPRICED = ("its hardware is scaled ({axes}), and the cluster's cost per accelerator-hour prices its parts (and their "
            "energy) as catalogued, not these: the sweep states no price for them")


def unpriced_scaled(axes: tuple[str, ...]) -> str:
    """Why a point has no cost per token (`model.sweep.COST_OBJECTIVES`), in words; "" where it is not scaled.

    `axes` are the point's `scaled` hardware axes: any, with or without a `tdp` axis (that states a power, not a
    price).
    """
    return UNPRICED.format(axes=", ".join(axes)) if axes else ""


def scopes(points: Sequence[dict[str, Any]], problem: SweepProblem, priced: bool) -> list[tuple[str, str]]:
    """Each point's `unpowered` and `unpriced_scaled` whys (the second "" unless its cluster is `priced`), in order.

    The two from one `scaled` per point, each distinct list of scaled axes worded once: what a batch of points
    (`vectorised_rows.finish`) and one point (`points.point_scopes`) ask, where asking `unpowered` and
    `unpriced_scaled` apart found every point's scaled axes twice and worded them anew (sweepspeed3: with a
    `Machine` copied twice per point by `unpowered_base`, 2.4 of the 10^5-point benchmark's 14.5 CPU-s).
    """
    worded: dict[tuple[tuple[str, ...], bool], tuple[str, str]] = {}
    out = []
    for values in points:
        key = (tuple(scaled(values, problem)), "tdp" in values)
        got = worded.get(key)
        if got is None:
            got = worded[key] = (unpowered(*key), unpriced_scaled(key[0]) if priced else "")
        out.append(got)
    return out


def unpowered_levels(problem: SweepProblem, for_price: bool = False) -> list[str]:
    """The hardware axes of a sweep with a level not as catalogued at some point, in axis order (cheap: per level).

    A factor other than 1 always is; a size or a figure is where some cluster (or chip) of the sweep does not have it.
    With a `tdp` axis, the chip's own figures (`model.sweep_axes.CHIP_AXES`) are not listed: it states their power; they
    are where `for_price` (the axes that leave a point unpriced, `unpriced_scaled`): it states no price.
    """
    out = []
    for axis, levels in problem.axes.items():
        if axis not in _HARDWARE or (not for_price and "tdp" in problem.axes and axis in CHIP_AXES):
            continue
        combos = [{"cluster": c, "accelerator": a, "precision": d} for (c, a) in problem.bases
                  for d in (problem.axes.get("precision") or [None])]
        if any(not as_catalogued({k: v for k, v in combo.items() if v is not None}, axis, level, problem)
               for level in levels for combo in combos):
            out.append(axis)
    return out


def peak_axis_scope(problem: SweepProblem) -> list[dict[str, Any]]:
    """Per accelerator and data type of a sweep with a `peak` axis, the peak the axis scales and the ones it holds.

    Each: `accelerator`, `scaled` (the point's data type), `held` (the part's other tensor peaks, TFLOP/s, by data
    type): a point at peak x2 is a part whose `scaled` peak doubled and whose others did not, as
    `estimate --what-if peak=2` says (`perf.workload.peak_scope`). Empty where the sweep has no `peak` axis.
    """
    if "peak" not in problem.axes:
        return []
    dtypes = list(problem.axes.get("precision") or [precision(problem.workload) or "bf16"])
    out, seen = [], set()
    for base in problem.bases.values():
        hw = base.hardware
        for dtype in dtypes:
            if (hw.accelerator, dtype) in seen:
                continue
            seen.add((hw.accelerator, dtype))
            out.append({"accelerator": hw.accelerator, "scaled": dtype, "held": held_peaks(hw, dtype)})
    return out


def peak_axis_scope_text(scope: dict[str, Any]) -> str:
    """One `peak_axis_scope` entry in words."""
    held = ", ".join(f"{k} {v.m:,.0f} TFLOP/s" for k, v in scope["held"].items())
    return (f"{scope['accelerator']} at {scope['scaled']}: the axis scales its {scope['scaled']} tensor peak alone"
            + (f"; {held} stay as catalogued" if held else ""))


def unpowered_base(base: Any, powerless: str, priceless: str = "") -> Any:
    """A point's `Machine` without the IT power or the price (cost per accelerator-hour) it does not know.

    `powerless` is `unpowered`'s why, `priceless` `unpriced_scaled`'s (or `points.unpriced`'s); "" where known.
    `derived.point_metrics` then gives it no power, energy per token or job IT energy, as on a cluster whose IT power
    is not provided, and no cost per token, as on a cluster with no prices.
    """
    base = dataclasses.replace(base, it_power=math.nan) if powerless else base
    return dataclasses.replace(base, cost_per_accelerator_hour=None) if priceless else base


def power_note(problem: SweepProblem) -> str:
    """Where a sweep's points on scaled hardware have no power, and what that leaves out, in words; else "".

    Said once per document (under its front and best tables), in the command's summary and in `--format json`
    (`unpowered`), so an energy objective's front read without the hypothetical points says why they are missing.
    """
    axes = unpowered_levels(problem)
    if not axes:
        return ""
    text = (f"Power, energy per token and job IT energy are not provided at the points whose hardware is scaled "
            f"({', '.join(axes)} at a level other than as catalogued): the cluster's IT power is the maximum draw of "
            "its parts as catalogued, not of parts with other figures, and the sweep states no power for those"
            + (" (a `tdp` axis states it for the chip's own figures: peak, HBM, L2, vector peak)"
               if any(a in CHIP_AXES for a in axes) else ""))
    return text + _left_out(problem, POWER_METRICS)


def _left_out(problem: SweepProblem, metrics: Any) -> str:
    """What a sweep's objectives and requirements on `metrics` leave out where a point has none, in words."""
    asked = [o.metric for o in problem.sweep.objectives if o.metric in metrics]
    reqs = [r.id for r in [*problem.workload.requirements, *problem.sweep.requirements] if r.metric in metrics]
    text = ""
    if asked:
        text += (f". The objective on {', '.join(asked)} ranks only the points that have it: the others are off the "
                 "Pareto front and are no best point on it")
    if reqs:
        text += f"; {', '.join(reqs)} is not provided there (at SHALL, the point is not feasible)"
    return text + "."


def price_note(problem: SweepProblem) -> str:
    """Where a sweep's points on scaled hardware have no cost per token, and what that leaves out, in words; else "".

    Only where a cluster of the sweep is priced (its points have a cost per token to lose). Said where `power_note` is,
    in `--format json` as `unpriced`.
    """
    axes = unpowered_levels(problem, for_price=True)
    if not axes or not any(b.cost_per_accelerator_hour is not None for b in problem.bases.values()):
        return ""
    return (f"Cost per token is not provided at the points whose hardware is scaled ({', '.join(axes)} at a level "
            "other than as catalogued): the cluster's cost per accelerator-hour is its parts' prices and energy as "
            "catalogued, not those of parts with other figures, and no sweep axis states a price for those"
            + _left_out(problem, COST_OBJECTIVES))


def peak_note(problem: SweepProblem) -> str:
    """What a sweep's `peak` axis scales and holds, per accelerator and data type (`peak_axis_scope`); else ""."""
    scope = peak_axis_scope(problem)
    if not scope:
        return ""
    return ("The peak axis scales the tensor peak of the point's data type alone, as the `peak` elasticity does; the "
            "part's other peaks stay as catalogued, and an FP8 or FP4 job runs part of its work at them (a training "
            "job's attention core and output layer in BF16, a serving job's logits): a point at peak x2 is not a "
            "part with every tensor peak doubled (`archgen estimate --what-if peak=F` gives that too). "
            + "; ".join(peak_axis_scope_text(s) for s in scope) + ".")


def _design(values: dict[str, Any]) -> str:
    """The key of a point's design in `SweepProblem.bases` (`point_cluster`; "" without a cluster)."""
    return point_cluster(values) if "cluster" in values else ""
