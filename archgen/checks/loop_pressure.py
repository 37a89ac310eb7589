"""The liquid loop's pressure: the CDU's available pump pressure against a rack's coolant pressure drop (COOL019).

Racks of a CDU group hang in parallel on its secondary header, so each rack's branch (its own pressure drop plus the
piping and hoses between it and the CDU) must be within the pressure the CDU's pumps leave at the group's flow. The
CDU states it at its rated flow (`CoolingUnit.pressure`): a centrifugal pump gives at least that head at a lower flow,
so judging it at the rated flow is the safe side where the group needs less (COOL002 judges the flow itself). The
rack states its drop at its design flow (`cooling.liquid.pressure_drop`), the flow the rack document gives
(liquid heat / (ρ c_p ΔT)); the piping's is the design's own figure (`piping_pressure_drop`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from archgen.analyse.rack import RackAnalysis
from archgen.checks.registry import Context, Violation
from archgen.units import Q


@dataclass(frozen=True)
class LoopPressure:
    """A rack's branch pressure drop (its own, plus the piping where stated) and its CDU's available pressure."""

    rack: Q | None       # cooling.liquid.pressure_drop
    piping: Q | None     # cooling.liquid.piping_pressure_drop
    available: Q | None  # the CDU's `pressure`

    @property
    def needed(self) -> Q | None:
        """The rack's drop plus the piping's where stated; None where the rack states none."""
        if self.rack is None:
            return None
        return (self.rack + self.piping).to("kPa") if self.piping is not None else self.rack.to("kPa")


def loop_pressure(a: RackAnalysis) -> LoopPressure | None:
    """The rack's loop pressure figures, or None where it has no liquid loop or its CDU did not resolve."""
    liquid, cdu = a.rack.spec.cooling.liquid, a.rack.cdu
    if liquid is None or cdu is None:
        return None
    return LoopPressure(liquid.pressure_drop, liquid.piping_pressure_drop, cdu.pressure)


def short_pressure(ctx: Context) -> Iterator[Violation]:
    """COOL019's findings: each rack whose branch needs more pressure than its CDU leaves at its rated flow."""
    for path, a in ctx.racks.items():
        lp, cdu = loop_pressure(a), a.rack.cdu
        if lp is None or cdu is None or lp.rack is None or lp.needed is None or lp.available is None or \
                lp.needed <= lp.available:
            continue
        piping = (f" + piping {lp.piping.to('kPa'):.0f~P}" if lp.piping is not None else
                  " (the piping to it not stated, so not counted)")
        yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "pressure_drop"),
                        f"coolant pressure drop {lp.rack.to('kPa'):.0f~P} across the rack{piping} exceeds the "
                        f"{lp.available.to('kPa'):.0f~P} CDU {cdu.id} leaves at its rated flow",
                        lp.needed, lp.available.to("kPa"))
