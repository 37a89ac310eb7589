"""Every liquid-loop figure of a shipped rack cites its source, or is marked unconfirmed (an assumption).

lo23cat found the catalog racks' loops (gb200-nvl72, gb300-nvl72, mi355x-compute, tpu-v4-cube: `supply` 40 °C,
`delta_t` 10 K, `racks_per_cdu` 8 or 16, `cdu_count` 2) citing nothing, and a rack had no way to mark them, so
documents printed them as facts. Each figure the cooling analysis and checks read (`LIQUID_FIGURES`) is now either
under the loop's `unconfirmed:` (all of them with `true`) or cited by an entry of its `source:` that starts with the
figure's name and points at a public page or document; the documents then tag the rest "assumed" and COOL016 names
them in `archgen check`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from archgen.model.base import is_marked
from archgen.model.rack import LIQUID_FIGURES, LiquidPath

ROOT = Path(__file__).resolve().parents[1]
#: Every folder of shipped specs whose documents may define racks.
FOLDERS = (ROOT / "specs", ROOT / "examples")
#: A citation: a URL, a repository file, or a named document with its table or section.
CITED = re.compile(r"https?://|\b[\w.-]+/[\w.-]+ [\w./-]+\.(?:md|json|ya?ml|py)\b|\b(?:table|section)\b", re.I)


def _loops() -> list[tuple[str, dict]]:
    """Each liquid path a shipped rack states (a Rack document's, or a rack defined inside a cluster), with where."""
    out = []
    for folder in FOLDERS:
        for f in sorted(folder.rglob("*.yaml")):
            for i, doc in enumerate(yaml.safe_load_all(f.read_text(encoding="utf-8"))):
                if not isinstance(doc, dict):
                    continue
                racks = [doc] if doc.get("kind") == "Rack" else [r for r in doc.get("racks") or []
                                                                   if isinstance(r, dict)]
                for rack in racks:
                    liquid = (rack.get("cooling") or {}).get("liquid")
                    if isinstance(liquid, dict):
                        out.append((f"{f.relative_to(ROOT)}#{i}:{rack.get('id', '')}", liquid))
    return out


LOOPS = _loops()


def test_the_catalog_racks_loops_are_found() -> None:
    ids = {where.rsplit(":", 1)[1] for where, _ in LOOPS}
    assert {"gb200-nvl72", "gb300-nvl72", "mi355x-compute", "tpu-v4-cube"} <= ids


@pytest.mark.parametrize(("where", "liquid"), LOOPS, ids=[w for w, _ in LOOPS])
def test_a_liquid_figure_is_cited_or_unconfirmed(where: str, liquid: dict) -> None:
    marks = liquid.get("unconfirmed", False)
    source = liquid.get("source", "")
    entries = [" ".join(str(s).split()) for s in (source if isinstance(source, list) else [source])]
    for figure in LIQUID_FIGURES:
        cited = [e for e in entries if e.startswith(f"{figure}:") and CITED.search(e)]
        assert is_marked(marks, figure) or cited, (
            f"{where}: cooling.liquid.{figure} ({liquid.get(figure, 'default')}) is neither cited in source: "
            f"('{figure}: <page or document, table>') nor listed under unconfirmed:")


@pytest.mark.parametrize(("where", "liquid"), LOOPS, ids=[w for w, _ in LOOPS])
def test_an_assumed_loop_says_how_it_was_chosen(where: str, liquid: dict) -> None:
    if liquid.get("unconfirmed"):
        assert len(liquid.get("notes", "")) > 40, f"{where}: unconfirmed figures with no notes on their choice"


def test_a_misspelt_mark_is_refused() -> None:
    base = {"cdu": "c", "supply": "40 degC", "delta_t": "10 K", "class": "W32"}
    assert LiquidPath.model_validate({**base, "unconfirmed": ["supply", "class"]}).assumed() == ("supply", "class")
    assert LiquidPath.model_validate({**base, "unconfirmed": True}).assumed() == LIQUID_FIGURES
    with pytest.raises(Exception, match="'suply' is no figure of the rack's liquid loop"):
        LiquidPath.model_validate({**base, "unconfirmed": ["suply"]})
    with pytest.raises(Exception, match=r"'manifold' is no figure .*: name one of supply, delta_t"):
        LiquidPath.model_validate({**base, "unconfirmed": ["manifold"]})   # documents would show nothing of it
