"""The liquid loop's pressure: the CDU's available pump pressure against a rack's coolant pressure drop (COOL019).

Racks of a CDU group hang in parallel on its secondary header, so each rack's branch (its own pressure drop plus the
piping and hoses between it and the CDU) must be within the pressure the CDU's pumps leave at the group's flow. The
CDU states it at its rated flow (`CoolingUnit.pressure`): a centrifugal pump gives at least that head at a lower flow
(its curve falls as flow rises), so judging it at the rated flow is the safe side where the group needs less; where
the group needs more per CDU, the pumps leave less than stated and no shipped CDU publishes its curve, so the finding
and the document say so (COOL002 judges the flow itself).

The rack's drop is judged at its design flow, the flow the rack document gives (liquid heat / (ρ c_p ΔT)). A maker
states it at one flow (`cooling.liquid.pressure_drop_flow`); at another flow through the same geometry it scales as
(flow ratio)^n. n = 2 where the flow is turbulent: Darcy-Weisbach, Δp = f (L/D) ρ v²/2 at a fixed friction factor
(http://cheguide.com/2015/08/single-phase-fluid-flow-pressure-drop/), and the K-factor losses of fittings and quick
disconnects, h = K v²/2g, "for all minor losses in turbulent flow, the head loss varies as the square of the velocity"
(https://engineersedge.com/fluid_flow/minor_losses.htm, the DOE fluid-flow handbook's eq. 3-15). n = 1 where it is
laminar, as in a cold plate's microchannels: f = 64/Re below Re 2,100 (cheguide, above) makes Δp = 32 μ L v / D²,
proportional to the flow (Hagen-Poiseuille). A maker's curve lies between, and none is published for the shipped
trays, so `at_flow` gives both and COOL019 judges the larger. The piping's drop is the design's own figure at the
group's flow (`piping_pressure_drop`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from archgen.analyse.rack import RackAnalysis
from archgen.checks.registry import Context, Violation
from archgen.units import Q


def at_flow(drop: Q, stated: Q, flow: Q) -> tuple[Q, Q]:
    """`drop` stated at flow `stated`, at `flow` through the same geometry: (lower, upper) of ratio^1 and ratio^2.

    120 kPa at 80 L/min is 150–187.5 kPa at 100 L/min (ratio 1.25) and 30–60 kPa at 40 L/min (ratio 0.5).
    """
    r = float((flow / stated).to("").magnitude)
    a, b = (drop * r).to("kPa"), (drop * r * r).to("kPa")
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class LoopPressure:
    """A rack's branch pressure drop (its own, plus the piping where stated) and its CDU's available pressure.

    `rack` is the drop at the design flow `flow` (the upper of `at_flow`'s two where it is stated at another flow,
    `stated_at`; `stated` is then the drop as stated and `low` the lower end). `rated` is the CDU's rated flow,
    `per_cdu` the flow each working CDU of the group carries.
    """

    rack: Q | None       # cooling.liquid.pressure_drop, at the design flow
    piping: Q | None     # cooling.liquid.piping_pressure_drop
    available: Q | None  # the CDU's `pressure`
    flow: Q | None = None       # the rack's design coolant flow
    stated: Q | None = None     # the drop as stated, where at another flow
    stated_at: Q | None = None  # cooling.liquid.pressure_drop_flow
    low: Q | None = None        # the lower end of the scaled drop
    rated: Q | None = None      # the CDU's rated flow
    per_cdu: Q | None = None    # the group's flow through each working CDU

    @property
    def needed(self) -> Q | None:
        """The rack's drop plus the piping's where stated; None where the rack states none."""
        if self.rack is None:
            return None
        return (self.rack + self.piping).to("kPa") if self.piping is not None else self.rack.to("kPa")

    @property
    def beyond_rated(self) -> bool:
        """Each working CDU carries more than its rated flow: its pumps leave less than `available` (not stated)."""
        return self.rated is not None and self.per_cdu is not None and self.per_cdu > self.rated


def loop_pressure(a: RackAnalysis) -> LoopPressure | None:
    """The rack's loop pressure figures, or None where it has no liquid loop or its CDU did not resolve."""
    liquid, cdu = a.rack.spec.cooling.liquid, a.rack.cdu
    if liquid is None or cdu is None:
        return None
    flow, drop, stated, low = a.cooling.coolant_flow.to("L/min"), liquid.pressure_drop, None, None
    if drop is not None and liquid.pressure_drop_flow is not None:
        stated, (low, drop) = drop, at_flow(drop, liquid.pressure_drop_flow, flow)
    stage = a.cooling.cdu
    working = stage.count - stage.spare if stage is not None else 0
    per_cdu = (a.cooling.cdu_flow_needed / working).to("L/min") if working > 0 else None
    return LoopPressure(drop, liquid.piping_pressure_drop, cdu.pressure, flow, stated, liquid.pressure_drop_flow,
                        low, cdu.flow, per_cdu)


#: Where the rack's drop is taken as at its design flow: the internal words (the customer's name no key).
UNSCALED = "(no pressure_drop_flow states another)"


def _lpm(flow: Q) -> str:
    """A flow in whole litres per minute, as a spec writes it: '1950 L/min'."""
    return f"{flow.m_as('L/min'):.0f} L/min"


def conditions(lp: LoopPressure) -> tuple[str, str]:
    """The flows each side of COOL019 is taken at, in words: the rack's drop, and the CDU's pressure."""
    flow = _lpm(lp.flow) if lp.flow is not None else "(not worked out)"
    if lp.stated is not None and lp.stated_at is not None:
        at = (f"at its design flow {flow} (stated {lp.stated.to('kPa'):.0f~P} at {_lpm(lp.stated_at)}, scaled by "
              f"the flow ratio to the power 1 to 2, the larger taken)")
    else:
        at = f"read as at its design flow {flow} {UNSCALED}"
    rated = f"at its rated flow {_lpm(lp.rated)}" if lp.rated is not None else \
        "at its rated flow (not stated)"
    if lp.beyond_rated and lp.per_cdu is not None:
        rated += (f"; each CDU carries {_lpm(lp.per_cdu)}, beyond it, where its pumps leave less "
                  f"(no pump curve stated)")
    return at, rated


def short_pressure(ctx: Context) -> Iterator[Violation]:
    """COOL019's findings: each rack whose branch needs more pressure than its CDU leaves at its rated flow."""
    for path, a in ctx.racks.items():
        lp, cdu = loop_pressure(a), a.rack.cdu
        if lp is None or cdu is None or lp.rack is None or lp.needed is None or lp.available is None or \
                lp.needed <= lp.available:
            continue
        piping = (f" + piping {lp.piping.to('kPa'):.0f~P}" if lp.piping is not None else
                  " (the piping to it not stated, so not counted)")
        at, rated = conditions(lp)
        text = (f"coolant pressure drop {lp.rack.to('kPa'):.0f~P} across the rack{piping} exceeds the "
                f"{lp.available.to('kPa'):.0f~P} CDU {cdu.id} leaves {rated}; the rack's drop is {at}")
        yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "pressure_drop"), text, lp.needed,
                        lp.available.to("kPa"), public=text.replace(UNSCALED, "(no other flow is stated for it)"))
