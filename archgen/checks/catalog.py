"""CAT: consistency of catalog data."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.model import Switch, System

#: How far a published heat output may exceed the maximum draw before it is flagged.
HEAT_TOLERANCE = 1.05


@check("CAT001", "catalog.heat_vs_power", severity="warning")
def heat_vs_power(ctx: Context) -> Iterator[Violation]:
    """A part's rated heat output is not far above its maximum power draw (energy is conserved).

    Fix: check the datasheet; if it really publishes both figures, keep them and waive with the reason.
    """
    specs = ctx.design.specs
    for part in specs.of(System) + specs.of(Switch):
        heat = part.power.heat_output
        if heat is not None and heat > part.power.max * HEAT_TOLERANCE:
            yield Violation(f"part/{part.id}", part.id, ("power", "heat_output"),
                            f"rated heat output {heat.to('kW'):.2f~P} ({heat:~P}) exceeds maximum draw "
                            f"{part.power.max.to('kW'):~P} by {float(heat / part.power.max) - 1:.0%}",
                            heat, part.power.max)


@check("CAT002", "catalog.accelerator_count")
def accelerator_count(ctx: Context) -> Iterator[Violation]:
    """A system that names an accelerator fits at least one, and one that fits some names which.

    Fix: set both `accelerator` and `accelerators`, or neither.
    """
    for part in ctx.design.specs.of(System):
        if bool(part.accelerator) != bool(part.accelerators):
            yield Violation(f"part/{part.id}", part.id, ("accelerators",),
                            f"accelerator '{part.accelerator or ''}' with count {part.accelerators}")


@check("CAT003", "catalog.cooling_type")
def cooling_type(ctx: Context) -> Iterator[Violation]:
    """A part's cooling type agrees with its liquid fraction (air: 0; liquid: above 0; hybrid: between 0 and 1).

    Fix: set `cooling.type` and `cooling.liquid_fraction` consistently.
    """
    specs = ctx.design.specs
    for part in specs.of(System) + specs.of(Switch):
        c = part.cooling
        ok = {"air": c.liquid_fraction == 0, "liquid": c.liquid_fraction > 0,
              "hybrid": 0 < c.liquid_fraction < 1}[c.type]
        if not ok:
            yield Violation(f"part/{part.id}", part.id, ("cooling",),
                            f"cooling type '{c.type}' with liquid_fraction {c.liquid_fraction:g}")
