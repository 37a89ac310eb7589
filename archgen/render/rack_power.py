"""The power section of the rack document (`archgen.render.rack`); its cooling section is `render.rack_cooling`'s.

Numbers come from `archgen.analyse.rack.RackAnalysis`; this module selects, orders and labels them. The only
arithmetic is presentation: utilisation and headroom.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.feed_load import TYPICAL_POWER_FACTOR, assumed_power_factor, feed_loads, low_end
from archgen.analyse.power_chain import ARRANGEMENTS, Power, Stage
from archgen.analyse.rack import RackAnalysis
from archgen.checks.feed_shelves import feed_loss_with_shelves
from archgen.model import CoolingUnit
from archgen.model.rack import Feeds
from archgen.open_item import Worded
from archgen.render import alt_text, fmt
from archgen.render.blocks import Column, Figure, Para, Section, Table
from archgen.render.tables import Mark, plain
from archgen.units import Q


def ratio(value: Any, limit: Any) -> float | None:
    """The ratio value / limit as a plain number; None where either is missing or the limit is 0."""
    if value is None or limit is None or limit.magnitude == 0:
        return None
    return float((value / limit).to("").magnitude)


def _stage_row(name: str, stage: Stage, load: Any, mark: Mark = plain) -> tuple:
    return (name, stage.count, stage.unit_capacity, stage.redundancy, stage.unit_capacity * stage.count,
            stage.usable, stage.after_one_loss, mark(load), fmt.pct(ratio(load, stage.usable), 1))


def _kw(value: Q) -> str:
    """A figure in a kW column's cell, as the column shows its quantities: the number alone."""
    return fmt.cell(value.m_as("kW"), None, 1)


def _failure_rows(name: str, stage: Stage, load: Any, mark: Mark = plain, low: float | None = None) -> list[tuple]:
    """Each case of `stage`: what it loses, what carries the load, the capacity left and its verdict.

    `low`: a feed group's capacity at `TYPICAL_POWER_FACTOR` over its capacity at the assumed 1.00 (the feeds state
    no `power_factor`): each row then shows both ends, and a case that holds only at 1.00 is at risk, as PWR002
    warns of the same figures (`checks.feed_figures`); None where the power factor is stated (or a DC stage).
    """
    cases = [("all units healthy", 0, stage.unit_capacity * stage.count)]
    if stage.spare:
        cases.append((f"{stage.spare} unit(s) lost ({stage.redundancy})", stage.spare, stage.usable))
    if stage.spare != 1 and stage.count > 1:
        cases.append(("any one unit lost", 1, stage.after_one_loss))
    rows = []
    for case, lost, capacity in cases:
        headroom = capacity - load
        status = "pass" if headroom.magnitude >= 0 else "fail"
        shown: tuple[Any, ...] = (capacity, mark(load), headroom, fmt.pct(ratio(headroom, capacity), 1))
        by = f"{stage.count - lost} × {fmt.q(stage.unit_capacity, 'kW', 1)}"
        if low is not None:
            at = f" at PF {TYPICAL_POWER_FACTOR:.2f})"
            least = capacity * low
            short = least - load
            shown = (f"{_kw(capacity)} ({_kw(least)}{at}", mark(load), f"{_kw(headroom)} ({_kw(short)}{at}",
                     f"{shown[3]} ({fmt.pct(ratio(short, least), 1)}{at}")
            by += " at PF 1.00 (assumed)"
            if status == "pass" and short.magnitude < 0:
                status = f"at risk (fails at PF {TYPICAL_POWER_FACTOR:.2f}; PWR002)"
        rows.append((name, case, f"{lost} of {stage.count}" if lost else "nothing", by, *shown, status))
    return rows


def _feed_takes_shelves_rows(a: RackAnalysis, mark: Mark = plain) -> list[tuple]:
    """The case PWR003 judges beside the stages': one feed lost with the power shelves on it (one AC input each)."""
    loss = feed_loss_with_shelves(a)
    if loss is None:
        return []
    sh, headroom = loss.shelves, loss.left - loss.shelves.load
    word = "shelf" if loss.lost == 1 else "shelves"
    return [("Power shelves", f"one feed lost, with the {loss.lost} {word} on it (⌈{sh.count} / {loss.feeds.count}⌉, "
             "one AC input each; PWR003)", f"1 of {loss.feeds.count} feeds, {loss.lost} of {sh.count} shelves",
             f"{sh.count - loss.lost} × {fmt.q(sh.unit_capacity, 'kW', 1)}", loss.left, mark(sh.load), headroom,
             fmt.pct(ratio(headroom, loss.left), 1), "pass" if headroom.magnitude >= 0 else "fail")]


