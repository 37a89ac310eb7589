"""A document's glossary lists the terms the document uses (newuser22's finding 3).

Before: every document carried one fixed glossary (common.GLOSSARY), so the MI355X cluster document
(specs/clusters/mi355x-th5.yaml: Infinity Fabric mesh, RCCL, Pollara 400 "UEC-ready" NICs, Ethernet) defined NVLink
and XDR InfiniBand, terms it never uses, and had no entry for Infinity Fabric, RCCL or UEC, which it does use.
"""

from __future__ import annotations

import re

from archgen.render import render_all
from archgen.render.glossary import GLOSSARY
from tests.conftest import shared_diagrams
from tests.render.golden_util import table_caption


def _md(run, tmp_path, target: str, audience: str = "internal") -> str:
    with shared_diagrams():
        render_all(run, tmp_path, target=target, formats=("md",), revision="test", progress=False,
                   audience=audience)
    name = target if audience == "internal" else f"{target}.{audience}"   # <target>.customer.md (editions)
    return (tmp_path / target / f"{name}.md").read_text(encoding="utf-8")


def _glossary(md: str) -> tuple[set[str], str]:
    """(terms of the glossary table, the document's text outside it and its references: a cited page's title is not
    the document's word, as NVIDIA's cabling requirements "for InfiniBand NDR/XDR" that the MI355X's optics cite)."""
    head, rest = md.split(table_caption(md, "Glossary*"), 1)
    table, tail = rest.split("<a id=\"references\">", 1)
    table = table.split("Checks this document names", 1)[0]   # the checks' table (`glossary.checks_named`): no terms
    after = tail.split("\n<a id=", 1)[1] if "\n<a id=" in tail else ""   # whatever follows the references
    return set(re.findall(r"^\| ([^|]+?) \| .+ \|$", table, re.M)) - {"Term", "---"}, head + after


def test_the_amd_cluster_defines_what_it_uses_and_nothing_else(shipped_run, tmp_path) -> None:
    terms, text = _glossary(_md(shipped_run, tmp_path, "mi355x-th5"))
    assert {"Infinity Fabric", "RCCL", "UEC"} <= terms
    assert not {"NVLink", "XDR"} & terms
    assert "NVLink" not in text and not re.search(r"\bXDR\b", text)


def test_every_term_listed_is_used_in_both_editions(shipped_run, tmp_path) -> None:
    known = {t for t, _ in GLOSSARY}
    for target in ("mi355x-th5", "gb200-nvl72-su"):
        for audience in ("internal", "customer"):
            terms, text = _glossary(_md(shipped_run, tmp_path / audience, target, audience))
            assert terms and terms <= known
            plain = {t for t in terms if " " not in t and "–" not in t and t != "ΔT"}  # the rest: USES patterns
            assert [t for t in plain if not re.search(rf"\b{re.escape(t)}\b", text)] == [], (target, audience)
