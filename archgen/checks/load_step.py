"""PWR022 where a hall states `feeds.load_step_limit`: a job's start or stop against the step its supply accepts.

`checks/power.py` registers PWR022 and `power_figures.hall_swing` picks its finding per cluster; this module holds
the two findings on a stated limit: the step's bound against it (`step_within`), and the bound not provided where
the cluster's IT power is not (`step_unknown`). Without a limit, `hall_figures.steady_only` says the swing is not
judged.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.facility import ups_output
from archgen.checks.registry import Violation
from archgen.checks.scope import it_floor
from archgen.units import Q

#: What PWR022 never judges, a limit stated or not.
REST = ("the swing's ramp rate and frequency are not judged (no spec states a part's draw per phase, power smoothing "
        "or site energy storage; docs/facility.md, Not modelled)")


def step_within(path: str, c: Any, it_power: Q, limit: Q) -> Violation:
    """PWR022 where the hall states `feeds.load_step_limit`: a job's start or stop, at most the IT power, against it.

    A synchronous job's start, stop or crash moves every GPU at once (arXiv:2508.14318); the step is the cluster's
    draw less what it falls to, which no spec states (a part's `power.idle`, power smoothing), so its upper bound at
    the rack feeds is the whole IT power, and above them that over the distribution's efficiency where the hall
    states it (`ups_output`: a transformer's no-load loss stays, so the bound holds). The UPS's and the transformers'
    own losses above that are stated nowhere and add to the step the supply sees: the finding names them and the
    margin they must fit in. Within the limit: an info finding (the ramp rate and the swing's frequency still not
    judged). Above it: a warning, not provided (not "not met"): the step may exceed the limit.
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    step, eff = ups_output(it_power, hall).to("kW"), hall.feeds.distribution_efficiency
    over = "" if eff is None else (f", {step.m:,.1f} kW over the distribution's efficiency {float(eff):g} below the "
                                   "UPS (`feeds.distribution_efficiency`)")
    text = f"a job's start or stop steps the load by at most the cluster's IT power {it_power.to('kW').m:,.1f} kW{over}"
    stated = f"facility '{hall.id}''s `feeds.load_step_limit` {limit.to('kW').m:,.1f} kW"
    losses = (f"the losses above {'the rack feeds' if eff is None else 'that distribution'} (a UPS's conversion, "
              "the transformers'" + (", busway and panels: `feeds.distribution_efficiency`" if eff is None else "")
              + ") are stated nowhere and add to the step the supply sees")
    rest = REST
    if step <= limit:
        margin = (limit - step).to("kW")
        share = float((margin / limit).to("").magnitude) * 100
        return Violation(path, cid, ("facility",), f"{text}, within {stated} by {margin.m:,.1f} kW ({share:.1f} %); "
                         f"{losses}, so they must fit in that margin; {rest}", step, limit.to("kW"), severity="info")
    return Violation(path, cid, ("facility",), f"not provided: {text}, above {stated}; the step is that draw less "
                     "what the load falls to, which no spec states (`power.idle`, power smoothing, site energy "
                     f"storage), so whether it exceeds the limit is not known; {rest}", step, limit.to("kW"),
                     severity="warning")


def step_unknown(path: str, c: Any, limit: Q) -> Violation:
    """PWR022 where the hall states `feeds.load_step_limit` but not the cluster's IT power, the step's bound.

    A warning, not provided, as above the limit: the racks' own IT power (`scope.it_floor`) is a floor under the IT
    power, not a bound on the step (the draw the load falls to is stated nowhere), so the finding gives it as context
    only. Before (review36), such a cluster got no PWR022 finding at all: the stated limit went unjudged unsaid.
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    floor, why = it_floor(c)
    why = why or f"{cid}'s IT power is not provided"
    racks = (f"; the racks' own IT power, {floor.to('kW').m:,.1f} kW, is a floor under the IT power, not a bound on "
             "the step, whose draw the load falls to no spec states" if floor is not None else "")
    return Violation(path, cid, ("facility",), f"not provided: a job's start or stop steps the load by at most the "
                     f"cluster's IT power, which is not provided ({why})"
                     f"{racks}, so whether the step is within facility '{hall.id}''s `feeds.load_step_limit` "
                     f"{limit.to('kW').m:,.1f} kW is not known; {REST}", None, limit.to("kW"), severity="warning")
