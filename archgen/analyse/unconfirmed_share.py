"""How much of a power or heat figure rests on draws the catalog lists unconfirmed, and the band stated ranges give.

A figure that sums parts' draws was marked "(unconfirmed)" where any of them was (`rack_power_inputs.
unconfirmed_draws`), whatever its share: a DGX B200 rack's 57.3 kW, 57.2 kW of it four DGX B200 at a sourced
14.3 kW, read as unsure as a GB200 NVL72's 131.6 kW, all of it estimated tray draws (newuser106, item 2). Here a
figure's `Share` says how much: the unconfirmed draws over all the draws it sums, decided by that one rule, so a
document can write "57.3 kW (0.1 kW of it unconfirmed)". A figure built on such a sum (the input power at the feeds,
the heat and the flows carrying it, the facility's power, energy and water) carries the share of the sum it is built
on, in proportion: exact where the figure is the sum times factors (a PUE, 1 / ρ c_p ΔT), a stated approximation
where the draws reach it through different paths (a shelf-fed tray's loss against a switch fed from outside).

A system's draw is split where it adds up: its own figure, and each NIC whose power it adds (`draws_of`), so a
DGX H100's sourced 10.2 kW stays confirmed where only its added NICs' power is not.

The heat splits by each system's or switch's `cooling.liquid_fraction`: the heat to liquid rests on the liquid-cooled
parts' draws alone, times their fractions, and on the fractions too (an unconfirmed fraction makes that part's share
of the liquid heat, and of the air heat, unconfirmed): the inputs REQ005 names for it (`rack_power_inputs.
_heat_named`, `fraction_unconfirmed`: one rule). The heat to air takes the rest of each part's draw, the optics, and
the shelves' conversion loss in the IT share.

Where every unconfirmed draw a figure sums states a range in the catalog (a link's `power_range`), the `Share` holds
the figure's factors at both ends (`band`): a band from stated ranges only, never an invented one. A shelf's
unconfirmed `efficiency` makes no draw (`BOM_DRAWS`): PWR012 names it, with its `efficiency_range`'s IT power.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from archgen.analyse.optics import unconfirmed_optics_power
from archgen.analyse.rack_power_inputs import fraction_unconfirmed, in_metric, unconfirmed_draws
from archgen.analyse.storage_cost import storage_draw
from archgen.model import NIC, Link, Part, Switch, System
from archgen.model.system import max_draw, typical_draw

#: A draw a figure sums: its part (None: no catalog part's, as the optics no part's figure holds), its kW in the
#: figure, and whether it rests on a figure listed unconfirmed.
Draw = tuple[Any, float, bool]


@dataclass(frozen=True)
class Share:
    """The part of a figure that rests on unconfirmed figures, as a fraction of it, and the band stated ranges give.

    `part`: the unconfirmed draws over all the draws the figure sums (0: none, 1: all of it). `band`: the figure's
    factors at the low and high ends of the catalog's stated ranges, where every unconfirmed draw it sums states
    one (a link's `power_range`); None where one does not.
    """

    part: float = 0.0
    band: tuple[float, float] | None = None

    @property
    def whole(self) -> bool:
        """Whether all of the figure rests on unconfirmed figures (to a part in 10^9)."""
        return self.part >= 1 - 1e-9


#: The share of a figure that rests on no unconfirmed figure.
CONFIRMED = Share()


def share(draws: Iterable[Draw]) -> Share:
    """The `Share` of a figure summing `draws`: the unconfirmed ones' kW over all, with the stated ranges' band."""
    total = unconfirmed = low = high = 0.0
    banded = True
    for part, kw, unsure in draws:
        total += kw
        if not unsure or kw <= 0:
            continue
        unconfirmed += kw
        ends = stated_range(part)
        banded = banded and ends is not None
        if ends is not None:
            low, high = low + kw * (ends[0] - 1), high + kw * (ends[1] - 1)
    if total <= 0 or unconfirmed <= 0:
        return CONFIRMED
    band = (1 + low / total, 1 + high / total) if banded else None
    return Share(min(unconfirmed / total, 1.0), band)


def stated_range(part: Any) -> tuple[float, float] | None:
    """A draw's range as factors of the figure used, where the catalog states one: a link's `power_range`."""
    if isinstance(part, Link) and part.power_range is not None and part.power_per_end.magnitude:
        low, high = (q.to(part.power_per_end.units).magnitude / part.power_per_end.magnitude for q in part.power_range)
        return low, high
    return None


@dataclass(frozen=True)
class RackShares:
    """A rack's figures' shares: its IT power (and the input, loads and heat on it), at typical draw, to liquid, air."""

    it: Share = CONFIRMED
    typical: Share = CONFIRMED
    liquid: Share = CONFIRMED
    air: Share = CONFIRMED


#: The shares of a rack none of whose figures rests on an unconfirmed draw (a section built without its parts).
NONE_UNCONFIRMED = RackShares()


def draws_of(part: System | Switch, specs: Any, typical: bool = False, count: int = 1) -> list[Draw]:
    """`count` of a placed system's or switch's draw as a figure sums it, split where it adds up.

    Its own figure, with what `unconfirmed_draws` says it is built on (a system's accelerator), and each NIC whose
    `power` a system's figure adds (`power_includes_nics: false`): a DGX H100's sourced 10.2 kW stays confirmed
    where only its added NICs' power is not. `typical`: at typical draw (`typical_draw`).
    """
    whole = count * (typical_draw(part) if typical else max_draw(part)).m_as("kW")
    nics = [(n, count * (n.power * slot.count).m_as("kW"), bool(unconfirmed_draws(n, specs, typical)))
            for slot in (part.nics if isinstance(part, System) and part.nic_power is not None else ())
            if isinstance(n := specs.get(slot.part), NIC) and n.power is not None]
    ids = {n.id for n, _, _ in nics}
    own = any(pid not in ids for pid, _ in unconfirmed_draws(part, specs, typical))
    return [(part, whole - sum(kw for _, kw, _ in nics), own), *nics]


def parts_share(parts: Iterable[Any], specs: Any) -> Share:
    """The `Share` of the maximum draw of `parts` (a cluster BOM's rack line: its placed systems and switches)."""
    return share(d for p in parts if isinstance(p, System | Switch) for d in draws_of(p, specs))


def rack_shares(a: Any, specs: Any, optics: Mapping[str, Mapping[str, tuple[Link, float]]]) -> RackShares:
    """The `RackShares` of rack analysis `a`: its placed systems' and switches' draws and its optics.

    `optics`: by rack path, the links with an unconfirmed `power_per_end` whose ends its optics hold, with the kW
    they draw there (`analyse.optics.unconfirmed_optics_power`); the rest of its optics rests on no such figure.
    """
    cooled = [item.part for item in a.rack.items if isinstance(item.part, System | Switch)]
    ranged = [(link, kw, True) for link, kw in optics.get(a.rack.path, {}).values()]
    rest = max(a.power.optics.m_as("kW") - sum(kw for _, kw, _ in ranged), 0.0)
    ends = [*ranged, (None, rest, False)]
    held = (None, a.power.optics_held.m_as("kW"), False)
    it = share([*(d for p in cooled for d in draws_of(p, specs)), *ends])
    typical = share([*(d for p in cooled for d in draws_of(p, specs, True)), *ends, held])
    split = [(p, kw, host.cooling.liquid_fraction, unsure or fraction_unconfirmed(host))   # `_heat_named`'s rule
             for host in cooled for p, kw, unsure in draws_of(host, specs)]
    loss = max((a.power.input_power - a.power.load).m_as("kW"), 0.0)   # the shelves' conversion loss, to air
    air = share([*((p, kw * (1 - f), unsure) for p, kw, f, unsure in split), *ends,
                 (None, loss * it.part, True), (None, loss * (1 - it.part), False)])
    return RackShares(it, typical, share((p, kw * f, unsure) for p, kw, f, unsure in split), air)


def cluster_share(a: Any, specs: Any, metric: str = "it_power", typical: bool = False) -> Share:
    """The `Share` of cluster analysis `a`'s `metric`, from the part lines of its bill of materials.

    Its lines' total power (a rack line aside: its placed parts have lines of their own; a CDU's pumps are no IT
    power), at typical draw a system's or switch's typical draw (`typical_draw`), the lines `metric` sums
    (`rack_power_inputs.in_metric`: the network's switches and links for its network power); the checkpoint
    storage's draw (on no line) rests on no part's figure.
    """
    draws: list[Draw] = []
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        if line.kind in ("Rack", "CoolingUnit") or line.total_power is None or not isinstance(part, Part) \
                or not in_metric(a, part, metric):
            continue
        if isinstance(part, System | Switch):
            draws += draws_of(part, specs, typical, line.quantity)
        else:
            draws.append((part, line.total_power.m_as("kW"), bool(unconfirmed_draws(part, specs, typical))))
    if metric in ("it_power", "it_power_typical"):
        draws.append((None, storage_draw(a, typical).m_as("kW"), False))
    return share(draws)


def summed(figures: Iterable[tuple[float, Share]]) -> Share:
    """The `Share` of a figure adding up `figures` (each a value and its share): a cluster's racks' heat by type."""
    figures = [(v, s) for v, s in figures if v > 0]
    total = sum(v for v, _ in figures)
    if total <= 0 or not any(s.part for _, s in figures):
        return CONFIRMED
    banded = all(s.band is not None for _, s in figures if s.part)
    ends = [(v * s.band[0], v * s.band[1]) if s.band is not None else (v, v) for v, s in figures]
    return Share(min(sum(v * s.part for v, s in figures) / total, 1.0),
                 (sum(lo for lo, _ in ends) / total, sum(hi for _, hi in ends) / total) if banded else None)


def cluster_rack_shares(a: Any, racks: Mapping[str, Any], specs: Any) -> dict[str, RackShares]:
    """By rack path, the `RackShares` of cluster analysis `a`'s rack types (`racks`: the run's rack analyses).

    Its optics counted in this cluster's racks (`unconfirmed_optics_power` of it alone), as its documents' figures are.
    """
    optics = unconfirmed_optics_power({a.cluster.path: a})
    return {f"rack/{rid}": rack_shares(racks[f"rack/{rid}"], specs, optics)
            for rid in sorted(a.cluster.rack_counts) if f"rack/{rid}" in racks}


#: A cluster's metrics that are draws it sums times factors (a PUE, hours, an intensity), by the sum whose share
#: each carries (`cluster_share`): at maximum draw, at typical draw, the network's and the optics'. Not the
#: headrooms (a capacity less the load), nor a CDU's pump draw or the idle draw, which rest on no draw here.
SHARED_METRICS = {
    "it_power": ("it_power", "it_power_racks", "facility_power", "facility_power_peak"),
    "it_power_typical": ("it_power_typical", "it_power_typical_racks", "power_average", "facility_energy_per_year",
                         "energy_cost_per_year", "carbon_per_year", "market_carbon_per_year", "water_per_year"),
    "network_power": ("network_power",), "optics_power": ("optics_power",)}


def cluster_shares(a: Any, specs: Any, racks: Mapping[str, Any]) -> dict[str, Share]:
    """By metric (`SHARED_METRICS`), the `Share` of cluster analysis `a`'s figure; the others carry none.

    Its shelves' loss is its racks' (`racks`: the run's rack analyses), each type's loss carrying its IT power's
    share: a loss only the shelf-fed parts' draws make, not the switches fed from PDUs beside them.
    """
    out: dict[str, Share] = {}
    for base, names in SHARED_METRICS.items():
        s = cluster_share(a, specs, base, typical=base == "it_power_typical")
        out.update(dict.fromkeys(names, s))
    shares = cluster_rack_shares(a, racks, specs)
    out["shelf_loss"] = summed((a.cluster.rack_counts[path.removeprefix("rack/")] * max(
        (racks[path].power.input_power - racks[path].power.load).m_as("kW"), 0.0), s.it) for path, s in shares.items())
    return out


def heat_share(a: Any, racks: list[Any], shares: Mapping[str, RackShares], kind: str, total: Any,
               specs: Any) -> Share:
    """The `Share` of cluster `a`'s heat `total` to liquid or air (`kind`): its racks' by type times their count.

    `shares`: its racks' (`cluster_rack_shares`). The heat of parts in no rack (a switch placed nowhere,
    `analyse.rack_heat`) carries the cluster's IT power's (`cluster_share`).
    """
    parts = [((getattr(r.cooling, f"heat_{kind}") * a.cluster.rack_counts[r.rack.spec.id]).m_as("kW"),
              getattr(shares[r.rack.path], kind)) for r in racks if r.rack.path in shares]
    rest = total.m_as("kW") - sum(v for v, _ in parts)
    return summed([*parts, (rest, cluster_share(a, specs) if rest > 1e-6 else CONFIRMED)])


def fabric_share(a: Any, fabric: str, specs: Any, optics_only: bool = False) -> Share:
    """The `Share` of one fabric's network power (its switches at maximum and its optics) in cluster analysis `a`.

    As `analyse.bom.cluster_bom` sums it: each tier's switches x planes, and the tier's optics beyond what its
    switches' figures hold, shared among its module parts in proportion to their count x `power_per_end` (`fabric`
    "scale_up": a scale-up domain's cables). `optics_only`: the optics alone.
    """
    draws: list[Draw] = []
    for fa in () if optics_only else (f for f in a.fabrics if f.fabric.spec.id == fabric):
        draws += [(t.switch, (t.switch.power.max * t.switches * fa.planes).m_as("kW"),
                   bool(unconfirmed_draws(t.switch, specs))) for t in fa.tiers if t.switch is not None]
    for tc in (t for t in (a.cabling.tiers if a.cabling is not None else ()) if t.fabric == fabric):
        ends = {e.id: e for o in tc.options for e in (o.a, o.b)}
        weights = {mid: n * ends[mid].power_per_end.m_as("kW") for mid, n in sorted(tc.modules.items()) if mid in ends}
        whole, kw = sum(weights.values()), (tc.optics_power - tc.switch_optics_power).m_as("kW")
        draws += [(ends[mid], kw * w / whole, bool(unconfirmed_draws(ends[mid], specs)))
                  for mid, w in weights.items() if whole > 0]
    return share(draws)
