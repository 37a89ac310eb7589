"""PWR019: the hall's UPS autonomy bridges the generator sets' start and transfer after a utility loss.

On a utility loss the UPS carries the critical load from its batteries while the generator sets start, reach stable
voltage and frequency, and the transfer switch moves the UPS input onto them; the batteries must last that long.
Sources for the rule and the typical figures (quoted in messages as context, never used as a value):

- NFPA 110 classes an emergency power supply system by "type", the most seconds the transfer switch's load terminals
  may be without acceptable power: Type 10 is 10 s (NFPA 110 Table 4.1(b), as summarised in "Standby Power: Behind
  the 10-Second Start", Engineered Systems, https://esmagazine.com/articles/97077-standby-power-behind-the-10-second-start).
- "A standby generator will start-up and be up to full power within 1-2 minutes. Most UPS systems are installed with
  10-30 minute battery sets to cover any delay in generator start-up" (Server Room Environments, "How long should a
  UPS battery be sized for?",
  https://www.serverroomenvironments.co.uk/faqs/power-protection-faqs/how-long-should-a-ups-battery-be-sized-for).

The autonomy is taken as stated (`feeds.ups_autonomy`, at full load): below full load a battery lasts longer, and an
aged or cold one less; neither is modelled. The start and transfer time is the hall's own
(`feeds.generator_transfer`); none is assumed where it is not stated.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.checks.registry import Violation

#: The context a finding quotes: what a start and transfer typically takes (module docstring's sources).
TYPICAL = ("NFPA 110 Type 10 systems restore power within 10 s; a standby set typically reaches full power in "
           "1-2 min")


def bridges(hall: Any) -> bool:
    """Whether a hall states a UPS and generator sets (any of their keys): PWR019 then judges, or says not provided.

    A hall with no UPS has nothing to bridge, and one with no generator sets nothing to bridge to.
    """
    feeds = hall.feeds if hall is not None else None
    if feeds is None:
        return False
    ups = feeds.ups is not None or feeds.ups_units is not None or feeds.ups_autonomy is not None
    return ups and (feeds.generators is not None or feeds.generator_units is not None
                    or feeds.generator_transfer is not None)


def ride_through(fac: Any) -> Iterator[Violation]:
    """PWR019 on one Facility: autonomy against start and transfer, or what is not provided to judge it."""
    if not bridges(fac):
        return
    feeds = fac.feeds
    subject, autonomy, transfer = f"facility/{fac.id}", feeds.ups_autonomy, feeds.generator_transfer
    if autonomy is not None and transfer is not None:
        if autonomy.to("s") < transfer.to("s"):
            yield Violation(subject, fac.id, ("feeds", "ups_autonomy"),
                            f"UPS autonomy {autonomy.to('s'):.0f~P} is shorter than the generator sets' start and "
                            f"transfer {transfer.to('s'):.0f~P}: the batteries run out before the sets carry the load",
                            autonomy.to("s"), transfer.to("s"))
        return
    missing = [f"`feeds.{k}`" for k, v in (("ups_autonomy", autonomy), ("generator_transfer", transfer)) if v is None]
    said = (f"UPS autonomy {autonomy.to('min'):.1f~P}" if autonomy is not None else
            f"generator start and transfer {transfer.to('s'):.0f~P}" if transfer is not None else "")
    named = [w for w, v in (("UPS autonomy", autonomy), ("generator start and transfer time", transfer)) if v is None]
    rest = (f" ({said} stated)" if said else "") + f", so whether the UPS bridges the generator sets' start is not " \
        f"known ({TYPICAL})"
    yield Violation(subject, fac.id, ("feeds", "ups_autonomy" if autonomy is None else "generator_transfer"),
                    f"UPS ride-through not judged: {' and '.join(missing)} not provided{rest}", autonomy, transfer,
                    severity="info", public=f"UPS ride-through not judged: {' and '.join(named)} not provided{rest}")
