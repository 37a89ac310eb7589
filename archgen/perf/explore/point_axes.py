"""A sweep point's axes applied: its workload (job axes, accelerator count, checkpoint interval), hardware and cost.

`perf.explore.points.evaluate_point` and the batched `perf.explore.vectorised.evaluate` both make a point's job and
hardware here, so the two paths run the same workload on the same machine.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from pydantic import ValidationError

from archgen.errors import AnalyseError
from archgen.model.inference import Inference
from archgen.model.spec import FieldError
from archgen.model.sweep_axes import FACILITY_AXES, HARDWARE_AXES, JOB_AXES, facility_levels, point_cluster
from archgen.model.workload import Workload
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.switch_ports import SwitchPorts
from archgen.quantity_json import json_magnitude
from archgen.units import Q

#: Job axes that replace a field of a training job's `parallelism`.
_PARALLEL = ("tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave")


def point_job(workload: Workload, values: dict[str, Any]) -> Workload:
    """The workload with the point's job axes and accelerator count applied (a serving job held to its rules)."""
    update: dict[str, Any] = {}
    if "accelerators" in values:
        update["accelerators"] = values["accelerators"]
    if workload.training is not None:
        t = workload.training
        par = {k: values[k] for k in _PARALLEL if k in values}
        job: dict[str, Any] = {
            k: values[k] for k in ("precision", "recompute", "global_batch", "seq_len") if k in values}
        if par:
            job["parallelism"] = t.parallelism.model_copy(update=par)
        if job:
            update["training"] = t.model_copy(update=job)
        if "checkpoint_interval" in values:   # 'optimal': none stated, Daly's optimum (`job_goodput`)
            level = values["checkpoint_interval"]
            update["checkpoint"] = workload.checkpoint.model_copy(
                update={"interval": None if level == "optimal" else level})
    elif workload.inference is not None:
        job = {k: values[k] for k in JOB_AXES["inference"] if k in values}
        if job:
            update["inference"] = _held(workload.inference, job)
    return workload.model_copy(update=update) if update else workload


def _held(inference: Inference, job: dict[str, Any]) -> Inference:
    """`inference` with the point's job axes, held to the rules of `inference:` (its validators), as `estimate` is.

    A copy with the axes set skipped them (newuser93): an `arrival_rate` on a concurrency job was ignored, and an
    `input_len` past `max_num_tokens` under `prefill: separate` ended the sweep in a traceback. The fields the
    workload states stay the ones it states (`model_fields_set`), so the defaults it takes stay defaults.

    Raises:
        AnalyseError: the point's job breaks a rule: its reason, each field's, as the validator words it.
    """
    stated = {k: getattr(inference, k) for k in inference.model_fields_set}
    try:
        return type(inference).model_validate(stated | job)
    except ValidationError as err:
        raise AnalyseError("; ".join(_worded(e) for e in err.errors())) from None


def _worded(error: Any) -> str:
    """One of pydantic's error records as `inference.<field>: <reason>` (a validator's `FieldError` keeps its own)."""
    cause = (error.get("ctx") or {}).get("error")
    field = cause.field if isinstance(cause, FieldError) else error["loc"]
    where = ".".join(str(k) for k in ("inference", *field))
    return f"{where}: {cause if isinstance(cause, FieldError) else error['msg']}"


def point_hardware(hw: Hardware, values: dict[str, Any], dtype: str, mesh_limit: int = 0,
                   switch: SwitchPorts | None = None) -> Hardware:
    """`hw` changed along the point's hardware axes: a float scales a figure, a quantity replaces it.

    A `scale_up_size` is refused on a torus (its dims are its size) and, on a full mesh, beyond `mesh_limit`, the
    most accelerators the part's `scale_up.links` join (`Machine.mesh_limit`), as NET010 refuses it in a cluster;
    on a switched domain, beyond the most accelerators its switches' ports join (`Machine.switch`,
    `SwitchPorts.widest`: NET010's ports rule) at the point's `scale_up_bandwidth`: over the cluster's `link` part,
    twice the bandwidth takes twice the links per accelerator, so the cluster's own size can be refused too.
    """
    base = hw
    for name in HARDWARE_AXES:
        if name not in values:
            continue
        value = values[name]
        if name == "scale_up_size":
            if hw.torus and int(value) != hw.scale_up_size:   # the torus' dims are its size; they would stay
                raise AnalyseError(f"scale_up_size {int(value)} on a {'x'.join(map(str, hw.torus))} torus of "
                                   f"{hw.scale_up_size}: a torus' size is its dims, stated in the cluster")
            if hw.scale_up_mesh and mesh_limit and int(value) > mesh_limit:
                raise AnalyseError(f"scale_up_size {int(value)} on a full mesh: each accelerator needs "
                                   f"{int(value) - 1} peer links, and {hw.accelerator}'s `scale_up.links` join at "
                                   f"most {mesh_limit} (NET010); a larger domain is a switched one, another cluster")
            hw = dataclasses.replace(hw, scale_up_size=int(value))
        elif isinstance(value, Q):
            hw = hw.with_value(name, json_magnitude(value), dtype)
        else:
            hw = hw.scaled(name, float(value), dtype)
    if switch is not None and ("scale_up_size" in values or "scale_up_bandwidth" in values):
        _switch_ports(switch, base, hw)
    return hw


