"""DC distribution (NVIDIA's 800 VDC) is refused with why, not judged as single-phase AC or refused as an unknown key.

NVIDIA's 800 VDC architecture rectifies the grid's AC once, at the facility, and carries 800 V DC to the racks,
which step it down to the busbar's 54 V ("NVIDIA 800 V HVDC Architecture Will Power the Next Generation of AI
Factories", NVIDIA Technical Blog, May 2025, https://developer.nvidia.com/blog/nvidia-800-v-hvdc-architecture-will-
power-the-next-generation-of-ai-factories/; J. Huntington and M. Tu, "800 VDC Architecture for Next-Generation AI
Infrastructure", NVIDIA white paper, October 2025). archgen's feeds, PDUs, power shelves and halls are AC: a feed's
power is V x A x phase factor x power factor (`analyse.power_chain`), PWR006 compares phases and PWR015 a hall's
line-to-line voltage. None of that holds for DC, and no spec states a DC stage's conversion efficiency, so a DC
feed is refused (docs/facility.md, Not modelled) rather than sized as AC.

Four spellings are refused: a current type (`current_type: dc`, or `current: dc` where `current` is a breaker
rating in amperes); a voltage whose unit says DC (`800 VDC`, `800 V DC`); a single-phase supply above
`SINGLE_PHASE_MAX` that is not IEC 60038's three-wire 1000 V system taken between two lines (`THREE_WIRE_MAX`): that
is how an 800 V DC feed reads when written with the AC keys (`voltage: 800 V, phases: 1`); and a three-phase supply
or a hall's distribution voltage (line-to-line, three-phase) outside Table 1's low-voltage systems: above
`SINGLE_PHASE_MAX` between lines other than `THREE_WIRE_MAX`, or above `PHASE_MAX` to neutral. That is how a hall's
`voltage: 800 V` reads, which was judged as an 800 V three-phase AC hall before. Real AC does exceed these elsewhere
(single-phase traction at 4.75-27.5 kV, IEC 60038 Table 2; medium voltage, Table 3), so the refusal says such a
supply is not modelled, not that it does not exist.

The models that take a supply (`PowerInput`, `PDU`, rack `Feeds`, a hall's `UpstreamFeeds` and `Facility`) derive
from `AcSupply`, whose one validator calls `refuse_dc`.
"""

import re

from pydantic import model_validator
from pydantic_core import PydanticCustomError

from archgen.model.spec import FieldError, Spec
from archgen.units import Q_, parse_quantity

#: The line-to-line voltage of IEC 60038's highest low-voltage four-wire system, 400/690 V (IEC 60038:2009, Table 1:
#: 50 Hz 230/400 V, 400/690 V and 1000 V; 60 Hz 120/208 V to 347/600 V and 600 V; checked against the table as
#: summarised at https://en.wikipedia.org/wiki/IEC_60038, "Low voltage systems (Table 1)"). A single-phase feed, PDU
#: or shelf input above it, other than `THREE_WIRE_MAX` between two lines, is not modelled and is refused.
SINGLE_PHASE_MAX = Q_(690.0, "V")
#: The line-to-neutral voltage of the same 400/690 V system (IEC 60038:2009, Table 1, as above): the highest voltage
#: Table 1 puts between a line and neutral.
PHASE_MAX = Q_(400.0, "V")
#: Table 1's three-wire 1000 V system (50 Hz): a single-phase load between two of its lines sees 1000 V nominal, a
#: standard AC supply above `SINGLE_PHASE_MAX`, so a single-phase line-to-line rating of exactly 1000 V is AC.
THREE_WIRE_MAX = Q_(1000.0, "V")

#: Why a DC supply is refused, and what to do instead (the error's text after what was written).
DC_REFUSED = ("DC distribution (such as NVIDIA's 800 VDC) is not modelled: feeds, PDUs, power-shelf inputs and halls "
              "are AC (V x A x phase factor x power factor; PWR006 and PWR015 compare phases and line-to-line "
              "voltages), and no spec states a DC stage's conversion efficiency (docs/facility.md, Not modelled); "
              "describe the AC supply ahead of the rectifiers instead")


