"""A training job's load swing depth (`job_power_swing`): how far its draw can fall from a compute phase.

Synchronous training swings every GPU of a job between a compute-heavy and a communication-heavy phase each step
("Power Stabilization for AI Training Datacenters", Choukse et al., Microsoft, OpenAI and NVIDIA, arXiv:2508.14318,
abstract: "compute-heavy phases require much more power than communication phases"). The draw it swings from is at
most the job's share of the cluster's maximum IT power (`perf.workload.derived.job_share`, as `job_it_energy`
takes it); the draw it falls to no spec states as such (no part states its draw in a communication phase). Two
stated figures bound it from below, each giving an upper bound on the swing, and the smaller is taken:

- the hall's `feeds.power_smoothing.floor` (GB300 NVL72's power floor through NVML, or site energy storage;
  `model.smoothing`) holds the load at or above floor x the IT power while a job runs: the swing is at most the
  share x (1 - floor), the rule PWR022 judges the whole cluster's step with;
- each system's and switch's own lower bound while it runs (`low_draw`): its `power.idle` (its draw powered on with
  no job running: a part in a communication phase is powered on and running, so it draws at least that) or its
  `power.smoothing.floor` x its maximum draw (a GB300 NVL72 compute tray's own smoothing, nu81fix; a power shelf
  states none), the higher where both are stated. The swing is at most the share of the sum of (maximum - that)
  draw, with the power shelves' loss on that difference (`conversion.shelf_loss` at each draw). The optics' draw is
  taken not to swing (a transceiver's lasers and DSP stay on through both phases; no spec states their draw per
  phase). Only where every system and switch states one: no catalog part does today.

Hall and parts both stated: each is an upper bound on the same swing, so the smaller governs,
never a blend of the two. So for the ramps (`load_ramps`): each way the slower of the hall's and the parts' summed
governs, a load ramping no faster than its parts allow nor than the hall's smoothing lets through (review44).

Neither stated, the depth is not provided, with why, never a default floor or idle share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from archgen.analyse.conversion import shelf_loss
from archgen.analyse.cost_load import stated_lines
from archgen.display import kw
from archgen.model import Switch, System
from archgen.model.system import idle_draw, max_draw
from archgen.perf.workload.derived import job_share
from archgen.units import Q_, Q

#: Parts named at most in a finding that lists the systems and switches stating no `power.idle`.
NAMED = 4


def low_draw(part: Any) -> Q | None:
    """The least a running system or switch draws by its own spec; None where it states neither bound.

    The higher of its `power.idle` and its `power.smoothing.floor` x its maximum draw, whichever it states.
    """
    idle = idle_draw(part)
    sm = part.power.smoothing
    floored = max_draw(part) * float(sm.floor) if sm is not None and sm.floor is not None else None
    lows = [q for q in (idle, floored) if q is not None]
    return max(lows, key=lambda q: q.m_as("W")) if lows else None


def idle_swing(specs: Any, a: Any) -> tuple[Q | None, list[str]]:
    """The cluster's (maximum - `low_draw`) draw at the rack feeds, and the parts stating neither (then None)."""
    total, missing = Q_(0, "kW"), set()
    for line, part in stated_lines(specs, a):
        if isinstance(part, System | Switch):
            low = low_draw(part)
            if low is None:
                missing.add(part.id)
            else:
                total = total + (max_draw(part) - low) * line.quantity
    if missing:
        return None, sorted(missing)
    loss = shelf_loss(a) - shelf_loss(a, _low)   # the optics' loss, the same at both draws, cancels
    return (total + loss).to("kW"), []


def _low(part: Any) -> Q:
    """A part's `low_draw`, else its maximum (a part stating neither adds no swing to the shelves' loss)."""
    low = low_draw(part)
    return max_draw(part) if low is None else low


@dataclass(frozen=True)
class PartsSwing:
    """What a cluster's own parts state of its swing, at the rack feeds (PWR022 where the hall states none).

    `depth`: the (maximum - `low_draw`) draw with the shelves' loss (`idle_swing`), None unless every system and
    switch states a bound. `up`, `down`: the sum of every system's and switch's `power.smoothing` ramps x its count,
    with the shelves' loss at that rate, None unless every one states both.
    """

    depth: Q | None
    up: Q | None
    down: Q | None


def stated_ramps(sm: Any) -> tuple[Q, Q] | None:
    """A smoothing's (`ramp_up`, `ramp_down`), None unless it states both.

    A part's `power.smoothing` or a hall's `feeds.power_smoothing`.
    """
    return None if sm is None or sm.ramp_up is None or sm.ramp_down is None else (sm.ramp_up, sm.ramp_down)


def part_ramps(part: Any) -> tuple[Q, Q] | None:
    """A part's stated `power.smoothing` (`ramp_up`, `ramp_down`), None unless it states both."""
    return stated_ramps(part.power.smoothing)


