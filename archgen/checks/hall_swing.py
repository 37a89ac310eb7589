"""PWR022's judgement where a hall states what its supply accepts: `feeds.load_step_limit`, `feeds.ramp_rate_limit`.

A synchronous job's training steps swing the load between compute and communication phases, and its start, stop or
crash moves every GPU at once (arXiv:2508.14318). The swing's depth is the draw less what it falls to: with the
hall's `feeds.power_smoothing.floor` stated, at most the IT power x (1 - floor); without it, not provided (the whole
IT power is its only bound). A job's start or stop is a step of up to the whole IT power unless the smoothing states
both ramps (`ramp_up`, `ramp_down`), when it is a ramp at them (NVIDIA's GB300 NVL72 power smoothing; sources in
`model.smoothing`).

The supply sees each of these over `feeds.distribution_efficiency` where the hall states it (`ups_output`, review36):
a transformer's no-load loss stays through a step, so the IT figure over the efficiency stays an upper bound, and the
UPS's and transformers' own losses, stated nowhere, add to it: a finding within its limit gives the margin they must
fit in. Where a `load_step_limit` is stated and the cluster's IT power is not, the step is not provided
(`step_unknown`), never silence.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.facility import unsplit_rest, ups_output
from archgen.analyse.hall_groups import fellows, halls_with
from archgen.analyse.job_swing import LoadRamps, PartsSwing, load_ramps, parts_swing
from archgen.checks.hall_load import it_floor
from archgen.checks.registry import Violation
from archgen.display import kw
from archgen.units import Q

#: What PWR022 leaves out where the hall states no smoothing: said once in each finding.
UNSMOOTHED = ("the swing's ramp rate and frequency are not judged (no spec states a part's draw per phase, and the "
              "hall states no power smoothing or site energy storage, `feeds.power_smoothing`; docs/facility.md)")
#: The same in the customer's words (`Violation.public`).
UNSMOOTHED_WORDS = ("the swing's ramp rate and frequency are not judged: the design states no part's draw per phase, "
                    "and no power smoothing or site energy storage for the hall")


def _over(hall: Any, what: Q) -> tuple[str, str]:
    """`what` over the distribution's efficiency, in the team's and the customer's words ("" where none is stated)."""
    eff = hall.feeds.distribution_efficiency
    if eff is None:
        return "", ""
    at = f"{kw(ups_output(what, hall))} over the distribution's efficiency {float(eff):g} below the UPS"
    return f", {at} (`feeds.distribution_efficiency`)", f", {at}"


def _margin(hall: Any, bound: Q, limit: Q) -> tuple[str, str]:
    """The margin within `limit` the losses no spec states must fit in, in the team's and the customer's words."""
    eff = hall.feeds.distribution_efficiency
    margin = (limit - bound).to("kW")
    share = float((margin / limit).to("").magnitude) * 100
    by = f" by {margin.m:,.1f} kW ({share:.1f} %)"
    where = "the rack feeds" if eff is None else "that distribution"
    losses = f"the losses above {where} (a UPS's conversion, the transformers'"
    return (f"{by}; {losses}" + (", busway and panels: `feeds.distribution_efficiency`" if eff is None else "")
            + ") are stated nowhere and add to the step the supply sees, so they must fit in that margin",
            f"{by}; {losses}" + (", busway and panels" if eff is None else "")
            + ") are stated nowhere and add to the step the supply sees, so they must fit in that margin")