#: A unit that says DC: '800 VDC', '800 V DC', '800 Vdc', '800 HVDC' (pint reads none of them).
_DC_UNIT = re.compile(r"(?<![a-z])k?h?v\s*d\.?c\.?\s*$", re.IGNORECASE)

#: The keys of a supply that carry a voltage.
_VOLTAGE_KEYS = ("voltage", "voltage_min", "voltage_max")


def _says_dc(value: object) -> bool:
    """Whether a voltage as written names a DC unit (text, or the `unit` of a {value, unit} mapping)."""
    unit = value.get("unit") if isinstance(value, dict) else value
    return isinstance(unit, str) and bool(_DC_UNIT.search(unit.strip()))


def refuse_dc(data: object) -> object:
    """`data` as it was, unless it states DC: a current type, a DC unit, or a voltage outside IEC 60038 Table 1's AC.

    For a `mode="before"` model validator (`AcSupply`) of a model with `voltage`, `basis` and `phases`; a hall states
    neither basis nor phases: its `voltage` is line-to-line, three-phase (`Facility.voltage`).
    """
    if not isinstance(data, dict):
        return data
    if "current_type" in data:
        raise FieldError(("current_type",), f"current_type {data['current_type']!s}: {DC_REFUSED}")
    current = data.get("current")
    if isinstance(current, str) and current.strip().lower() in ("dc", "ac", "vdc", "hvdc"):
        raise FieldError(("current",), f"current {current}: `current` is a breaker or input rating in amperes, e.g. "
                         f"'60 A', and AC is the only current type; {DC_REFUSED}")
    for key in _VOLTAGE_KEYS:
        if _says_dc(data.get(key)):
            raise FieldError((key,), f"{key} {data[key]!s}: {DC_REFUSED}")
    voltage, phases = data.get("voltage"), data.get("phases", 3)
    basis = data.get("basis", "line-to-line")
    if voltage is None or phases not in (1, 3):
        return data
    try:
        volts = parse_quantity(voltage)
    except PydanticCustomError:   # an unreadable voltage: the field's own validator says why
        return data
    if not volts.check("[electric_potential]"):
        return data
    if basis == "line-to-line" and volts.m_as("V") == THREE_WIRE_MAX.m_as("V"):
        return data
    if phases == 1 and volts > SINGLE_PHASE_MAX:
        raise FieldError(("voltage",), f"{volts:~P} single-phase: above {SINGLE_PHASE_MAX:.0f~P} (IEC 60038's "
                         f"400/690 V, its highest four-wire low-voltage system) only {THREE_WIRE_MAX:.0f~P} "
                         f"line-to-line (its three-wire system) is judged as single-phase AC; a higher single-phase "
                         f"AC supply (traction, medium voltage) is not modelled; if this is a DC feed, {DC_REFUSED}")
    limit = PHASE_MAX if basis == "line-to-neutral" else SINGLE_PHASE_MAX
    if phases == 3 and volts > limit:
        raise FieldError(("voltage",), f"{volts:~P} {basis}, three-phase: IEC 60038's low-voltage AC systems (Table "
                         f"1) reach {PHASE_MAX:.0f~P} line-to-neutral, {SINGLE_PHASE_MAX:.0f~P} line-to-line (400/690 "
                         f"V, four-wire) and {THREE_WIRE_MAX:.0f~P} line-to-line (three-wire), and only these are "
                         f"judged as three-phase AC; a supply above them or between them (medium voltage, Table 3) "
                         f"is not modelled; if this is a DC distribution, {DC_REFUSED}")
    return data


class AcSupply(Spec):
    """A model that takes an AC supply: a DC one is refused with why, before its fields are read (`refuse_dc`).

    Listed first among a model's bases, so that its validator runs before those of the other bases (pydantic runs
    the `mode="before"` validators of bases in the order they are listed). A model's own `mode="before"` validators
    run before it, not after: none of the models above defines one.
    """

    @model_validator(mode="before")
    @classmethod
    def _not_dc(cls, data: object) -> object:
        return refuse_dc(data)
