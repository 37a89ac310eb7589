"""Every liquid-loop, air-path and enclosure figure of a shipped rack cites its source, or is marked unconfirmed.

lo23cat found the catalog racks' loops (gb200-nvl72, gb300-nvl72, mi355x-compute, tpu-v4-cube: `supply` 40 °C,
`delta_t` 10 K, `racks_per_cdu` 8 or 16, `cdu_count` 2) citing nothing, and a rack had no way to mark them, so
documents printed them as facts. Each figure the cooling analysis and checks read (`LIQUID_FIGURES`) is now either
under the loop's `unconfirmed:` (all of them with `true`) or cited by an entry of its `source:` that starts with the
figure's name and points at a public page or document; the documents then tag the rest "assumed" and COOL016 names
them in `archgen check`.

airsrc: the air path (`air: {class: A2, delta_t: 20 K}` on all 15 shipped racks) and the enclosure (the 150/180 kg
empty weights, assumed only in prose) had the same hole; `AIR_FIGURES` and `ENCLOSURE_FIGURES` are held to the same
rule (COOL017, MECH005).
"""

from __future__ import annotations

import re

import pytest

from archgen.model.base import is_marked
from archgen.model.rack import AIR_FIGURES, ENCLOSURE_FIGURES, LIQUID_FIGURES, AirPath, FormFactor, LiquidPath
from tests.shipped_yaml import ROOT, shipped_documents

#: A citation: a URL, a repository file, or a named document with its table or section.
CITED = re.compile(r"https?://|\b[\w.-]+/[\w.-]+ [\w./-]+\.(?:md|json|ya?ml|py)\b|\b(?:table|section)\b", re.I)


#: Each figure group of a rack, where it sits and the figures it must cite or mark.
GROUPS = (("cooling.liquid", LIQUID_FIGURES), ("cooling.air", AIR_FIGURES), ("form_factor", ENCLOSURE_FIGURES))


def _racks() -> list[tuple[str, dict]]:
    """Each rack a shipped spec states (a Rack document, or a rack defined inside a cluster), with where."""
    out = []
    for f, i, doc in shipped_documents():
        if not isinstance(doc, dict):
            continue
        racks = [doc] if doc.get("kind") == "Rack" else [r for r in doc.get("racks") or [] if isinstance(r, dict)]
        out += [(f"{f.relative_to(ROOT)}#{i}:{rack.get('id', '')}", rack) for rack in racks]
    return out


def _groups() -> list[tuple[str, str, tuple[str, ...], dict]]:
    """Each figure group (`GROUPS`) a shipped rack states, with where: its liquid loop, air path and enclosure."""
    out = []
    for where, rack in _racks():
        for at, figures in GROUPS:
            group = rack
            for key in at.split("."):
                group = group.get(key) if isinstance(group, dict) else None
            if isinstance(group, dict):
                out.append((where, at, figures, group))
    return out


FOUND = _groups()
LOOPS = [(where, g) for where, at, _, g in FOUND if at == "cooling.liquid"]
IDS = [f"{w}:{at}" for w, at, _, _ in FOUND]


def test_the_catalog_racks_groups_are_found() -> None:
    ids = {where.rsplit(":", 1)[1] for where, _ in LOOPS}
    assert {"gb200-nvl72", "gb300-nvl72", "mi355x-compute", "tpu-v4-cube"} <= ids
    # every shipped rack has an air path and an enclosure (15 of them when airsrc marked them)
    for at in ("cooling.air", "form_factor"):
        assert len([w for w, a, _, _ in FOUND if a == at]) == len(_racks()) >= 15


@pytest.mark.parametrize(("where", "at", "figures", "group"), FOUND, ids=IDS)
def test_a_figure_is_cited_or_unconfirmed(where: str, at: str, figures: tuple[str, ...], group: dict) -> None:
    marks = group.get("unconfirmed", False)
    source = group.get("source", "")
    entries = [" ".join(str(s).split()) for s in (source if isinstance(source, list) else [source])]
    for figure in figures:
        if figure == "weight" and at == "form_factor" and group.get(figure) is None:
            continue  # the enclosure's empty weight no source states is left out: not provided (weight36)
        cited = [e for e in entries if e.startswith(f"{figure}:") and CITED.search(e)]
        assert is_marked(marks, figure) or cited, (
            f"{where}: {at}.{figure} ({group.get(figure, 'default')}) is neither cited in source: "
            f"('{figure}: <page or document, table>') nor listed under unconfirmed:")


@pytest.mark.parametrize(("where", "at", "figures", "group"), FOUND, ids=IDS)
def test_an_assumed_group_says_how_it_was_chosen(where: str, at: str, figures: tuple[str, ...],
                                                 group: dict) -> None:
    if group.get("unconfirmed"):
        assert len(group.get("notes", "")) > 40, f"{where}: unconfirmed {at} figures with no notes on their choice"


def test_a_misspelt_mark_is_refused() -> None:
    base = {"cdu": "c", "supply": "40 degC", "delta_t": "10 K", "class": "W32"}
    assert LiquidPath.model_validate({**base, "unconfirmed": ["supply", "class"]}).assumed() == ("supply", "class")
    assert LiquidPath.model_validate({**base, "unconfirmed": True}).assumed() == LIQUID_FIGURES
    with pytest.raises(Exception, match="'suply' is no figure of the rack's liquid loop"):
        LiquidPath.model_validate({**base, "unconfirmed": ["suply"]})
    with pytest.raises(Exception, match=r"'manifold' is no figure .*: name one of supply, delta_t"):
        LiquidPath.model_validate({**base, "unconfirmed": ["manifold"]})   # documents would show nothing of it


def test_air_and_enclosure_marks_follow_the_same_rule() -> None:
    air = {"class": "A2", "delta_t": "20 K"}
    assert AirPath.model_validate({**air, "unconfirmed": True}).assumed() == AIR_FIGURES
    with pytest.raises(Exception, match=r"'rear_door' is no figure of the rack's air path \(cooling.air\): name one "
                                        r"of class, delta_t"):
        AirPath.model_validate({**air, "unconfirmed": ["rear_door"]})
    ff = {"standard": "eia-19", "height": "48 U", "width": "600 mm", "depth": "1200 mm", "max_payload": "1500 kg",
          "weight": "180 kg"}
    assert FormFactor.model_validate({**ff, "unconfirmed": ["weight"]}).assumed() == ("weight",)
    with pytest.raises(Exception, match=r"'wieght' is no figure of the rack's enclosure \(form_factor\)"):
        FormFactor.model_validate({**ff, "unconfirmed": ["wieght"]})
