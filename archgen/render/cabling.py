"""The cluster document's "Cabling and optics" section and its cable-run list (cabling.csv).

Renderers of what `archgen.analyse.cabling_result.Cabling` computed: links, modules and cables per fabric tier, length
bins, and the deduplicated A→Z run list; presentation only (identical runs counted once).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from archgen.analyse.bom_line import NOT_PROVIDED
from archgen.analyse.cable_bins import whole
from archgen.analyse.cabling import DEFAULT_BINS_M, U_M
from archgen.analyse.copper_choice import EPS, cable_power, copper_rivals
from archgen.render import fmt
from archgen.render.blocks import Bullets, Column, Para, Section, Table
from archgen.render.wiring import tier_title

NO_RACK = "(no rack)"


def cabling(a: Any) -> Section:
    """Links, media, modules and cables per fabric tier; length bins; the run list in cabling.csv."""
    cab = a.cabling
    rows, bins = [], []
    for t in cab.tiers:
        media = ", ".join(f"{n:,} × {part}" for part, n in sorted(t.modules.items())) or "—"
        cables = ", ".join(f"{n:,} × {part}" for part, n in sorted(t.cables.items())) or "—"
        tier = tier_title(t.fabric, t.tier)   # as portmap.csv names it
        counted = (t.physical, t.transceivers, media, cables, t.optics_power) if not t.no_media else \
            (NOT_PROVIDED,) * 5   # links on no media: nothing counted, never 0 (CAB003)
        rows.append((t.fabric, tier, t.links, *counted, _assumed_max(t)))
        for (part, length), n in sorted(t.cables_by_bin.items(), key=lambda kv: (kv[0][0], float(kv[0][1]))):
            links = t.by_option_bin.get((part, length), 0)
            bins.append((t.fabric, tier, part, _bin(float(length), links, t.assumed_bins.get((part, length), 0)),
                         links, n))
    cols = (Column("Fabric"), Column("Tier"), Column("Links", digits=0, align="right"),
            Column("Cables", digits=0, align="right"), Column("Transceivers", digits=0, align="right"),
            Column("Modules / cable ends"), Column("Cables by type"), Column("Optics power", "kW", 2, "right"),
            Column("Longest run", "m", 1, "right"))
    section = Section("cabling", "Cabling and optics").add(
        Para("Each run takes the first link option whose reach covers its length (of the copper assemblies, the one "
             "sold nearest its length, then the one drawing less) and the next length bin up. "
             + geometry(a.cluster.spec.floor, a.cluster.spec.scale_up, _tallest(a))
             + " Links are logical port-to-port connections; cables are what is pulled (a copper assembly, or an "
             "optical cable; one split across two planes or spines counts once); transceivers are the optical "
             "modules at both ends. The deduplicated A→Z run list is in cabling.csv." + (
                 " Tiers without a longest run are counted, not laid out (dragonfly and torus fabrics, "
                 "a scale-up torus's cables, a fabric its switches cannot build): each of their links takes the "
                 "tier's first link option, whatever the distance, and no reach is checked (CAB007 where options "
                 "after the first go unread)." if any(t.max_length is None and t.links for t in cab.tiers) else "")
             + (" A tier whose links name no link media has no cable, module or optics power to count: they are not "
                "provided (CAB003), and so is the network power of its fabric." if any(t.no_media for t in cab.tiers)
                else "")),
        Table("cabling-tiers", "Links, modules and cables per tier", cols, tuple(rows)))
    section.sub("length-bins", "Length bins", Para(
        "Cables to order per link type and length bin, counted as the bill of materials and the port map count them "
        "(a cable carrying two links, such as a twin-port DAC, once); the links they carry beside them."
        + (" A tier counted but not laid out has no run lengths, so its bin is not provided: the cables' lengths "
           "are to be chosen once the fabric is laid out." if any(row[3] == NOT_PROVIDED for row in bins) else "")
        + (f" {ASSUMED_BINS}" if any(t.assumed_bins for t in cab.tiers) else "")),
        Table("length-bins", "Cables per link type and length bin",
              (Column("Fabric"), Column("Tier"), Column("Link"), Column("Bin"),
               Column("Links", digits=0, align="right"), Column("Cables", digits=0, align="right")), tuple(bins)))
    unplaced = unplaced_ends(a)
    if unplaced:
        section.add(Para("Access ports whose far end stands at no stated place are assumed the floor's longest run "
                         "(corner to corner), as the bill of materials orders them; a run to a site core or meet-me "
                         "room outside the floor is longer than assumed: " + "; ".join(unplaced) + "."))
    if chosen := power_choices(a):
        section.add(Para("Copper assemblies both sold at a run's length: the run takes the one drawing less at its two "
                         "ends (docs/clusters.md, Media choice): " + "; ".join(chosen) + "."))
    if cab.problems:
        section.add(Bullets(tuple(fmt.grouped_numbers(p.message) for p in cab.problems)))
    return section


#: What a bin or longest run marked "assumed" means, under the length bins.
ASSUMED_BINS = ("A bin marked assumed holds runs with an end in no rack (a switch its tier places in none, or a port "
                "given as a count), whose length is the floor's longest run, corner to corner, not a measured one "
                "(CAB004): the cables to order there rest on that assumption, and one past its medium's reach may "
                "not link; place the switches in a rack (`leaf.rack`, `spine.rack`, `core.rack`) to measure them.")


def _bin(length: float, links: int, assumed: int) -> str:
    """A length bin's cell: "7 m", "150 m (assumed)" (or "(assumed for 12)" of some), "not provided" (not laid out)."""
    if not length:
        return NOT_PROVIDED
    mark = "" if not assumed else " (assumed)" if assumed >= links else f" (assumed for {assumed:,})"
    return f"{length:g} m{mark}"


