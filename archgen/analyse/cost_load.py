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
from archgen.model import Document, Switch, System
from archgen.model.system import idle_draw, typical_draw
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
    draw; and the ids of the parts whose idle draw is so assumed.
    """
    total, assumed = Q_(0, "kW"), []
    draw = _idle_draw if idle else typical_draw   # a system's NICs too where its figure leaves them out
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


def _idle_draw(part: System | Switch) -> Q:
    """A part's idle draw where it states one, else its average (typical, else maximum) draw."""
    stated = idle_draw(part)
    return stated if stated is not None else typical_draw(part)
