"""A figure that rests on an input nobody gave: its other end, and why a requirement cannot be judged on it.

Moved out of `model.requirements` (size): `unsettled_note` judges the requirement at both ends of what the unknown
input allows, with `model.requirements.judge`.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TypeVar

from archgen.display import figure
from archgen.errors import InternalError
from archgen.model.requirements import Outcome, Requirement, Status, judge
from archgen.units import Q_, Q

#: A figure that rests on an input nobody gave, by metric: its value at the other end of what that input allows, and
#: why (`analyse.operations.Operations.unsettled`: goodput, spares and cost where an asynchronous checkpoint's blocking
#: time or a repair wait is unknown, `analyse.goodput_notes.unsettled`; a cost whose energy is at maximum draw,
#: `analyse.job_energy.energy_share_bounds`). None for the other end of an upper bound with no known lower end: an
#: energy at maximum draw, whose true value lies below it (`analyse.job_energy.upper_bounds`). Infinity for the other
#: end of a lower bound with no known upper end: a rack's weight and floor load that leave installed things out, whose
#: true value lies above it (`analyse.rack.weight_bounds`). A real other end of 0 (no spares where a failed node is
#: replaced at once) is a range's end like any other, not an upper bound.
Unsettled = Mapping[str, tuple[Q | None, str]]
#: Where an unsettled figure's reason says what each end is (`analyse.goodput_notes.REPAIR_ENDS`), these stand for
#: the figure's value and for the other end: `unsettled_note` writes each end's number there, so that the reason still
#: names the right end once the range reads low to high.
VALUE_END, OTHER_END = "{value}", "{other}"


def moved(point: Mapping[str, Q], other: Mapping[str, Q], why: str,
          held: Mapping[str, tuple[Q, str]] | None = None) -> dict[str, tuple[Q, str]]:
    """`held` and each figure of `point` that `other`, the estimate at the other end of an input nobody gave, moves.

    At its value there, with why (`Unsettled`): a TensorRT engine's launches (`perf.workload.estimate.launch_ends`),
    the host's time per operation (`perf.workload.training_estimate.host_ends`). Joined to `held` (`joined`;
    sweepends41: `launch_ends` replaced whatever the estimate held).
    """
    return joined(held or {}, {k: (q, why) for k, q in other.items() if k in point and q != point[k]}, point)


_End = TypeVar("_End")


def joined(held: Mapping[str, _End], ends: Mapping[str, _End],
           values: Mapping[str, Q] | None = None) -> dict[str, _End]:
    """`held` and `ends`, the other ends of figures over another input nobody gave, by metric (`Unsettled`).

    A figure `held` already has an end of keeps it, the new one beside it under `also_key`, and `unsettled_note`
    judges each against the value: where one lies above it and the other below, the two bound what the value could
    be, and a target met at one of them only is not provided, as for one end. The host's time (`run_figures.rate_ends`)
    gives a figure's dearest, slowest end; a checkpoint's blocking time, a repair wait or an energy at maximum draw its
    cheapest, fastest ones. A restore's read where the load is unsettled (`goodput_notes.RESTORE_ENDS`) is on the same
    side as the host's: where both ends lie on one side of the figure's value (in `values`), the new end is the corner
    of both, held x new / value (both scale the figure: goodput tokens/s is tokens/s x goodput, a time or cost per
    goodput token their inverse), with both reasons (review61: judged at each end alone, a target missed only at the
    corner read met). A third input's end (a job whose restore read, repair wait and blocking time all move its goodput,
    ends41) is the corner of it and the held end on its side; where both held lie on the other side, `also_key`'s the
    corner of both, it takes the place of the one that corner lies beyond. None is dropped.
    """
    out, at = dict(held), values or {}
    for k, end in ends.items():
        also = also_key(k)
        if k not in out:
            out[k] = end
        elif also not in out:
            out[also] = _corner(out[k], end, at.get(k))
        else:   # a third input's end (a restore's read, a repair wait, a blocking time): the corner on its side
            v = at.get(k)
            key = next((h for h in (also, k) if _corner(out[h], end, v) is not end), None)
            if key is not None:
                out[key] = _corner(out[key], end, v)
            elif _corner(out[k], out[also], v) is not out[also]:   # both on one side: `also`, their corner, outdoes k
                out[k] = end
            else:
                raise InternalError(f"{k} has ends over two other inputs already and a third that none bounds")
    return out


def _corner(held, new, value: Q | None):
    """`new`, or the corner of it and `held` where both ends lie on one side of `value` (`joined`)."""
    (h, h_why), (n, n_why) = held, new
    if value is None or h is None or n is None or not value.m or math.isinf(h.m) or math.isinf(n.m) \
            or (h.m - value.m) * (n.m - value.m) <= 0:
        return new
    return (h * n / value).to(value.units), both(n_why, h_why)


#: A reason that says what each end is (`VALUE_END`, `OTHER_END`): what it says first, each end's words, the rest.
_ENDS = re.compile(re.escape(VALUE_END) + r" (?P<a>.+?), " + re.escape(OTHER_END) + r" (?P<b>[^;]+)")


def both(new: str, held: str) -> str:
    """The reason of a corner of two inputs' other ends (`_corner`), naming each input once.

    Where both reasons say what each end is ("{value} with A, {other} with B; why"), the value's words and the other
    end's join: "{value} with A and with C, {other} with B and with D; why; why too". Else the held input follows the
    new one's words, in words, not numbers (a reason that names no end, an energy's share of a cost, is shown as it
    is: `render.performance`): "the other end is also taken with D, the value with C; why". Before (tail42), the
    held reason was quoted whole: "at this end the value with C, this end with D; why too".
    """
    n, h = _ENDS.search(new), _ENDS.search(held)
    if n is not None and h is not None:
        said = [t.strip().rstrip(":;,").strip() for m, text in ((n, new), (h, held))
                for t in (text[:m.start()], text[m.end():].lstrip("; "))]
        return (f"{VALUE_END} {n['a']} and {h['a']}, {OTHER_END} {n['b']} and {h['b']}"
                + "".join(f"; {t}" for t in said if t))
    if h is not None:
        before = held[:h.start()].strip().rstrip(":;,").strip()   # what a reason says before its ends (the host's)
        return (f"{new}; the other end is also taken {h['b']}, the value {h['a']}{held[h.end():]}"
                + (f"; {before}" if before else ""))
    plain = held.replace(VALUE_END, "the value").replace(OTHER_END, "the other end")
    return f"{new}; the other end is also taken at the other end of this: {plain}"


#: How a figure's other end over a second unknown input is keyed in `Unsettled` after its name (`also_key`).
ALSO = " (another input)"


def also_key(metric: str) -> str:
    """The key of a metric's other end over a second input nobody gave, beside its own entry (`moved`)."""
    return metric + ALSO


