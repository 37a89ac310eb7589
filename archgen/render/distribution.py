"""The power-distribution part of a rack document: PSU-to-PDU outlet map, load per phase, PDU failure cases.

Figures come from `archgen.analyse.distribution`; this module only lays them out (utilisation = load / capacity is
the only arithmetic).
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.distribution import Distribution, distribution, phase_names
from archgen.open_item import OpenItem
from archgen.render import fmt
from archgen.render.blocks import Column, Para, Section, Table


def section(a: Any) -> tuple[Section | None, list[str]]:
    """The 'Power distribution' subsection of a rack with PDUs and its open items; (None, []) without PDUs."""
    p = a.power
    if p.conversion is None or p.conversion_kind != "PDUs":
        return None, []
    d = distribution(a.rack, p.conversion.unit_capacity, p.optics)
    if d is None:
        return None, []
    open_items = [f"{pid} is not in the outlet map or the phase loads: the catalog does not give its PSUs."
                  for pid in d.unmapped]
    for c in d.cases if d.redundancy == "N" else ():   # under a claimed redundancy PWR024's finding says it
        if c.short or c.dark:
            names = sorted({name.split(" at ")[0] for name, _, _ in c.short} | {n.split(" at ")[0] for n in c.dark})
            open_items.append(OpenItem(
                "to", f"With {c.lost} lost, {len(c.short)} part(s) keep fewer PSUs than full power needs and "
                f"{len(c.dark)} lose every PSU ({', '.join(names)})", instruction="feed each part's PSUs so that "
                "either side reaches the N its PSU redundancy needs, or accept reduced performance"))
    open_items.append(OpenItem("to", "The outlet map is a proposal by stated rules (PSUs share their part's load "
                               "equally; A/B sides alternate; each PSU on the least-loaded phase)",
                               instruction="confirm it against the PDU model's outlet banks and whether its outlets "
                               "are wired line to neutral or line to line"))
    sub = Section("distribution", "Power distribution").add(Para(
        f"PDU redundancy {d.redundancy}"
        + (": the PDUs form two sides, A (the first half) and B, and each part's PSUs alternate between them, so "
           "either side alone reaches half of them." if d.sides else ": each part's PSUs go round the PDUs in turn.")
        + " PSUs share their part's maximum draw equally, a switch's with its share of the transceivers in the "
          "rack's switch ports (by ports); within a PDU each PSU takes the least-loaded phase. A PDU's capacity per "
          "phase is its rating × the feeds' continuous-load derating and power factor / phases, the capacity the "
          "power budget counts."))
    if d.outlets:
        sub.add(outlet_table(d), phase_table(d), cases_table(d))
    return sub, open_items


def outlet_table(d: Distribution) -> Table:
    """Every PSU: part, U, PSU number, PDU, side, phase and load."""
    rows = tuple((o.part, o.u, o.psu, o.pdu, o.side or "—", phase_names(len(d.pdus[0].phases))[o.phase - 1], o.load)
                 for o in d.outlets)
    cols = (Column("Part"), Column("U", digits=0, align="right"), Column("PSU", digits=0, align="right"),
            Column("PDU", digits=0, align="right"), Column("Side"), Column("Phase"),
            Column("Load", "kW", 2, "right"))
    return Table("outlet-map", "PSU-to-PDU outlet map", cols, rows)


def phase_table(d: Distribution) -> Table:
    """Load per PDU and phase against capacity, the most loaded phase's utilisation and the imbalance."""
    names = phase_names(len(d.pdus[0].phases))
    rows = tuple((u.pdu, u.side or "—", *u.phases, u.capacity,
                  fmt.pct(max(x.m_as("kW") for x in u.phases) / u.capacity.m_as("kW"), 1), fmt.pct(u.imbalance, 1))
                 for u in d.pdus)
    cols = (Column("PDU", digits=0, align="right"), Column("Side"),
            *(Column(n, "kW", 2, "right") for n in names), Column("Capacity per phase", "kW", 2, "right"),
            Column("Most loaded phase", align="right"), Column("Imbalance", align="right"))
    return Table("phase-load", "Load per phase (all PDUs healthy)", cols, rows)


def cases_table(d: Distribution) -> Table:
    """Each PDU or side lost: what goes with it, what carries the load, the worst phase and its margin."""
    rows = []
    for c in d.cases:
        short = "; ".join(f"{name}: {left} PSUs left, {need} needed for full power" for name, left, need in c.short)
        dark = "; ".join(f"{name}: no PSU left" for name in c.dark)
        effect = "; ".join(x for x in (dark, short) if x) or "every part keeps its PSU redundancy's N"
        ok = c.margin >= 0 and not c.dark
        rows.append((c.lost, f"{c.psus_lost} PSUs", c.carried_by, c.worst_phase, c.capacity, fmt.pct(c.margin, 1),
                     effect, ("pass" if not c.short else "warn") if ok else "fail"))
    cols = (Column("Lost"), Column("PSUs lost", align="right"), Column("Carried by"),
            Column("Most loaded phase", "kW", 2, "right"), Column("Capacity per phase", "kW", 2, "right"),
            Column("Margin", align="right"), Column("Parts below full power"), Column("Status"))
    return Table("pdu-failure", "PDU failure cases", cols, tuple(rows), status_column=7)