def step_within(path: str, c: Any, it_power: Q, limit: Q, parts: PartsSwing | None = None) -> Violation:
    """PWR022 on `feeds.load_step_limit`: the largest step the specs bound, against it.

    The step is the larger of a training step's swing and a job's start or stop (the whole IT power, unless both
    ramps are stated, the hall's or every part's, each way the slower where both are: `load_ramps`), each over
    `feeds.distribution_efficiency` where stated (`ups_output`). The swing is the smaller of the IT power x (1 -
    `power_smoothing.floor`) and the parts' own bound (`parts.depth`: each system and switch no lower than its
    `power.idle` or `power.smoothing.floor` x its maximum, nu81fix), the one that is smaller governing and said;
    neither stated, at most the whole IT power. A swing stated above the limit: an error. The bound within: an info
    finding with the margin the unstated UPS and transformer losses must fit in. Above it on the whole IT power: a
    warning, not provided (not "not met"): the draw the load falls to is stated nowhere.
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    sm = hall.feeds.power_smoothing
    floor = sm.floor if sm is not None else None
    own = parts.depth if parts is not None else None
    ramps = load_ramps(sm, parts)   # each way the slower of the hall's and the parts' summed
    ramped = ramps is not None
    stated = f"facility '{hall.id}''s `feeds.load_step_limit` {kw(limit)}"
    words = f"the {kw(limit)} load step facility '{hall.id}''s supply accepts"
    whole, whole_w = _over(hall, it_power)
    if sm is None and own is None and not ramped:   # nothing states a smoothing: the step is at most the IT power
        step = ups_output(it_power, hall).to("kW")
        text = f"a job's start or stop steps the load by at most the cluster's IT power {kw(it_power)}"
        if step <= limit:
            margin, margin_w = _margin(hall, step, limit)
            return Violation(path, cid, ("facility",), f"{text}{whole}, within {stated}{margin}; {UNSMOOTHED}",
                             step, limit.to("kW"), severity="info",
                             public=f"{text}{whole_w}, within {words}{margin_w}; {UNSMOOTHED_WORDS}")
        return Violation(path, cid, ("facility",), f"not provided: {text}{whole}, above {stated}; the step is that "
                         "draw less what the load falls to, which no spec states (`power.idle`; no "
                         f"`feeds.power_smoothing` floor), so whether it exceeds the limit is not known; {UNSMOOTHED}",
                         step, limit.to("kW"), severity="warning",
                         public=f"not provided: {text}{whole_w}, above {words}; the step is that draw less what the "
                         "load falls to, which the design does not state (the parts' idle power, a power smoothing "
                         f"floor), so whether it exceeds the limit is not known; {UNSMOOTHED_WORDS}")
    depth, (swing, swing_w) = swing_depth(it_power, floor, own)
    deep, deep_w = _over(hall, depth) if depth is not None else ("", "")
    source = ramp_source(ramps)
    ends, ends_w = ("a job's start or stop ramps at " + ramps if ramped else
                    f"a job's start or stop steps the load by up to the IT power {kw(it_power)}{w} (the smoothing "
                    f"states no {ramps})" for ramps, w in ((source[0] if ramped else "`ramp_up` and `ramp_down`",
                                                            whole),
                                                           (source[1] if ramped else "ramp-up and ramp-down rates",
                                                            whole_w)))
    if depth is not None and (at := ups_output(depth, hall).to("kW")) > limit:
        return Violation(path, cid, ("facility",), f"{swing}{deep}, above {stated}; {ends}", at, limit.to("kW"),
                         severity="error", public=f"{swing_w}{deep_w}, above {words}; {ends_w}")
    bound = ups_output(depth if depth is not None and ramped else it_power, hall).to("kW")
    if bound <= limit:
        margin, margin_w = _margin(hall, bound, limit)
        return Violation(path, cid, ("facility",), f"{swing}{deep}; {ends}: within {stated}{margin}", bound,
                         limit.to("kW"), severity="info",
                         public=f"{swing_w}{deep_w}; {ends_w}: within {words}{margin_w}")
    return Violation(path, cid, ("facility",), f"not provided: {swing}{deep}; {ends}: a step of up to {kw(bound)}, "
                     f"above {stated}, whose size rests on the draw the load falls to, which no spec states",
                     bound, limit.to("kW"), severity="warning", public=f"not provided: {swing_w}{deep_w}; {ends_w}: a "
                     f"step of up to {kw(bound)}, above {words}, whose size rests on the draw the load falls to, "
                     "which the design does not state")


def ramp_source(ramps: LoadRamps | None) -> tuple[str, str]:
    """Whose ramps a job's start or stop ramps at (`LoadRamps`), in the team's and the customer's words."""
    hall, parts = ((False, False) if ramps is None else (not ramps.by_parts(0) or not ramps.by_parts(1),
                                                         ramps.by_parts(0) or ramps.by_parts(1)))
    if hall and parts:
        return ("the slower each way of the smoothing's `ramp_up` and `ramp_down` and the parts' summed "
                "`power.smoothing` ramps", "the slower each way of the smoothing's and the parts' summed ramp-up "
                "and ramp-down rates")
    if parts:
        return ("the parts' stated `power.smoothing` `ramp_up` and `ramp_down`"
                + (" (slower than the smoothing's)" if ramps is not None and ramps.hall is not None else ""),
                "the parts' stated ramp-up and ramp-down rates"
                + (" (slower than the smoothing's)" if ramps is not None and ramps.hall is not None else ""))
    return "the smoothing's `ramp_up` and `ramp_down`", "the smoothing's ramp-up and ramp-down rates"