#: How a metric's lower bound is keyed in `Unsettled` after its name (`lower_key`).
LOWER_BOUND = " (lower bound)"


def lower_key(metric: str) -> str:
    """The key of a metric's lower bound in `Unsettled` beside its own entry (a capex leaving parts out, cost31)."""
    return metric + LOWER_BOUND


def lower_bounded(unsettled: Unsettled) -> dict[str, str]:
    """The metrics `unsettled` (one object's) holds a lower bound of (`lower_key`), each with why."""
    return {k.removesuffix(LOWER_BOUND): why for k, (_, why) in unsettled.items() if k.endswith(LOWER_BOUND)}


def at_lower_bound(o: Outcome, unsettled: Unsettled | None) -> Outcome:
    """`o`, met on a figure that is a lower bound (`lower_key`: a cost whose capex leaves counted parts out), at risk.

    The figure's other end is unbounded above, as a band's end that misses the target (REQ004; a cost per token whose
    high end is unbounded where goodput's low end is 0 reads so too): met at the value and not at infinity, it is at
    risk, the note saying what is left out and the headroom it must stay under (cost31). One not met, not provided or
    already at risk is left as it is.
    """
    entry = (unsettled or {}).get(lower_key(o.requirement.metric))
    if o.status is not Status.MET or o.value is None or entry is None or met_above(o.requirement):
        return o
    note = _note(o.requirement, o.value, *entry)
    return o if note is None else replace(o, status=Status.AT_RISK, note=note)