class LoadRamps(NamedTuple):
    """A load's ramps, each the slower of the hall's and the parts' where both state it (`load_ramps`).

    `hall`, `parts`: the hall's smoothing's (`ramp_up`, `ramp_down`) and the parts' summed, None where not stated.
    """

    up: Q
    down: Q
    hall: tuple[Q, Q] | None
    parts: tuple[Q, Q] | None

    def by_parts(self, end: int) -> bool:
        """Whether the parts' ramp governs at `end` (0: up, 1: down): the hall states none, or theirs is slower."""
        return self.hall is None or (self.parts is not None and self.parts[end] < self.hall[end])

    def words(self, end: int) -> tuple[str, str]:
        """Where both state a ramp at `end`, which is faster and so does not govern (team's, customer's words)."""
        if self.hall is None or self.parts is None:
            return "", ""
        parts = self.by_parts(end)
        faster = self.hall[end] if parts else self.parts[end]
        rate = f"{faster.to('kW/s').m:,.1f} kW/s"
        text = (f"; the smoothing's {rate} is faster, so the parts' governs" if parts else
                f"; the parts' summed {rate} is faster, so the smoothing's governs")
        return text, text


def load_ramps(sm: Any, parts: PartsSwing | None) -> LoadRamps | None:
    """The load's ramps (`LoadRamps`), None where neither the hall nor the parts state both.

    Each way the slower of the hall's smoothing `sm`'s and the parts' summed (`parts`, `PartsSwing`) where both are
    stated, else whichever is: each is an upper bound on the same rate, so the smaller governs (review44: the hall's
    replaced the parts' even where faster). PWR022, `job_power_swing` and the load swing row.
    """
    hall = stated_ramps(sm)
    own = (parts.up, parts.down) if parts is not None and parts.up is not None and parts.down is not None else None
    if hall is None and own is None:
        return None
    ends = [min((r[end] for r in (hall, own) if r is not None), key=lambda q: q.m_as("kW/s")) for end in (0, 1)]
    return LoadRamps(ends[0], ends[1], hall, own)


def parts_swing(specs: Any, a: Any) -> PartsSwing:
    """The cluster's swing depth and ramps as its systems and switches state them (`PartsSwing`)."""
    depth = idle_swing(specs, a)[0]
    parts = [(line.quantity, part_ramps(part)) for line, part in stated_lines(specs, a)
             if isinstance(part, System | Switch)]
    if not parts or any(r is None for _, r in parts):
        return PartsSwing(depth, None, None)
    second, none = Q_(1, "s"), shelf_loss(a, lambda p: Q_(0, "kW"))   # the optics' loss, no ramp of its own

    def at_feeds(end: int) -> Q:
        rate = sum((r[end] * n for n, r in parts if r is not None), Q_(0, "kW/s"))
        loss = shelf_loss(a, lambda p: r[end] * second if (r := part_ramps(p)) is not None else Q_(0, "kW")) - none
        return (rate + loss / second).to("kW/s")
    return PartsSwing(depth, at_feeds(0), at_feeds(1))


def job_swing(specs: Any, a: Any, accelerators: int) -> tuple[dict[str, Q], str]:
    """`job_power_swing` of a training job on cluster analysis `a` ({} where not provided) and why not ("" where it is).

    The smaller of the floor's and the idle draw's bound (module docstring), each the job's share (its
    `accelerators` over the cluster's).
    """
    it_power, facility = a.metrics.get("it_power"), a.cluster.facility
    if it_power is None:
        return {}, "the cluster's IT power, from which the job's share is taken, is not provided"
    bounds, share, missing = _bounds(specs, a, accelerators)
    if bounds:
        return {"job_power_swing": min(bounds.values(), key=lambda q: q.m_as("kW")).to("kW")}, ""
    hall = f"facility '{facility.id}'" if facility is not None else "the cluster's hall (it names none)"
    named = ", ".join(missing[:NAMED]) + (f" and {len(missing) - NAMED} more" if len(missing) > NAMED else "")
    return {}, (f"{hall} states no `feeds.power_smoothing.floor`, and {named} state no `power.idle` or "
                "`power.smoothing.floor` (no part states "
                "its draw in a communication phase), so what the job's draw falls to is not known; the swing is at "
                f"most its share of the IT power at maximum draw, {kw(share)}")


def _bounds(specs: Any, a: Any, accelerators: int) -> tuple[dict[str, Q], Q, list[str]]:
    """The hall's and the parts' bounds on the job's swing, by which states it; the job's share; the parts missing."""
    facility = a.cluster.facility
    share = job_share(a.metrics["it_power"], accelerators, a.accelerators).to("kW")
    bounds: dict[str, Q] = {}
    sm = facility.feeds.power_smoothing if facility is not None and facility.feeds is not None else None
    if sm is not None and sm.floor is not None:
        bounds["hall"] = share * (1 - float(sm.floor))
    above_low, missing = idle_swing(specs, a)
    if above_low is not None:
        bounds["parts"] = job_share(above_low, accelerators, a.accelerators)
    return bounds, share, missing
