"""Which interruptions a figure counts: the rate set's source's, stated beside the figures (issue 22, rsc40).

Meta's held-out job MTTFs (Kokolis et al., HPCA 2025, Figure 7: 8-GPU jobs 47.7 d, 1,024-GPU jobs 7.9 h) lie
outside archgen's range held out (tests/test_field_data.py), and the paper's own node rate r_f counts only the job
failures it attributes to the infrastructure (node failure, or a failure with a critical health check in the job's
last 10 minutes or the 5 minutes after), while which failures Figure 7 counts is not stated in any text read. An
MTTI is only comparable with a measured MTTF that counts the same interruptions, so each shipped set states what its
source counts (`FailureRates.counts`) and the cluster document says it beside the MTTI; a set that does not state
it is said not to, never read as counting everything.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from archgen.analyse.rate_sets import COUNTED, counted, range_counts
from archgen.model.reliability import FailureRates
from archgen.pipeline import run
from archgen.render.blocks import Para
from archgen.render.operations import reliability_section

DATA = Path(__file__).parents[1] / "data" / "reliability"
RACK = Path(__file__).parents[2] / "specs" / "racks" / "dgx-h100-4.yaml"
OWN = ("kind: FailureRates\nid: ops-own\nname: own\nbase: lablup-b200-2026\nclasses:\n"
       "  accelerator: {afr: 0.13176, events: 10, repair: 72 h, basis: sourced, source: test}\n")


def _first_para(run_, cluster: str) -> str:
    a = run_.clusters[cluster]
    return next(b.text for b in reliability_section(run_, a).blocks if isinstance(b, Para))


#: What each shipped set's source counts (`FailureRates.counts`), from its `counts_note` (docs/reliability.md).
SHIPPED = {"alibaba-hpn-2024": "part", "azure-switches-2021": "part", "byterobust-hopper-2025": "all",
           "field-h100-2024": "all", "glm130b-a100-2022": "infrastructure", "lablup-b200-2026": "part",
           "mpt7b-a100-2023": "all", "opt175b-a100-2021": "all", "rsc1-a100-2024": "infrastructure",
           "rsc1-jobs-a100-2024": "unknown", "rsc2-a100-2024": "infrastructure", "stepfun-nvidia-2024": "infrastructure"}


def test_every_shipped_set_states_what_its_source_counts(shipped):
    sets = {s.id: s for s in shipped.specs.of(FailureRates)}
    assert {i: s.counts for i, s in sets.items()} == SHIPPED
    assert [i for i, s in sorted(sets.items()) if not s.counts_note] == []   # the cited text, kept as the note
    # r_f counts the infrastructure's failures only, Figure 7's job set says its scope is not known
    for rid in ("rsc1-a100-2024", "rsc2-a100-2024"):
        assert "a failure of the user's program alone is not counted" in sets[rid].counts_note
    assert "is not stated in any text read" in sets["rsc1-jobs-a100-2024"].counts_note


def test_counts_is_a_word_of_the_vocabulary():
    """rsc40's free text is refused where the word belongs, with the words it takes; the text goes in the note."""
    spec = {"kind": "FailureRates", "id": "own", "classes": {}, "counts": "every interruption of the job"}
    with pytest.raises(ValidationError, match="'all', 'infrastructure', 'part' or 'unknown'"):
        FailureRates.model_validate(spec)
    rates = FailureRates.model_validate({**spec, "counts": "all", "counts_note": "every interruption of the job"})
    assert counted([rates]) == f"{COUNTED['all']} (every interruption of the job)"


def test_the_document_says_what_the_figures_count(shipped):
    text = _first_para(shipped, "cluster/gb200-nvl72-su")
    h100 = shipped.specs.get("field-h100-2024")
    assert (f"(docs/reliability.md). They count what the set's source counts: every interruption of a job, its own "
            f"code's included ({h100.counts_note}). A job on all 576") in text


def test_the_document_says_the_ranges_sets_count_different_things(shipped):
    """The range spans sets that count different interruptions: the document groups them by what they count."""
    text = _first_para(shipped, "cluster/gb200-nvl72-su")
    by = {c: ", ".join(f"'{i}'" for i, w in sorted(SHIPPED.items()) if w == c) for c in COUNTED}
    assert (f" The range's sets count different interruptions: {COUNTED['all']} ({by['all']}); "
            f"{COUNTED['infrastructure']} ({by['infrastructure']}); {COUNTED['part']} ({by['part']}); "
            f"{COUNTED['unknown']} ({by['unknown']}).") in text
    assert range_counts([("a", "all"), ("b", "all")]) == ""   # one kind: nothing to tell apart
    assert range_counts([("a", "part"), ("b", "")]) == f"{COUNTED['part']} ('a'); not stated ('b')"


def test_a_set_with_a_base_names_what_each_set_of_its_chain_counts(shipped):
    lablup, h100 = shipped.specs.get("lablup-b200-2026"), shipped.specs.get("field-h100-2024")
    assert counted([lablup, h100]) == (f"{COUNTED['part']} ({lablup.counts_note}); its classes from "
                                       f"'field-h100-2024': {COUNTED['all']} ({h100.counts_note})")
    assert counted([]) == ""


def test_a_set_that_does_not_state_it_is_said_not_to(tmp_path):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    (tree / "own.yaml").write_text(OWN, encoding="utf-8")
    cluster = tree / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace(
        "facility: hall-air", "facility: hall-air\nfailure_rates: ops-own"), encoding="utf-8")
    r = run([tree])
    rel = r.operations.reliability["cluster/llama3-16k"]
    assert rel.chain == ("ops-own", "lablup-b200-2026", "field-h100-2024")
    assert rel.counts.startswith("not stated; its classes from 'lablup-b200-2026': one class's or component's failures "
                                 "only (GPU failures identified by XID")
    assert "They count what the set's source counts: not stated; its classes from" in _first_para(
        r, "cluster/llama3-16k")