def typical_text(typical: Q | fmt.Noted | None, fell_back: tuple[str, ...], at_feeds: bool = False) -> str:
    """The typical-draw figure and its rule, naming the parts whose maximum stood in (`at_feeds`: shelf loss).

    A `fmt.Noted` figure reads with its word ("(unconfirmed)", or how much of it: it sums such draws, `tables.marked`).
    """
    feeds = ", and the power shelves' loss on them: at the rack feeds" if at_feeds else ""
    rule = (f"At typical draw the IT equipment takes {fmt.cell(typical, 'kW', 1)} (metric it_power_typical: each "
            f"system's and switch's typical draw where its datasheet states one, else its maximum, plus the "
            f"optics{feeds}); it "
            "is for average power and energy, and every budget above uses the maximum.")
    return rule + (f" No typical draw is published for {', '.join(fell_back)}: their maximum is used." if fell_back
                   else " Every part states a typical draw.")


def typical_note(maximum: Q | None, typical: Q | None, fell_back: tuple[str, ...]) -> str:
    """What a key-metrics typical figure rests on where parts state no typical draw (`typical_text` at length).

    "; typical = maximum (no typical draw stated for ...)" where it equals the maximum as shown (0.1 kW), else
    "; the maximum stands in for ... (no typical draw stated)"; '' where every part states one (newuser106, item 9).
    """
    if not fell_back or maximum is None or typical is None:
        return ""
    parts = ", ".join(fell_back)
    if round(maximum.m_as("kW"), 1) == round(typical.m_as("kW"), 1):
        return f"; typical = maximum (no typical draw stated for {parts})"
    return f"; the maximum stands in for {parts} (no typical draw stated)"


def _chain_text(p: Power) -> str:
    """How the load reaches the feeds, in words: 'The power shelves deliver 131.6 kW;' and the like."""
    if len(p.stages) < 2:
        return f"The {p.conversion_kind} deliver {fmt.q(p.stages[0].load if p.stages else p.load, 'kW', 1)};"
    shelves, pdus = p.stages
    if p.arrangement == "pdus-shelves":
        return (f"The power shelves deliver {fmt.q(shelves.load, 'kW', 1)} to the busbar and plug into the PDUs, "
                f"which carry {fmt.q(pdus.load, 'kW', 1)};")
    return (f"The power shelves deliver {fmt.q(shelves.load, 'kW', 1)} to the busbar and the PDUs beside them "
            f"{fmt.q(pdus.load, 'kW', 1)} to the parts they serve, each path on its own feeds;")


def _external_text(p: Power, said: bool = False, mark: Mark = plain) -> str:
    """' The sn2201 (0.2 kW) are fed from outside …' where `power.external` names parts, else ''.

    `said`: as a customer reads it, without the spec key.
    """
    if not p.external_parts:
        return ""
    return (f" {', '.join(p.external_parts)} ({fmt.q(p.external, 'kW', 2)}) are fed from outside the rack's "
            f"shelves, PDUs and feeds{'' if said else ' (power.external)'}, so no budget below carries them; the "
            f"rack's input power, "
            f"{fmt.cell(mark(p.input_power), 'kW', 1)}, and its heat count them.")


def _busbar_rows(a: RackAnalysis) -> tuple[tuple[str, str], ...]:
    """The busbar's voltage, current (I = P / V) and its rating against it, where stated (PWR014)."""
    p, shelves = a.power, a.rack.spec.power.shelves
    load, current = p.stages[0].load, p.busbar_current
    rating = shelves.busbar_rating if shelves is not None else None
    return (("Busbar voltage (power shelves' output)", fmt.q(p.busbar_voltage, "V", 0)),
            ("Busbar current (shelves' load / voltage)", f"{fmt.q(load, 'kW', 1)} / {fmt.q(p.busbar_voltage, 'V', 0)} "
                                                         f"= {fmt.q(current, 'A', 0)}"),
            ("Busbar rating", f"{fmt.q(rating, 'A', 0)} ({fmt.pct(ratio(current, rating), 1)} used; PWR014)"
             if rating is not None else "not stated (power.shelves.busbar_rating); the current is not checked"))


def power_factor_text(feeds: Feeds) -> str:
    """The feeds' power factor, marked assumed where the spec leaves it to the default (1.00, `Feeds.power_factor`)."""
    return _stated_or_assumed(feeds, "power_factor", f"{feeds.power_factor:.2f}")


def derating_text(feeds: Feeds) -> str:
    """The feeds' continuous-load derating, marked assumed where left to the default (80 %, NEC 210.20(A))."""
    return _stated_or_assumed(feeds, "derating", fmt.pct(feeds.derating), ", NEC 210.20(A) continuous load")