def _switch_ports(switch: SwitchPorts, base: Hardware, hw: Hardware) -> None:
    """Refuse a point whose domain needs more switch ports than the cluster's switches have (NET010's rule).

    Or, at a bandwidth other than the cluster's, more links per accelerator than the chip has (NET010's `chip_links`).
    """
    scale = hw.scale_up_bandwidth / base.scale_up_bandwidth if base.scale_up_bandwidth else 1.0
    moved = switch.per_bandwidth and abs(scale - 1.0) > 1e-9
    links, widest = switch.links_at(scale), switch.widest(scale)
    if widest and hw.scale_up_size > widest:
        at = (f" at {scale:g}x the cluster's scale-up bandwidth ({links:g} links per accelerator over its `link` "
              f"part where it states {switch.links:g}; a faster link part is another cluster)" if moved
              else f" at {links:g} links per accelerator")
        raise AnalyseError(f"scale_up_size {hw.scale_up_size} on a switched domain whose {switch.ports:,} switch "
                           f"ports join at most {widest} accelerators{at} (NET010); a larger domain needs more switch "
                           "ports or a second switch tier, another cluster")
    if moved and switch.chip_short(scale):   # the cluster as stated is `archgen check`'s
        raise AnalyseError(f"scale_up_bandwidth at {scale:g}x the cluster's takes {links:g} links per accelerator "
                           f"over its `link` part, and {hw.accelerator} has {switch.chip_links} (`scale_up.links`, "
                           "NET010); a faster link part is another cluster")


def point_base(problem: Any, values: dict[str, Any]) -> Any:
    """The point's machine (`SweepProblem.bases`) at its levels of the facility axes (`FACILITY_AXES`) and `tdp`.

    Its design is its cluster, or that cluster at its levels of the fabric axes (`point_cluster`), built as such.

    Their cost per accelerator-hour, utilisation and energy price are the cluster's analysed at the facility levels
    (`SweepProblem.facility`); a chip swapped in for the cluster's own keeps no price (`unpriced`). A `tdp` level then
    moves the machine's power and cost by its difference from the part's TDP (`at_tdp`).
    """
    key = (point_cluster(values), values.get("accelerator"))
    base = problem.bases[key]
    if any(name in values for name in FACILITY_AXES):
        per_hour, utilisation, share, price = problem.facility[(key[0], *facility_levels(values))]
        cost = per_hour if base.cost_per_accelerator_hour is not None else None
        base = dataclasses.replace(base, cost_per_accelerator_hour=cost, utilisation=utilisation,
                                   energy_share=share if cost is not None else 0.0, energy_price=price)
    if "tdp" in values:
        own = problem.tdp.get(key, math.nan)
        level = values["tdp"]
        base = at_tdp(base, (json_magnitude(level) if isinstance(level, Q) else own * float(level)) - own)
    return base


def at_tdp(base: Any, delta: float) -> Any:
    """`base` (a `Machine`) with its accelerators' TDP moved by `delta` W, its IT power and cost per hour with it.

    The IT power (the maximum draw) moves by `delta` on every accelerator in the cluster, as an `accelerator` axis
    moves it (`commands.sweep_problems._swapped`). The energy the hall bills moves with it while the cluster runs jobs
    (the hall's load x PUE x price, `analyse.cost`; each accelerator taken at its TDP, the basis of `power`; the idle
    hours' draw as stated): over every accelerator-hour used, accelerators x `delta` x used hours x PUE x price a
    year, so the cost per used accelerator-hour moves by `delta` x PUE x price (`Machine.energy_price`), whatever the
    utilisation. That added cost is at maximum draw, so it joins the share of the cost that is (`energy_share`,
    judged as a range by `upper_bounds.unsettled_at`); a lowered TDP's saving is taken at maximum draw too, so where no
    part of the cluster's energy is at maximum draw (no share) the cost stays a value, not a range.
    """
    cost = base.cost_per_accelerator_hour
    delta = delta * base.feed_per_watt   # at the rack feeds: a busbar's shelves add their loss (review48)
    power = base.it_power + base.accelerators * delta
    if cost is None:
        return dataclasses.replace(base, it_power=power)
    added = delta / 1000 * base.energy_price   # W to kW, x USD per kWh of IT energy: USD per accelerator-hour
    at_max = base.energy_share * cost + added if base.energy_share else max(added, 0.0)
    moved = cost + added
    return dataclasses.replace(base, it_power=power, cost_per_accelerator_hour=moved,
                               energy_share=min(1.0, max(0.0, at_max / moved)) if moved > 0 else 0.0)
