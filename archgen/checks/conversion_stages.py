"""A rack's conversion stages against their load (the bodies of PWR001, PWR004 and PWR014).

Each power shelf group and PDU group within its usable capacity (PWR001) and with one unit lost where it claims
redundancy (PWR004); the shelves' DC busbar current within its rating (PWR014). `checks.power` holds each check, its
docstring and its registration; these give one rack's findings. Split from it for its size.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.power_chain import Stage
from archgen.analyse.rack import RackAnalysis
from archgen.checks.registry import Violation
from archgen.display import kw


def _key(stage: Stage) -> tuple[str, ...]:
    return ("power", stage.key)


def stage_overloads(path: str, a: RackAnalysis) -> Iterator[Violation]:
    """PWR001: each conversion stage whose load exceeds its usable capacity (its redundancy held back)."""
    for st in a.power.stages:
        if st.load > st.usable:
            yield Violation(path, a.rack.spec.id, _key(st),
                            f"load {kw(st.load)} exceeds usable {st.kind} capacity {kw(st.usable)} "
                            f"({st.redundancy} of {st.count} x {kw(st.unit_capacity)})", st.load, st.usable)


def stage_losses(path: str, a: RackAnalysis) -> Iterator[Violation]:
    """PWR004: each conversion stage claiming redundancy that cannot carry its load with one unit lost."""
    for st in a.power.stages:
        if st.redundancy != "N" and st.load > st.after_one_loss:
            yield Violation(path, a.rack.spec.id, _key(st),
                            f"with one of {st.count} {st.kind} lost, {kw(st.after_one_loss)} remain for "
                            f"{kw(st.load)}", st.load, st.after_one_loss)


def busbar_over(path: str, a: RackAnalysis) -> Iterator[Violation]:
    """PWR014: the shelves' busbar current (load / output voltage) above the busbar's stated rating."""
    shelves = a.rack.spec.power.shelves
    rating = shelves.busbar_rating if shelves is not None else None
    current = a.power.busbar_current
    if rating is not None and current is not None and current > rating:
        load = a.power.stages[0].load
        yield Violation(path, a.rack.spec.id, ("power", "shelves", "busbar_rating"),
                        f"busbar current {current.to('A'):,.0f~P} ({kw(load)} / {a.power.busbar_voltage:~P}) "
                        f"exceeds the busbar's rated {rating.to('A'):,.0f~P}", current.to("A"), rating.to("A"))
