"""PWR: each stage of the power chain (shelves, PDUs, feeds) carries its load, and feeds suit the inputs they feed.

The chain must be written so that no placed unit is left out (PWR009), and a cluster whose power rests on figures
its parts list as `unconfirmed:` says so (PWR012).

Each check's rule and documentation is here, but for a hall's units, rating and lists (PWR017 to PWR023,
`checks.power_halls`); most findings are the named helpers' (one rack's conversion stages `checks.conversion_stages`',
its placed units `checks.power_placement`', a hall's figures `checks.hall_figures`').
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks import power_figures as pf
from archgen.checks import power_halls  # noqa: F401 (registers PWR017 to PWR023: a hall's units, rating and lists)
from archgen.checks.conversion_stages import busbar_over, stage_losses, stage_overloads
from archgen.checks.feed_figures import feed_findings, feed_overloads
from archgen.checks.feed_inputs import feeds_into_inputs
from archgen.checks.feed_shelves import feeds_beyond_shelves, shelves_lost_with_a_feed
from archgen.checks.hall_load import over_hall
from archgen.checks.odd_pairs import odd_pairs
from archgen.checks.power_inputs import feeds_off_hall, outlet_counts, part_inputs, psus_kept
from archgen.checks.power_placement import chain_problems, feed_counts, unplaced_claims
from archgen.checks.psu_bound import unconfirmed_texts
from archgen.checks.registry import Context, Violation, check


@check("PWR001", "power.conversion_capacity")
def conversion_capacity(ctx: Context) -> Iterator[Violation]:
    """Each conversion stage (power shelves, PDUs) carries its load within its usable capacity, with its redundancy.

    Fix: add shelves/PDUs, use higher-capacity ones, or reduce the load.
    """
    for path, a in ctx.racks.items():
        yield from stage_overloads(path, a)


@check("PWR002", "power.feed_capacity")
def feed_capacity(ctx: Context) -> Iterator[Violation]:
    """The rack's input power fits its feeds after derating, with the feed redundancy (each group of feeds its own).

    An info finding per rack gives each feed's load and current, normally and with the spares of its redundancy
    lost, against its continuous rating (`feed_figures`). A feed stating no `power_factor` is judged at 1.00 (kW =
    kVA, the least conservative reading): the finding says so and gives the figures at 0.95 (a server PSU's, 80 PLUS
    Platinum/Titanium at 50 % load), and is a warning where the input power fits only at 1.00.

    Fix: add feeds, raise the feed current or voltage, or reduce the load. Check `basis` (line-to-line or
    line-to-neutral): it changes a 3-phase feed's capacity by √3. State `power_factor` from the PSUs' datasheet.
    """
    for path, a in ctx.racks.items():
        yield from feed_overloads(path, a)
        yield from feed_findings(path, a)


@check("PWR003", "power.feed_loss")
def feed_loss(ctx: Context) -> Iterator[Violation]:
    """With feed redundancy claimed, the rack still carries its full load with any one feed lost.

    The feeds left, and the power shelves left: a feed lost takes the shelves on it (`shelves_lost_with_a_feed`).

    Fix: add a feed or raise the feed rating, give each shelf its own feed; or declare `redundancy: N` if none is
    intended.
    """
    for path, a in ctx.racks.items():
        p = a.power
        for g in p.feed_groups:
            if g.redundancy != "N" and g.load > g.after_one_loss:
                yield Violation(path, a.rack.spec.id, ("power", "feeds", "redundancy"),
                                f"with one of {g.count} {g.kind} lost, {pf.kw(g.after_one_loss)} remain for "
                                f"{pf.kw(g.load)}", g.load, g.after_one_loss)
        yield from shelves_lost_with_a_feed(path, a)


@check("PWR004", "power.conversion_loss")
def conversion_loss(ctx: Context) -> Iterator[Violation]:
    """With shelf or PDU redundancy claimed, the rack still carries its full load with any one unit lost.

    Fix: add a shelf/PDU; or declare `redundancy: N` if none is intended.
    """
    for path, a in ctx.racks.items():
        yield from stage_losses(path, a)


@check("PWR005", "power.redundancy_pairs", severity="warning")
def redundancy_pairs(ctx: Context) -> Iterator[Violation]:
    """An N+N (2N) group has an even number of units, one half per side: feeds, shelves, PDUs, CDUs and PSUs.

    With an odd count the smaller side carries the load alone, as one unit fewer would: the odd unit adds no usable
    capacity (the message gives what is usable). The rack's CDU group (`cooling.liquid.cdu_redundancy`) and the PSUs
    of each part it places (`psus`, named once per rack) count alike (`odd_pairs`; PWR017 for a hall's units).

    Fix: make the count even, or state N+1.
    """
    for path, a in ctx.racks.items():
        yield from odd_pairs(path, a)


@check("PWR006", "power.feed_matches_input")
def feed_matches_input(ctx: Context) -> Iterator[Violation]:
    """What feeds a PDU or power shelf suits its input rating: phases, voltage, and current at most the input's.

    The feeds supply the PDUs and the shelves fed from the feeds; PDUs supply the shelves behind them
    (`shelves.fed_from: pdus`). Voltage: within the input's rated range, or ±10 % of its nominal voltage (IEC 60038)
    where it gives none, compared on the input's basis (line-to-line = √3 × line-to-neutral on three phases); a
    single-phase shelf behind a three-phase PDU takes its line-to-neutral voltage. Current: the feed's breaker at
    most the input's rated current (a 100 A breaker ahead of a 60 A inlet does not protect it and its cord); a
    rating the part does not state is not compared, and a PDU's outlet breakers are not modelled. A 208 V feed into
    a 415 V PDU under-delivers and is not what the PDU is built for.

    Fix: choose PDUs or shelves rated for the feed (voltage, phases, current), or change the feeds.
    """
    yield from feeds_into_inputs(ctx)


@check("PWR007", "power.feeds_per_pdu")
def feeds_per_pdu(ctx: Context) -> Iterator[Violation]:
    """A rack has one feed per PDU and at most one per power shelf on the feeds (each has one input), none spare.

    With more feeds than PDUs, the feed capacity counted is not connected to anything; with fewer, some PDUs are
    not fed. With PDUs beside power shelves fed from the feeds, each PDU takes one feed and the shelves the rest,
    so there must be more feeds than PDUs, and no more left than shelves (`feeds_beyond_shelves`).

    Fix: make `power.feeds.count` the number of PDUs placed (plus the shelves' feeds when the PDUs stand beside
    shelves, at most one per shelf), or place one PDU per feed.
    """
    for path, a in ctx.racks.items():
        yield from feed_counts(path, a)
        yield from feeds_beyond_shelves(path, a)


@check("PWR008", "power.redundancy_placed")
def redundancy_placed(ctx: Context) -> Iterator[Violation]:
    """Shelf or PDU redundancy is claimed only over units actually placed in the rack.

    Fix: place the power shelves or PDUs in `slots`, or remove the `power.shelves` / `power.pdus` entry.
    """
    for path, a in ctx.racks.items():
        yield from unplaced_claims(path, a)


@check("PWR009", "power.chain")
def chain(ctx: Context) -> Iterator[Violation]:
    """A rack that places both power shelves and PDUs says how they connect, so that no placed unit is left out.

    Either the shelves plug into the PDUs (`power.shelves.fed_from: pdus`: feeds → PDUs → shelves), or the PDUs
    stand beside the shelves and power the parts `power.pdus.serves` names (the rest are on the busbar). Without
    either, the PDUs would carry nothing. `serves` names parts placed in the rack, other than shelves and PDUs.

    Fix: write `power: {shelves: {fed_from: pdus}}` if the shelves plug into the PDUs, or
    `power: {pdus: {serves: [<part ids>]}}` for the parts the PDUs power beside the shelves.
    """
    for path, a in ctx.racks.items():
        yield from chain_problems(path, a)


@check("PWR010", "power.facility_capacity")
def facility_capacity(ctx: Context) -> Iterator[Violation]:
    """The cluster's IT power is within its facility's stated `critical_it_power` (metric `it_capacity_headroom`).

    Without an IT power (no link media, CAB003) the racks' own draw is its floor (`hall_load.over_hall`). Where the
    hall lists `deployed` clusters their sum is judged (an error on each); one not listed is a candidate judged alone
    (an info finding where the deployed ones and it would exceed the hall). Without `deployed`, a cluster within it
    alone is a warning where the hall's occupants exceed it together (`occupants.over_facility`). A hall of
    `floor.halls` naming its own `facility` holds its racks to it instead (`hall_load.by_hall`).

    Fix: a hall with more critical IT power, fewer racks, or racks that draw less.
    """
    for path, c, at, message, it, cap, severity in over_hall(ctx.clusters, "critical_it_power", "critical IT power"):
        yield Violation(path, c.cluster.spec.id, at, str(message), it, cap, severity=severity,
                        public=getattr(message, "public", ""))   # `over_facility`'s customer words


@check("PWR011", "power.hall_redundancy")
def hall_redundancy(ctx: Context) -> Iterator[Violation]:
    """The hall's UPS modules, generator sets and utility feeds carry the cluster with their redundancy held back.

    Where the facility's `feeds` states `ups_units` (and `ups: N+1`, `N+N`…), the modules less the spares of that
    redundancy (N+k: k; N+N: half) carry the cluster's IT power; where it states `generator_units`, the sets less
    theirs carry the facility power at design conditions (IT power x the hall's `peak_pue`). Without a `peak_pue`
    they are judged on the annual PUE (`cost.energy.pue`), and the finding says so: an annual average is below the
    design day's, so a pass is optimistic (an info finding; without either PUE an info finding, not judged). With
    N+1 that is any one unit down, with 2N one side alone. Without an IT power (links without media, CAB003) the
    racks' own draw (x the PUE for the generators) is its floor (`hall_load.it_floor`): above the usable capacity an
    error, within it an info finding, not judged. Generator sets count at the hall's outdoor conditions where they
    state `rated_at` (a `derating` row covering the site; none: an error, no stated capacity there), and sets not
    known to hold there are an info finding (`hall_figures.generators_at_site`). Clusters of the run that name one
    hall and exceed its units together (other clusters' halls in it too), each within them alone, are a warning on
    each (`occupants.over_facility`). Units stated
    without their redundancy (`ups_units`, no `ups:`) are judged as N, and an info finding names the key. Utility
    feeds (`utility_units`, `utility:`) carry the facility power as the generator sets do, at their stated capacity;
    a utility count, voltage or redundancy without `utility_units` is an info finding, not judged. With
    `feeds.cdus_on_ups: true` the UPS load holds the in-row CDUs' pumps (`cdu_power`; `hall_figures.ups_pumps`).
    A unit rated in kVA counts kVA x the lower of its rated and the load's power factor (`Units.real`); with
    neither stated a warning says its real power is not provided and nothing is judged against it (`unit_rating`).
    Halls naming one `feeds.shared_utility` have the deployed clusters of every such hall of the run summed against
    its capacity (`shared_utility.shared_connection`). The sets and feeds also carry the UPS batteries' recharge,
    `ups_units.count` x `feeds.ups_recharge`, once per hall; with UPS modules and none an info finding says it is left
    out (`ups_recharge`). A hall naming its own facility holds its racks to its units (`own_halls.units_by_hall`).

    Fix: add UPS modules or generator sets, use larger ones, or place fewer racks in the hall; state the hall's
    `peak_pue` (design conditions) where only its annual PUE is given, and the sets' datasheet derating rows;
    for a kVA rating, the unit's rated `power_factor` or the load's `feeds.power_factor` from the datasheets.
    """
    yield from pf.hall_units(ctx)


@check("PWR012", "power.unconfirmed", severity="info")
def power_confirmed(ctx: Context) -> Iterator[Violation]:
    """A cluster's power and energy rest on power figures its parts confirm (not listed under `unconfirmed:`).

    A vendor with no public figure states its best one and lists it as unconfirmed (docs/spec-reference.md): the
    IT power, the PWR checks, the energy cost and a sweep's energy per token then rest on it, and this finding names
    it, as COST003 names assumed prices. A system with NICs says whether its figure includes them ("NICs included",
    a whole-system maximum input) or they are added to it ("NICs added", `power_includes_nics: false`), and the
    added NICs' unconfirmed `power` is named too, and so is a power shelf's unconfirmed `efficiency`, on which the
    cluster's IT power at the rack feeds rests (its shelves' loss); where the shelf states an `efficiency_range`,
    the finding gives the cluster's IT power at both ends. A cable's or transceiver's unconfirmed `power_per_end` is
    named with the count whose draw the IT power adds (modules drawing inside a node's maximum add nothing); where
    the link states a `power_range` (its sources disagree), the finding gives the figure used, the range and the IT
    power less at the range's low end. A switch whose source leaves unstated whether its maximum holds its ports'
    modules lists `power_includes_optics` as unconfirmed, and it is named too: the IT power adds those modules on
    top (or not). A `power.max` that is the part's PSUs' output (`max_basis: psu-rating` or `psu-active`, or equal to
    its PSU rating) is named as an upper bound, not a measured draw (`checks.psu_bound`).

    Fix: confirm the figure from a public source and remove it from the part's `unconfirmed:` list, or accept it
    knowingly (waive this finding with the reason); in place of a PSU rating, state the datasheet's maximum draw.
    """
    for path in sorted(ctx.clusters):
        own, said = unconfirmed_texts(ctx, path, pf.unconfirmed_power(ctx, path),
                                      pf.unconfirmed_power(ctx, path, said=True), pf.shelf_range(ctx, path))
        if own:
            yield Violation(path, ctx.clusters[path].cluster.spec.id, (), own, public=said)


@check("PWR013", "power.part_input")
def part_input(ctx: Context) -> Iterator[Violation]:
    """A placed part's power input (AC or DC, its voltage range, as the catalog states it) matches what feeds it.

    In a rack with power shelves, a part neither on PDUs (`power.pdus.serves`) nor fed from outside the rack
    (`power.external`) hangs on the shelves' DC busbar: it must take DC, within its voltage range where stated. A part
    on PDUs or on the feeds takes AC. A part that does not state `power.input` is not judged, nor is an AC part's
    voltage. `power.external` names placed loads (not shelves or PDUs), none of them in `power.pdus.serves` too.

    Fix: power an AC part beside the shelves (place PDUs and name it in `power.pdus.serves`), name it in
    `power.external` where the integrator feeds it from outside the rack, or choose the part's other input model.
    """
    yield from part_inputs(ctx)


@check("PWR014", "power.busbar_rating")
def busbar_rating(ctx: Context) -> Iterator[Violation]:
    """The current on the shelves' DC busbar (their load / output voltage) is within the busbar's stated rating.

    I = P / V at the shelves' output voltage: 137.5 kW on a 50 V busbar is 2,750 A. Judged where the rack states
    `power.shelves.busbar_rating`; the rack document shows the current either way.

    Fix: move load off the busbar (fewer trays, or parts on PDUs), or use a busbar rated for the current.
    """
    for path, a in ctx.racks.items():
        yield from busbar_over(path, a)


@check("PWR015", "power.hall_voltage")
def hall_voltage(ctx: Context) -> Iterator[Violation]:
    """The rack's feeds run at the voltage its hall distributes (`Facility.voltage`, line-to-line).

    A feed's capacity is V x A x phase factor at the rack's stated voltage, and PWR006 compares that voltage with
    the PDUs' and shelves' inputs: a rack stated at 415 V in a 480 V hall was judged at a voltage it never sees.

    Fix: state the rack's feeds at the hall's voltage (line-to-neutral: the hall's / √3), or correct the hall's.
    """
    yield from feeds_off_hall(ctx)


@check("PWR016", "power.pdu_outlets")
def pdu_outlets(ctx: Context) -> Iterator[Violation]:
    """Each PDU that states its `outlets` has one for every PSU cord the rack's outlet map puts on it.

    The outlet map is the rack document's (`analyse.distribution`: a part's PSUs alternate between the A and B sides
    under N+N, else go round the PDUs in turn), one cord per PSU of each placed system and switch. Parts whose PSUs
    the catalog does not give are not in the map: where the counted cords fit, an info finding names them, since
    their cords may not (`outlets` left at 0 is not judged). Outlet types (C13, C19) are not compared.

    Fix: more PDUs or PDUs with more outlets; state the PSUs (`power.psus`) of the parts the map leaves out.
    """
    yield from outlet_counts(ctx)


@check("PWR024", "power.psus_kept", severity="warning")
def psus_kept_with_a_pdu_lost(ctx: Context) -> Iterator[Violation]:
    """With PDU redundancy claimed, each part keeps the PSUs it needs for full power with a PDU or side lost.

    PWR004 judges the PDUs' capacity with a unit lost; this judges the parts they feed. Each case is the rack
    document's (an A/B side under N+N, each PDU in turn under N+1, the outlet map alternating each part's PSUs
    between them): a part left fewer PSUs than its own redundancy's N (a DGX B200's 5 of its 5+1, three on each
    side) runs below full power until the side is back, though the rack's budget reads N+N; one left none goes dark.

    Fix: give each part enough PSUs on either side (more PSUs, or PSUs with a wider rating), or accept reduced
    performance with a side lost and waive this finding with that reason.
    """
    yield from psus_kept(ctx)