def _assumed_max(t: Any) -> Any:
    """A tier's longest run, marked assumed where it is a run with an end in no rack (`TierCabling.assumed_max`)."""
    if t.max_length is None or t.assumed_max is None or t.assumed_max < t.max_length:
        return t.max_length
    return fmt.Noted(t.max_length, "assumed")


def power_choices(a: Any) -> list[str]:
    """Per tier, the runs two copper options are both sold at, which took the one drawing less, in words.

    Rule 2 of `analyse.copper_choice`: said, so the part bought does not seem to hang on the list's order. Ties in
    power are CAB011's.
    """
    out = []
    options = {(t.fabric, t.tier): t.options for t in a.cabling.tiers}
    for tr in a.cabling.runs:
        opts = options.get((tr.fabric, tr.tier), ())
        for i, j, runs in copper_rivals(tr.length, tr.option, opts):
            mine, theirs = cable_power(opts[i]), cable_power(opts[j])
            if theirs > mine + EPS:
                low, high = float(tr.length[runs].min()), float(tr.length[runs].max())
                span = f"{low:.1f} m" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f} m"
                out.append(f"fabric {tr.fabric} {tier_title(tr.fabric, tr.tier)}, {int(tr.weight[runs].sum()):,} "
                           f"link(s) of {span} on {opts[i].label} ({mine:g} W a cable), not {opts[j].label} "
                           f"({theirs:g} W)")
    return out


def unplaced_ends(a: Any) -> list[str]:
    """Per fabric, its access runs with an end at no stated place and the length assumed for them, in words.

    A fabric's north-south ports (`reserved` with `north_south: true`) are named apart: their far end is the site
    core or the customer's edge, whose position no spec states (`analyse.cabling.floor_span` gives their length).
    """
    out = []
    specs = {fa.fabric.spec.id: fa.fabric.spec for fa in a.fabrics}
    for r in a.cabling.runs:
        far = r.a_rack < 0
        if r.tier != "access" or not far.any():
            continue
        north = sum(x.ports for x in getattr(specs.get(r.fabric), "reserved", ()) if x.north_south)
        what = f"{north:,} north-south link(s) to the site core, its position not stated" if north else ""
        rest = int(r.weight[far].sum()) - north
        others = f"{rest:,} other port(s) stated only as a count or standing in no rack" if rest > 0 else ""
        out.append(f"fabric {r.fabric}, {', '.join(w for w in (what, others) if w)}, "
                   f"{float(r.length[far].max()):.1f} m each")
    return out


