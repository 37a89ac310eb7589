"""The fibre cords of a cluster's optical links: one per cable, by media, connector, polarity, split and length bin.

The BOM counts them (`fibre_lines`) and the port map names each optical cable's cord (`fibre_cord`) with the same id,
so an installer can count the port map's rows per cord and find the BOM's quantity. Connector and polarity are the
Link part's `connector` and `polarity` (NVIDIA's NDR/XDR and 400/800G Ethernet optics: MPO patch cords APC, female,
Type-B polarity per TIA-568; "NVIDIA Interconnect Structured Cabling Requirements for InfiniBand NDR/XDR and
400/800G ETH Solutions", "MPO/LC Cable Requirements",
https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements).

A cable that carries k > 1 links (`TierCabling.cords_by_bin`, per run: a twin-port module's connector serving two
200G ends, a NIC cage's connector split over two planes; a reserved port of the same tier at a single-port cage takes
a straight cord) is a 1:k splitter cable, a part of its own: NVIDIA sells the straight
MPO crossover fibres (MFP7E10 multimode, MFP7E30 single-mode) and the 1:2 splitters (MFP7E20, MFP7E40) apart, and
one twin-port may not mix them ("Both fibers in the Twin-port 2x400G transceiver ... must be the same type -
straight or splitter", MMA4Z00-NS400-T Connectivity Scenarios,
https://docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios; MMS4X00-NS400 overview,
https://docs.nvidia.com/networking/display/mms4x00ns400/overview).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from archgen.analyse.bom_line import BomLine
from archgen.model.network import COPPER_MEDIA

if TYPE_CHECKING:
    from archgen.analyse.tier_cabling import TierCabling
    from archgen.build import LinkOption
    from archgen.model.network import FibreGrade


def fibre_lines(tiers: Sequence[TierCabling]) -> list[BomLine]:
    """One fibre patch cord per optical link (a split cord once), by media, connector, polarity and length bin.

    A cord split across several ports (`links_per_cable`) counts once, as a 1:k splitter cable of its own line; a
    0 m bin is a length not known. Each line's id is `fibre_cord`'s, as the port map names the cord of each cable.
    """
    cords: Counter[tuple[str, str, str, str, int, float, int]] = Counter()
    assumed: set[tuple[str, str, str, str, int, float, int]] = set()   # holding runs with an end in no rack
    for t in tiers:
        optical = {opt.label: opt for opt in t.options if opt.a.media not in COPPER_MEDIA}
        for (label, length, legs), n in t.cords_by_bin.items():   # cables: a split cord once, per run (`cable_bins`)
            opt = optical.get(label)
            if opt is not None and n:
                key = (*_kind(opt), _grade(opt, float(length)), legs, float(length), cord_fibres(opt) or 0)
                cords[key] += n
                if t.assumed_cords.get((label, length, legs)):
                    assumed.add(key)
    lines = []
    for key, n in sorted(cords.items()):   # kind, length
        media, connector, polarity, grade, legs, length, fibres = key
        pid, name, note = _cord(media, connector, polarity, length, legs, grade, fibres)
        lines.append(BomLine(pid, "Fibre", n, None, note + (ASSUMED if key in assumed else ""), name=name))
    return lines


#: A fibre line's note where some of its cords are for runs whose length is assumed (CAB004); no count, as the
#: note is a key across the sizes of the BOM by size.
ASSUMED = "; assumed length for runs with an end in no rack (the floor's longest run, CAB004)"


def fibre_cord(opt: LinkOption, length: float, legs: int = 1) -> str:
    """The BOM id of the fibre patch cord an optical link option takes at a length bin (`fibre_lines`' line).

    Its media, connector and polarity are the Link part's (either end's where one states none); an unstated
    connector is named 'unknown' in the id, an unstated polarity left out of it (the BOM line's name says so).
    `legs`: the links the cable carries, above 1 a 1:k splitter cable. Its fibre grade is `_grade`'s at `length`.
    """
    return _cord(*_kind(opt), length, legs, _grade(opt, length), cord_fibres(opt) or 0)[0]


def cord_fibres(opt: LinkOption) -> int | None:
    """Fibres lit in one cord of an optical option (its part's `fibres`, either end's); None where neither states it.

    A 1:k splitter cable carries the same strands at its single end as a straight cord (NVIDIA MFP7E20: one
    MPO-12 of 8 fibres to two MPO-12 of 4), so the count is per cable whatever its split.
    """
    return opt.a.fibres or opt.b.fibres


def fibre_grades(opt: LinkOption) -> tuple[FibreGrade, ...]:
    """The fibre grades an optical option's cable may take, shortest reach first: its part's (either end's)."""
    return tuple(opt.a.fibre or opt.b.fibre)


def _grade(opt: LinkOption, length: float) -> str:
    """The fibre grade of an option's cable at an ordered length: its part's first `fibre` grade that reaches it.

    NVIDIA: OM3 up to 30 m, OM4 past 30 m to 50 m; past them all, the last, a cord longer than its reach (a part
    whose reach is past its grades' is CAT012's error, a run whose length bin only is CAB009's warning: review41,
    cab29, net30). Either end's grades where one states none; '' where neither does. A length not known (0 m) gives
    every grade with its reach ('OM3 to 30 m or OM4 to 50 m'), the choice left to the installer's lengths.
    """
    grades = fibre_grades(opt)
    if not grades:
        return ""
    if not length:
        return " or ".join(f"{g.grade} to {g.reach.m_as('m'):g} m" for g in grades)
    return next((g.grade for g in grades if length <= g.reach.m_as("m") + 1e-9), grades[-1].grade)


def _kind(opt: LinkOption) -> tuple[str, str, str]:
    """Media, connector and polarity of an option's cord (either end's where one states none)."""
    return opt.a.media, opt.a.connector or opt.b.connector, opt.a.polarity or opt.b.polarity


def _cord(media: str, connector: str, polarity: str, length: float, legs: int = 1,
          grade: str = "", fibres: int = 0) -> tuple[str, str, str]:
    """BOM id, name and note of the patch cord of one kind at a length bin (0 m: a length not known).

    `legs` above 1: a 1:k splitter cable, one connector at one end and `legs` at the other (`1:2` in its name and id).
    `grade`: its fibre grade (`_grade`), '' where the Link part states none (the name says so, the id leaves it out).
    `fibres`: strands lit per cable (`cord_fibres`), 0 where not stated (the name says so, the id ends '-nf').
    """
    size = f"{length:g} m" if length else "length not known"
    plug = connector or "connector not in the catalog"
    pol = f"polarity {polarity}" if polarity else "polarity not stated"
    fibre = grade or "fibre grade not stated"
    strands = f"{fibres} fibres" if fibres else "fibre count not stated"

    def slug(text: str) -> str:
        return text.lower().replace("/", "-").replace(" ", "-")
    split = f"-split-1x{legs}" if legs > 1 else ""
    kind = f"{'-' + slug(polarity) if polarity else ''}{split}{'-' + slug(grade) if grade and length else ''}"
    pid = f"fibre-{media}-{slug(connector or 'unknown')}{kind}-{length:g}m{'' if fibres else '-nf'}"
    if legs > 1:
        ends = f"{plug} to {legs} x {plug}" if connector else plug
        return (pid, f"{media.capitalize()} fibre 1:{legs} splitter cable, {ends}, {strands}, {pol}, {fibre}, {size}",
                f"one per {legs} optical links split at one end (a connector serving {legs} far ports), {size} bin")
    return (pid, f"{media.capitalize()} fibre patch cord, {plug}, {strands}, {pol}, {fibre}, {size}",
            f"one per optical link (a split cable once), {size} bin")
