"""Every check's finding reads in the customer's words where the customer edition prints it (edition28).

The customer edition prints `Finding.public_message`: the words a check gives the same fact for a customer
(`Violation.public`), else its message. small27 reworded messages with regexes after the fact, and plain dotted field
names ("power.max", "cooling.liquid.coolant_volume") still reached a customer; the regexes stay as a guard
(`edition_text.LEFTOVER`), and here every finding of every case file, of every check ID, is held to it: no spec key,
path or instruction to the team. Each expected finding of a case file pins its `message` and, where the check gives
one, its `public` words (`tests/checks/update_cases.py`), so this test reads the case files and runs no check.
"""

from __future__ import annotations

import re

import pytest

from archgen.checks import REGISTRY
from archgen.render.edition_text import leftovers
from tests.checks.test_cases import CASES, _load

#: Every expected finding of the case files: (check ID, case name, the customer's words).
PUBLIC = [(doc["check"], case["name"], exp.get("public") or exp["message"])
          for doc in (_load(p) for p in sorted(CASES.glob("*.yml")))
          for case in doc["cases"] for exp in case.get("expect") or []]


def test_every_check_id_with_a_finding_is_read():
    assert {cid for cid, _, _ in PUBLIC} >= set(REGISTRY) - {cid for cid, c in REGISTRY.items() if not _fails(cid)}
    assert len({cid for cid, _, _ in PUBLIC}) >= 120


def _fails(cid: str) -> bool:
    return any(c["name"].startswith(("fail", "info")) for c in _load(CASES / f"{cid}.yml")["cases"])


#: Checks whose findings still quote a spec key or instruct the team where a customer reads them: the customer
#: edition's regex pass (`edition_text.without_code`, `edition.without_spec_paths`) still rewords them after the fact.
#: Each is to give its customer words (`Violation.public`) and leave this list; a check that does fails the test until
#: it leaves. Empty since edition29 worded the last 36: a new check's finding that quotes a key fails here.
PENDING: set[str] = set()


def test_no_customer_text_holds_a_spec_key_path_or_instruction():
    found: dict[str, list[str]] = {}
    for cid, name, text in PUBLIC:
        if hits := leftovers(text):
            found.setdefault(cid, []).append(f"{name}: {hits}")
    assert {cid: hits for cid, hits in found.items() if cid not in PENDING} == {}
    assert sorted(PENDING - set(found)) == [], "these checks now give customer words: take them off PENDING"


#: What a sentence a customer reads does not have: doubled spaces, a space before punctuation, an empty bracket, a
#: clause left dangling where words were taken out.
_BROKEN = re.compile(r"  | (?!\.\.\.)[,;:.)]|\(\s*\)|\(\s*[,;]|[,;]\s*\)|[,;:]\s*$|^\s|\s$|;\s*;|,\s*,")


@pytest.mark.parametrize("family", sorted({re.match(r"[A-Z]+", c).group(0) for c in REGISTRY}))
def test_a_finding_of_each_family_reads_as_a_sentence(family):
    texts = [text for cid, _, text in PUBLIC if re.match(r"[A-Z]+", cid).group(0) == family and cid not in PENDING]
    assert texts, family
    broken = [t for t in texts if _BROKEN.search(t) or t.count("(") != t.count(")")]
    assert broken == []


def test_a_withheld_metric_is_named_in_words() -> None:
    """review39: REQ002 on a rack's floor load that leaves parts out read "rack/r's floor_load is not provided:
    floor_load is at least 971.1 kg/m²" in the customer's words; the key is its title in a sentence, and a word that
    only contains it (a `floor_load` in backticks, `max_floor_load`) is left alone."""
    from archgen.checks.requirements import _said

    text = "REQ-1: rack/r's floor_load is not provided: floor_load is at least 971.1 kg/m² (`floor_load`, max_floor_load)"
    assert _said(text, "floor_load", "rack/r") == ("REQ-1: rack/r's floor load is not provided: floor load is at least "
                                                    "971.1 kg/m² (`floor_load`, max_floor_load)")
    assert _said("REQ-2: rack/r's weight is not provided", "weight", "rack/r") == ""   # its words already


def test_every_layout_field_reads_in_words_from_the_one_table():
    """tidy35: PERF002's nearest layout had its own `micro_batch` → "micro-batch", PERF003's divisibility rule its
    own words and the customer edition its own ("micro batch=1"); all take a field's words from `field_words.said`
    (`workload.layout_said` for every `Parallelism` field)."""
    import pickle

    from archgen.model.workload import Parallelism, layout_said
    from archgen.perf.train.layout_rules import LayoutProblem

    for key in Parallelism.model_fields:
        assert leftovers(layout_said(f"the nearest, tp 1, {key} 2, zero 1")) == [], key
    assert layout_said("dp 16, micro_batch 1, interleave 1") == "dp 16, micro-batch size 1, interleave 1"
    # a key in backticks, part of a longer name or of a dotted key is not a bare field
    assert layout_said("`micro_batch`, micro_batches, training.micro_batch") == \
        "`micro_batch`, micro_batches, training.micro_batch"
    problem = LayoutProblem("interleave", "state pipeline_layout 'Et|tL' with first_stage_layers unset")
    assert problem.public == "state pipeline layout 'Et|tL' with first stage layers unset"
    # the customer edition words a bare key it meets in a document (the estimate's layout line) from the same table
    from archgen.render.edition import reworded
    assert reworded("layout tp=4, micro_batch=1, interleave=1.") == "layout tp=4, micro-batch size=1, interleave=1."
    back = pickle.loads(pickle.dumps(problem))
    assert (back, back.field, back.public) == (problem, "interleave", problem.public)
