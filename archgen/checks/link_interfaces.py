"""Whether the two ends of a link option can be one link: CAB002's judgement of an `{a: ..., b: ...}` pair.

Split from `checks/cabling.py`; `checks/link_media.py` registers CAB002. Two different parts at the two ends of one
link (a flat-top module at the NIC, a twin-port module at the switch; or the two ends of a splitter cable) meet only
where their optical interfaces do, lane group by lane group after breakout:

- one medium: single-mode, multimode or one copper cable's two ends;
- one lane rate (100G-PAM4 or 200G-PAM4 per lane);
- one wavelength plan (`Link.wavelengths`, `PLANS`): an 850 nm multimode lane, a 1310 nm parallel single-mode lane
  and a CWDM4 lane reach no receiver of another plan;
- lane groups that meet: on parallel fibre (one lane per fibre pair) a port breaks out lane by lane, so a 2 x DR4
  ("DR8") port meets two DR4 ends and a DR4 four DR1 ends: one end's lanes per optical port must divide the other's;
  on a wavelength-multiplexed port (CWDM4: four lanes on one duplex pair) nothing breaks out, so both ends' ports
  carry the same lanes.

A plain "same standard" rule would refuse `{a: smf-400g-dr4, b: lpo-800g-dr8}`, a DR8 broken out to two DR4 ends,
and pass nothing it should not; the rule reads the parts' own fields instead (catalog35 found `{a: smf-400g-dr4,
b: smf-800g-fr4}` checking clean). Reach classes of one plan (FR4 against LR4) are not judged: the option's reach is
its shorter end's (CAB001). A fibre end with no transceiver (0 W, an optical circuit switch's port) carries what the
other end sends and is judged on its medium and lane rate only: the switch is rate-agnostic, but its part states the
rate and lanes of the link it ends (`ocs-fibre-port`'s notes: "set so that the link's two ends agree"), so a 200G-lane
module needs an OCS end stated at 200G lanes. Two modules of which one states no plan are not judged, which an info
finding says.

CAB005's remedy reads the same rule: where a module fits one end of its link and not the other, the catalog's parts
it names for the other end are those that fit that cage and meet the module here (`linking_modules`, `cage_remedy`).
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.analyse.network import count
from archgen.checks.media_ends import Port, lane_g, link_ends, too_wide
from archgen.checks.registry import Context
from archgen.model import Link
from archgen.model.network import CAGES, cage_fits
from archgen.units import Q


@dataclass(frozen=True)
class Plan:
    """A wavelength plan: the fibre it runs on, the lanes one fibre pair carries, and its sources."""

    media: str
    per_pair: int
    words: str
    cite: str
    source: str


#: The wavelength plans a Link part's `wavelengths` names, with the standards that define them. Lane numbers and
#: clauses: SNIA SFF-8024 Rev 4.13, Table 4-5 (module media codes '400GBASE-DR4 (Clause 124)', '400GBASE-FR4
#: (Clause 151)', '400GBASE-LR4-6 (Clause 151)', '100GBASE-SR1, 200GBASE-SR2 or 400GBASE-SR4 (Clause 167)') and
#: Tables 4-6/4-7 (media codes 400GBASE-SR8, 800GBASE-SR8, 800GBASE-DR4, 800G-DR8-LPO, 400G-LR4-10).
PLANS = {
    "850 nm": Plan("multimode", 1, "850 nm on parallel multimode fibre, a lane per fibre pair",
                   "SR, IEEE 802.3 Clauses 95, 138, 167",
                   "IEEE 802.3 Clause 95 100GBASE-SR4 (802.3bm), Clause 138 400GBASE-SR8 (802.3cm: 850 nm over 16 "
                   "fibres), Clause 167 400GBASE-SR4/VR4 (802.3db: 400 Gb/s over 4 pairs of multimode fibre)"),
    "1310 nm": Plan("singlemode", 1, "1310 nm on parallel single-mode fibre, a lane per fibre pair",
                    "DR4, IEEE 802.3 Clause 124",
                    "IEEE 802.3bs Clause 124 400GBASE-DR4 (4 x 100G-PAM4, 500 m, breakout to DR1); 800GBASE-DR4 "
                    "(802.3dj, 200G-PAM4); LPO MSA 800G-DR8-LPO"),
    "CWDM4": Plan("singlemode", 4, "four CWDM wavelengths (1271/1291/1311/1331 nm) on one duplex fibre pair",
                  "FR4, IEEE 802.3 Clause 151",
                  "IEEE 802.3cu Clause 151 400GBASE-FR4 (2 km) and LR4-6; 100G Lambda MSA 400G-LR4-10: four WDM "
                  "lanes on one pair, no breakout"),
}

MEDIA = {"singlemode": "single-mode fibre", "multimode": "multimode fibre"}


def port_lanes(end: Link) -> int:
    """Lanes one optical port of a module carries: its lanes over its WDM ports or fibre connectors (else all)."""
    return max(1, end.lanes // (end.optical_ports or end.connectors or 1))


def _lane(end: Link) -> Q:
    return (end.rate / end.lanes).to("Gbit/s")


def _said(end: Link) -> str:
    plan = PLANS[end.wavelengths]
    return f"{end.id} ({plan.words}: {plan.cite})"


def ends_unmet(a: Link, b: Link) -> list[tuple[str, object, object]]:
    """Why `a` and `b` cannot be the two ends of one link: (message, value, limit) each; empty where they meet."""
    if a.id == b.id:
        return []
    if a.media != b.media:
        return [(f"{a.id} ({MEDIA.get(a.media, a.media)}) and {b.id} ({MEDIA.get(b.media, b.media)}) cannot be the "
                 "two ends of one link: expected one medium at both ends (one fibre, or one cable's two ends)",
                 None, None)]
    if abs(float((_lane(a) - _lane(b)).m_as("Gbit/s"))) > 1e-6:
        return [(f"{a.id} ({lane_g(_lane(a))} lanes) and {b.id} ({lane_g(_lane(b))} lanes) cannot be the two ends of "
                 "one link: expected the same lane rate", _lane(a), _lane(b))]
    if a.media not in MEDIA or not a.power_per_end or not b.power_per_end or not (a.wavelengths and b.wavelengths):
        return []   # copper, a fibre end with no transceiver, or a plan not stated (`ends_unjudged`)
    if a.wavelengths != b.wavelengths:
        return [(f"{_said(a)} and {_said(b)} cannot be the two ends of one link: expected one wavelength plan at "
                 "both ends", None, None)]
    ga, gb, plan = port_lanes(a), port_lanes(b), PLANS[a.wavelengths]
    if plan.per_pair > 1 and ga != gb:
        return [(f"{a.id} carries {ga} lanes per optical port, {b.id} {gb}: a port of {plan.words} does not "
                 f"break out ({plan.cite}); expected the same lanes per port at both ends", count(ga), count(gb))]
    if max(ga, gb) % min(ga, gb):
        return [(f"{a.id} carries {ga} lanes per optical port, {b.id} {gb}: a parallel-fibre port breaks out lane "
                 "by lane into ports of a whole share of its lanes; expected one to divide the other", count(ga),
                 count(gb))]
    return []


def ends_unjudged(a: Link, b: Link) -> str:
    """Why a pair of two optical modules is not judged (one states no wavelength plan); empty where it is."""
    if a.id == b.id or a.media != b.media or a.media not in MEDIA or not a.power_per_end or not b.power_per_end:
        return ""
    missing = [e.id for e in (a, b) if not e.wavelengths]
    return (f"{' and '.join(missing)} state{'s' if len(missing) == 1 else ''} no wavelength plan (`wavelengths`): "
            f"whether {a.id} and {b.id} meet as one link is not judged") if missing else ""


def linking_modules(ctx: Context, end: Link, port: Port, tag: str) -> list[str]:
    """The catalog's modules (or cable ends) for `port` at end `tag` of a link whose other end is `end`.

    Each fits the port's cage in shape and width (`cage_fits`, `media_ends.too_wide`) and meets `end` by this
    module's rule (`ends_unmet`): a QM9700's twin-port cage facing a ConnectX-7's 400G DR4 takes `smf-800g-dr8` and
    `lpo-800g-dr8`, two DR4 ports on parallel fibre, and no FR4. A part whose meeting `end` is not judged (one of
    the two states no wavelength plan, `ends_unjudged`) is not offered.
    """
    def pair(p: Link) -> tuple[Link, Link]:
        return (p, end) if tag == "a" else (end, p)

    return sorted(p.id for p in ctx.design.specs.of(Link)
                  if any(cage_fits(m, port.cage) for m in p.cages) and not too_wide(p, port)
                  and not ends_unmet(*pair(p)) and not ends_unjudged(*pair(p)))


def cage_remedy(ctx: Context, c, fa, key: str, end: Link, tag: str, port: Port) -> tuple[str, str]:
    """What CAB005 tells its reader to state where a module fits one end of its link and not the other.

    Returned as (the finding's words, the customer's). One module named for both ends (`access: [smf-400g-dr4]`)
    fits a ConnectX-7's flat-top cage and not a QM9700's finned twin-port cage, and the twin-port module does not fit
    the NIC: every single module of the catalog fails one end (newuser89, HGX H100 on QM9700 leaves), and the
    finding named only the cage it expected. It says that the module fits the other end and names the catalog's
    parts for the cage it fails that link with it (`linking_modules`), to be stated as the two ends apart: two
    modules on one fibre, or the two ends of one splitter cable (the catalog's MCP7Y00 is `{a: dac-400g, b:
    dac-800g-osfp}`). Empty where the module fits neither end (the first sentence says it).
    """
    lower, upper = link_ends(ctx, c, fa).get(key, ([], []))
    other = [p for p in (upper if tag == "a" else lower) if p.cage in CAGES]
    if not other or not all(any(cage_fits(m, p.cage) for m in end.cages) for p in other):
        return "", ""
    there = f"; it fits the {other[0].what} ({other[0].cage}) at the other end, not this one"
    found = linking_modules(ctx, end, port, tag)
    names = (f"the catalog's {port.cage} ends that link with {end.id}: {', '.join(found)}" if found else
             f"the catalog holds no {port.cage} end that links with {end.id}")
    pair = f"a: {end.id}, b: <{port.cage} end>" if tag == "b" else f"a: <{port.cage} end>, b: {end.id}"
    return (f"{there}: state the two ends apart, {{{pair}}} ({names})",
            f"{there}: the two ends take different parts, {end.id} at one end and an {port.cage} end at this one "
            f"({names})")
