"""The tiers of a fat tree (leaf, spine, core), their per-tier overrides and port roles, and down:up ratios.

`archgen.model.fabrics` builds the fat-tree and rail-only fabrics from these; `archgen.analyse.ports` and
`archgen.analyse.tiers` read them.
"""

import re
from typing import Annotated

from pydantic import BeforeValidator, Field, field_validator
from pydantic_core import PydanticCustomError

from archgen.metric import TIERS
from archgen.model.network import parse_breakout
from archgen.model.spec import Id, Ref, Spec
from archgen.units import Bandwidth

_RATIO = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$")

#: Largest oversubscription (down:up) a fabric may declare; anything above it is taken for a typo.
MAX_RATIO = 64
#: Largest fixed switch count of one tier (per plane); anything above it is taken for a typo.
MAX_TIER_COUNT = 100_000


def parse_ratio(value: object) -> float:
    """Parse an oversubscription ``"3:1"`` (down:up) into 3.0; numbers are taken as is.

    The error message is what was expected; `archgen.validate` adds the value it got.
    """
    ratio = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        ratio = float(value)
    elif isinstance(value, str) and (m := _RATIO.match(value)) and float(m[2]) > 0:
        ratio = float(m[1]) / float(m[2])
    if ratio is None or not 0 < ratio <= MAX_RATIO:
        raise PydanticCustomError("ratio", f"a down:up ratio such as '3:1' (or a number), both sides above 0 "
                                           f"and at most {MAX_RATIO}:1")
    return ratio


#: An oversubscription, ``"3:1"`` or a number, parsed by `parse_ratio` wherever a field takes one.
Ratio = Annotated[float, BeforeValidator(parse_ratio), Field(json_schema_extra={"examples": ["1:1", "3:1"]})]


#: The tiers of a fat tree, bottom up; `tiers: n` builds the first n. The first three of the tiers a metric may name
#: (`metric.TIERS`), so the two lists cannot drift.
TIER_NAMES = TIERS[:3]


_RANGE = re.compile(r"^\s*([0-9]+)\s*-\s*([0-9]+)\s*$")


class PortUse(Spec):
    """Ports of a tier's switch given to one role: `down` (to the tier below) or `up` (to the tier above)."""

    group: Id | None = Field(None, description="Port group of the switch (its `ports` or a `port_groups` name); "
                             "default: the main `ports`.")
    ports: int | str | None = Field(None, description=(
        "Which ports of the group: a range '1-32' (numbered from 1 in the group) or a count; default: the whole "
        "group, less the ports the other role takes from it."))
    breakout: str | None = Field(None, description=(
        "How each port is split, e.g. '2x400G'; it must be one the group allows (`breakouts`), and for `down` "
        "its rate must be the fabric's `speed`. Default: unsplit for `up`, the split the fabric speed needs "
        "for `down`."))

    @field_validator("ports")
    @classmethod
    def _ports(cls, v: int | str | None) -> int | str | None:
        if isinstance(v, bool) or (isinstance(v, int) and v <= 0):
            raise PydanticCustomError("ports", "a port count above 0 or a range such as '1-32'")
        if isinstance(v, str):
            m = _RANGE.match(v)
            if not m or not 1 <= int(m[1]) <= int(m[2]):
                raise PydanticCustomError("ports", "a port range such as '1-32' (first-last, numbered from 1)")
        return v

    @field_validator("breakout")
    @classmethod
    def _breakout(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                parse_breakout(v)
            except ValueError as e:
                raise PydanticCustomError("breakout", str(e)) from None
        return v

    def span(self) -> tuple[int, int] | None:
        """(first, last) port of a range, 1-based and inclusive; None for a count or the default."""
        if isinstance(self.ports, str) and (m := _RANGE.match(self.ports)):
            return int(m[1]), int(m[2])
        return None

    def count(self) -> int | None:
        """Ports taken (of a range or a count); None for the default."""
        span = self.span()
        return span[1] - span[0] + 1 if span else self.ports if isinstance(self.ports, int) else None


class Tier(Spec):
    """Overrides for one tier of a fat tree."""

    switch: Ref | None = Field(None, description="Switch part of this tier (default: the fabric's `switch`).")
    oversubscription: Ratio | None = Field(None, description="Down:up bandwidth at this tier, e.g. '1:1' or '3:1'.")
    uplinks: int | None = Field(None, gt=0, description="Uplink ports per switch, when fixed by the hardware "
                                "(e.g. an SN2201's 4 x 100G) instead of split from the radix.")
    uplink_speed: Bandwidth | None = Field(None, description="Line rate of those uplinks (default: fabric speed).")
    count: int | None = Field(None, gt=0, le=MAX_TIER_COUNT, description=(
        "Fixed number of switches per plane (spines: per pod on 3 tiers) instead of the derived one; only on a "
        "tier the fabric builds. Fewer than the fabric needs is NET018; spines and cores must divide the uplinks "
        "below them (NET002); extra leaves are spares (docs/clusters.md)."))
    rack: Ref | None = Field(None, description="Rack type holding this tier's switches (for cable lengths).")
    serves_racks: int | None = Field(None, gt=0, le=1000, description=(
        "Leaves only, with `rack`: the leaves stand in the racks of that type, one group per this many racks, and "
        "each group gets the fewest leaves its racks' ports fill: ⌈ports of the group's racks / leaf down ports⌉ "
        "(a management fabric's BMC, switch and power-shelf management ports per rack; the radix from the "
        "catalog). The ports of other racks fill the groups' free ports, then leaves of their own. Racks whose "
        "slots hold fewer or more leaves than that is NET028 (docs/clusters.md, Formulas: leaves per rack)."))
    down: PortUse | None = Field(None, description=(
        "Ports toward the tier below (endpoints at the leaf), e.g. {ports: '1-32', breakout: 2x400G}; with `up` it "
        "fixes the split instead of `oversubscription` (docs/clusters.md, Ports)."))
    up: PortUse | None = Field(None, description=(
        "Ports toward the tier above, e.g. {ports: '33-64'} (native 800G uplinks) or {group: qsfp28}; they count "
        "against the switch's ports (NET001). Not on the top tier (nothing is above it). `down` alone fixes the down "
        "ports and `oversubscription` sets the up ports beside them."))

    @field_validator("down", "up", mode="before")
    @classmethod
    def _port_use(cls, v: object) -> object:
        # docs/clusters.md gives a role's ports as "a group, a range or a count": a bare `up: 48` read "expected a
        # mapping", naming neither the key nor the form (newuser26)
        if v is not None and not isinstance(v, dict | PortUse):
            raise PydanticCustomError("expected", "the role's ports as a mapping: {ports: 32} (a count), "
                                                  "{ports: '33-64'} (a range) or {group: <port group>}, each with "
                                                  "an optional breakout")
        return v



