"""PWR's checks of a hall's units, rating and lists (PWR017 to PWR023), moved out of `checks.power`.

Split from `archgen.checks.power` for its size (as it holds them: each check's `@check` and docstring, its findings
the named helpers'): a hall's UPS modules, generator sets and utility feeds in counts their redundancy wastes, a
Tier III or IV claim over units stated N, UPS autonomy against the generator sets' start, the clusters a hall lists
as `deployed` and the totals it has without them, its load step and ramp against its supply's limits, and its UPS
load over an unstated distribution efficiency. `checks.power` imports it, so PWR's checks register together.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks import power_figures as pf
from archgen.checks.hall_deployed import deployed_problems, totals_not_provided
from archgen.checks.hall_figures import tier_contradictions, wasted_units
from archgen.checks.registry import Context, Violation, check
from archgen.checks.ride_through import ride_through
from archgen.checks.ups_distribution import lossless_distribution
from archgen.model import Facility


@check("PWR017", "power.hall_units_wasted", severity="warning")
def hall_units_wasted(ctx: Context) -> Iterator[Violation]:
    """A hall's UPS modules, generator sets and utility feeds: counts their redundancy uses (2N even, N+k spares).

    N+N (2N) splits the units into two sides, each to carry the load alone. With an odd count the sides cannot be
    equal and PWR011 counts the smaller (3 modules at 2N: 1 usable, as 2 would give), so the odd unit adds no usable
    capacity: as PWR005 for a rack's feeds, shelves and PDUs. An N+k that holds back every unit (N+2 of 2) leaves
    none to carry the load (`hall_figures.wasted_units`).

    Fix: make a 2N count even (one more unit, or one fewer), or state N+1 (all but one usable); an N+k needs more
    than k units.
    """
    for fac in ctx.design.specs.of(Facility):
        yield from wasted_units(fac)


@check("PWR018", "power.tier_redundancy", severity="warning")
def tier_redundancy(ctx: Context) -> Iterator[Violation]:
    """A hall's Uptime Tier III or IV claim, or `concurrently_maintainable`, has redundant UPS, generators and cooling.

    The Tier Standard: Topology asks both tiers for redundant capacity components, each removable on a planned basis
    without impacting the IT load; a hall stating `feeds.ups`, `generators` or `cooling` as N contradicts that
    (`hall_figures.tier_contradictions` quotes the clauses). One utility feed is not a finding: the Standard takes the
    generator sets as the primary power source. Unstated redundancy, distribution paths and TIA-942 or EN 50600
    ratings are not judged.

    Fix: state the redundancy the hall has (N+1, 2N) with its units, or the tier the hall meets.
    """
    for fac in ctx.design.specs.of(Facility):
        yield from tier_contradictions(fac)


@check("PWR019", "power.ups_ride_through")
def ups_ride_through(ctx: Context) -> Iterator[Violation]:
    """The hall's UPS autonomy covers its generator sets' start and transfer (`checks.ride_through`, NFPA 110).

    Severity: an info finding, not a pass, where a hall with UPS and generator sets states no `feeds.ups_autonomy`
    or no `feeds.generator_transfer`: the ride-through is not provided, so it is not judged.

    Fix: a longer battery autonomy, or generator sets that start and transfer faster; state both figures.
    """
    for fac in ctx.design.specs.of(Facility):
        yield from ride_through(fac)


@check("PWR020", "power.hall_deployed")
def hall_deployed(ctx: Context) -> Iterator[Violation]:
    """Each id a hall's `deployed` lists is a cluster of the run whose `facility` is that hall.

    Fix: list the ids of the clusters standing in the hall (`archgen check` the directory that holds them all), or
    remove the id; a cluster in another hall is listed in that hall's `deployed`.
    """
    for fac in ctx.design.specs.of(Facility):
        yield from deployed_problems(fac, ctx.clusters)


@check("PWR021", "power.hall_totals", severity="info")
def hall_totals_stated(ctx: Context) -> Iterator[Violation]:
    """A hall several clusters of the run name says which stand in it together (`deployed`), or has no totals.

    An empty list (`deployed: []`) says that none does yet: every cluster naming the hall is a candidate judged
    alone, and the hall has no totals either; the finding says so wherever a cluster of the run names the hall.

    Fix: list the clusters deployed side by side in the hall's `deployed`; alternatives for one hall are left out.
    """
    for fac in ctx.design.specs.of(Facility):
        yield from totals_not_provided(fac, ctx.clusters)


@check("PWR022", "power.hall_swing", severity="info")
def hall_swing_unjudged(ctx: Context) -> Iterator[Violation]:
    """A hall's load step within its stated `feeds.load_step_limit`; else its units' judgement leaves the swing out.

    PWR011 holds them to the cluster's maximum draw as if it were steady. Synchronous training swings the whole load
    between a step's compute and communication phases, and checkpoints and a job's start and stop step it; no spec
    states a part's draw per phase, its ramp rate or a power-smoothing setting, so the swing the sets must accept
    and the utility must see is not provided (`hall_words.SWING_UNJUDGED`, sources there). An info finding on
    each cluster PWR011 judges on a load, so its pass is never read as covering the swing. Where the hall states
    `feeds.load_step_limit`, a job's start or stop (at most the IT power) is held to it; with its
    `feeds.power_smoothing` (else its parts' own, `power.smoothing`), a training step's swing, the IT power x (1 -
    `floor`), is, and a start or stop ramps at its `ramp_up` and `ramp_down` (the parts' summed where slower), which
    `feeds.ramp_rate_limit` holds; each over `feeds.distribution_efficiency` where stated, and within its limit with
    the margin the losses no spec states must fit in (`hall_swing`).

    Severity: an error where the stated smoothing's swing or ramp exceeds the stated limit; a warning, not provided,
    where only the whole IT power bounds the step and it exceeds the limit (the step may), where the cluster's IT
    power, its bound, is not provided (`hall_swing.step_unknown`), where a ramp limit is stated and the smoothing
    states no ramps, or where the hall's deployed clusters' steps sum above it (`hall_swing.hall_step`; else info).

    Fix: state the hall's `feeds.power_smoothing` (floor, ramps) from the racks' smoothing profile or the site's
    energy storage, and raise the floor or slow the ramps until the swing fits; else agree the load's step and ramp
    with the utility and the generator sets' maker and waive it with that reason.
    """
    yield from pf.hall_swing(ctx)


@check("PWR023", "power.ups_distribution", severity="info")
def ups_distribution(ctx: Context) -> Iterator[Violation]:
    """A hall with UPS modules states the efficiency of the distribution between them and the rack feeds.

    PWR011 holds the UPS modules to the rack feeds' load over `feeds.distribution_efficiency` (PDU transformers,
    busway, panels: a three-phase 300 kVA dry-type transformer may lose 0.98 % at 35 % load, 10 CFR 431.196(a)(2)).
    Unstated, the distribution is taken as lossless and the UPS load is a lower bound: an info finding on each
    cluster in such a hall (on a floor of halls naming their own facilities, each of those), never a default.

    Fix: state `feeds.distribution_efficiency` from the transformers' and busway's datasheets at the load.
    """
    for path, c in ctx.clusters.items():
        yield from lossless_distribution(path, c)