def swing_depth(it_power: Q, floor: float | None, own: Q | None) -> tuple[Q | None, tuple[str, str]]:
    """A training step's swing bound and its words (the team's, the customer's): the hall's floor's or the parts'.

    Both stated, each bounds the same swing, so the smaller governs and the finding says which (nu81fix).
    """
    hall = it_power * (1 - float(floor)) if floor is not None else None
    if hall is None and own is None:
        return None, ("a training step's swing is not provided (`feeds.power_smoothing` states no `floor`), so at "
                      "most the whole IT power", "a training step's swing is not provided (the power smoothing "
                      "states no floor), so at most the whole IT power")
    if own is None or (hall is not None and hall <= own):
        assert hall is not None and floor is not None
        gov = "" if own is None else f"; the parts' own bound, {kw(own)}, is larger, so the hall's floor governs"
        text = (f"a training step's swing is at most the IT power {kw(it_power)} x (1 - the smoothing's floor "
                f"{floor:g}) = {kw(hall)}{gov}")
        return hall, (text, text)
    gov = "" if hall is None else f"; the hall's floor's bound, {kw(hall)}, is larger, so the parts' governs"
    head = f"a training step's swing is at most {kw(own)}, each system and switch drawing no less than its stated "
    return own, (f"{head}`power.idle` or `power.smoothing.floor` x its maximum (with the shelves' loss){gov}",
                 f"{head}idle power or power-smoothing floor (with the power shelves' loss){gov}")


