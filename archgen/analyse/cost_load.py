"""The IT load a cluster's energy cost takes: its average draw, and its draw with no job running (idle).

Split from `analyse.cost` for its size (STYLE.md 12); `analyse_cost` prices their energy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, overload

from archgen.analyse.bom import optics_outside_systems
from archgen.analyse.bom_line import BomLine
from archgen.analyse.conversion import shelf_loss
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.storage_cost import storage_draw, storage_name
from archgen.model import Accelerator, Document, Switch, System
from archgen.model.system import idle_draw, max_draw, typical_draw
from archgen.units import Q_, Q
from archgen.validate import Specs


def stated_lines(specs: Specs, a: ClusterAnalysis) -> Iterator[tuple[BomLine, Document | None]]:
    """The cluster's BOM lines with their parts (None where not found), less those of a part the spec does not state.

    Those are left out of the capex and the average load alike (not provided: the open items say so).
    """
    for line in a.cabling.bom if a.cabling is not None else ():
        if line.provided:
            yield line, specs.get(line.part)


@overload
def average_load(specs: Specs, a: ClusterAnalysis) -> Q: ...
@overload
def average_load(specs: Specs, a: ClusterAnalysis, idle: Literal[True]) -> tuple[Q, list[str]]: ...


def average_load(specs: Specs, a: ClusterAnalysis, idle: bool = False) -> Q | tuple[Q, list[str]]:
    """Average IT load: typical (else maximum) draw of systems and switches, plus optics outside their figures.

    The optics are those `analyse.bom.optics_outside_systems` counts at typical draw, each module once; the power
    shelves' loss on both is added (`analyse.conversion.shelf_loss`), so the load is at the rack feeds like `it_power`.

    The checkpoint storage's typical (else maximum) draw is added where `storage.power` states it, and with `idle`
    its idle draw, else that average (assumed, as a part's).

    With `idle`, the load with no job running: each part's `power.idle` where it states one, else its average
    draw or, where less, the bound its accelerators' measured idle draw sets (`accelerator_idle_bound`); and the ids
    of the parts whose idle draw is so assumed (an upper bound either way).
    """
    total, assumed = Q_(0, "kW"), []
    draw = (lambda p: _idle_draw(specs, p)) if idle else typical_draw   # a system's NICs too where it leaves them out
    for line, part in stated_lines(specs, a):
        if isinstance(part, System | Switch):
            if idle and idle_draw(part) is None:
                assumed.append(part.id)
            total = total + draw(part) * line.quantity
    optics = optics_outside_systems(a, a.cabling.tiers, typical=True) if a.cabling is not None else Q_(0, "kW")
    total = (total + optics).to("kW")
    total = (total + shelf_loss(a, draw)).to("kW")  # at the feeds, as `it_power`
    stored = storage_draw(a, typical=True, idle=idle)   # the checkpoint storage's, where stated: no rack, no shelf
    storage = a.cluster.spec.storage
    if idle and storage is not None and storage.power is not None and storage.power.idle is None:
        assumed.append(storage_name(storage))
    total = (total + stored).to("kW")
    return (total, sorted(set(assumed))) if idle else total


def _idle_draw(specs: Specs, part: System | Switch) -> Q:
    """A part's idle draw where it states one, else `accelerator_idle_bound` where it has one, else its average."""
    stated = idle_draw(part)
    if stated is not None:
        return stated
    bound = accelerator_idle_bound(specs, part)
    return typical_draw(part) if bound is None else bound


def accelerator_idle_bound(specs: Specs, part: object) -> Q | None:
    """An upper bound on a system's idle draw from its accelerators' measured one (`Accelerator.idle`); else None.

    Its maximum draw less, for each accelerator, its `tdp` less the high end of its idle readings: the maximum holds
    the accelerators at their TDP and the host at its most, so with the accelerators idle and the host at its most
    the draw is at most that. Still an upper bound (the host's idle draw is not known). None where the system
    states its own `power.idle`, its accelerator states no idle reading or leaves `tdp` or `idle` unconfirmed (an
    overstated TDP would make the bound too low), the maximum does not cover the accelerators at their TDP, or the
    bound is no less than its average draw (which then stands in, as for any part).
    """
    if not isinstance(part, System) or part.power.idle is not None or part.accelerator is None:
        return None
    acc = specs.get(part.accelerator)
    if not isinstance(acc, Accelerator) or acc.idle is None or acc.is_unconfirmed("tdp") or acc.is_unconfirmed("idle"):
        return None
    most, at_tdp = max_draw(part), acc.tdp * part.accelerators
    if not most > at_tdp:
        return None
    bound = (most - part.accelerators * (acc.tdp - acc.idle[1])).to("kW")
    return bound if bound < typical_draw(part) else None
