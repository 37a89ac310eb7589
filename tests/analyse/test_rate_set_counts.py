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

from archgen.analyse.rate_sets import counted
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


def test_every_shipped_set_states_what_its_source_counts(shipped):
    sets = {s.id: s for s in shipped.specs.of(FailureRates)}
    assert len(sets) == 12
    assert [i for i, s in sorted(sets.items()) if not s.counts] == []
    # r_f counts the infrastructure's failures only, Figure 7's job set says its scope is not known
    for rid in ("rsc1-a100-2024", "rsc2-a100-2024"):
        assert "a failure of the user's program alone is not counted" in sets[rid].counts
    assert "is not stated in any text read" in sets["rsc1-jobs-a100-2024"].counts


def test_the_document_says_what_the_figures_count(shipped):
    text = _first_para(shipped, "cluster/gb200-nvl72-su")
    h100 = shipped.specs.get("field-h100-2024").counts
    assert f"(docs/reliability.md). They count what the set's source counts: {h100}. A job on all 576" in text


def test_a_set_with_a_base_names_what_each_set_of_its_chain_counts(shipped):
    lablup, h100 = shipped.specs.get("lablup-b200-2026"), shipped.specs.get("field-h100-2024")
    assert counted([lablup, h100]) == f"{lablup.counts}; its classes from 'field-h100-2024': {h100.counts}"
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
    assert rel.counts.startswith("not stated; its classes from 'lablup-b200-2026': GPU failures identified by XID")
    assert "They count what the set's source counts: not stated; its classes from" in _first_para(
        r, "cluster/llama3-16k")