def _stated_or_assumed(feeds: Feeds, name: str, shown: str, why: str = "") -> str:
    """`shown` as stated, or marked assumed where `power.feeds.<name>` is left to its default."""
    if name in feeds.model_fields_set:
        return shown
    return Worded(f"{shown} (assumed: not stated in power.feeds.{name}, the default{why})",
                  f"{shown} (assumed: not stated, the default{why})")


def per_feed(a: RackAnalysis, mark: Mark = plain) -> tuple[Para, Table]:
    """Each feed's load and current, normally and with the spares of its redundancy lost (`analyse.feed_load`).

    Against one feed's continuous rating (breaker x derating); at the feeds' power factor, and where that is the
    assumed 1.00, the current at `TYPICAL_POWER_FACTOR` beside it (PWR002's info finding gives the same).
    """
    feeds = a.rack.spec.power.feeds
    assumed = assumed_power_factor(feeds)
    at = feed_loads(a.power, feeds, TYPICAL_POWER_FACTOR) if assumed else []
    rows = []
    for i, fl in enumerate(feed_loads(a.power, feeds)):
        g, typical = fl.group, at[i] if at else None
        cases: list[tuple[str, str, int, Q, Q | None, Q | None]] = [
            ("normal operation", "nothing", g.count, fl.per_feed, fl.current, typical.current if typical else None)]
        if fl.per_feed_lost is not None:
            cases.append((f"the spares lost ({g.redundancy})", f"{fl.lost} of {g.count}", g.count - fl.lost,
                          fl.per_feed_lost, fl.current_lost, typical.current_lost if typical else None))
        for case, lost, left, load, current, at_typical in cases:
            rows.append((fmt.sentence(g.kind), case, lost, left, mark(load), current, fl.rating,
                         fmt.pct(ratio(current, fl.rating), 1))
                        + ((at_typical,) if assumed else ()))
    cols = (Column("Feeds"), Column("Case"), Column("Lost"), Column("In service", digits=0, align="right"),
            Column("Load per feed", "kW", 1, "right"), Column("Current per feed", "A", 1, "right"),
            Column("Continuous rating", "A", 1, "right"), Column("Used", align="right")) + \
        ((Column(f"Current at PF {TYPICAL_POWER_FACTOR:.2f}", "A", 1, "right"),) if assumed else ())
    pf = (f"the assumed power factor 1.00 (none stated; the last column at {TYPICAL_POWER_FACTOR:.2f}, the 80 PLUS "
          "Platinum and Titanium PSUs' minimum at 50 % load)" if assumed else
          f"the stated power factor {feeds.power_factor:.2f}")
    return (Para(f"What one feed carries: the load divided equally among the feeds in service (a shared busbar or "
                 "load-sharing PSUs; an uneven split is not modelled), and its current per phase, P / (phase factor "
                 f"x V x PF), at {pf}, against the feed's continuous rating (breaker x derating). The loss case "
                 "drops every spare the redundancy holds back (N+1 one feed, N+N a side)."),
            Table("per-feed", "Load and current per feed", cols, tuple(rows)))


def _other_text(a: RackAnalysis) -> str:
    """The draw of the rack's other equipment (placed CDUs); 'not provided' for the units that state no `power`."""
    unstated = sorted({p.part.id for p in a.rack.items if isinstance(p.part, CoolingUnit) and p.part.power is None})
    if not unstated:
        return fmt.q(a.power.other_power, "kW", 1)
    named = ", ".join(unstated)
    if a.power.other_power.magnitude:
        return (f"{fmt.q(a.power.other_power, 'kW', 1)} and, for {named}, not provided (no `power` stated: not in "
                f"the load, feeds or heat below)")
    return f"not provided ({named} states no `power`: not in the load, feeds or heat below)"


