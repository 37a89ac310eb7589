"""PWR022's judgement where a hall states what its supply accepts: `feeds.load_step_limit`, `feeds.ramp_rate_limit`.

A synchronous job's training steps swing the load between compute and communication phases, and its start, stop or
crash moves every GPU at once (arXiv:2508.14318). The swing's depth is the draw less what it falls to: with the
hall's `feeds.power_smoothing.floor` stated, at most the IT power x (1 - floor); without it, not provided (the whole
IT power is its only bound). A job's start or stop is a step of up to the whole IT power unless the smoothing states
both ramps (`ramp_up`, `ramp_down`), when it is a ramp at them (NVIDIA's GB300 NVL72 power smoothing; sources in
`model.smoothing`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.checks.registry import Violation
from archgen.units import Q

#: What PWR022 leaves out where the hall states no smoothing: said once in each finding.
UNSMOOTHED = ("the swing's ramp rate and frequency are not judged (no spec states a part's draw per phase, and the "
              "hall states no power smoothing or site energy storage, `feeds.power_smoothing`; docs/facility.md)")


def _kw(q: Q) -> str:
    return f"{q.to('kW').m:,.1f} kW"


def step_within(path: str, c: Any, it_power: Q, limit: Q) -> Violation:
    """PWR022 on `feeds.load_step_limit`: the largest step the specs bound, against it.

    The step is the larger of a training step's swing (IT power x (1 - `power_smoothing.floor`), or the whole IT
    power where no floor is stated) and a job's start or stop (the whole IT power, unless both ramps are stated).
    A swing stated above the limit: an error. The bound within: an info finding. Above it on the whole IT power: a
    warning, not provided (not "not met"): the draw the load falls to is stated nowhere.
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    sm = hall.feeds.power_smoothing
    floor = sm.floor if sm is not None else None
    ramped = sm is not None and sm.ramp_up is not None and sm.ramp_down is not None
    stated = f"facility '{hall.id}''s `feeds.load_step_limit` {_kw(limit)}"
    if sm is None:   # the hall states no smoothing: the step is at most the IT power (newuser70's words)
        step = f"a job's start or stop steps the load by at most the cluster's IT power {_kw(it_power)}"
        if it_power <= limit:
            return Violation(path, cid, ("facility",), f"{step}, within {stated}; {UNSMOOTHED}", it_power.to("kW"),
                             limit.to("kW"), severity="info")
        return Violation(path, cid, ("facility",), f"not provided: {step}, above {stated}; the step is that draw "
                         "less what the load falls to, which no spec states (`power.idle`; no `feeds.power_smoothing` "
                         f"floor), so whether it exceeds the limit is not known; {UNSMOOTHED}",
                         it_power.to("kW"), limit.to("kW"), severity="warning")
    depth = it_power * (1 - float(floor)) if floor is not None else None
    swing = (f"a training step's swing is at most the IT power {_kw(it_power)} x (1 - the smoothing's floor "
             f"{floor:g}) = {_kw(depth)}" if depth is not None else "a training step's swing is not provided "
             "(`feeds.power_smoothing` states no `floor`), so at most the whole IT power")
    ends = ("a job's start or stop ramps at the smoothing's `ramp_up` and `ramp_down`" if ramped else
            f"a job's start or stop steps the load by up to the IT power {_kw(it_power)} (the smoothing states no "
            "`ramp_up` and `ramp_down`)")
    if depth is not None and depth > limit:
        return Violation(path, cid, ("facility",), f"{swing}, above {stated}; {ends}", depth.to("kW"),
                         limit.to("kW"), severity="error")
    bound = depth if depth is not None and ramped else it_power
    if bound <= limit:
        return Violation(path, cid, ("facility",), f"{swing}; {ends}: within {stated}", bound.to("kW"),
                         limit.to("kW"), severity="info")
    return Violation(path, cid, ("facility",), f"not provided: {swing}; {ends}: a step of up to {_kw(bound)}, above "
                     f"{stated}, whose size rests on the draw the load falls to, which no spec states",
                     bound.to("kW"), limit.to("kW"), severity="warning")


def ramp_within(path: str, c: Any, limit: Q) -> Violation:
    """PWR022 on `feeds.ramp_rate_limit`: the smoothing's faster ramp against it.

    Both ramps stated: the faster above the limit an error, within it an info finding. Either unstated: a warning,
    not provided: a job's start or stop is then a step, its rate not bounded by any spec.
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    sm = hall.feeds.power_smoothing
    stated = f"facility '{hall.id}''s `feeds.ramp_rate_limit` {limit.to('kW/s').m:,.1f} kW/s"
    if sm is None or sm.ramp_up is None or sm.ramp_down is None:
        return Violation(path, cid, ("facility",), f"not provided: the load's ramp against {stated}: "
                         "`feeds.power_smoothing` states no `ramp_up` and `ramp_down`, so a job's start or stop "
                         "is a step of up to the whole IT power, its rate bounded by no spec", None, limit.to("kW/s"),
                         severity="warning")
    fast = max(sm.ramp_up, sm.ramp_down, key=lambda q: q.m_as("kW/s"))
    which = "ramp_up" if fast is sm.ramp_up else "ramp_down"
    words = f"the smoothing's `{which}` {fast.to('kW/s').m:,.1f} kW/s, the faster of its ramps"
    if fast.m_as("kW/s") <= limit.m_as("kW/s"):
        return Violation(path, cid, ("facility",), f"{words}, within {stated}", fast.to("kW/s"), limit.to("kW/s"),
                         severity="info")
    return Violation(path, cid, ("facility",), f"{words}, above {stated}", fast.to("kW/s"), limit.to("kW/s"),
                     severity="error")


def swing_judged(path: str, c: Any, it_power: Q) -> Iterator[Violation]:
    """PWR022's findings on each limit the hall states (`step_within`, `ramp_within`)."""
    feeds = c.cluster.facility.feeds
    if feeds.load_step_limit is not None:
        yield step_within(path, c, it_power, feeds.load_step_limit)
    if feeds.ramp_rate_limit is not None:
        yield ramp_within(path, c, feeds.ramp_rate_limit)