def step_unknown(path: str, c: Any, limit: Q) -> Violation:
    """PWR022 where the hall states `feeds.load_step_limit` but not the cluster's IT power, the step's bound.

    A warning, not provided, as above the limit: the racks' own IT power (`hall_load.it_floor`) is a floor under the IT
    power, not a bound on the step (the draw the load falls to is stated nowhere), so the finding gives it as context
    only. Before (review36), such a cluster got no PWR022 finding at all: the stated limit went unjudged unsaid.
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    floor, why = it_floor(c)
    why = why or f"{cid}'s IT power is not provided"
    racks = (f"; the racks' own IT power, {kw(floor)}, is a floor under the IT power, not a bound on the step, "
             "whose draw the load falls to no spec states" if floor is not None else "")
    text = ("not provided: a job's start or stop steps the load by at most the cluster's IT power, which is not "
            f"provided ({why}){racks}, so whether the step is within ")
    return Violation(path, cid, ("facility",), f"{text}facility '{hall.id}''s `feeds.load_step_limit` {kw(limit)} is "
                     f"not known; {UNSMOOTHED}", None, limit.to("kW"), severity="warning",
                     public=f"{text}the {kw(limit)} load step facility '{hall.id}''s supply accepts is not known; "
                     f"{UNSMOOTHED_WORDS}")


def ramp_within(path: str, c: Any, limit: Q, parts: PartsSwing | None = None) -> Violation:
    """PWR022 on `feeds.ramp_rate_limit`: the smoothing's faster ramp, over the distribution's efficiency, against it.

    Both ramps stated: the faster above the limit an error, within it an info finding. The hall stating neither, the
    parts' summed ramps stand in where every system and switch states both (`PartsSwing`, nu81fix); both stated,
    each way the slower governs (`load_ramps`), and the finding names the faster one set aside. Else a warning,
    not provided: a job's start or stop is then a step, its rate not bounded by any spec. The ramps are the IT load's
    (the GPUs' rates x their count); the supply's ramp is at most that over `feeds.distribution_efficiency`.
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    sm, eff = hall.feeds.power_smoothing, hall.feeds.distribution_efficiency
    stated = f"facility '{hall.id}''s `feeds.ramp_rate_limit` {limit.to('kW/s').m:,.1f} kW/s"
    accepts = f"the {limit.to('kW/s').m:,.1f} kW/s ramp facility '{hall.id}''s supply accepts"
    ramps = load_ramps(sm, parts)
    if ramps is None:
        rest = ", so a job's start or stop is a step of up to the whole IT power, its rate bounded by no spec"
        return Violation(path, cid, ("facility",), f"not provided: the load's ramp against {stated}: "
                         f"`feeds.power_smoothing` states no `ramp_up` and `ramp_down`{rest}", None, limit.to("kW/s"),
                         severity="warning", public=f"not provided: the load's ramp against {accepts}: the power "
                         f"smoothing states no ramp-up and ramp-down rates{rest}")
    end = 0 if ramps.up.m_as("kW/s") >= ramps.down.m_as("kW/s") else 1
    whose, said_whose = (("the parts' summed `power.smoothing`", "the parts' summed") if ramps.by_parts(end) else
                         ("the smoothing's", "the smoothing's"))
    fast, which = (ramps.up, "ramp_up") if end == 0 else (ramps.down, "ramp_down")
    at = fast.to("kW/s") if eff is None else (fast / float(eff)).to("kW/s")
    rest = f" {fast.to('kW/s').m:,.1f} kW/s, the faster of its ramps" + (
        "" if eff is None else f", {at.m:,.1f} kW/s over the distribution's efficiency {float(eff):g}")
    gov, gov_said = ramps.words(end)
    words, said = f"{whose} `{which}`{rest}", f"{said_whose} {which.replace('_', '-')} rate{rest}"
    if at.m_as("kW/s") <= limit.m_as("kW/s"):
        return Violation(path, cid, ("facility",), f"{words}, within {stated}{gov}", at, limit.to("kW/s"),
                         severity="info", public=f"{said}, within {accepts}{gov_said}")
    return Violation(path, cid, ("facility",), f"{words}, above {stated}{gov}", at, limit.to("kW/s"),
                     severity="error", public=f"{said}, above {accepts}{gov_said}")


def _bound(hall: Any, it_power: Q | None, parts: PartsSwing | None = None) -> Q | None:
    """A cluster's step bound as `step_within` takes it, over the distribution's efficiency; None: IT power unknown.

    The swing (`swing_depth`: the hall's floor's or the parts' bound, the smaller) where ramps are stated (the hall's
    or the parts', `load_ramps`), else the whole IT power: with no smoothing in the hall, the parts' (power30: before,
    only the hall's smoothing counted here, so a hall's clusters summed took their whole IT power).
    """
    if it_power is None:
        return None
    sm = hall.feeds.power_smoothing
    depth = swing_depth(it_power, sm.floor if sm is not None else None, parts.depth if parts is not None else None)[0]
    ramped = load_ramps(sm, parts) is not None
    return ups_output(depth if depth is not None and ramped else it_power, hall).to("kW")


def hall_step(clusters: dict[str, Any], path: str, c: Any, specs: Any) -> Violation | None:
    """PWR022 on `feeds.load_step_limit` for the clusters counted with `path`'s in its hall (`hall_groups.fellows`).

    Other clusters' halls naming the hall count too (`halls_with`), each at most its racks' draw and all its
    cluster's load outside racks (review45: before, left out, so a cluster beside one was judged alone).

    `step_within` judges each cluster's step alone; the hall's supply sees their sum where their jobs start, stop or
    swing together (a fault or restart common to them: a site power event, a shared storage or fabric outage).
    Whether they coincide no spec states, so where the sum of their bounds (`_bound`) exceeds the limit the finding is
    not provided: a warning where the hall lists them as `deployed`, else info (they may be alternatives). Each
    bound takes the hall's smoothing and the parts' as `step_within` does (`_bound`, from the design's `specs`). A peer
    whose IT power is not provided is named and left out of the sum (its own PWR022 says so). None where the cluster
    has no peers, the hall states no limit, or the sum fits (review39: before, the sum was never judged).
    """
    hall = c.cluster.facility
    limit, peers = hall.feeds.load_step_limit, {p: o for p, o in fellows(clusters, path).items() if p != path}
    halls = halls_with(clusters, path)
    if limit is None or not peers and not halls:
        return None
    own = _bound(hall, c.metrics.get("it_power"), parts_swing(specs, c))
    if own is None:
        return None
    bounds = {f"'{o.cluster.spec.id}'": _bound(hall, o.metrics.get("it_power"), parts_swing(specs, o))
              for o in peers.values()}
    for o, j in halls:   # another cluster's hall: at most its racks' draw and all its cluster's load outside racks
        draw, rest = o.metrics.get(f"hall_power.{o.cluster.spec.floor.halls[j].id}"), unsplit_rest(o)
        bounds[f"'{o.cluster.spec.id}' hall '{o.cluster.spec.floor.halls[j].id}'"] = None if draw is None or \
            rest is None else _bound(hall, draw + rest, parts_swing(specs, o))
    total = sum((q for q in bounds.values() if q is not None), own).to("kW")
    if total <= limit:
        return None
    named = ", ".join(f"{cid} {kw(q)}" if q is not None else f"{cid} not provided" for cid, q in bounds.items())
    head = (f"not provided: with the clusters counted with it in facility '{hall.id}' (this one {kw(own)}, {named}) "
            f"the hall's load steps by up to {kw(total)} if their jobs start or stop together (a fault or restart "
            "common to them), above ")
    tail = (f" by {kw(total - limit)}; each cluster's step is judged alone, and whether theirs coincide no spec "
            "states")
    advice = "" if hall.deployed is not None else (" (alternatives for one hall: check each in a run of its own; "
                                                   "clusters deployed together: list them in the hall's `deployed`)")
    return Violation(path, c.cluster.spec.id, ("facility",),
                     f"{head}facility '{hall.id}''s `feeds.load_step_limit` {kw(limit)}{tail}{advice}", total,
                     limit.to("kW"), severity="warning" if hall.deployed is not None else "info",
                     public=f"{head}the {kw(limit)} load step the hall's supply accepts{tail}")


def swing_judged(path: str, c: Any, it_power: Q | None, parts: PartsSwing | None = None) -> Iterator[Violation]:
    """PWR022's findings on each limit the hall states (`step_within`, `step_unknown`, `ramp_within`).

    `parts`: what the cluster's own systems and switches state of the swing (`job_swing.parts_swing`).
    """
    feeds = c.cluster.facility.feeds
    if feeds.load_step_limit is not None:
        yield step_within(path, c, it_power, feeds.load_step_limit, parts) if it_power is not None else \
            step_unknown(path, c, feeds.load_step_limit)
    if feeds.ramp_rate_limit is not None:
        yield ramp_within(path, c, feeds.ramp_rate_limit, parts)