def power(a: RackAnalysis, dist: Section | None = None, mark: Mark = plain, typical: Mark = plain) -> Section:
    """Feeds, derating, conversion stages, redundancy and failure cases; the PDU distribution when given.

    `mark` marks a figure that sums the placed parts' draws "(unconfirmed)" where one of them is (the rack document's
    `tables.unconfirmed_power`): the IT power, the loads and the feeds' supply; not the headroom, current and
    utilisation computed from them; `typical` the IT power at typical draw.
    """
    p, feeds = a.power, a.rack.spec.power.feeds

    def kw(value: Any) -> str:
        return fmt.cell(mark(value), "kW", 1)

    draws = (f"IT equipment draws {kw(p.it_power)} at maximum: the catalog maximum draws, "
             f"{kw(p.equipment)}, and the transceivers and active cable ends no part's figure holds, in "
             f"its switches' ports and in the NICs of systems whose maximum leaves them out "
             f"({fmt.q(p.optics, 'kW', 2)}, the most loaded rack of this type in the clusters); other "
             f"equipment in the rack {_other_text(a)}. {_chain_text(p)} the feeds supply "
             f"{kw(p.feeds.load)} including conversion losses.")
    section = Section("power", "Power").add(
        Para(Worded(draws + _external_text(p, mark=mark), draws + _external_text(p, said=True, mark=mark))),
        Para(typical_text(typical(p.it_typical), p.typical_from_max)),
        Figure("fig-power", "power", "Power budget: load against nameplate, usable (with redundancy) and "
                                     "one-unit-lost capacity of the conversion stage and the feeds", alt_text.power(a)))
    stages = [_stage_row(fmt.sentence(st.kind), st, st.load, mark) for st in p.stages]
    pf = ", at PF 1.00 assumed" if assumed_power_factor(feeds) else ""   # as the failure cases show (PWR002's)
    stages += [_stage_row(f"{fmt.sentence(g.kind)} (after derating{pf})", g, g.load, mark) for g in p.feed_groups]
    cols = (Column("Stage"), Column("Units", digits=0, align="right"), Column("Unit capacity", "kW", 1, "right"),
            Column("Redundancy"), Column("Nameplate", "kW", 1, "right"), Column("Usable", "kW", 1, "right"),
            Column("One unit lost", "kW", 1, "right"), Column("Load", "kW", 1, "right"),
            Column("Utilisation of usable", align="right"))
    section.add(Table("power-budget", "Power budget", cols, tuple(stages)))
    phase = {1: "1-phase: V × A", 3: "3-phase: √3 × V(L-L) × A" if feeds.basis == "line-to-line"
             else "3-phase: 3 × V(L-N) × A"}[feeds.phases]
    feed_rows: tuple[tuple[str, str], ...]
    feed_rows = (("Feeds", f"{feeds.count} × {fmt.q(feeds.voltage, 'V', 0)} {feeds.basis}, {feeds.phases}-phase, "
                           f"{fmt.q(feeds.current, 'A', 0)} breaker"),
                 ("Apparent power per feed", f"{phase} (factor {p.phase_factor:.3f})"),
                 ("Continuous-load derating", derating_text(feeds)),
                 ("Power factor", power_factor_text(feeds)),
                 ("Usable power per feed", fmt.q(p.feed_capacity, "kW", 1)),  # as the budget table
                 ("Feed redundancy", f"{feeds.redundancy} ({p.feeds.spare} feed(s) held in reserve)"))
    if len(p.stages) > 1:  # shelves and PDUs: say how they connect (ARRANGEMENTS) and how the feeds divide
        split = ", ".join(f"{g.count} {g.kind}" for g in p.feed_groups)
        feed_rows += (("Arrangement", ARRANGEMENTS[p.arrangement] + (f" ({split})" if len(p.feed_groups) > 1
                                                                      else "")),)
    section.sub("feeds", "Feeds and derating",
                Table("feeds", "Feeds and derating", (Column("Item"), Column("Value")), feed_rows), *per_feed(a, mark))
    if p.busbar_current is not None:
        section.sub("busbar", "DC busbar", Table("busbar", "DC busbar", (Column("Item"), Column("Value")),
                                                 _busbar_rows(a)))
    low = low_end(feeds)
    failure = [row for st in p.stages for row in _failure_rows(fmt.sentence(st.kind), st, st.load, mark)]
    failure += [row for g in p.feed_groups for row in _failure_rows(fmt.sentence(g.kind), g, g.load, mark, low)]
    failure += _feed_takes_shelves_rows(a, mark)
    case_cols = (Column("Stage"), Column("Case"), Column("Lost"), Column("Carried by"),
                 Column("Capacity", "kW", 1, "right"), Column("Load", "kW", 1, "right"),
                 Column("Headroom", "kW", 1, "right"), Column("Margin", align="right"), Column("Status"))
    section.sub("failure-cases", "Redundancy and failure cases",
                Para("What each case loses, what still carries the load, and the capacity left against that load "
                     "(margin = headroom / capacity). PWR001–PWR004 in the validation report check the same "
                     "figures." + ("" if low is None else
                                   f" The feeds state no power factor: their capacity is at the assumed 1.00 (kW = "
                                   f"kVA, the least conservative reading) and, in brackets, at "
                                   f"{TYPICAL_POWER_FACTOR:.2f} (the 80 PLUS Platinum and Titanium PSUs' minimum at "
                                   "50 % load); a case that holds only at 1.00 is at risk, not a pass (PWR002).")),
                Table("failure-cases", "Failure cases", case_cols, tuple(failure), status_column=8))
    if dist is not None:
        section.sections.append(dist)
    return section