def met_above(requirement: Requirement) -> bool:
    """Whether a lower bound with no known upper end meets `requirement` however far above it the figure lies.

    Judged at infinity: `>= X` is met there, `<= X` is not, so a value that meets it is at risk (`at_lower_bound`,
    the one rule: a sweep, which holds statuses and not outcomes, asks it too, `perf.explore.points.on_lower_bound`).
    """
    return judge(requirement, Q_(math.inf, requirement.target.limit.units)).met is True


def unsettled_note(requirement: Requirement, value: Q, unsettled: Unsettled | None) -> str | None:
    """Why a requirement cannot be judged on `value`: its metric may as well be another value that judges otherwise.

    `value` is one end of what an unknown input allows and `unsettled` gives the other end by metric, None for an
    upper bound (judged at 0 too, the least an energy can be): met at both, or at neither, the requirement is judged;
    met at one only, it is not provided (this note says why), never a "met" or "not met" that rests on the assumption.
    None where it can be judged. The note calls the figure an upper bound only where it is one (the other end None);
    a range with two known ends, one of them 0 or not, "lies between" them, low to high whatever end `value` is; a
    reason that says what each end is names them by number (`VALUE_END`, `OTHER_END`).
    """
    u = unsettled or {}
    for key in (requirement.metric, also_key(requirement.metric)):   # a second unknown input's end too (`moved`)
        note = _note(requirement, value, *u[key]) if key in u else None
        if note is not None:
            return note
    return None


def _note(requirement: Requirement, value: Q, other: Q | None, why: str) -> str | None:
    """`unsettled_note` on one entry: the figure's other end (`other`) and why it is unsettled."""
    met = judge(requirement, value).met
    per = f"/{requirement.target.per}" if requirement.target.per else ""   # a cost per hour's: '1.632 USD/h'
    if met is judge(requirement, other if other is not None else value * 0).met:
        return None
    if other is None:   # an upper bound with no known lower end: an energy at maximum draw (`analyse.job_energy`)
        there = "met there, but the figure may lie below the target" if met else "not met there"
        return (f"{requirement.metric} is at most {figure(requirement.target.in_units(value))}{per}, an upper bound, "
                f"and the target {requirement.target} is {there}: {why}")
    shown = [requirement.target.in_units(q) for q in (value, other)]
    if math.isinf(other.m):   # a lower bound with no known upper end: a rack's weight leaving parts out
        room = requirement.target.headroom(value) if met and requirement.target.op in ("<=", "<") else None
        if room is not None and requirement.slack is not None:   # met within its tolerance: room up to its end
            room = room + requirement.slack
        there = ("met there but may not be with what it leaves out" + (
            f", which must add under {figure(room)}{per} for it to hold" if room is not None else "")) if met else \
            "not met there but may be with what it leaves out"
        return (f"{requirement.metric} is at least {figure(shown[0])}{per}, a lower bound, and the target "
                f"{requirement.target} is {there}: {why}")
    low, high = sorted(shown, key=lambda q: q.m)   # "between 18 and 0" read as a range the wrong way round
    why = why.replace(VALUE_END, figure(shown[0]) + per).replace(OTHER_END, figure(shown[1]) + per)
    return (f"{requirement.metric} lies between {figure(low)}{per} and {figure(high)}{per} and the target "
            f"{requirement.target} is met at one end only: {why}")

