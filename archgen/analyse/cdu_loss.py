"""One CDU of a rack's group lost: the capacity and flow the others are left with (COOL020, the rack document).

A group of `cdu_count` CDUs carries `racks_per_cdu` racks' liquid heat (`CoolingSplit.cdu_load`) and secondary flow
(`cdu_flow_needed`). With one unit out (a failure, or one taken out for maintenance) the rest carry it all: each
takes load / left and flow / left, against its capacity at the hall's conditions (`cdu_capacity`) and its rated
`flow`. COOL001 and COOL002 already hold a claimed redundancy's spares back (N+1: the same one-unit loss), so the
check judges only groups that hold none (N); the rack document gives the case for every group.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.analyse.rack import RackAnalysis
from archgen.units import Q


@dataclass(frozen=True)
class CduLoss:
    """A CDU group with one unit lost: `left` of `count` units, their `capacity` together, and what each carries.

    `each_heat` and `each_flow` are None where none is left; `unit_flow` is one CDU's rated secondary flow (None
    where it states none). `short` lists what the units left cannot carry ('' items none).
    """

    count: int
    redundancy: str
    left: int
    capacity: Q
    load: Q
    flow_needed: Q
    unit_flow: Q | None

    @property
    def each_heat(self) -> Q | None:
        """The liquid heat each CDU left carries."""
        return (self.load / self.left).to("kW") if self.left else None

    @property
    def each_flow(self) -> Q | None:
        """The secondary coolant flow each CDU left delivers."""
        return (self.flow_needed / self.left).to("L/min") if self.left else None

    @property
    def short(self) -> tuple[str, ...]:
        """'capacity', 'flow': what the units left fall short of (the flow only where the CDU states one)."""
        out = []
        if self.load > self.capacity:
            out.append("capacity")
        if self.unit_flow is not None and self.each_flow is not None and self.each_flow > self.unit_flow:
            out.append("flow")
        return tuple(out)


def cdu_loss(a: RackAnalysis) -> CduLoss | None:
    """The rack's CDU group with one unit lost; None where it has no CDU group or no liquid heat."""
    stage, c = a.cooling.cdu, a.cooling
    if stage is None or a.rack.cdu is None or c.cdu_load.magnitude <= 0:
        return None
    unit_flow = a.rack.cdu.flow.to("L/min") if a.rack.cdu.flow is not None else None
    return CduLoss(stage.count, stage.redundancy, stage.count - 1, stage.after_one_loss.to("kW"), c.cdu_load.to("kW"),
                   c.cdu_flow_needed.to("L/min"), unit_flow)