def _tallest(a: Any) -> int:
    """The height (U) of the cluster's tallest placed rack, 0 where none is placed."""
    return max((round(inst.rack.spec.form_factor.height.m_as("U")) for inst in a.cluster.instances), default=0)


def geometry(floor: Any, scale_up: Any = None, tallest: int = 0) -> str:
    """The floor's run-length rule with its figures, each named as stated or as archgen's default.

    An installer reading the ordered lengths needs to know what they hold: the tray drops, the service loop
    (`slack`) and the in-rack allowance, and the bins cables are ordered in (`analyse.cabling.tray_run`, `_lengths`).
    A floor with `side_by_side` under a multi-rack scale-up domain (`scale_up`, the cluster's) lays the trunk cables
    between neighbouring racks of one row straight across where shorter (`_lengths`): the rule says so. Where the
    two tray drops are less than the height of the tallest rack (`tallest`, U), a run between racks may take the
    height between its ends instead (`tray_run`): the rule says so.
    """
    stated = floor.model_fields_set

    def fig(name: str) -> str:
        return f"{getattr(floor, name).m_as('m'):g} m" + ("" if name in stated else ", archgen's default, not stated")
    bins = ", ".join(f"{b:g}" for b in (sorted(b.m_as("m") for b in floor.length_bins) or DEFAULT_BINS_M))
    return (f"A run between racks is 2 × the tray drop ({fig('tray_drop')}) + the distance along the row (rack "
            f"pitch {fig('rack_pitch')}) and across rows (row pitch {fig('row_pitch')}) + a service loop, the slack "
            f"({fig('slack')}); a run inside one rack is the height between its two ends ({U_M * 1000:g} mm a U) + "
            f"{fig('in_rack')}"
            + ("; where the height between a run's two ends is more than the two tray drops, the run between racks "
               "takes that height instead, as its cable climbs at least that far"
               if 2 * floor.tray_drop.m_as("m") < tallest * U_M else "")
            + (f"; a scale-up trunk cable between neighbouring racks of one row goes straight across where that is "
               f"shorter (floor.side_by_side): the height between its ends + the rack pitch + {fig('in_rack')}"
               if floor.side_by_side and scale_up is not None and scale_up.racks > 1 else "")
            + _between_halls(floor)
            + f". Cables are ordered in the bins {bins} m"
            + ("" if "length_bins" in stated else " (archgen's default bins, not stated)")
            + ": an ordered cable is its run rounded up to the next bin, the slack inside the run and the rounding "
            "on top of it.")


def _between_halls(floor: Any) -> str:
    """The rule's words for a floor of several halls: site-plan distances and each hall's exit run, as stated."""
    if not floor.halls:
        return ""
    where = ", ".join(f"{h.id} at ({h.x.m_as('m'):g} m, {h.y.m_as('m'):g} m)" for h in floor.halls)
    exits = ", ".join(f"{h.id} {h.exit_run.m_as('m'):g} m" + ("" if "exit_run" in h.model_fields_set else
                                                               " (not stated: a lower bound)") for h in floor.halls)
    return (f"; the racks stand in {len(floor.halls)} halls whose first racks are placed on the site plan "
            f"({where}): a run between two halls spans the distance between its racks on that plan, plus each "
            f"hall's exit run where it leaves it (riser, meet-me room, duct detours: {exits})")


def run_list(a: Any) -> Table:
    """The deduplicated A→Z cable-run list: identical runs (same racks, U, link and bin) in one row.

    A row counts the links it carries and the cables to order (`cable_bins.run_cables`), tiers named as portmap.csv
    names them, and says whether its length is laid out or assumed (`length_basis`). A cable whose legs run to
    several far ends (a 1:2 splitter from a NIC cage to two planes' leaves, a leaf cage's halves to two spines) is
    counted on its first leg's row, as portmap.csv lists its far ends first to last (`split_legs.first_legs`: the
    lowest plane's leaf, the first spine), and 0 on the others, so the rows sum to the BOM's cables (newuser96: the
    B300 Spectrum-X SU's 512 node-leaf splitters read 1,024, a cable on each leg's row; then halves rounded over a
    node's rows read 1, 0, 1, 0 in no stated order). Other shares of a cable are rounded up over the rows of one A
    end, link option and bin.
    """
    cab = a.cabling
    options = {(t.fabric, t.tier): t.options for t in cab.tiers}
    shares = {(t.fabric, t.tier): t.run_cables for t in cab.tiers}
    rows = []
    for r in (*cab.runs, *cab.trunk_runs):   # a multi-rack scale-up domain's trunks after the fabrics'
        if len(r.a_rack) == 0:
            continue
        keys = np.stack([r.a_rack, r.a_u, r.b_rack, r.b_u, r.option, np.round(r.bin * 1000).astype(np.int64)])
        uniq, inverse = np.unique(keys, axis=1, return_inverse=True)
        weights = np.bincount(inverse.ravel(), weights=r.weight, minlength=uniq.shape[1])
        share = shares.get((r.fabric, r.tier))
        share = r.weight if share is None else share if r.lead is None else np.where(r.lead >= 0, r.lead, share)
        cables = np.bincount(inverse.ravel(), weights=share, minlength=uniq.shape[1])
        lengths = np.zeros(uniq.shape[1])
        np.maximum.at(lengths, inverse.ravel(), r.length)
        opts = options.get((r.fabric, r.tier), ())
        # plain lists, not a numpy scalar per cell: 10^5 distinct runs at 131,072 GPUs (`bench/bench_render.py`)
        ends = uniq.astype(np.int64).T.tolist()
        tier = tier_title(r.fabric, r.tier)
        carried: dict[tuple[int, int, int, int], float] = {}   # shares of one A end, option and bin so far
        for (a_rack, a_u, b_rack, b_u, opt, bin_mm), length, weight, n in zip(ends, lengths.tolist(), weights.tolist(),
                                                                               cables.tolist(), strict=True):
            before = carried.get((a_rack, a_u, opt, bin_mm), 0.0)
            carried[(a_rack, a_u, opt, bin_mm)] = before + n
            link = opts[opt] if 0 <= opt < len(opts) else None
            name = "—" if link is None else (link.a.id if link.a.id == link.b.id else f"{link.a.id} / {link.b.id}")
            rows.append((r.fabric, tier, _rack_name(cab, a_rack), _u(a_u), _rack_name(cab, b_rack), _u(b_u), name,
                         length, length_basis(a_rack, b_rack), bin_mm / 1000, int(weight),
                         whole(before + n) - whole(before)))
    cols = (Column("Fabric"), Column("Tier"), Column("A rack"), Column("A U", digits=0), Column("Z rack"),
            Column("Z U", digits=0), Column("Link"), Column("Length (m)", digits=1), Column("Length basis"),
            Column("Bin (m)", digits=1), Column("Links", digits=0), Column("Cables", digits=0))
    return Table("cabling", "Cable runs", cols, tuple(rows))


def length_basis(a_rack: int, b_rack: int) -> str:
    """How a run's length was found: "laid out" between two racks, or "assumed" where an end stands in no rack.

    An end in no rack (a switch its tier places in none, a port stated only as a count) is given the floor's longest
    run (CAB004), so its length is an assumption, not a measure: cabling.csv says so in a column of its own, where
    "(no rack)" in an end's rack column was the only sign (tier43).
    """
    return "assumed" if a_rack < 0 or b_rack < 0 else "laid out"


def _rack_name(cab: Any, index: int) -> str:
    """The rack instance an end stands in; a switch its racks cannot hold (index -1) stands in none."""
    return cab.rack_names[index] if index >= 0 else NO_RACK


def _u(u: int) -> int | None:
    """The U an end stands at, or none for a switch in no rack."""
    return u if u >= 0 else None

